//! `Client`: one async method per operation of the seed, with headers, deadlines, bounded
//! bodies and retries that never duplicate a create. It knows HTTP and the spec, nothing of terminals.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use reqwest::header::{self, HeaderMap, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Map, Value};
use url::Url;

use crate::gate::WriteTicket;

use super::error::{ApiError, ErrorKind};
use super::models::{
    AppointmentRef, Contact, Deal, DecodeError, IdempotencyKey, NewContact, Page, Project,
    decode_page, decode_page_lean, decode_single,
};
use super::query::{ContactQuery, DealQuery, ListQuery, ProjectQuery};
use super::retry::RetryPolicy;
use super::transport::{Outgoing, bad_response};

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
    /// An attempt ended (answered or not), with everything the request log shows.
    Exchanged(Arc<super::exchange::Exchange>),
}

pub type Observer = Arc<dyn Fn(&RequestEvent) + Send + Sync>;

/// A created record and how the server answered.
#[derive(Debug, Clone)]
pub struct Created<T> {
    pub status: u16,
    /// The record when the body carried one (the seed does not show the body).
    pub record: Option<T>,
    /// The server said this answer replays an earlier one (`Idempotent-Replayed: true`).
    pub replayed: bool,
    /// Why a 2xx body did not decode into a record. The create succeeded all the same
    /// (the status says so); only the echo of the record is missing.
    pub undecoded: Option<DecodeError>,
}

struct Inner {
    base: Url,
    http: reqwest::Client,
    opts: ClientOptions,
    /// Kept to mask it wherever the service echoes it back (`mask`); sent only in the
    /// `Authorization` header `http` carries.
    token: SecretString,
}

