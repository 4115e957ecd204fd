//! `Client`: one async method per operation of the seed, with headers, deadlines, bounded
//! bodies and retries that never duplicate a create. It knows HTTP and the spec, nothing of terminals.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;
use reqwest::header::{self, HeaderMap, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Map, Value};
use url::Url;

use super::error::{ApiError, ErrorKind};
use super::models::{
    AppointmentRef, Contact, Deal, IdempotencyKey, NewContact, Page, Project, decode_page,
    decode_single,
};
use super::query::{ContactQuery, DealQuery, ListQuery, ProjectQuery};

/// Timeouts, retry and size limits. The defaults are the product's contract.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub connect_timeout: Duration,
    /// Per attempt, from sending to the last byte of the body.
    pub request_timeout: Duration,
    /// For a whole operation, retries and waits included.
    pub deadline: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff step; doubles each retry, with jitter.
    pub backoff_base: Duration,
    /// Longest `Retry-After` honoured.
    pub max_retry_after: Duration,
    pub max_body_bytes: usize,
    /// An extra CA certificate (PEM) for self-hosted instances.
    pub ca_file: Option<PathBuf>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(20),
            deadline: Duration::from_secs(60),
            max_retries: 3,
            backoff_base: Duration::from_millis(300),
            max_retry_after: Duration::from_secs(30),
            max_body_bytes: 64 * 1024 * 1024,
            ca_file: None,
        }
    }
}

/// What a request is doing, for `-v` output and the dashboard's "retrying (2/4)".
/// URLs carry the query string but never the token.
#[derive(Debug, Clone)]
pub enum RequestEvent {
    Sending {
        method: Method,
        url: String,
        attempt: u32,
        max_attempts: u32,
    },
    Received {
        method: Method,
        url: String,
        status: u16,
        elapsed: Duration,
    },
    Failed {
        method: Method,
        url: String,
        error: String,
        elapsed: Duration,
    },
    Retrying {
        attempt: u32,
        max_attempts: u32,
        delay: Duration,
        reason: String,
    },
}

pub type Observer = Arc<dyn Fn(&RequestEvent) + Send + Sync>;

/// When a failed attempt may be repeated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RetryPolicy {
    /// GET: connection errors, one timeout, 502/503/504, 429.
    Read,
    /// Create with an Idempotency-Key: like a read, same key and body each time.
    IdempotentWrite,
    /// Not idempotent (reschedule): only when the request surely did not arrive
    /// (connect error) or the server said to come back (429/503 with Retry-After).
    Unsafe,
}

/// A created record and how the server answered.
#[derive(Debug, Clone)]
pub struct Created<T> {
    pub status: u16,
    /// The record when the body carried one (the seed does not show the body).
    pub record: Option<T>,
    /// The server said this answer replays an earlier one (`Idempotent-Replayed: true`).
    pub replayed: bool,
}

struct Inner {
    base: Url,
    http: reqwest::Client,
    opts: ClientOptions,
}

/// The API v1 client. Cheap to clone; clones share the connection pool.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    observer: Option<Observer>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base.as_str())
            .finish_non_exhaustive()
    }
}

/// Checks a base URL: http(s) only, and plain `http://` only to a loopback address.
pub fn check_base_url(base_url: &str) -> Result<Url, ApiError> {
    let url = Url::parse(base_url.trim()).map_err(|e| {
        ApiError::invalid_request("base_url", format!("'{base_url}' is not a valid URL: {e}"))
    })?;
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(&url) => {}
        "http" => {
            return Err(ApiError::invalid_request(
                "base_url",
                format!(
                    "refusing plain http:// to {}: the token would travel in clear text (use https://, or a loopback address)",
                    url.host_str().unwrap_or("?")
                ),
            ));
        }
        other => {
            return Err(ApiError::invalid_request(
                "base_url",
                format!("unsupported URL scheme '{other}' (use https://)"),
            ));
        }
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ApiError::invalid_request(
            "base_url",
            "the base URL has no host",
        ));
    }
    Ok(url)
}

