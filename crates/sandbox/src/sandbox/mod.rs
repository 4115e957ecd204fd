//! The embedded sandbox: a local fake of the service's Public API v1 (axum on 127.0.0.1) with
//! seeded data, the seed's five operations, idempotent creates, a request log and fault
//! injection. `crmdash sandbox` runs it in the foreground, `--demo` and tests in-process.
//!
//! Its documented choices where the seed says "not shown" are in [`CHOICES`] (`CHOICES.md`).

mod appointments;
mod churn;
mod config;
mod contacts;
mod control;
mod error;
mod faults;
mod gen_contacts;
mod gen_records;
mod history;
mod hostile;
mod idempotency;
mod inject;
mod listing;
mod middleware;
mod names;
mod openapi;
mod plant;
mod ratelimit;
mod requestlog;
mod rng;
mod routes;
mod seed;
mod server;
mod state;
mod store;
mod synced;
mod timefmt;
mod validation;

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use serde_json::Value;
use tokio::net::TcpListener;

pub use churn::{Change, ChangedField};
pub use config::{SandboxArgs, SandboxConfig};
pub use error::SandboxError;
pub use faults::{DEFAULT_REDIRECT, FaultKind, FaultRule, Faults, HUGE_BODY_BYTES};
pub use gen_contacts::SynthContact;
pub use history::PastChange;
pub use hostile::{
    DEFAULT_DEPTH as HOSTILE_DEFAULT_DEPTH, ESCAPES as HOSTILE_ESCAPES, FORMULA as HOSTILE_FORMULA,
    HostileShape, OPTION_VALUE as HOSTILE_OPTION_VALUE,
};
pub use idempotency::KEY_TTL;
pub use listing::{DEFAULT_PER_PAGE, MAX_PER_PAGE};
pub use openapi::{PATH as OPENAPI_PATH, document as openapi_document};
pub use plant::{PlantKind, Planted};
pub use requestlog::{LOG_CAPACITY, RecordedRequest};
pub use seed::{DEFAULT_SEED, Dataset, Sizes, generate, generate_compact};
pub use synced::each_served;

use state::{Settings, Shared};

/// The token the sandbox accepts unless told otherwise. Local and public: not a secret.
pub const DEFAULT_TOKEN: &str = "sandbox-token-local-only";

/// The sandbox's documented choices where the seed says "not shown".
pub const CHOICES: &str = include_str!("CHOICES.md");

/// Starts sandboxes.
pub struct Sandbox;

impl Sandbox {
    /// Loads (or generates) the data, binds 127.0.0.1:`cfg.port` and serves until the handle
    /// is shut down or dropped.
    pub async fn start(cfg: SandboxConfig) -> Result<SandboxHandle, SandboxError> {
        config::check_token(&cfg.token)?;
        if let Some(ro) = &cfg.read_only_token {
            config::check_token(ro)?;
        }
        for rule in &cfg.faults {
            rule.check().map_err(SandboxError::Fault)?;
        }
        let (data, planted) = Dataset::for_sandbox(cfg.seed, cfg.contacts, cfg.near_duplicates)?;
        let churn_stop = tokio_util::sync::CancellationToken::new();
        let shared = Arc::new(Shared::new(
            Settings {
                token: cfg.token.clone(),
                read_only_token: cfg.read_only_token.clone(),
                unique_emails: cfg.unique_emails,
                latency: cfg.latency,
                seed: cfg.seed,
                contacts: cfg.contacts,
                near_duplicates: cfg.near_duplicates,
            },
            data,
        ));
        for rule in cfg.faults {
            shared.faults().add(rule);
        }
        // Orderings are computed once per query shape: the default ones now, so the first page
        // is quick even with 100,000 contacts, the other sort keys in the background (a request
        // arriving before its shape is ready computes its own).
        listing::warm(&shared.store(), shared.cache(), false);
        let warm = shared.clone();
        tokio::task::spawn_blocking(move || listing::warm(&warm.store(), warm.cache(), true));
        let listener = TcpListener::bind(("127.0.0.1", cfg.port))
            .await
            .map_err(|source| SandboxError::Bind {
                port: cfg.port,
                source,
            })?;
        let server = server::Server::spawn(listener, app(shared.clone(), cfg.rate_limit)).map_err(
            |source| SandboxError::Bind {
                port: cfg.port,
                source,
            },
        )?;
        if cfg.churn > 0 {
            churn::spawn(Arc::downgrade(&shared), cfg.churn, churn_stop.clone());
        }
        Ok(SandboxHandle {
            planted,
            shared,
            server,
            churn_stop,
        })
    }
}

