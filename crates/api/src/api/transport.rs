//! Sending one request with retries under the operation's deadline: per-attempt timeouts,
//! bounded bodies, transport errors classified, and writes whose outcome is unknown flagged.

use std::time::{Duration, Instant};

use reqwest::Method;
use reqwest::header;
use url::Url;

use super::client::{Client, RequestEvent};
use super::error::{ApiError, ErrorKind};
use super::models::{DecodeError, IdempotencyKey};
use super::retry::{RetryPolicy, backoff, key_wait, should_retry, wait_for_key};

/// A 2xx answer, read whole.
pub(super) struct RawResponse {
    pub status: u16,
    pub body: Vec<u8>,
    /// `Idempotent-Replayed: true`.
    pub replayed: bool,
    pub headers: header::HeaderMap,
}

/// One request as sent on every attempt: the same bytes and the same key each time.
pub(super) struct Outgoing<'a> {
    pub method: Method,
    pub url: Url,
    pub body: Option<Vec<u8>>,
    pub key: Option<&'a IdempotencyKey>,
    pub policy: RetryPolicy,
    /// Headers given by the caller (`crmdash api -H`): they replace crmdash's own.
    pub headers: header::HeaderMap,
}

impl Client {
    /// Sends with retries under the operation deadline.
    pub(super) async fn execute(&self, req: Outgoing<'_>) -> Result<RawResponse, ApiError> {
        let opts = self.options();
        let started = Instant::now();
        let max_attempts = opts.max_retries + 1;
        let write = req.method != Method::GET;
        let mut timeouts = 0u32;
        // Once any attempt of a write may have been applied, the operation's outcome stays
        // unknown whatever later attempts say (short of a success).
        let mut maybe_applied = false;
        let mut attempt = 1u32;
        // Waits for the same key's earlier request (409 "still being processed"): counted
        // apart from the retries, bounded by their own cap and the deadline.
        let mut key_waits = 0u32;
        loop {
            let remaining = opts.deadline.saturating_sub(started.elapsed());
            let result = if remaining.is_zero() {
                Err(deadline_error(opts.deadline, write && attempt > 1))
            } else {
                // A background client waits here while the dashboard's own requests are
                // in flight (the wait is the remaining deadline's too).
                tokio::time::timeout(remaining, async {
                    let _turn = self.turn().await;
                    self.attempt(&req, attempt, max_attempts).await
                })
                .await
                .unwrap_or_else(|_| Err(deadline_error(opts.deadline, write)))
            };
            let mut err = match result {
                Ok(resp) => return Ok(resp),
                Err(e) => e,
            };
            err.attempts = attempt;
            if err.kind == ErrorKind::Timeout {
                timeouts += 1;
            }
            maybe_applied |= err.outcome_unknown;
            let waiting = wait_for_key(req.policy, &err, key_waits);
            let retries = attempt - key_waits;
            let (retry, delay) = if waiting {
                key_waits += 1;
                (true, key_wait(opts, key_waits, err.retry_after))
            } else {
                (
                    retries < max_attempts && should_retry(req.policy, &err, timeouts),
                    backoff(opts, retries, err.retry_after),
                )
            };
            if !retry || started.elapsed() + delay >= opts.deadline {
                err.outcome_unknown = write && (maybe_applied || err.outcome_unknown);
                return Err(err);
            }
            self.emit(RequestEvent::Retrying {
                attempt: attempt + 1,
                max_attempts: max_attempts + key_waits,
                delay,
                reason: err.summary(),
            });
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        req: &Outgoing<'_>,
        attempt: u32,
        max_attempts: u32,
    ) -> Result<RawResponse, ApiError> {
        let opts = self.options();
        let method = &req.method;
        let shown = req.url.to_string();
        self.emit(RequestEvent::Sending {
            method: method.clone(),
            url: shown.clone(),
            attempt,
            max_attempts,
        });
        let t0 = Instant::now();
        let failed = |err: &ApiError| RequestEvent::Failed {
            method: method.clone(),
            url: shown.clone(),
            error: err.summary(),
            elapsed: t0.elapsed(),
        };
        let mut builder = self
            .http()
            .request(method.clone(), req.url.clone())
            .timeout(opts.request_timeout);
        if let Some(b) = &req.body {
            builder = builder
                .header(header::CONTENT_TYPE, "application/json")
                .body(b.clone());
        }
        if let Some(k) = req.key {
            builder = builder.header("Idempotency-Key", k.as_str());
        }
        if !req.headers.is_empty() {
            builder = builder.headers(req.headers.clone());
        }
        let sent_body = req.body.is_some();
        let logged = |status: Option<u16>,
                      error: Option<String>,
                      headers: Option<&header::HeaderMap>,
                      body: &[u8]| {
            if self.observed() {
                self.emit(RequestEvent::Exchanged(std::sync::Arc::new(exchange_of(
                    req,
                    status,
                    error,
                    t0.elapsed(),
                    headers,
                    body,
                ))));
            }
        };
        let resp = match builder.send().await {
            Ok(r) => r,
            Err(e) => {
                let err = transport_error(&e, sent_body);
                self.emit(failed(&err));
                logged(None, Some(err.summary()), None, b"");
                return Err(err);
            }
        };
        let status = resp.status();
        let mut headers = resp.headers().clone();
        let mut body = match read_body(resp, opts.max_body_bytes).await {
            Ok(b) => b,
            Err(mut err) => {
                err.status = Some(status.as_u16());
                // Whatever the status, a write may have been applied: only the same key may
                // retry it.
                err.outcome_unknown =
                    sent_body && (status.is_success() || err.kind != ErrorKind::BadResponse);
                self.emit(failed(&err));
                logged(
                    Some(status.as_u16()),
                    Some(err.summary()),
                    Some(&headers),
                    b"",
                );
                return Err(err);
            }
        };
        // Before anything reads the answer: a token the service echoes back is masked.
        {
            use secrecy::ExposeSecret;
            super::mask::mask_answer(self.token().expose_secret(), &mut headers, &mut body);
        }
        self.emit(RequestEvent::Received {
            method: method.clone(),
            url: shown.clone(),
            status: status.as_u16(),
            elapsed: t0.elapsed(),
        });
        logged(Some(status.as_u16()), None, Some(&headers), &body);
        if status.is_success() {
            let replayed = headers
                .get("idempotent-replayed")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            return Ok(RawResponse {
                status: status.as_u16(),
                body,
                replayed,
                headers,
            });
        }
        let mut err = super::error::from_response(status, &headers, &body);
        err.answer = Some(std::sync::Arc::new(super::raw::Answer {
            status: status.as_u16(),
            headers,
            body,
        }));
        Err(err)
    }
}

/// The request log's record of one attempt: the headers crmdash sent (the token masked),
/// the body, and the answer's headers and first bytes.
fn exchange_of(
    req: &Outgoing<'_>,
    status: Option<u16>,
    error: Option<String>,
    elapsed: Duration,
    headers: Option<&header::HeaderMap>,
    body: &[u8],
) -> super::exchange::Exchange {
    use super::exchange::{BODY_KEPT, Exchange, MASKED_AUTH};
    let mut sent: Vec<(String, String)> = vec![
        ("authorization".into(), MASKED_AUTH.into()),
        ("accept".into(), "application/json".into()),
        (
            "user-agent".into(),
            concat!("crmdash/", env!("CARGO_PKG_VERSION")).into(),
        ),
    ];
    if req.body.is_some() {
        sent.push(("content-type".into(), "application/json".into()));
    }
    if let Some(k) = req.key {
        sent.push(("idempotency-key".into(), k.as_str().to_string()));
    }
    for (name, value) in &req.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        sent.retain(|(n, _)| n != name.as_str());
        sent.push((name.as_str().to_string(), value));
    }
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (response_body, response_cut) = super::exchange::kept_body(body, BODY_KEPT);
    Exchange {
        at: chrono::Utc::now(),
        method: req.method.to_string(),
        url: req.url.to_string(),
        status,
        error,
        elapsed,
        request_headers: sent,
        request_body: req.body.as_deref().map(text),
        response_headers: headers
            .map(|h| {
                h.iter()
                    .map(|(n, v)| (n.as_str().to_string(), text(v.as_bytes())))
                    .collect()
            })
            .unwrap_or_default(),
        response_body,
        response_cut,
        size: body.len(),
    }
}

