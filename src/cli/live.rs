//! The live table on a terminal: a frame laid out for the terminal's size, drawn in place by indicatif.
//!
//! The frame is a header (`3/7 ready, 12s elapsed, deadline in 4m48s`), column titles, then one row per
//! object: those not ready first, each group in plan order, every row fitted to the terminal's width. When
//! the rows do not fit its height, the last line says how many more there are (`… and 12 more ready`), so
//! nothing scrolls: indicatif redraws the same lines, and the frame is cleared at the end, where the final
//! table is printed once. Layout is pure ([`frame`]); [`LiveTable`] draws it through any indicatif
//! `TermLike`, which lets the tests draw into a terminal emulator (vt100) at a chosen size.
//!
//! indicatif rather than ratatui: the table is a block of lines redrawn in place, which is what indicatif
//! does, and it builds in a fraction of ratatui and crossterm's time (docs/BENCHMARKS.md).

use berth::object::ObjectRef;
use berth::status::Status;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::time::Duration;

/// One object's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub object: ObjectRef,
    pub status: Status,
    pub message: String,
    /// How long it has had this status.
    pub since: Duration,
    /// Ready, applied or gone, as the command goes: listed after the rows that are not.
    pub done: bool,
}

/// What the header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub elapsed: Duration,
    /// Time left before the run's timeout; `None` without one.
    pub remaining: Option<Duration>,
}

const STATUS_WIDTH: usize = 11;
const FOR_WIDTH: usize = 5;
const GAP: &str = "  ";

/// The lines of one frame, at most `height - 1` of them (the cursor's line stays free), none wider than
/// `width - 1` characters. `rows` are in plan order.
pub fn frame(rows: &[Row], header: Header, width: usize, height: usize, color: bool) -> Vec<String> {
    let width = width.saturating_sub(1).max(20);
    let ready = rows.iter().filter(|row| row.done).count();
    let mut lines = vec![fit(&header_text(ready, rows.len(), header), width)];
    let room = height.saturating_sub(1 + lines.len() + 1);
    if room == 0 {
        return lines;
    }
    let ordered: Vec<&Row> = rows.iter().filter(|row| !row.done).chain(rows.iter().filter(|row| row.done)).collect();
    let (shown, hidden) =
        if ordered.len() <= room { (ordered.len(), 0) } else { (room - 1, ordered.len() - (room - 1)) };
    let names: Vec<String> = ordered.iter().map(|row| row.object.to_string()).collect();
    let longest = names.iter().take(shown).map(|name| name.chars().count()).max().unwrap_or(0).max("OBJECT".len());
    let name_width = longest.min(width / 2);
    let message_width = width.saturating_sub(name_width + STATUS_WIDTH + FOR_WIDTH + 3 * GAP.len());
    lines.push(fit(
        &format!("{:<name_width$}{GAP}{:<STATUS_WIDTH$}{GAP}{:>FOR_WIDTH$}{GAP}MESSAGE", "OBJECT", "STATUS", "FOR"),
        width,
    ));
    for (row, name) in ordered.iter().zip(&names).take(shown) {
        let status = format!("{:<STATUS_WIDTH$}", row.status.as_str());
        let status = if color { paint(row.status, &status) } else { status };
        let message = fit(&row.message.replace(['\n', '\r', '\t'], " "), message_width);
        lines.push(format!(
            "{:<name_width$}{GAP}{status}{GAP}{:>FOR_WIDTH$}{GAP}{message}",
            fit(name, name_width),
            short_duration(row.since)
        ));
    }
    if hidden > 0 {
        let hidden_rows = &ordered[shown..];
        let not_ready = hidden_rows.iter().filter(|row| !row.done).count();
        let text = if not_ready == 0 {
            format!("… and {hidden} more ready")
        } else {
            format!("… and {hidden} more ({not_ready} not ready)")
        };
        lines.push(fit(&text, width));
    }
    lines
}

fn header_text(ready: usize, total: usize, header: Header) -> String {
    let deadline = match header.remaining {
        Some(remaining) => format!("deadline in {}", long_duration(remaining)),
        None => "no deadline".to_string(),
    };
    format!("{ready}/{total} ready, {} elapsed, {deadline}", long_duration(header.elapsed))
}

/// `text` cut to `width` characters, the last one `…` when it was cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut short: String = text.chars().take(width.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// `4s`, `12m`, `3h` in at most five characters.
fn short_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..=99 => format!("{seconds}s"),
        100..=5999 => format!("{}m", seconds / 60),
        _ => format!("{}h", seconds / 3600),
    }
}

/// `12s`, `4m48s`, `1h02m`.
fn long_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..=59 => format!("{seconds}s"),
        60..=3599 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds / 60 % 60),
    }
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

