//! The CLI's one scrubber of what it shows: a command renders at most one release, and the Secret values that
//! render's `lookup`s read (`berth::release::LookedUpSecrets`) are replaced in every text the process writes
//! about it: the error printed at the end, progress lines and the live table, JSON events, warnings and logs
//! (the tracing writer). One process-wide set, so that a new message needs nothing to be scrubbed: it is
//! written through one of these.

use berth::release::LookedUpSecrets;
use std::borrow::Cow;
use std::io::Write;
use std::sync::OnceLock;

static LOOKED_UP: OnceLock<LookedUpSecrets> = OnceLock::new();

/// The set this process's render records into (a clone shares it).
pub fn looked_up() -> LookedUpSecrets {
    LOOKED_UP.get_or_init(LookedUpSecrets::default).clone()
}

/// `text` with every value the process's lookups read replaced.
pub fn scrub(text: &str) -> Cow<'_, str> {
    match LOOKED_UP.get() {
        Some(looked_up) => looked_up.scrub_borrowed(text),
        None => Cow::Borrowed(text),
    }
}

/// stderr, scrubbed: the writer of the process's logs. tracing's formatter writes each record in one call, so
/// a value is never split between two writes.
pub struct ScrubbedStderr;

impl Write for ScrubbedStderr {
    fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
        let mut stderr = std::io::stderr().lock();
        match LOOKED_UP.get().filter(|looked_up| !looked_up.is_empty()) {
            None => stderr.write_all(buffer)?,
            Some(looked_up) => {
                stderr.write_all(looked_up.scrub_borrowed(&String::from_utf8_lossy(buffer)).as_bytes())?
            }
        }
        Ok(buffer.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'writer> tracing_subscriber::fmt::MakeWriter<'writer> for ScrubbedStderr {
    type Writer = ScrubbedStderr;

    fn make_writer(&'writer self) -> ScrubbedStderr {
        ScrubbedStderr
    }
}