/// `localhost`, `127.0.0.0/8` or `::1`.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

impl Client {
    /// A client with the default options.
    pub fn new(base_url: &str, token: SecretString) -> Result<Self, ApiError> {
        Self::with_options(base_url, token, ClientOptions::default())
    }

    pub fn with_options(
        base_url: &str,
        token: SecretString,
        opts: ClientOptions,
    ) -> Result<Self, ApiError> {
        let base = check_base_url(base_url)?;
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret().trim()))
            .map_err(|_| {
            ApiError::invalid_request(
                "token",
                "the token contains characters not allowed in a header",
            )
        })?;
        auth.set_sensitive(true);
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, auth);
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("crmdash/", env!("CARGO_PKG_VERSION")))
            .default_headers(headers)
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(opts.connect_timeout)
            .pool_idle_timeout(Duration::from_secs(90))
            .tcp_keepalive(Duration::from_secs(30));
        if let Some(path) = &opts.ca_file {
            let pem = std::fs::read(path).map_err(|e| {
                ApiError::invalid_request(
                    "ca_file",
                    format!("cannot read CA file {}: {e}", path.display()),
                )
            })?;
            let cert = reqwest::Certificate::from_pem(&pem).map_err(|e| {
                ApiError::invalid_request(
                    "ca_file",
                    format!("{} is not a PEM certificate: {e}", path.display()),
                )
            })?;
            builder = builder.add_root_certificate(cert);
        }
        let http = builder
            .build()
            .map_err(|e| ApiError::new(ErrorKind::Other, format!("cannot set up HTTP: {e}")))?;
        Ok(Client {
            inner: Arc::new(Inner { base, http, opts }),
            observer: None,
        })
    }

    /// A clone that reports its requests to `observer`.
    pub fn with_observer(&self, observer: Observer) -> Self {
        Client {
            inner: self.inner.clone(),
            observer: Some(observer),
        }
    }

    pub fn base_url(&self) -> &Url {
        &self.inner.base
    }

    pub fn options(&self) -> &ClientOptions {
        &self.inner.opts
    }

    /// `{base}/public/v1/{segments...}`, each segment percent-encoded.
    pub fn endpoint(&self, segments: &[&str]) -> Url {
        let mut url = self.inner.base.clone();
        url.set_query(None);
        url.set_fragment(None);
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            path.extend(["public", "v1"]);
            path.extend(segments);
        }
        url
    }

    /// Any list operation: `GET /public/v1/{Q::PATH}` with the query's pairs.
    pub async fn list<Q: ListQuery>(&self, query: &Q) -> Result<Page<Q::Item>, ApiError> {
        let pairs = query.to_pairs()?;
        let mut url = self.endpoint(&[Q::PATH]);
        if !pairs.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
        }
        let resp = self
            .execute(Method::GET, url, None, None, RetryPolicy::Read)
            .await?;
        decode_page::<Q::Item>(&resp.body).map_err(|e| bad_response(resp.status, e))
    }

    pub async fn list_contacts(&self, query: &ContactQuery) -> Result<Page<Contact>, ApiError> {
        self.list(query).await
    }

    pub async fn list_deals(&self, query: &DealQuery) -> Result<Page<Deal>, ApiError> {
        self.list(query).await
    }

    pub async fn list_projects(&self, query: &ProjectQuery) -> Result<Page<Project>, ApiError> {
        self.list(query).await
    }

    /// `POST /public/v1/contacts` with `Idempotency-Key`. Retries resend the same body with the
    /// same key. An error with `outcome_unknown` means: keep the key and retry with it.
    pub async fn create_contact(
        &self,
        contact: &NewContact,
        key: &IdempotencyKey,
    ) -> Result<Created<Contact>, ApiError> {
        let body = serde_json::to_vec(&contact.to_body()).map_err(|e| {
            ApiError::new(ErrorKind::Other, format!("cannot encode the contact: {e}"))
        })?;
        let url = self.endpoint(&["contacts"]);
        let resp = self
            .execute(
                Method::POST,
                url,
                Some(body),
                Some(key),
                RetryPolicy::IdempotentWrite,
            )
            .await?;
        let record =
            decode_single::<Contact>(&resp.body).map_err(|e| bad_response(resp.status, e))?;
        Ok(Created {
            status: resp.status,
            record,
            replayed: resp.replayed,
        })
    }

    /// `POST /public/v1/appointments/{id}/reschedule` with the body exactly as given.
    /// Not retried once the request may have reached the server.
    pub async fn reschedule_appointment(
        &self,
        id: &str,
        body: &Map<String, Value>,
    ) -> Result<AppointmentRef, ApiError> {
        if id.trim().is_empty() {
            return Err(ApiError::invalid_request(
                "id",
                "an appointment id is required",
            ));
        }
        let body = serde_json::to_vec(body)
            .map_err(|e| ApiError::new(ErrorKind::Other, format!("cannot encode the body: {e}")))?;
        let url = self.endpoint(&["appointments", id.trim(), "reschedule"]);
        let resp = self
            .execute(Method::POST, url, Some(body), None, RetryPolicy::Unsafe)
            .await?;
        match decode_single::<AppointmentRef>(&resp.body) {
            Ok(Some(a)) => Ok(a),
            Ok(None) => Err(bad_response(
                resp.status,
                super::models::DecodeError::new(
                    "the response has no body (expected {data: {id, ...}})",
                    b"",
                ),
            )),
            Err(e) => Err(bad_response(resp.status, e)),
        }
    }

    fn emit(&self, ev: RequestEvent) {
        tracing::debug!(event = ?ev, "http");
        if let Some(o) = &self.observer {
            o(&ev);
        }
    }

    /// Sends with retries under the operation deadline.
    async fn execute(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
        key: Option<&IdempotencyKey>,
        policy: RetryPolicy,
    ) -> Result<RawResponse, ApiError> {
        let opts = &self.inner.opts;
        let started = Instant::now();
        let max_attempts = opts.max_retries + 1;
        let mut timeouts = 0u32;
        let mut attempt = 1u32;
        loop {
            let remaining = opts.deadline.saturating_sub(started.elapsed());
            let result = if remaining.is_zero() {
                Err(timeout_error(opts.deadline, method != Method::GET))
            } else {
                match tokio::time::timeout(
                    remaining,
                    self.attempt(&method, &url, body.as_deref(), key, attempt, max_attempts),
                )
                .await
                {
                    Ok(r) => r,
                    Err(_) => Err(timeout_error(opts.deadline, method != Method::GET)),
                }
            };
            let mut err = match result {
                Ok(resp) => return Ok(resp),
                Err(e) => e,
            };
            err.attempts = attempt;
            if err.kind == ErrorKind::Timeout {
                timeouts += 1;
            }
            let retry = attempt < max_attempts && should_retry(policy, &err, timeouts);
            if !retry {
                return Err(err);
            }
            let delay = backoff(opts, attempt, err.retry_after);
            if started.elapsed() + delay >= opts.deadline {
                return Err(err);
            }
            self.emit(RequestEvent::Retrying {
                attempt: attempt + 1,
                max_attempts,
                delay,
                reason: err.summary(),
            });
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        method: &Method,
        url: &Url,
        body: Option<&[u8]>,
        key: Option<&IdempotencyKey>,
        attempt: u32,
        max_attempts: u32,
    ) -> Result<RawResponse, ApiError> {
        let opts = &self.inner.opts;
        let shown = url.to_string();
        self.emit(RequestEvent::Sending {
            method: method.clone(),
            url: shown.clone(),
            attempt,
            max_attempts,
        });
        let t0 = Instant::now();
        let mut req = self
            .inner
            .http
            .request(method.clone(), url.clone())
            .timeout(opts.request_timeout);
        if let Some(b) = body {
            req = req
                .header(header::CONTENT_TYPE, "application/json")
                .body(b.to_vec());
        }
        if let Some(k) = key {
            req = req.header("Idempotency-Key", k.as_str());
        }
        let sent_body = body.is_some();
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                let err = transport_error(&e, sent_body);
                self.emit(RequestEvent::Failed {
                    method: method.clone(),
                    url: shown,
                    error: err.summary(),
                    elapsed: t0.elapsed(),
                });
                return Err(err);
            }
        };
        let status = resp.status();
        let headers = resp.headers().clone();
        let body = match read_body(resp, opts.max_body_bytes).await {
            Ok(b) => b,
            Err(mut err) => {
                err.status = Some(status.as_u16());
                // Whatever the status, a write may have been applied: only the same key may retry it.
                err.outcome_unknown = sent_body;
                self.emit(RequestEvent::Failed {
                    method: method.clone(),
                    url: shown,
                    error: err.summary(),
                    elapsed: t0.elapsed(),
                });
                return Err(err);
            }
        };
        self.emit(RequestEvent::Received {
            method: method.clone(),
            url: shown,
            status: status.as_u16(),
            elapsed: t0.elapsed(),
        });
        if status.is_success() {
            let replayed = headers
                .get("idempotent-replayed")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            return Ok(RawResponse {
                status: status.as_u16(),
                body,
                replayed,
            });
        }
        Err(super::error::from_response(status, &headers, &body))
    }
}

