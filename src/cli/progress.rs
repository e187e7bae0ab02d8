//! Telling the user what a long-running command is doing.
//!
//! Three forms: `-o json` writes one JSON event per line on stdout; on a terminal, a live table (object,
//! status, message, elapsed) is redrawn in place on stderr; elsewhere (CI logs, pipes) one line per status
//! change and, every second, one line naming the first not-ready object (seed 000).

use berth::apply::ApplyEvent;
use berth::object::ObjectRef;
use berth::status::Status;
use berth::wait::WaitEvent;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Where progress goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// One JSON event per line on stdout.
    Json,
    /// A table redrawn in place on stderr (a terminal).
    Live { color: bool },
    /// Plain lines on stderr.
    Lines,
}

impl ProgressMode {
    /// Picks the form for `json` output or a human, from whether stderr is a terminal and `NO_COLOR`.
    pub fn detect(json: bool) -> ProgressMode {
        if json {
            return ProgressMode::Json;
        }
        if std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |term| term != "dumb") {
            ProgressMode::Live { color: std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty()) }
        } else {
            ProgressMode::Lines
        }
    }
}

struct Row {
    status: Status,
    message: String,
    since: Instant,
}

/// Renders events as they come.
pub struct Progress {
    mode: ProgressMode,
    rows: BTreeMap<ObjectRef, Row>,
    drawn_lines: usize,
    last_draw: Option<Instant>,
}

impl Progress {
    pub fn new(mode: ProgressMode) -> Progress {
        Progress { mode, rows: BTreeMap::new(), drawn_lines: 0, last_draw: None }
    }

    pub fn on_event(&mut self, event: &ApplyEvent) {
        if let (ApplyEvent::HookLog { log, .. }, ProgressMode::Live { color }) = (event, self.mode) {
            // A hook's log goes above the table, as it was written.
            self.clear();
            write_log(log);
            self.redraw(color);
            return;
        }
        match self.mode {
            ProgressMode::Json => json_line(event),
            ProgressMode::Lines => {
                // A readiness gate and the final wait may both report the same status: print it once.
                let repeated = match event {
                    ApplyEvent::Wait(WaitEvent::StatusChanged { object, status, message }) => {
                        self.rows.get(object).is_some_and(|row| row.status == *status && row.message == *message)
                    }
                    _ => false,
                };
                self.remember(event);
                if let ApplyEvent::HookLog { log, .. } = event {
                    write_log(log);
                } else if !repeated && let Some(line) = plain_line(event) {
                    eprintln!("{line}");
                }
            }
            ProgressMode::Live { color } => {
                self.remember(event);
                let is_tick = matches!(event, ApplyEvent::Wait(WaitEvent::Waiting { .. }));
                let recent = self.last_draw.is_some_and(|last| last.elapsed() < Duration::from_millis(100));
                if is_tick || !recent {
                    self.redraw(color);
                }
            }
        }
    }

    /// Clears the live table so the summary follows cleanly.
    pub fn finish(&mut self) {
        if let ProgressMode::Live { color } = self.mode {
            self.redraw(color);
        }
    }

    fn remember(&mut self, event: &ApplyEvent) {
        let (object, status, message) = match event {
            ApplyEvent::Applied { object } => (object, Status::Unknown, "Applied".to_string()),
            ApplyEvent::Deleted { object } => (object, Status::Terminating, "Deletion requested".to_string()),
            ApplyEvent::Unchanged { object } => (object, Status::Unknown, "Unchanged".to_string()),
            ApplyEvent::ApplyFailed { object, message } => (object, Status::Failed, message.clone()),
            ApplyEvent::Skipped { object, message } => (object, Status::NotFound, message.clone()),
            ApplyEvent::Wait(WaitEvent::StatusChanged { object, status, message }) => {
                (object, *status, message.clone())
            }
            ApplyEvent::HookStarted { object, hook } => (object, Status::InProgress, format!("{hook} hook started")),
            ApplyEvent::HookSucceeded { object, hook } => (object, Status::Current, format!("{hook} hook succeeded")),
            ApplyEvent::HookFailed { object, hook, message } => {
                (object, Status::Failed, format!("{hook} hook failed: {message}"))
            }
            ApplyEvent::HookDeleted { object, hook, policy } => {
                (object, Status::NotFound, format!("{hook} hook deleted ({policy})"))
            }
            ApplyEvent::Wait(WaitEvent::Waiting { .. }) | ApplyEvent::External { .. } | ApplyEvent::HookLog { .. } => {
                return;
            }
        };
        let row = self.rows.entry(object.clone()).or_insert_with(|| Row {
            status,
            message: String::new(),
            since: Instant::now(),
        });
        if row.status != status {
            row.since = Instant::now();
        }
        row.status = status;
        row.message = message;
    }