/// The API v1 client. Cheap to clone; clones share the connection pool.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    observer: Option<Observer>,
    /// The gate its requests pass (foreground first), when shared with a background sync.
    lane: Option<(Arc<super::PriorityGate>, super::Lane)>,
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
    if !url.username().is_empty() || url.password().is_some() {
        // Credentials in a URL end up in logs and error messages; the token goes in a header.
        return Err(ApiError::invalid_request(
            "base_url",
            "the base URL must not contain a user name or password (the token is sent in a header)",
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ApiError::invalid_request(
            "base_url",
            "the base URL has no host",
        ));
    }
    // crmdash adds `/public/v1` itself: a base URL ending in it would ask for
    // `/public/v1/public/v1/...` and meet a 404 that says nothing of why.
    let path = url.path().trim_end_matches('/');
    if let Some(root) = path.strip_suffix("/public/v1") {
        let mut fixed = url.clone();
        fixed.set_path(if root.is_empty() { "/" } else { root });
        return Err(ApiError::invalid_request(
            "base_url",
            format!(
                "the base URL is the service's address without /public/v1 (crmdash adds it): use {}",
                fixed.as_str().trim_end_matches('/')
            ),
        ));
    }
    // DNS limits: a longer name can never resolve, so say so instead of a network error.
    if let Some(url::Host::Domain(d)) = url.host()
        && (d.len() > 253 || d.split('.').any(|label| label.len() > 63))
    {
        return Err(ApiError::invalid_request(
            "base_url",
            "the base URL's host name is too long (253 characters, 63 per label, at most)",
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
        if token.expose_secret().trim().is_empty() {
            return Err(ApiError::invalid_request("token", "the API token is empty"));
        }
        // No program crmdash starts may inherit a variable holding it.
        crate::child::register_secret(&token);
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
        } else if base.scheme() == "http" {
            // Plain HTTP is only ever to a loopback address and redirects are never followed:
            // no TLS will happen, so skip reading the system's CA store (about 5 ms of file
            // I/O and parsing at every start against a local sandbox).
            builder = builder.tls_certs_only([]);
        }
        if base.scheme() == "http" {
            // A proxy would read a plain request whole, the token with it: loopback is never
            // proxied. (An https request goes through an http proxy only as a CONNECT tunnel,
            // its headers inside TLS.)
            builder = builder.no_proxy();
        }
        let http = builder
            .build()
            .map_err(|e| ApiError::new(ErrorKind::Other, format!("cannot set up HTTP: {e}")))?;
        Ok(Client {
            inner: Arc::new(Inner {
                base,
                http,
                opts,
                token,
            }),
            observer: None,
            lane: None,
        })
    }

    /// A clone that tries each request once (no retries): for a question whose answer is only
    /// "reachable or not", such as the dashboard's offline probe.
    pub fn single_attempt(&self) -> Self {
        Client {
            inner: Arc::new(Inner {
                base: self.inner.base.clone(),
                http: self.inner.http.clone(),
                opts: ClientOptions {
                    max_retries: 0,
                    ..self.inner.opts.clone()
                },
                token: self.inner.token.clone(),
            }),
            observer: self.observer.clone(),
            lane: self.lane.clone(),
        }
    }

    /// The observer this client reports its requests to, if any (to chain another after it).
    pub fn observer(&self) -> Option<Observer> {
        self.observer.clone()
    }

    /// A clone that reports its requests to `observer`.
    pub fn with_observer(&self, observer: Observer) -> Self {
        Client {
            inner: self.inner.clone(),
            observer: Some(observer),
            lane: self.lane.clone(),
        }
    }

    /// A clone that reports its requests to `observer` as well as to the one it had (a sync's
    /// governor hears of rate limits while `-v` output goes on).
    pub fn also_observed_by(&self, observer: Observer) -> Self {
        let both: Observer = match self.observer.clone() {
            Some(first) => Arc::new(move |ev: &RequestEvent| {
                first(ev);
                observer(ev);
            }),
            None => observer,
        };
        self.with_observer(both)
    }

    /// A clone whose every attempt passes `gate` in `lane`: a background client waits
    /// while a foreground request of the same gate is in flight (see `api::priority`).
    pub fn with_lane(&self, gate: Arc<super::PriorityGate>, lane: super::Lane) -> Self {
        Client {
            inner: self.inner.clone(),
            observer: self.observer.clone(),
            lane: Some((gate, lane)),
        }
    }

    /// Waits for this client's turn at its gate (at once without one).
    pub(super) async fn turn(&self) -> Option<super::priority::Turn> {
        match &self.lane {
            Some((gate, lane)) => Some(gate.turn(*lane).await),
            None => None,
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

    /// Any list operation: `GET /public/v1/{noun}` (of `Q::RESOURCE`) with the query's pairs.
    /// Pages of more than a few records are decoded on the blocking pool (see
    /// [`decode_off_loop`]).
    pub async fn list<Q: ListQuery>(&self, query: &Q) -> Result<Page<Q::Item>, ApiError> {
        self.list_as(query, false).await
    }

    /// [`Client::list`] with each record read by `ApiRecord::from_raw_lean` (relations by id,
    /// no `extra`): for a sync, which stores the raw JSON and shows nothing.
    pub async fn list_lean<Q: ListQuery>(&self, query: &Q) -> Result<Page<Q::Item>, ApiError> {
        self.list_as(query, true).await
    }

    async fn list_as<Q: ListQuery>(
        &self,
        query: &Q,
        lean: bool,
    ) -> Result<Page<Q::Item>, ApiError> {
        let pairs = query.to_pairs()?;
        let mut url = self.endpoint(&[Q::RESOURCE.noun()]);
        if !pairs.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
        }
        let resp = self
            .execute(Outgoing {
                method: Method::GET,
                url,
                body: None,
                key: None,
                policy: RetryPolicy::Read,
                headers: HeaderMap::new(),
            })
            .await?;
        let status = resp.status;
        decode_off_loop::<Q::Item>(resp.body, lean)
            .await
            .map_err(|e| bad_response(status, e))
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

    /// `POST /public/v1/contacts` with `Idempotency-Key`, with the write gate's leave
    /// (`crate::gate`). Retries resend the same body with the
    /// same key. An error with `outcome_unknown` means: keep the key and retry with it.
    pub async fn create_contact(
        &self,
        _ticket: &WriteTicket,
        contact: &NewContact,
        key: &IdempotencyKey,
    ) -> Result<Created<Contact>, ApiError> {
        let body = serde_json::to_vec(&contact.to_body()).map_err(|e| {
            ApiError::new(ErrorKind::Other, format!("cannot encode the contact: {e}"))
        })?;
        let url = self.endpoint(&["contacts"]);
        let resp = self
            .execute(Outgoing {
                method: Method::POST,
                url,
                body: Some(body),
                key: Some(key),
                policy: RetryPolicy::IdempotentWrite,
                headers: HeaderMap::new(),
            })
            .await?;
        let (record, undecoded) = match decode_single::<Contact>(&resp.body) {
            Ok(r) => (r, None),
            Err(e) => {
                tracing::warn!(status = resp.status, error = %e, "created, but the body did not decode");
                (None, Some(e))
            }
        };
        Ok(Created {
            status: resp.status,
            record,
            replayed: resp.replayed,
            undecoded,
        })
    }

    /// `POST /public/v1/appointments/{id}/reschedule` with the body exactly as given.
    /// Not retried once the request may have reached the server.
    pub async fn reschedule_appointment(
        &self,
        _ticket: &WriteTicket,
        id: &str,
        body: &Map<String, Value>,
    ) -> Result<AppointmentRef, ApiError> {
        let id = id.trim();
        if id.is_empty() {
            return Err(ApiError::invalid_request(
                "id",
                "an appointment id is required",
            ));
        }
        if id == "." || id == ".." {
            // URLs treat these as "this/parent folder" (even percent-encoded): the request
            // would reach another endpoint.
            return Err(ApiError::invalid_request(
                "id",
                format!("'{id}' cannot be sent as an appointment id"),
            ));
        }
        let body = serde_json::to_vec(body)
            .map_err(|e| ApiError::new(ErrorKind::Other, format!("cannot encode the body: {e}")))?;
        let url = self.endpoint(&["appointments", id, "reschedule"]);
        let resp = self
            .execute(Outgoing {
                method: Method::POST,
                url,
                body: Some(body),
                key: None,
                policy: RetryPolicy::Unsafe,
                headers: HeaderMap::new(),
            })
            .await?;
        match decode_single::<AppointmentRef>(&resp.body) {
            Ok(Some(a)) => Ok(a),
            Ok(None) => Err(bad_response(
                resp.status,
                DecodeError::new("the response has no body (expected {data: {id, ...}})", b""),
            )),
            Err(e) => Err(bad_response(resp.status, e)),
        }
    }

    pub(super) fn http(&self) -> &reqwest::Client {
        &self.inner.http
    }

    /// The token, for masking it where the service echoes it back.
    pub(super) fn token(&self) -> &SecretString {
        &self.inner.token
    }

    /// Whether anyone hears this client's events (the request log is built only then).
    pub(super) fn observed(&self) -> bool {
        self.observer.is_some()
    }

    pub(super) fn emit(&self, ev: RequestEvent) {
        tracing::debug!(event = ?ev, "http");
        if let Some(o) = &self.observer {
            o(&ev);
        }
    }
}

/// Bodies above this size are decoded on tokio's blocking pool. Decoding keeps every record's
/// raw JSON and indexes its fields, about 800 instructions a byte: a 100-deal page would hold
/// the dashboard's single-threaded loop (and the keys waiting on it) for over a millisecond.
const DECODE_INLINE_MAX: usize = 4 * 1024;

async fn decode_off_loop<T: super::models::ApiRecord>(
    body: Vec<u8>,
    lean: bool,
) -> Result<Page<T>, DecodeError> {
    let decode = move |body: &[u8]| {
        if lean {
            decode_page_lean::<T>(body)
        } else {
            decode_page::<T>(body)
        }
    };
    if body.len() <= DECODE_INLINE_MAX || tokio::runtime::Handle::try_current().is_err() {
        return decode(&body);
    }
    match tokio::task::spawn_blocking(move || decode(&body)).await {
        Ok(decoded) => decoded,
        // The task panicked or the runtime is shutting down: say so as a decode failure.
        Err(e) => Err(DecodeError::new(format!("decoding stopped: {e}"), b"")),
    }
}
