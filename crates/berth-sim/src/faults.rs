//! Fault injection: latency, 500s and 429s on resource requests, and forced 410s on watches, drawn from a
//! seeded generator so a failing run can be repeated, and bounded so retries always get through.

use super::api_error::ApiError;
use super::profile::Faults;
use std::sync::Mutex;
use std::time::Duration;

/// Draws faults for requests.
pub struct FaultInjector {
    config: Faults,
    state: Mutex<(fastrand::Rng, u32)>,
}

impl FaultInjector {
    pub fn new(config: Faults) -> FaultInjector {
        let rng = fastrand::Rng::with_seed(config.seed);
        FaultInjector { config, state: Mutex::new((rng, 0)) }
    }

    /// The latency to add to a resource request.
    pub fn latency(&self) -> Duration {
        self.config.latency
    }

    /// How long a watch stream may stay open (None: until its own timeout).
    pub fn watch_close_after(&self) -> Option<Duration> {
        (!self.config.watch_close_after.is_zero()).then_some(self.config.watch_close_after)
    }

    fn draw(&self, rates: &[f64]) -> Option<usize> {
        if rates.iter().all(|rate| *rate <= 0.0) {
            return None;
        }
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (rng, consecutive) = &mut *state;
        let roll = rng.f64();
        let mut threshold = 0.0;
        let chosen = rates.iter().position(|rate| {
            threshold += rate;
            roll < threshold
        });
        match chosen {
            Some(_) if *consecutive >= self.config.max_consecutive => {
                *consecutive = 0;
                None
            }
            Some(index) => {
                *consecutive += 1;
                Some(index)
            }
            None => {
                *consecutive = 0;
                None
            }
        }
    }

    /// The error to answer a resource request with, if one is drawn.
    pub fn request_fault(&self) -> Option<ApiError> {
        match self.draw(&[self.config.error_rate, self.config.throttle_rate])? {
            0 => Some(ApiError::internal("simulated fault: internal error")),
            _ => Some(ApiError::too_many_requests(self.config.retry_after_seconds)),
        }
    }

    /// Whether a watch is answered with 410 Expired instead of events.
    pub fn watch_gone(&self) -> bool {
        self.draw(&[self.config.watch_gone_rate]).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn faults(seed: u64) -> Faults {
        Faults { seed, error_rate: 0.3, throttle_rate: 0.3, ..Faults::default() }
    }

    #[test]
    fn the_same_seed_gives_the_same_faults() {
        let draw = |seed| {
            let injector = FaultInjector::new(faults(seed));
            (0..50).map(|_| injector.request_fault().map(|error| error.code)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        assert!(draw(7).contains(&Some(429)) && draw(7).contains(&Some(500)));
    }

    #[test]
    fn faults_in_a_row_are_bounded() {
        let injector = FaultInjector::new(Faults { error_rate: 1.0, max_consecutive: 2, ..Faults::default() });
        let codes: Vec<Option<u16>> = (0..6).map(|_| injector.request_fault().map(|error| error.code)).collect();
        assert_eq!(codes, [Some(500), Some(500), None, Some(500), Some(500), None]);
    }

    #[test]
    fn no_faults_by_default() {
        let injector = FaultInjector::new(Faults::default());
        assert!((0..100).all(|_| injector.request_fault().is_none() && !injector.watch_gone()));
    }
}
