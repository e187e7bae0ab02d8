//! What a render may still spend, where the code that spends it can see it: the bytes it may build, the time it
//! may take, and whether it was cancelled.
//!
//! Go's template engine has no such bounds: a template that doubles a string in a loop, encodes a list that
//! holds itself twice at every level, or pads with a width of a million grows until the process dies, and
//! nothing stops a render that runs for hours. berth's engine creates one [`Meter`] per render and makes it the
//! thread's *active* meter while it executes ([`Meter::activate`]); the functions and writers that can grow a
//! string or run long (`fmt`, the JSON and YAML writers, Sprig's `repeat`, `indent`, `until`...) ask it before
//! they allocate ([`ensure`]) and as they loop ([`check`]). Plain functions are `Fn(&[Value])`: a thread-local is
//! the one way to reach them without changing every signature, and a render runs on one thread. Outside a render
//! no meter is active and every question is answered yes.
//!
//! Which bytes count is the engine's decision (berth-template `exec`): what it writes and what functions return.
//! Here is only the arithmetic and the cut-off. An exhausted meter stays exhausted, so a function that swallows
//! errors as Go's does (`toJson` returns "" on any error) cannot hide the cut-off: the engine asks
//! [`Meter::exhausted`] after every call.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How many [`check`]s pass between two readings of the clock and the cancellation flag: a reading costs tens of
/// nanoseconds, a check a few, and 64 checks are microseconds of work.
const CHECKS_PER_READING: u32 = 64;

/// Stops a render from another thread (a CLI's SIGINT handler, a controller whose Release was deleted or got a new
/// generation). Cloning shares the flag.
///
/// ```
/// use berth_go::budget::Cancel;
///
/// let cancel = Cancel::new();
/// let handle = cancel.clone();
/// handle.cancel();
/// assert!(cancel.is_cancelled());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not raised yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Raises the flag: every render holding it stops at its next loop iteration or function call.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Why a render must stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exhausted {
    /// It would build more bytes than its budget.
    Bytes { limit: u64 },
    /// It ran longer than its timeout.
    Time { limit: Duration },
    /// Its [`Cancel`] was raised.
    Cancelled,
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exhausted::Bytes { limit } => {
                write!(f, "render byte budget exhausted: the render would build more than {limit} bytes")
            }
            Exhausted::Time { limit } => write!(f, "render timeout: the render ran longer than {limit:?}"),
            Exhausted::Cancelled => f.write_str("render cancelled"),
        }
    }
}

impl std::error::Error for Exhausted {}

impl From<Exhausted> for crate::TemplateError {
    fn from(exhausted: Exhausted) -> Self {
        crate::TemplateError::msg(exhausted.to_string())
    }
}

/// One render's spending: bytes built against a limit, a deadline, a cancellation flag. Shared by every
/// execution of the render (templates, `include`, `tpl`) through an `Rc`.
#[derive(Debug)]
pub struct Meter {
    limit_bytes: u64,
    built: Cell<u64>,
    timeout: Option<Duration>,
    deadline: Option<Instant>,
    cancel: Option<Cancel>,
    checks: Cell<u32>,
    exhausted: Cell<Option<Exhausted>>,
}

impl Meter {
    /// A meter allowing `limit_bytes` bytes and `timeout` of wall time from now (`None`: no deadline), stopped
    /// early by `cancel`.
    pub fn new(limit_bytes: u64, timeout: Option<Duration>, cancel: Option<Cancel>) -> Rc<Meter> {
        Rc::new(Meter {
            limit_bytes,
            built: Cell::new(0),
            timeout,
            deadline: timeout.and_then(|timeout| Instant::now().checked_add(timeout)),
            cancel,
            checks: Cell::new(0),
            exhausted: Cell::new(None),
        })
    }

    /// Bytes counted so far.
    pub fn built(&self) -> u64 {
        self.built.get()
    }

    /// Why the render must stop, once it must.
    pub fn exhausted(&self) -> Option<Exhausted> {
        self.exhausted.get()
    }

    fn stop(&self, why: Exhausted) -> Result<(), Exhausted> {
        // The first reason stays: a timeout seen after the bytes ran out does not replace it.
        let first = self.exhausted.get().unwrap_or(why);
        self.exhausted.set(Some(first));
        Err(first)
    }

    /// Counts `bytes` as built.
    ///
    /// # Errors
    /// [`Exhausted::Bytes`] when they pass the limit (they are counted anyway: the meter stays exhausted).
    pub fn charge(&self, bytes: u64) -> Result<(), Exhausted> {
        if let Some(why) = self.exhausted.get() {
            return Err(why);
        }
        let built = self.built.get().saturating_add(bytes);
        self.built.set(built);
        if built > self.limit_bytes {
            return self.stop(Exhausted::Bytes { limit: self.limit_bytes });
        }
        Ok(())
    }

    /// Whether `bytes` more would fit, without counting them; also a [`Meter::check`].
    ///
    /// # Errors
    /// [`Exhausted`] when they would not, or the render must stop for another reason.
    pub fn ensure(&self, bytes: u64) -> Result<(), Exhausted> {
        self.check()?;
        if self.built.get().saturating_add(bytes) > self.limit_bytes {
            return self.stop(Exhausted::Bytes { limit: self.limit_bytes });
        }
        Ok(())
    }

