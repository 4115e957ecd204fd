//! `--rate-limit N`: at most N API requests a second, as a token bucket (N tokens, refilled at N
//! a second). A request beyond it gets 429 `{message}` with `Retry-After` (whole seconds, at
//! least 1, until a token is back) and is not served; every answer says `X-RateLimit-Limit` and
//! `X-RateLimit-Remaining`. Refused requests use no token. The control endpoint is not limited.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::state::Shared;

/// The bucket of one running sandbox.
#[derive(Debug)]
pub struct RateLimiter {
    per_second: u32,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// What the limiter says about one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Served; this many tokens are left.
    Allowed { remaining: u32 },
    /// Refused; a token is back after this long.
    Limited { retry_after: Duration },
}

impl RateLimiter {
    /// `per_second` is at least 1 (the command line refuses 0).
    pub fn new(per_second: u32) -> RateLimiter {
        let per_second = per_second.max(1);
        RateLimiter {
            per_second,
            bucket: Mutex::new(Bucket {
                tokens: f64::from(per_second),
                at: Instant::now(),
            }),
        }
    }

    /// Takes a token at `now`, if there is one.
    pub fn check(&self, now: Instant) -> Verdict {
        let rate = f64::from(self.per_second);
        let mut b = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * rate).min(rate);
        b.at = b.at.max(now);
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Verdict::Allowed {
                remaining: b.tokens.floor() as u32,
            }
        } else {
            Verdict::Limited {
                retry_after: Duration::from_secs_f64((1.0 - b.tokens) / rate),
            }
        }
    }
}

/// The state of the layer: the sandbox (for its latency) and the bucket.
#[derive(Clone)]
pub struct Limit {
    pub shared: Arc<Shared>,
    pub limiter: Arc<RateLimiter>,
}

/// Serves the request when a token is left, else answers 429 (after the configured latency:
/// the refusal crosses the same link).
pub async fn limit(State(l): State<Limit>, req: Request, next: Next) -> Response {
    let limit_header = HeaderValue::from(l.limiter.per_second);
    match l.limiter.check(Instant::now()) {
        Verdict::Allowed { remaining } => {
            let mut resp = next.run(req).await;
            let h = resp.headers_mut();
            h.insert("x-ratelimit-limit", limit_header);
            h.insert("x-ratelimit-remaining", HeaderValue::from(remaining));
            resp
        }
        Verdict::Limited { retry_after } => {
            if let Some(d) = l.shared.settings.latency {
                tokio::time::sleep(d).await;
            }
            let secs = retry_after.as_secs_f64().ceil().max(1.0) as u64;
            let mut resp = (
                StatusCode::TOO_MANY_REQUESTS,
                axum::Json(json!({"message": "Too Many Attempts."})),
            )
                .into_response();
            let h = resp.headers_mut();
            h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
            h.insert("x-ratelimit-limit", limit_header);
            h.insert("x-ratelimit-remaining", HeaderValue::from(0u32));
            resp
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_n_then_one_token_every_nth_of_a_second() {
        let l = RateLimiter::new(20);
        let t0 = Instant::now();
        for i in 0..20 {
            assert_eq!(l.check(t0), Verdict::Allowed { remaining: 19 - i });
        }
        let Verdict::Limited { retry_after } = l.check(t0) else {
            panic!("the 21st request in the same instant is refused");
        };
        assert!(retry_after <= Duration::from_millis(50), "{retry_after:?}");
        // Refusals use no token: 50 ms later exactly one is back.
        assert!(matches!(
            l.check(t0 + Duration::from_millis(50)),
            Verdict::Allowed { .. }
        ));
        assert!(matches!(
            l.check(t0 + Duration::from_millis(50)),
            Verdict::Limited { .. }
        ));
        // A long pause refills to N, not more.
        let later = t0 + Duration::from_secs(10);
        for _ in 0..20 {
            assert!(matches!(l.check(later), Verdict::Allowed { .. }));
        }
        assert!(matches!(l.check(later), Verdict::Limited { .. }));
    }
}