/// The table drawn in place on a terminal.
pub struct LiveTable {
    bar: ProgressBar,
    size: Box<dyn Fn() -> (usize, usize) + Send + Sync>,
}

impl LiveTable {
    /// On stderr, sized as stderr's terminal is at each frame.
    pub fn stderr() -> LiveTable {
        let term = console::Term::stderr();
        LiveTable::on(
            Box::new(term.clone()),
            Box::new(move || {
                let (height, width) = term.size();
                (usize::from(width), usize::from(height))
            }),
        )
    }

    /// On any terminal-like target; `size` gives (width, height).
    pub fn on(target: Box<dyn TermLike>, size: Box<dyn Fn() -> (usize, usize) + Send + Sync>) -> LiveTable {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::term_like(target));
        if let Ok(style) = ProgressStyle::with_template("{msg}") {
            bar.set_style(style);
        }
        LiveTable { bar, size }
    }

    /// Draws a frame of `rows`.
    pub fn draw(&self, rows: &[Row], header: Header, color: bool) {
        let (width, height) = (self.size)();
        let frame = frame(rows, header, width, height, color).join("\n");
        self.bar.set_message(super::scrubbing::scrub(&frame).into_owned());
    }

    /// Writes `line` above the table (a hook's log), which is redrawn below it.
    pub fn above(&self, line: &str) {
        self.bar.println(line);
    }

    /// Clears the table: the final report follows in its place.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;
    use std::sync::{Arc, Mutex};

    /// A terminal-like sink that writes the ANSI sequences a terminal receives into a vt100 emulator.
    #[derive(Clone)]
    struct Emulator {
        screen: Arc<Mutex<vt100::Parser>>,
        width: u16,
        height: u16,
    }

    impl Emulator {
        fn new(width: u16, height: u16) -> Emulator {
            let size = |value: u16| std::num::NonZeroU16::new(value).expect("a size");
            Emulator {
                screen: Arc::new(Mutex::new(vt100::Parser::new(size(height), size(width), 1000))),
                width,
                height,
            }
        }

        fn feed(&self, bytes: &str) -> io::Result<()> {
            self.screen.lock().map_err(|_| io::Error::other("poisoned"))?.process(bytes.as_bytes());
            Ok(())
        }

        fn rows(&self) -> Vec<String> {
            let parser = self.screen.lock().expect("screen");
            parser.screen().rows(0, self.width).map(|row| row.trim_end().to_string()).collect()
        }

        /// Lines that went off the top of the screen.
        fn scrolled_off(&self) -> usize {
            let mut parser = self.screen.lock().expect("screen");
            parser.screen_mut().set_scrollback(usize::MAX);
            let scrolled = parser.screen().scrollback();
            parser.screen_mut().set_scrollback(0);
            scrolled
        }
    }

    impl std::fmt::Debug for Emulator {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "Emulator({}x{})", self.width, self.height)
        }
    }

    impl TermLike for Emulator {
        fn width(&self) -> u16 {
            self.width
        }
        fn height(&self) -> u16 {
            self.height
        }
        fn move_cursor_up(&self, n: usize) -> io::Result<()> {
            if n > 0 { self.feed(&format!("\x1b[{n}A")) } else { Ok(()) }
        }
        fn move_cursor_down(&self, n: usize) -> io::Result<()> {
            if n > 0 { self.feed(&format!("\x1b[{n}B")) } else { Ok(()) }
        }
        fn move_cursor_right(&self, n: usize) -> io::Result<()> {
            if n > 0 { self.feed(&format!("\x1b[{n}C")) } else { Ok(()) }
        }
        fn move_cursor_left(&self, n: usize) -> io::Result<()> {
            if n > 0 { self.feed(&format!("\x1b[{n}D")) } else { Ok(()) }
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.feed(&format!("{s}\r\n"))
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.feed(s)
        }
        fn clear_line(&self) -> io::Result<()> {
            self.feed("\r\x1b[2K")
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    fn deployment(index: usize, status: Status) -> Row {
        Row {
            object: ObjectRef {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                namespace: Some("shop".into()),
                name: format!("web-{index:02}"),
            },
            status,
            message: format!(
                "Deployment does not have minimum availability. Updated: 1/3, ready: 0/3, {}",
                "x".repeat(150)
            ),
            since: Duration::from_secs(index as u64),
            done: status == Status::Current,
        }
    }

    fn table_on(emulator: &Emulator) -> LiveTable {
        let (width, height) = (usize::from(emulator.width), usize::from(emulator.height));
        LiveTable::on(Box::new(emulator.clone()), Box::new(move || (width, height)))
    }

    const HEADER: Header = Header { elapsed: Duration::from_secs(72), remaining: Some(Duration::from_secs(228)) };

    /// 60 Deployments in 80x24: the frame fits, not-ready rows first in plan order, the rest summed up, and
    /// redraws go nowhere near the scrollback (604 lines went there before).
    #[test]
    fn sixty_objects_fit_an_80_by_24_terminal() {
        let emulator = Emulator::new(80, 24);
        let table = table_on(&emulator);
        let mut rows: Vec<Row> = (0..60)
            .map(|index| deployment(index, if index % 3 == 0 { Status::InProgress } else { Status::Current }))
            .collect();
        for frame in 0..15 {
            rows[frame].since = Duration::from_secs(frame as u64);
            table.draw(&rows, HEADER, false);
        }
        let screen = emulator.rows();
        assert_eq!(screen[0], "40/60 ready, 1m12s elapsed, deadline in 3m48s");
        assert_eq!(screen[1], "OBJECT                  STATUS         FOR  MESSAGE");
        assert!(
            screen[2].starts_with("Deployment/shop/web-00  InProgress      0s  Deployment does not have minimum"),
            "{}",
            screen[2]
        );
        assert!(screen[3].starts_with("Deployment/shop/web-03  InProgress      3s  "), "{}", screen[3]);
        assert_eq!(screen[22], "… and 40 more ready");
        assert!(screen.iter().all(|line| line.chars().count() < 80), "{screen:#?}");
        assert!(screen[2].ends_with('…'), "messages are cut at the width: {}", screen[2]);
        assert_eq!(screen[23], "");
        assert_eq!(emulator.scrolled_off(), 0, "no frame went to the scrollback");
        table.clear();
        assert!(emulator.rows().iter().all(String::is_empty), "the frame is cleared for the final table");
    }

    /// At 200x50 everything fits and messages use the width.
    #[test]
    fn a_wide_terminal_shows_every_row_and_longer_messages() {
        let emulator = Emulator::new(200, 50);
        let table = table_on(&emulator);
        let rows: Vec<Row> =
            (0..30).map(|index| deployment(index, if index < 25 { Status::Current } else { Status::Failed })).collect();
        table.draw(&rows, Header { elapsed: Duration::from_secs(5), remaining: None }, false);
        let screen = emulator.rows();
        assert_eq!(screen[0], "25/30 ready, 5s elapsed, no deadline");
        assert!(screen[2].starts_with("Deployment/shop/web-25  Failed         25s  "), "{}", screen[2]);
        assert!(screen[7].starts_with("Deployment/shop/web-00  Current         0s  "), "{}", screen[7]);
        assert!(screen[31].starts_with("Deployment/shop/web-24  Current        24s  "), "{}", screen[31]);
        assert_eq!(screen[32], "");
        let longest = screen.iter().map(|line| line.chars().count()).max().unwrap_or(0);
        assert_eq!(longest, 199, "messages fill the width and no more");
        assert!(screen[2].chars().count() > 120, "not cut at 120 characters any more");
    }

    /// A frame shrinks and grows without leaving stale rows behind.
    #[test]
    fn redraws_leave_no_stale_rows() {
        let emulator = Emulator::new(80, 24);
        let table = table_on(&emulator);
        let many: Vec<Row> = (0..10).map(|index| deployment(index, Status::InProgress)).collect();
        table.draw(&many, HEADER, false);
        table.draw(&many[..3], HEADER, false);
        let screen = emulator.rows();
        assert!(screen[4].starts_with("Deployment/shop/web-02"), "{}", screen[4]);
        assert!(screen[5..].iter().all(String::is_empty), "{screen:#?}");
    }

    /// A hook's log goes above the frame, which is drawn again below it.
    #[test]
    fn logs_go_above_the_frame() {
        let emulator = Emulator::new(80, 24);
        let table = table_on(&emulator);
        let rows: Vec<Row> = (0..3).map(|index| deployment(index, Status::InProgress)).collect();
        table.draw(&rows, HEADER, false);
        table.above("level=INFO msg=\"migrated 3 tables\"");
        let screen = emulator.rows();
        assert_eq!(screen[0], "level=INFO msg=\"migrated 3 tables\"");
        assert_eq!(screen[1], "0/3 ready, 1m12s elapsed, deadline in 3m48s");
        assert!(screen[5].starts_with("Deployment/shop/web-02"), "{screen:#?}");
        assert!(screen[6..].iter().all(String::is_empty), "{screen:#?}");
        table.clear();
        assert_eq!(emulator.rows()[0], "level=INFO msg=\"migrated 3 tables\"", "the log stays");
    }

    #[test]
    fn hidden_rows_say_when_some_are_not_ready() {
        let rows: Vec<Row> = (0..30).map(|index| deployment(index, Status::InProgress)).collect();
        let lines = frame(&rows, HEADER, 80, 10, false);
        assert_eq!(lines.len(), 9);
        assert_eq!(lines[8], "… and 24 more (24 not ready)");
        assert_eq!(fit("abcdef", 4), "abc…");
    }
}