    /// Whether the render may go on: not exhausted, not cancelled, not past its deadline. The clock and the flag
    /// are read every [`CHECKS_PER_READING`] calls.
    ///
    /// # Errors
    /// [`Exhausted`] naming why it must stop.
    pub fn check(&self) -> Result<(), Exhausted> {
        if let Some(why) = self.exhausted.get() {
            return Err(why);
        }
        let checks = self.checks.get().wrapping_add(1);
        self.checks.set(checks);
        if !checks.is_multiple_of(CHECKS_PER_READING) {
            return Ok(());
        }
        self.read_clock_and_flag()
    }

    /// [`Meter::check`] reading the clock and the flag now (at the start of every template file, and where a
    /// check is rare).
    ///
    /// # Errors
    /// As [`Meter::check`].
    pub fn check_now(&self) -> Result<(), Exhausted> {
        if let Some(why) = self.exhausted.get() {
            return Err(why);
        }
        self.read_clock_and_flag()
    }

    fn read_clock_and_flag(&self) -> Result<(), Exhausted> {
        if self.cancel.as_ref().is_some_and(Cancel::is_cancelled) {
            return self.stop(Exhausted::Cancelled);
        }
        if let (Some(deadline), Some(limit)) = (self.deadline, self.timeout)
            && Instant::now() >= deadline
        {
            return self.stop(Exhausted::Time { limit });
        }
        Ok(())
    }

    /// Makes this meter the thread's active one until the returned guard drops (then the previous one is active
    /// again, so activations nest).
    pub fn activate(self: &Rc<Meter>) -> Active {
        let previous = ACTIVE.with(|active| active.replace(Some(Rc::clone(self))));
        Active { previous }
    }
}

thread_local! {
    static ACTIVE: RefCell<Option<Rc<Meter>>> = const { RefCell::new(None) };
}

/// The thread's active meter while it lives ([`Meter::activate`]).
#[must_use = "the meter is active only while the guard lives"]
pub struct Active {
    previous: Option<Rc<Meter>>,
}

impl Drop for Active {
    fn drop(&mut self) {
        let previous = self.previous.take();
        ACTIVE.with(|active| *active.borrow_mut() = previous);
    }
}

fn with_active(ask: impl FnOnce(&Meter) -> Result<(), Exhausted>) -> Result<(), Exhausted> {
    ACTIVE.with(|active| match active.borrow().as_deref() {
        Some(meter) => ask(meter),
        None => Ok(()),
    })
}

/// [`Meter::ensure`] of the active meter: call before allocating `bytes` that the inputs do not bound (a width,
/// a repeat count, a range of numbers), or with the length of a buffer as it grows.
///
/// # Errors
/// [`Exhausted`] when a render is running and must stop.
pub fn ensure(bytes: usize) -> Result<(), Exhausted> {
    with_active(|meter| meter.ensure(bytes as u64))
}

/// [`Meter::check`] of the active meter: call in loops that can run long.
///
/// # Errors
/// [`Exhausted`] when a render is running and must stop.
pub fn check() -> Result<(), Exhausted> {
    with_active(Meter::check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_counted_against_the_limit_and_the_cut_off_sticks() {
        let meter = Meter::new(100, None, None);
        assert_eq!(meter.charge(60), Ok(()));
        assert_eq!(meter.ensure(40), Ok(()));
        assert_eq!(meter.ensure(41), Err(Exhausted::Bytes { limit: 100 }));
        assert_eq!(meter.exhausted(), Some(Exhausted::Bytes { limit: 100 }));
        assert_eq!(meter.check(), Err(Exhausted::Bytes { limit: 100 }), "stays exhausted");
        assert_eq!(meter.built(), 60);
        assert_eq!(
            Exhausted::Bytes { limit: 100 }.to_string(),
            "render byte budget exhausted: the render would build more than 100 bytes"
        );
    }

    #[test]
    fn a_cancelled_or_late_render_stops_at_its_next_reading() {
        let cancel = Cancel::new();
        let meter = Meter::new(u64::MAX, None, Some(cancel.clone()));
        assert_eq!(meter.check_now(), Ok(()));
        cancel.cancel();
        let stopped = (0..CHECKS_PER_READING).map(|_| meter.check()).find(Result::is_err);
        assert_eq!(stopped, Some(Err(Exhausted::Cancelled)));

        let late = Meter::new(u64::MAX, Some(Duration::ZERO), None);
        assert_eq!(late.check_now(), Err(Exhausted::Time { limit: Duration::ZERO }));
        assert_eq!(late.charge(1), Err(Exhausted::Time { limit: Duration::ZERO }), "the first reason stays");
    }

    #[test]
    fn the_active_meter_answers_only_while_its_guard_lives() {
        assert_eq!(ensure(usize::MAX), Ok(()), "no render: no limit");
        let meter = Meter::new(10, None, None);
        {
            let _active = meter.activate();
            assert_eq!(ensure(10), Ok(()));
            let inner = Meter::new(1000, None, None);
            {
                let _nested = inner.activate();
                assert_eq!(ensure(100), Ok(()), "the nested meter answers");
            }
            assert_eq!(ensure(11), Err(Exhausted::Bytes { limit: 10 }), "the outer one again");
        }
        assert_eq!(ensure(usize::MAX), Ok(()));
    }
}
