//! crmdash: a terminal dashboard and scriptable CLI for a CRM service's Public HTTP API v1.
//!
//! Data flows one way in the dashboard: terminal event -> `app::Message` -> `app::App::update`
//! -> effects run by `runtime` -> results come back as messages -> `ui::render`.

pub mod api;
pub mod app;
pub mod child;
pub mod cli;
pub mod config;
pub mod credentials;
pub mod demo_dir;
pub mod idempotency_journal;
pub mod insights;
pub mod journal;
pub mod jsonl_store;
pub mod keys;
pub mod logging;
pub mod mirror;
pub mod normalise;
pub mod output;
pub mod reschedule;
pub mod resource;
pub mod runtime;
pub mod safety;
pub mod sandbox;
pub mod terminal;
pub mod timeparse;
pub mod ui;
pub mod user_actions;
pub mod validate;
pub mod view_query;