    /// Removes the drawn table (the next redraw starts where it began).
    fn clear(&mut self) {
        if self.drawn_lines > 0 {
            // Up to the first line of the previous table, then clear to the end of the screen.
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\x1b[{}F\x1b[J", self.drawn_lines);
            let _ = stderr.flush();
            self.drawn_lines = 0;
        }
    }

    fn redraw(&mut self, color: bool) {
        let mut text = String::new();
        if self.drawn_lines > 0 {
            // Up to the first line of the previous table, then clear to the end of the screen.
            text.push_str(&format!("\x1b[{}F\x1b[J", self.drawn_lines));
        }
        let width = self.rows.keys().map(|object| display_name(object).len()).max().unwrap_or(0).max(8);
        for (object, row) in &self.rows {
            let status = format!("{:<11}", row.status.as_str());
            let status = if color { paint(row.status, &status) } else { status };
            let elapsed = row.since.elapsed().as_secs();
            text.push_str(&format!(
                "{:<width$}  {status}  {:>4}s  {}\n",
                display_name(object),
                elapsed,
                truncate(&row.message, 80)
            ));
        }
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(text.as_bytes());
        let _ = stderr.flush();
        self.drawn_lines = self.rows.len();
        self.last_draw = Some(Instant::now());
    }
}

/// A hook's log on stderr, as Helm 4 prints it ([`helm_log_line`]).
fn write_log(log: &str) {
    if log.is_empty() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(helm_log_line(log).as_bytes());
    let _ = stderr.flush();
}

/// How Helm 4 prints a hook's log: it copies the log to Go's `log.Writer()`, which Helm's `slog.SetDefault`
/// turned into one `INFO` record per write, through a text handler without time: `level=INFO msg=...`, the
/// final line break dropped and the message quoted when slog's `needsQuoting` says so (spaces, `=`, `"`,
/// control characters, non-printing runes). berth writes each container's log at once (Helm's copy writes
/// as the stream's reads return, so a long log may come in several records there).
pub fn helm_log_line(log: &str) -> String {
    let message = log.strip_suffix('\n').unwrap_or(log);
    let needs_quoting = message.is_empty()
        || message.chars().any(|character| match character {
            ' ' | '=' | '"' => true,
            '\\' => false,
            character if character.is_ascii() => character.is_ascii_control(),
            character => character == '\u{fffd}' || character.is_whitespace() || !is_print(character),
        });
    if needs_quoting {
        format!("level=INFO msg={}\n", berth_template::go_quote(message))
    } else {
        format!("level=INFO msg={message}\n")
    }
}

/// Go's `unicode.IsPrint` outside ASCII, approximated as berth-template's `strconv` port approximates it:
/// controls, spaces, format characters, surrogates, private use and non-characters do not print.
fn is_print(character: char) -> bool {
    !(character.is_control()
        || character.is_whitespace()
        || matches!(character as u32,
            0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E
            | 0x2060..=0x206F | 0xE000..=0xF8FF | 0xFEFF | 0xFFF9..=0xFFFB | 0xFFFE | 0xFFFF | 0x110BD
            | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F | 0xF0000..=0x10FFFF))
}

fn json_line(event: &ApplyEvent) {
    if let Ok(line) = serde_json::to_string(event) {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    }
}

/// The plain-text line for an event, `None` for events that only feed the table.
pub fn plain_line(event: &ApplyEvent) -> Option<String> {
    Some(match event {
        ApplyEvent::Applied { object } => format!("applied {}", display_name(object)),
        ApplyEvent::Deleted { object } => format!("deleted {}", display_name(object)),
        ApplyEvent::Unchanged { object } => format!("unchanged {}", display_name(object)),
        ApplyEvent::ApplyFailed { object, message } => format!("failed to apply {}: {message}", display_name(object)),
        ApplyEvent::Skipped { object, message } => format!("skipped {}: {message}", display_name(object)),
        ApplyEvent::External { dependency, message } => format!("external dependency {dependency}: {message}"),
        ApplyEvent::Wait(WaitEvent::StatusChanged { object, status, message }) => {
            format!("{} is {status}: {message}", display_name(object))
        }
        ApplyEvent::Wait(WaitEvent::Waiting { object, status, message, ready, total }) => {
            format!("waiting for {} ({status}: {message}); {ready}/{total} ready", display_name(object))
        }
        ApplyEvent::HookStarted { object, hook } => format!("{hook} hook {} started", display_name(object)),
        ApplyEvent::HookSucceeded { object, hook } => format!("{hook} hook {} succeeded", display_name(object)),
        ApplyEvent::HookFailed { object, hook, message } => {
            format!("{hook} hook {} failed: {message}", display_name(object))
        }
        ApplyEvent::HookDeleted { object, hook, policy } => {
            format!("{hook} hook {} deleted ({policy})", display_name(object))
        }
        ApplyEvent::HookLog { .. } => return None,
    })
}

/// `Kind/namespace/name` as kubectl users read it.
pub fn display_name(object: &ObjectRef) -> String {
    object.to_string()
}

fn truncate(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let mut short: String = text.chars().take(limit.saturating_sub(1)).collect();
    short.push('…');
    short
}

fn paint(status: Status, text: &str) -> String {
    let code = match status {
        Status::Current => "32",
        Status::Failed => "31",
        Status::InProgress | Status::Terminating => "33",
        Status::NotFound | Status::Unknown => "90",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> ObjectRef {
        ObjectRef {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: Some("shop".into()),
            name: "web".into(),
        }
    }

    #[test]
    fn plain_lines_name_the_object_status_and_message() {
        let changed = ApplyEvent::Wait(WaitEvent::StatusChanged {
            object: web(),
            status: Status::InProgress,
            message: "Ready: 1/3".into(),
        });
        assert_eq!(plain_line(&changed).as_deref(), Some("Deployment/shop/web is InProgress: Ready: 1/3"));
        let waiting = ApplyEvent::Wait(WaitEvent::Waiting {
            object: web(),
            status: Status::InProgress,
            message: "Ready: 1/3".into(),
            ready: 2,
            total: 5,
        });
        assert_eq!(
            plain_line(&waiting).as_deref(),
            Some("waiting for Deployment/shop/web (InProgress: Ready: 1/3); 2/5 ready")
        );
        assert_eq!(plain_line(&ApplyEvent::Applied { object: web() }).as_deref(), Some("applied Deployment/shop/web"));
    }

    #[test]
    fn json_events_are_tagged_and_flat() {
        let event =
            ApplyEvent::Wait(WaitEvent::StatusChanged { object: web(), status: Status::Current, message: "ok".into() });
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(value["event"], "statusChanged");
        assert_eq!(value["name"], "web");
        assert_eq!(value["status"], "Current");
        let applied = serde_json::to_value(ApplyEvent::Applied { object: web() }).unwrap();
        assert_eq!(
            applied,
            serde_json::json!({"event": "applied", "apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"})
        );
    }

    #[test]
    fn hook_logs_print_as_helms_slog_records() {
        let cases = [
            ("migrated 3 tables\ndone\n", "level=INFO msg=\"migrated 3 tables\\ndone\"\n"),
            ("ok\n", "level=INFO msg=ok\n"),
            ("ok\n\n", "level=INFO msg=\"ok\\n\"\n"),
            ("a\\b", "level=INFO msg=a\\b\n"),
            ("k=v", "level=INFO msg=\"k=v\"\n"),
            ("\n", "level=INFO msg=\"\"\n"),
            ("héllo", "level=INFO msg=héllo\n"),
            ("tab\there", "level=INFO msg=\"tab\\there\"\n"),
        ];
        for (log, expected) in cases {
            assert_eq!(helm_log_line(log), expected, "{log:?}");
        }
    }

    #[test]
    fn long_messages_are_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
