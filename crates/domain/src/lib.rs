//! crmdash-domain: the shared rules every front end (CLI, dashboard, jobs) goes through.
//!
//! Configuration and profiles, credentials (the OS keyring), safety flags, the write journal
//! and idempotency keys, the reschedule body and plans, the time grammar and display clock,
//! the key map, user actions, saved views and the output formats (table, JSON, CSV).
//!
//! May use: `crmdash-api`. Nothing here knows the mirror, the dashboard or the commands.

use crmdash_api::{api, child, normalise, resource, validate};

pub mod config;
pub mod credentials;
pub mod demo_dir;
pub mod idempotency_journal;
pub mod journal;
pub mod jsonl_store;
pub mod keys;
pub mod logging;
pub mod output;
pub mod reschedule;
pub mod safety;
pub mod timeparse;
pub mod user_actions;
pub mod view_query;
pub mod writes;
