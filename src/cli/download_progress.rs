//! Download progress for chart sources: one line on stderr, redrawn in place, only when stderr is a terminal
//! (nothing on a pipe or in a log).

use berth_source::http::Progress;
use std::io::{IsTerminal as _, Write as _};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A progress line on a terminal, or nothing.
pub struct TerminalProgress {
    enabled: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    label: String,
    total: Option<u64>,
    done: u64,
    last_draw: Option<Instant>,
}

impl TerminalProgress {
    /// Drawn when stderr is a terminal that is not `dumb`.
    pub fn detect() -> TerminalProgress {
        let enabled = std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |term| term != "dumb");
        TerminalProgress { enabled, state: Mutex::new(State::default()) }
    }

    fn draw(state: &State) {
        let text = match state.total {
            Some(total) if total > 0 => format!(
                "downloading {} {}/{} ({}%)",
                state.label,
                size(state.done),
                size(total),
                state.done * 100 / total
            ),
            _ => format!("downloading {} {}", state.label, size(state.done)),
        };
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "\r\x1b[2K{text}");
        let _ = stderr.flush();
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

impl Progress for TerminalProgress {
    fn start(&self, label: &str, total: Option<u64>) {
        if !self.enabled {
            return;
        }
        if let Ok(mut state) = self.state.lock() {
            *state = State { label: label.to_string(), total, done: 0, last_draw: None };
        }
    }

    fn advance(&self, bytes: u64) {
        if !self.enabled {
            return;
        }
        if let Ok(mut state) = self.state.lock() {
            state.done += bytes;
            // At most ten redraws a second.
            if state.last_draw.is_none_or(|last| last.elapsed() >= Duration::from_millis(100)) {
                state.last_draw = Some(Instant::now());
                Self::draw(&state);
            }
        }
    }

    fn finish(&self) {
        if !self.enabled {
            return;
        }
        if let Ok(state) = self.state.lock()
            && state.last_draw.is_some()
        {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}
