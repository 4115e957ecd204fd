//! When a failed attempt may be repeated, and how long to wait first: pure decisions, so the
//! policy of the issue can be tested without a network.

use std::time::Duration;

use super::client::ClientOptions;
use super::error::{ApiError, ErrorKind};

/// How safe it is to send a request again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryPolicy {
    /// GET: connection errors, one timeout, 502/503/504, 429.
    Read,
    /// Create with an Idempotency-Key: like a read, with the same key and body each time;
    /// never on a 4xx other than 429 and a 409 saying an earlier request with the same key
    /// is still being processed (another process is sending it: once it is done, the
    /// server replays its answer).
    IdempotentWrite,
    /// Not idempotent (reschedule): only when the request surely did not reach the server
    /// (the connection was never made) or the server asked to come back (429/503 with
    /// `Retry-After`, which say the request was not processed).
    Unsafe,
}

/// Whether `err` (the failure of an attempt) may be retried under `policy`. `timeouts` counts
/// the timeouts so far, this one included: a timeout is retried once.
pub fn should_retry(policy: RetryPolicy, err: &ApiError, timeouts: u32) -> bool {
    // Refused before sending, or a verdict on the input: repeating changes nothing.
    if matches!(err.kind, ErrorKind::InvalidRequest | ErrorKind::Redirect) {
        return false;
    }
    let told_to_wait = err.retry_after.is_some();
    if policy == RetryPolicy::Unsafe {
        let never_sent = err.status.is_none()
            && !err.outcome_unknown
            && matches!(err.kind, ErrorKind::Network | ErrorKind::Timeout);
        return never_sent || (matches!(err.status, Some(429 | 503)) && told_to_wait);
    }
    match err.status {
        // A response came: only these statuses say "try again".
        Some(429 | 502 | 503 | 504) if err.kind != ErrorKind::BadResponse => true,
        // A body cut mid-way after the status line: the answer was lost in transit.
        Some(_) if err.kind == ErrorKind::Network => true,
        Some(_) if err.kind == ErrorKind::Timeout => timeouts <= 1,
        Some(_) => false,
        None => match err.kind {
            ErrorKind::Network => true,
            ErrorKind::Timeout => timeouts <= 1,
            _ => false,
        },
    }
}

/// A 409 whose message says the same Idempotency-Key is still being processed (as opposed to
/// a key reused with another body, which no retry can fix).
pub fn key_in_flight(err: &ApiError) -> bool {
    if err.status != Some(409) {
        return false;
    }
    let m = err.message.to_ascii_lowercase();
    [
        "being processed",
        "in progress",
        "in flight",
        "in-flight",
        "still processing",
    ]
    .iter()
    .any(|p| m.contains(p))
}

/// How many times a create waits for its key's earlier request to finish (a 409 saying it is
/// still being processed), apart from the ordinary retries; within the operation deadline.
pub const MAX_KEY_IN_FLIGHT_WAITS: u32 = 8;
/// The longest single wait for a key in flight.
const MAX_KEY_IN_FLIGHT_WAIT: Duration = Duration::from_secs(2);

/// Whether a create may wait for its key again: `waits` done so far.
pub fn wait_for_key(policy: RetryPolicy, err: &ApiError, waits: u32) -> bool {
    policy == RetryPolicy::IdempotentWrite && key_in_flight(err) && waits < MAX_KEY_IN_FLIGHT_WAITS
}

/// The wait before asking again about a key in flight: the ordinary backoff of wait
/// number `wait` (from 1), at most 2 s, or the server's `Retry-After`.
pub fn key_wait(opts: &ClientOptions, wait: u32, retry_after: Option<Duration>) -> Duration {
    match retry_after {
        Some(_) => backoff(opts, wait, retry_after),
        None => backoff(opts, wait, None).min(MAX_KEY_IN_FLIGHT_WAIT),
    }
}

