//! Telling the user what a long-running command is doing.
//!
//! Four forms: `--progress none` shows nothing but hooks' logs; `--progress json` (`-o json` of `apply`, `wait`,
//! `delete`) writes one JSON event per line on stdout; on a terminal, a live table (object,
//! status, message, elapsed) is redrawn in place on stderr; elsewhere (CI logs, pipes) one line per status
//! change and, every second, one line naming the first not-ready object (seed 000).
//!
//! The events come from the work through a channel ([`Progress::follow`]): the work emits them as it goes and
//! never waits for the terminal; they are shown in order, all of them before the work's result.

use super::live::{Header, LiveTable, Row};
use berth::apply::ApplyEvent;
use berth::events::Emitter;
use berth::object::ObjectRef;
use berth::status::Status;
use berth::wait::WaitEvent;
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
    /// Nothing but hooks' logs (on stderr, where Helm writes them): `--progress=none`, and berth as `helm`.
    Silent,
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

/// What the command is after: which rows count as done in the live table's header and order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Every object ready (Current).
    Ready,
    /// Every object applied (no wait).
    Applied,
    /// Every object gone.
    Deleted,
}

/// One object as the live table shows it.
struct Tracked {
    row: Row,
    /// When its status last changed.
    changed: Instant,
    done: bool,
}

/// Renders events as they come.
pub struct Progress {
    mode: ProgressMode,
    goal: Goal,
    started: Instant,
    /// The run's time limit, for the header's deadline.
    timeout: Option<Duration>,
    /// The objects in plan order (as announced), then any others in the order they appeared.
    rows: Vec<Tracked>,
    table: Option<LiveTable>,
}

impl Progress {
    pub fn new(mode: ProgressMode, goal: Goal, timeout: Option<Duration>) -> Progress {
        let table = matches!(mode, ProgressMode::Live { .. }).then(LiveTable::stderr);
        Progress { mode, goal, started: Instant::now(), timeout, rows: Vec::new(), table }
    }

    /// Runs `work` with the emitter of its events, showing each event as it comes; returns what `work` returns
    /// once every event it emitted was shown (the stream ends when `work` drops its emitter, at its end).
    pub async fn follow<T>(&mut self, work: impl AsyncFnOnce(Emitter<ApplyEvent>) -> T) -> T {
        let (events, mut received) = Emitter::channel();
        let showing = async {
            while let Some(event) = received.recv().await {
                self.on_event(&event);
            }
        };
        let (result, ()) = tokio::join!(work(events), showing);
        result
    }

    pub fn on_event(&mut self, event: &ApplyEvent) {
        if let (ApplyEvent::HookLog { log, .. }, Some(table)) = (event, &self.table) {
            // A hook's log goes above the table, as it was written.
            if !log.is_empty() {
                table.above(helm_log_line(log).trim_end_matches('\n'));
            }
            return;
        }
        match self.mode {
            ProgressMode::Json => json_line(event),
            ProgressMode::Silent => {
                if let ApplyEvent::HookLog { log, .. } = event {
                    write_log(log);
                }
            }
            ProgressMode::Lines => {
                // A readiness gate and the final wait may both report the same status: print it once.
                let repeated = match event {
                    ApplyEvent::Wait(WaitEvent::StatusChanged { object, status, message }) => self
                        .find(object)
                        .is_some_and(|tracked| tracked.row.status == *status && tracked.row.message == *message),
                    _ => false,
                };
                self.remember(event);
                if let ApplyEvent::HookLog { log, .. } = event {
                    write_log(log);
                } else if !repeated && let Some(line) = plain_line(event) {
                    eprintln!("{}", super::scrubbing::scrub(&line));
                }
            }
            ProgressMode::Live { color } => {
                self.remember(event);
                self.draw(color);
            }
        }
    }

    /// Clears the live table: the final report is printed once, in its place.
    pub fn finish(&mut self) {
        if let Some(table) = &self.table {
            table.clear();
        }
    }

