//! How many requests a batch (an import, a reschedule plan, a sync) has in flight. Every request
//! takes a permit. A rate limit (429) halves the limit and pauses every new request for the time
//! the service asked; each run of successes as long as the limit raises it by one again, up to
//! the maximum (`--jobs`, `[cache] sync_jobs`). [`Governor::call`] is the loop batches send through.

use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use std::sync::Arc;

use super::{ApiError, ErrorKind, Observer, RequestEvent};

use tokio::sync::Notify;
use tokio::time::Instant;

#[derive(Debug)]
struct State {
    limit: usize,
    in_flight: usize,
    resume_at: Option<Instant>,
    successes: usize,
    rate_limited: u64,
}

/// The wait after a 429 without `Retry-After`.
const DEFAULT_RATE_WAIT: Duration = Duration::from_secs(1);

/// The request gate of a batch (an import, a plan) or a sync.
#[derive(Debug)]
pub struct Governor {
    max: usize,
    state: Mutex<State>,
    wake: Notify,
}

/// One request's place; dropping it frees the place.
pub struct Permit<'a> {
    gov: &'a Governor,
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.gov.lock().in_flight -= 1;
        self.gov.wake.notify_waiters();
    }
}

impl Governor {
    pub fn new(max: usize) -> Governor {
        let max = max.max(1);
        Governor {
            max,
            state: Mutex::new(State {
                limit: max,
                in_flight: 0,
                resume_at: None,
                successes: 0,
                rate_limited: 0,
            }),
            wake: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for a place: not during a pause, and fewer than the limit in flight.
    pub async fn acquire(&self) -> Permit<'_> {
        loop {
            let notified = self.wake.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let pause = {
                let mut s = self.lock();
                match s.resume_at {
                    Some(t) if t > Instant::now() => Some(t),
                    _ => {
                        if s.in_flight < s.limit {
                            s.in_flight += 1;
                            return Permit { gov: self };
                        }
                        None
                    }
                }
            };
            match pause {
                Some(t) => tokio::time::sleep_until(t).await,
                None => notified.await,
            }
        }
    }

    /// The service said "too many requests, come back in `wait`": fewer in flight (once per
    /// pause: the other answers of the same burst only extend it), and nothing new until then.
    pub fn rate_limited(&self, wait: Duration) {
        let mut s = self.lock();
        let now = Instant::now();
        let paused = s.resume_at.is_some_and(|t| t > now);
        if !paused {
            s.limit = (s.limit / 2).max(1);
            s.rate_limited += 1;
        }
        s.successes = 0;
        let until = now + wait;
        s.resume_at = Some(s.resume_at.map_or(until, |t| t.max(until)));
    }

    /// A request went through: after as many successes as the limit, one more place.
    pub fn succeeded(&self) {
        let mut s = self.lock();
        s.successes += 1;
        if s.successes >= s.limit && s.limit < self.max {
            s.limit += 1;
            s.successes = 0;
            drop(s);
            self.wake.notify_waiters();
        }
    }

    /// One operation under a permit. A rate limit pauses the whole batch and tries again (as
    /// often as it takes: the service said "later", not "no"; a 429 says the request was not
    /// processed, so this is safe for a write without an Idempotency-Key too). `None` when
    /// `stop` was set before the request went out: it was not sent. `max_wait` caps a
    /// `Retry-After`.
    pub async fn call<T, F, Fut>(
        &self,
        stop: &AtomicBool,
        max_wait: Duration,
        op: F,
    ) -> Option<Result<T, ApiError>>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        loop {
            let permit = self.acquire().await;
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let result = op().await;
            drop(permit);
            match result {
                Ok(v) => {
                    self.succeeded();
                    return Some(Ok(v));
                }
                Err(e) if e.kind == ErrorKind::RateLimited => {
                    let wait = e.retry_after.unwrap_or(DEFAULT_RATE_WAIT).min(max_wait);
                    self.rate_limited(wait);
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// The current limit, and whether new requests are paused.
    pub fn status(&self) -> (usize, bool) {
        let s = self.lock();
        (s.limit, s.resume_at.is_some_and(|t| t > Instant::now()))
    }

    /// How many times a rate limit cut the limit.
    pub fn times_rate_limited(&self) -> u64 {
        self.lock().rate_limited
    }
}

/// A client observer that tells `gov` of the rate limits the client meets while it retries
/// (not only after it gives up), then passes each event on to `then` (`-v` output).
pub fn observer(gov: Arc<Governor>, then: Option<Observer>) -> Observer {
    Arc::new(move |ev: &RequestEvent| {
        if let RequestEvent::Retrying { delay, reason, .. } = ev
            && reason.starts_with("Rate limited")
        {
            gov.rate_limited(*delay);
        }
        if let Some(v) = &then {
            v(ev);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_rate_limit_halves_the_limit_once_per_pause_and_successes_restore_it() {
        let g = Governor::new(8);
        let t0 = Instant::now();
        g.rate_limited(Duration::from_secs(2));
        g.rate_limited(Duration::from_secs(1));
        assert_eq!(g.status(), (4, true));
        let p = g.acquire().await;
        assert!(Instant::now() - t0 >= Duration::from_secs(2));
        drop(p);
        for _ in 0..4 {
            g.succeeded();
        }
        assert_eq!(g.status(), (5, false));
        let held: Vec<_> = futures::future::join_all((0..5).map(|_| g.acquire())).await;
        let sixth = tokio::time::timeout(Duration::from_millis(10), g.acquire()).await;
        assert!(sixth.is_err(), "a sixth request waits");
        drop(held);
        let _ = g.acquire().await;
    }
}
