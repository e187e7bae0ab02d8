//! Fault injection: latency, 500s and 429s on resource requests, and forced 410s on watches, drawn from a
//! seeded generator so a failing run can be repeated, and bounded so retries always get through; and the next
//! watches of one resource refused on purpose ([`FaultInjector::refuse_watches`]), for a test of what a client
//! does when its watch fails.

use super::api_error::ApiError;
use super::profile::Faults;
use std::sync::Mutex;
use std::time::Duration;

/// Draws faults for requests.
pub struct FaultInjector {
    config: Faults,
    state: Mutex<(fastrand::Rng, u32)>,
    /// Watches to refuse: (resource as kubectl names it, how, how many more).
    refused_watches: Mutex<Vec<(String, WatchFault, u32)>>,
}

/// How a refused watch is answered, each as kube-apiserver ends a watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchFault {
    /// `429 TooManyRequests` with `Retry-After` (API Priority and Fairness turning the request away).
    TooManyRequests,
    /// `200` and the stream closed at once, without an event (the server went away, or a proxy dropped it).
    Closed,
}

impl FaultInjector {
    pub fn new(config: Faults) -> FaultInjector {
        let rng = fastrand::Rng::with_seed(config.seed);
        FaultInjector { config, state: Mutex::new((rng, 0)), refused_watches: Mutex::new(Vec::new()) }
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

    /// The next `count` watches of `resource` (as kubectl names it: `pods`, `deployments.apps`) are answered as
    /// `fault` says, whatever they select.
    pub fn refuse_watches(&self, resource: &str, fault: WatchFault, count: u32) {
        let mut refused = self.refused_watches.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        refused.push((resource.to_string(), fault, count));
    }

    /// How a watch of `resource` is refused, if one is to be (counting it).
    pub(crate) fn refused_watch(&self, resource: &str) -> Option<WatchFault> {
        let mut refused = self.refused_watches.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let index = refused.iter().position(|(name, _, left)| name == resource && *left > 0)?;
        let (_, fault, left) = &mut refused[index];
        *left -= 1;
        let fault = *fault;
        if *left == 0 {
            refused.remove(index);
        }
        Some(fault)
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
    fn watches_are_refused_as_many_times_as_asked() {
        let injector = FaultInjector::new(Faults::default());
        injector.refuse_watches("pods", WatchFault::Closed, 2);
        injector.refuse_watches("deployments.apps", WatchFault::TooManyRequests, 1);
        let faults: Vec<Option<WatchFault>> =
            ["pods", "configmaps", "deployments.apps", "pods", "pods", "deployments.apps"]
                .iter()
                .map(|resource| injector.refused_watch(resource))
                .collect();
        use WatchFault::{Closed, TooManyRequests};
        assert_eq!(faults, [Some(Closed), None, Some(TooManyRequests), Some(Closed), None, None]);
    }

    #[test]
    fn no_faults_by_default() {
        let injector = FaultInjector::new(Faults::default());
        assert!((0..100).all(|_| injector.request_fault().is_none() && !injector.watch_gone()));
    }
}