/// A 2xx whose body did not decode: says so, with the first bytes.
pub(super) fn bad_response(status: u16, e: DecodeError) -> ApiError {
    let mut err = ApiError::new(ErrorKind::BadResponse, e.to_string());
    err.status = Some(status);
    err
}

fn deadline_error(after: Duration, outcome_unknown: bool) -> ApiError {
    let mut e = ApiError::new(
        ErrorKind::Timeout,
        format!(
            "no answer within {} (the operation's limit, retries included)",
            human_duration(after)
        ),
    );
    e.outcome_unknown = outcome_unknown;
    e
}

fn human_duration(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Reads at most `max` bytes; more is refused (a body that large is not an API answer).
async fn read_body(mut resp: reqwest::Response, max: usize) -> Result<Vec<u8>, ApiError> {
    let too_large = |what: String| {
        ApiError::new(
            ErrorKind::BadResponse,
            format!("{what} over the {} limit: refused", human_size(max)),
        )
    };
    if let Some(len) = resp.content_length()
        && len > max as u64
    {
        return Err(too_large(format!("the response is {len} bytes,")));
    }
    // The announced length at once (up to 1 MiB: an announcement is not a promise), rather
    // than growing through every size below it.
    let announced = resp.content_length().unwrap_or(0).min(1 << 20) as usize;
    let mut out = Vec::with_capacity(announced);
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if out.len() + chunk.len() > max {
                    return Err(too_large("the response is".to_string()));
                }
                out.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(out),
            Err(e) => {
                let mut err = transport_error(&e, false);
                err.message = format!(
                    "the connection broke while reading the response ({})",
                    err.message
                );
                return Err(err);
            }
        }
    }
}

fn human_size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        format!("{} MB", bytes / (1024 * 1024))
    } else {
        format!("{bytes}-byte")
    }
}

/// Classifies a reqwest error. `sent_body`: the request was a write, so anything but a failed
/// connect leaves its outcome unknown.
fn transport_error(e: &reqwest::Error, sent_body: bool) -> ApiError {
    let mut err = if e.is_timeout() {
        ApiError::new(ErrorKind::Timeout, "the server did not answer in time")
    } else if e.is_connect() {
        ApiError::new(
            ErrorKind::Network,
            format!("cannot connect: {}", root_cause(e)),
        )
    } else {
        ApiError::new(
            ErrorKind::Network,
            format!("the connection failed: {}", root_cause(e)),
        )
    };
    err.outcome_unknown = sent_body && !e.is_connect();
    err
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}