/// The whole router: the API with its layers, and the control endpoint beside it.
fn app(shared: Arc<Shared>, rate_limit: Option<u32>) -> Router {
    let mut api = routes::api_routes()
        .layer(from_fn_with_state(shared.clone(), middleware::faults))
        .layer(from_fn_with_state(shared.clone(), middleware::idempotency));
    if let Some(n) = rate_limit {
        let limit = ratelimit::Limit {
            shared: shared.clone(),
            limiter: Arc::new(ratelimit::RateLimiter::new(n)),
        };
        api = api.layer(from_fn_with_state(limit, ratelimit::limit));
    }
    let api = api
        .layer(from_fn_with_state(shared.clone(), middleware::auth))
        .layer(from_fn_with_state(shared.clone(), middleware::record));
    Router::new()
        .route(openapi::PATH, axum::routing::get(openapi::serve))
        .merge(api)
        .merge(control::control_routes(shared.clone()))
        .fallback(routes::not_found)
        .with_state(shared)
}

/// A running sandbox. Dropping it stops the server (open connections are closed).
pub struct SandboxHandle {
    /// The labelled near duplicates (`near_duplicates`), the same after a reset.
    planted: Vec<Planted>,
    shared: Arc<Shared>,
    server: server::Server,
    churn_stop: tokio_util::sync::CancellationToken,
}

impl std::fmt::Debug for SandboxHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxHandle")
            .field("base_url", &self.base_url())
            .finish_non_exhaustive()
    }
}

