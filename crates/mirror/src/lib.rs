//! crmdash-mirror: the local mirror of a profile's records and what is computed from it.
//!
//! The SQLite store, the sync, search, the change feed, and the insights over records and
//! their history (duplicates, the pipeline, Today, the timeline).
//!
//! May use: `crmdash-api`, `crmdash-domain` (and `crmdash-sandbox` in its tests). Nothing
//! here knows the dashboard or the commands.

use crmdash_api::{api, resource};
use crmdash_domain::{config, demo_dir, output, timeparse};
#[cfg(test)]
use crmdash_sandbox::sandbox;

pub mod insights;
pub mod mirror;