    fn find(&self, object: &ObjectRef) -> Option<&Tracked> {
        self.rows.iter().find(|tracked| tracked.row.object == *object)
    }

    fn remember(&mut self, event: &ApplyEvent) {
        if let ApplyEvent::Planned { objects } = event {
            for object in objects {
                self.track(object, Status::Unknown, "Not applied yet".to_string(), false);
            }
            return;
        }
        let applied = self.goal == Goal::Applied;
        let (object, status, message, done) = match event {
            ApplyEvent::Applied { object } => (object, Status::Unknown, "Applied".to_string(), applied),
            ApplyEvent::Deleted { object } => (object, Status::Terminating, "Deletion requested".to_string(), false),
            ApplyEvent::Unchanged { object } => (object, Status::Unknown, "Unchanged".to_string(), applied),
            ApplyEvent::ApplyFailed { object, message } => (object, Status::Failed, message.clone(), false),
            ApplyEvent::Skipped { object, message } => (object, Status::NotFound, message.clone(), false),
            ApplyEvent::Wait(WaitEvent::StatusChanged { object, status, message }) => {
                let done = match self.goal {
                    Goal::Ready => *status == Status::Current,
                    Goal::Deleted => *status == Status::NotFound,
                    Goal::Applied => applied,
                };
                (object, *status, message.clone(), done)
            }
            ApplyEvent::HookStarted { object, hook } => {
                (object, Status::InProgress, format!("{hook} hook started"), false)
            }
            ApplyEvent::HookSucceeded { object, hook } => {
                (object, Status::Current, format!("{hook} hook succeeded"), true)
            }
            ApplyEvent::HookFailed { object, hook, message } => {
                (object, Status::Failed, format!("{hook} hook failed: {message}"), false)
            }
            ApplyEvent::HookDeleted { object, hook, policy } => {
                (object, Status::NotFound, format!("{hook} hook deleted ({policy})"), true)
            }
            ApplyEvent::Planned { .. }
            | ApplyEvent::Wait(WaitEvent::Waiting { .. })
            | ApplyEvent::External { .. }
            | ApplyEvent::HookLog { .. } => {
                return;
            }
        };
        self.track(object, status, message, done);
    }

    fn track(&mut self, object: &ObjectRef, status: Status, message: String, done: bool) {
        let now = Instant::now();
        match self.rows.iter_mut().find(|tracked| tracked.row.object == *object) {
            Some(tracked) => {
                if tracked.row.status != status {
                    tracked.changed = now;
                }
                // Once applied, an object stays applied whatever its wait says.
                tracked.done = done || (tracked.done && self.goal == Goal::Applied);
                tracked.row.status = status;
                tracked.row.message = super::scrubbing::scrub(&message).into_owned();
            }
            None => self.rows.push(Tracked {
                row: Row {
                    object: object.clone(),
                    status,
                    message: super::scrubbing::scrub(&message).into_owned(),
                    since: Duration::ZERO,
                    done,
                },
                changed: now,
                done,
            }),
        }
    }

    fn draw(&mut self, color: bool) {
        let Some(table) = &self.table else { return };
        let now = Instant::now();
        let rows: Vec<Row> = self
            .rows
            .iter()
            .map(|tracked| Row {
                since: now.duration_since(tracked.changed),
                done: tracked.done,
                ..tracked.row.clone()
            })
            .collect();
        let elapsed = self.started.elapsed();
        let header = Header { elapsed, remaining: self.timeout.map(|timeout| timeout.saturating_sub(elapsed)) };
        table.draw(&rows, header, color);
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
    super::helm_log::line("INFO", log.strip_suffix('\n').unwrap_or(log), &[])
}

fn json_line(event: &ApplyEvent) {
    if let Ok(line) = serde_json::to_string(event) {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{}", super::scrubbing::scrub(&line));
        let _ = stdout.flush();
    }
}

/// The plain-text line for an event, `None` for events that only feed the table.
pub fn plain_line(event: &ApplyEvent) -> Option<String> {
    Some(match event {
        ApplyEvent::Planned { .. } => return None,
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
}
