//! crmdash: a terminal dashboard and scriptable CLI for a CRM service's Public HTTP API v1.
//!
//! Data flows one way in the dashboard: terminal event -> `app::Message` -> `app::App::update`
//! -> effects run by `runtime` -> results come back as messages -> `ui::render`.
//!
//! The crate graph is the architecture (`docs/architecture.md`): `crmdash-api` (vocabulary,
//! client) <- `crmdash-sandbox`, `crmdash-domain` (config, safety, journal, time, output)
//! <- `crmdash-mirror` (store, sync, search, insights) <- this crate (dashboard and commands).
//! The modules of the crates below are re-exported under their old names.

pub use crmdash_api::{api, child, gate, normalise, resource, validate};
pub use crmdash_domain::{
    config, credentials, demo_dir, idempotency_journal, journal, jsonl_store, keys, logging,
    output, reschedule, safety, timeparse, user_actions, view_query, writes,
};
pub use crmdash_mirror::{insights, mirror};
pub use crmdash_sandbox::sandbox;

pub mod app;
pub mod cli;
pub mod runtime;
pub mod terminal;
pub mod ui;