struct RawResponse {
    status: u16,
    body: Vec<u8>,
    replayed: bool,
}

fn bad_response(status: u16, e: super::models::DecodeError) -> ApiError {
    let mut err = ApiError::new(ErrorKind::BadResponse, e.to_string());
    err.status = Some(status);
    err
}

fn timeout_error(after: Duration, write: bool) -> ApiError {
    let mut e = ApiError::new(
        ErrorKind::Timeout,
        format!("no answer within {}s", after.as_secs()),
    );
    e.outcome_unknown = write;
    e
}

/// Reads at most `max` bytes; more is refused (a body that large is not an API answer).
async fn read_body(mut resp: reqwest::Response, max: usize) -> Result<Vec<u8>, ApiError> {
    if let Some(len) = resp.content_length()
        && len as usize > max
    {
        return Err(ApiError::new(
            ErrorKind::BadResponse,
            format!(
                "the response is {len} bytes, over the {} MB limit",
                max / (1024 * 1024)
            ),
        ));
    }
    let mut out = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if out.len() + chunk.len() > max {
                    return Err(ApiError::new(
                        ErrorKind::BadResponse,
                        format!("the response is over the {} MB limit", max / (1024 * 1024)),
                    ));
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

/// Classifies a reqwest error. `sent_body`: the request was a write, so anything but a failed
/// connect leaves its outcome unknown.
fn transport_error(e: &reqwest::Error, sent_body: bool) -> ApiError {
    let mut err = if e.is_timeout() {
        ApiError::new(
            ErrorKind::Timeout,
            "the server did not answer in time".to_string(),
        )
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

fn should_retry(policy: RetryPolicy, err: &ApiError, timeouts: u32) -> bool {
    let status_retry = match err.status {
        Some(429) => true,
        Some(502 | 504) => policy != RetryPolicy::Unsafe,
        Some(503) => policy != RetryPolicy::Unsafe || err.retry_after.is_some(),
        _ => false,
    };
    if policy == RetryPolicy::Unsafe {
        // Only a failed connect is certain not to have reached the server.
        return status_retry
            || (err.kind == ErrorKind::Network && !err.outcome_unknown && err.status.is_none());
    }
    match err.kind {
        ErrorKind::Timeout => timeouts <= 1,
        ErrorKind::Network => true,
        _ => status_retry,
    }
}

/// Exponential backoff with jitter, or the server's `Retry-After` (capped).
fn backoff(opts: &ClientOptions, attempt: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(ra) = retry_after {
        return ra.min(opts.max_retry_after);
    }
    let exp = opts
        .backoff_base
        .saturating_mul(1u32 << (attempt - 1).min(8));
    let jitter = rand::random_range(0.5..1.0);
    exp.mul_f64(jitter)
}