impl SandboxHandle {
    /// `http://127.0.0.1:PORT` (the API is under `/public/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    pub fn port(&self) -> u16 {
        self.server.addr.port()
    }

    /// The (local, test) token clients must send.
    pub fn token(&self) -> String {
        self.shared.settings.token.clone()
    }

    /// Adds, lists and clears fault rules while running.
    pub fn faults(&self) -> Faults {
        Faults {
            shared: self.shared.clone(),
        }
    }

    /// Every API request received so far (oldest first; never the token).
    /// Whether any request reached this sandbox with `token` as its bearer token (tests: a
    /// profile's token never goes to another profile's host). The tokens themselves are
    /// never listed.
    pub fn received_token(&self, token: &str) -> bool {
        self.shared.log().received_bearer(token)
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.log().snapshot()
    }

    pub fn clear_requests(&self) {
        self.shared.log().clear();
    }

    /// How many contacts have this e-mail address (case-insensitive).
    pub fn contacts_with_email(&self, email: &str) -> usize {
        self.shared.store().contacts_with_email(email)
    }

    pub fn contact_count(&self) -> usize {
        self.shared.store().contacts.len()
    }

    /// A contact as stored.
    pub fn contact(&self, id: &str) -> Option<Value> {
        let store = self.shared.store();
        store
            .contacts
            .get(id)
            .map(|r| Value::Object(r.json().into_owned()))
    }

    /// An appointment as stored (`start_time`, `end_time`, `timezone`, `status`...).
    pub fn appointment(&self, id: &str) -> Option<Value> {
        let store = self.shared.store();
        store
            .appointments
            .get(id)
            .map(|r| Value::Object(r.json().into_owned()))
    }

    /// Ids of every record of a kind (`contacts`, `deals`, `projects`, `appointments`, `users`,
    /// `accounts`), in storage order.
    pub fn ids(&self, kind: &str) -> Vec<String> {
        let store = self.shared.store();
        let table = match kind {
            "contacts" => &store.contacts,
            "deals" => &store.deals,
            "projects" => &store.projects,
            "appointments" => &store.appointments,
            "users" => &store.users,
            "accounts" => &store.accounts,
            _ => return Vec::new(),
        };
        table.rows.iter().map(|r| r.id().to_string()).collect()
    }

    /// Makes `n` changes now (as `--churn` does over time) and returns them.
    pub fn churn(&self, n: usize) -> Vec<Change> {
        self.shared.churn(n)
    }

    /// Makes `n` updates of deals and projects now (no deletion, no contact touched).
    pub fn churn_deals_and_projects(&self, n: usize) -> Vec<Change> {
        self.shared.churn_deals_and_projects(n)
    }

    /// A made-up past of the deals over the `days` days before `end` (for `--demo`): each
    /// deal ends in the state the sandbox holds; nothing changes on the sandbox.
    pub fn deal_history(&self, days: i64, end: chrono::DateTime<chrono::Utc>) -> Vec<PastChange> {
        self.shared.deal_history(days, end)
    }

    /// Stops the background change generator (`--churn`); `churn(n)` still works.
    pub fn stop_churn(&self) {
        self.churn_stop.cancel();
    }

    /// Every change the generator made so far, oldest first.
    pub fn churned(&self) -> Vec<Change> {
        self.shared.churned()
    }

    /// The planted near duplicates and look-alikes, with what each copies (empty unless the
    /// sandbox was started with `near_duplicates`).
    pub fn planted(&self) -> &[Planted] {
        &self.planted
    }

    /// Seed data back; faults, the request log and idempotency keys forgotten.
    pub fn reset(&self) -> Result<(), SandboxError> {
        let s = &self.shared.settings;
        let (data, _) = Dataset::for_sandbox(s.seed, s.contacts, s.near_duplicates)?;
        self.shared.reset(data);
        Ok(())
    }

    /// Stops accepting, closes every connection and waits for them to end.
    pub async fn shutdown(self) {
        self.churn_stop.cancel();
        self.server.shutdown().await;
    }
}

/// `crmdash sandbox`: starts the sandbox, prints its base URL and token (and how to reach the
/// control endpoint), then serves until Ctrl-C.
pub async fn run_foreground(args: SandboxArgs) -> anyhow::Result<()> {
    use std::io::Write;
    if args.openapi {
        let doc = openapi::document(args.port);
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    let cfg = args.to_config();
    let contacts = cfg.contacts;
    let handle = Sandbox::start(cfg).await?;
    let url = handle.base_url();
    let mut out = std::io::stdout().lock();
    writeln!(out, "base_url: {url}")?;
    writeln!(out, "token: {}", handle.token())?;
    writeln!(out)?;
    writeln!(
        out,
        "crmdash sandbox is serving {contacts} contacts at {url}/public/v1 (a local fake; the token above is a test token)."
    )?;
    writeln!(
        out,
        "Try:      curl -H 'Authorization: Bearer {}' '{url}/public/v1/deals?per_page=5'",
        handle.token()
    )?;
    writeln!(
        out,
        "Control:  {url}/_sandbox (faults, recorded requests, reset)"
    )?;
    writeln!(
        out,
        "OpenAPI:  {url}{} (import it into an HTTP client)",
        openapi::PATH
    )?;
    writeln!(out, "Press Ctrl-C to stop.")?;
    out.flush()?;
    drop(out);
    tokio::signal::ctrl_c().await?;
    handle.shutdown().await;
    Ok(())
}

#[cfg(test)]
mod lean_tests;