/// The wait before attempt `attempt + 1`: the server's `Retry-After` (capped at
/// `max_retry_after`), else `backoff_base * 2^(attempt-1)` with jitter in [50%, 100%).
pub fn backoff(opts: &ClientOptions, attempt: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(ra) = retry_after {
        return ra.min(opts.max_retry_after);
    }
    let exp = opts
        .backoff_base
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(8));
    let jitter = rand::random_range(0.5..1.0);
    exp.mul_f64(jitter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(kind: ErrorKind, status: Option<u16>) -> ApiError {
        let mut e = ApiError::new(kind, "x");
        e.status = status;
        e
    }

    fn with_retry_after(mut e: ApiError) -> ApiError {
        e.retry_after = Some(Duration::from_secs(2));
        e
    }

    fn unknown(mut e: ApiError) -> ApiError {
        e.outcome_unknown = true;
        e
    }

    use ErrorKind::*;
    use RetryPolicy::*;

    #[test]
    fn reads_retry_gateway_errors_and_rate_limits_only() {
        for s in [429, 502, 503, 504] {
            let kind = if s == 429 { RateLimited } else { Server };
            assert!(should_retry(Read, &err(kind, Some(s)), 0), "{s}");
            assert!(should_retry(IdempotentWrite, &err(kind, Some(s)), 0), "{s}");
        }
        for (kind, s) in [
            (Server, 500),
            (Server, 501),
            (Validation, 400),
            (Unauthorized, 401),
            (Forbidden, 403),
            (NotFound, 404),
            (Conflict, 409),
            (Validation, 422),
            (Redirect, 302),
        ] {
            assert!(!should_retry(Read, &err(kind, Some(s)), 0), "{s}");
            assert!(
                !should_retry(IdempotentWrite, &err(kind, Some(s)), 0),
                "{s}"
            );
        }
    }

    #[test]
    fn connection_errors_retry_and_timeouts_only_once() {
        for p in [Read, IdempotentWrite] {
            assert!(should_retry(p, &err(Network, None), 0));
            assert!(should_retry(p, &unknown(err(Network, None)), 0));
            assert!(should_retry(p, &err(Timeout, None), 1));
            assert!(!should_retry(p, &err(Timeout, None), 2));
        }
    }

    #[test]
    fn a_body_cut_mid_way_is_retried_but_an_undecodable_one_is_not() {
        assert!(should_retry(Read, &err(Network, Some(200)), 0));
        assert!(!should_retry(Read, &err(BadResponse, Some(200)), 0));
        // Over the size limit: the same answer would come again.
        assert!(!should_retry(Read, &err(BadResponse, Some(503)), 0));
    }

    #[test]
    fn unsafe_writes_retry_only_when_surely_not_applied() {
        assert!(should_retry(Unsafe, &err(Network, None), 0));
        assert!(
            should_retry(Unsafe, &err(Timeout, None), 0),
            "connect timeout"
        );
        assert!(!should_retry(Unsafe, &unknown(err(Network, None)), 0));
        assert!(!should_retry(Unsafe, &unknown(err(Timeout, None)), 0));
        assert!(!should_retry(Unsafe, &unknown(err(Network, Some(200))), 0));
        assert!(should_retry(
            Unsafe,
            &with_retry_after(err(RateLimited, Some(429))),
            0
        ));
        assert!(should_retry(
            Unsafe,
            &with_retry_after(err(Server, Some(503))),
            0
        ));
        assert!(!should_retry(Unsafe, &err(RateLimited, Some(429)), 0));
        assert!(!should_retry(Unsafe, &err(Server, Some(503)), 0));
        assert!(!should_retry(Unsafe, &err(Server, Some(502)), 0));
        assert!(!should_retry(
            Unsafe,
            &with_retry_after(err(Server, Some(500))),
            0
        ));
    }

    #[test]
    fn a_key_still_in_flight_is_retried_for_creates_only() {
        let mut busy = err(Conflict, Some(409));
        busy.message =
            "A request with this Idempotency-Key is still being processed; retry later.".into();
        assert!(wait_for_key(IdempotentWrite, &busy, 0));
        assert!(!wait_for_key(
            IdempotentWrite,
            &busy,
            MAX_KEY_IN_FLIGHT_WAITS
        ));
        assert!(!wait_for_key(Read, &busy, 0));
        assert!(!wait_for_key(Unsafe, &busy, 0));
        // Not one of the ordinary retries.
        assert!(!should_retry(IdempotentWrite, &busy, 0));
        let mut reused = err(Conflict, Some(409));
        reused.message =
            "This Idempotency-Key was already used with a different request body.".into();
        assert!(!wait_for_key(IdempotentWrite, &reused, 0));
        let opts = ClientOptions::default();
        for w in 1..=MAX_KEY_IN_FLIGHT_WAITS {
            assert!(key_wait(&opts, w, None) <= Duration::from_secs(2));
        }
    }

    #[test]
    fn refused_requests_are_never_retried() {
        for p in [Read, IdempotentWrite, Unsafe] {
            assert!(!should_retry(p, &err(InvalidRequest, None), 0));
        }
    }

    #[test]
    fn backoff_doubles_with_jitter_and_honours_capped_retry_after() {
        let opts = ClientOptions {
            backoff_base: Duration::from_millis(100),
            max_retry_after: Duration::from_secs(30),
            ..ClientOptions::default()
        };
        for attempt in 1..=4u32 {
            let full = Duration::from_millis(100 * (1 << (attempt - 1)));
            for _ in 0..50 {
                let d = backoff(&opts, attempt, None);
                assert!(d >= full / 2 && d < full, "attempt {attempt}: {d:?}");
            }
        }
        assert_eq!(
            backoff(&opts, 1, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert_eq!(
            backoff(&opts, 1, Some(Duration::from_secs(3600))),
            Duration::from_secs(30)
        );
        // A huge attempt number neither overflows nor panics.
        assert!(backoff(&opts, u32::MAX, None) <= Duration::from_millis(100 * 256));
    }
}
