//! The local mirror: a per-profile SQLite copy of contacts, deals and projects (raw JSON plus
//! indexed columns and a full-text index), kept fresh by incremental and full syncs, searched
//! and browsed without the network. It knows `api/` models, never the terminal.
//!
//! Every call on [`Mirror`] blocks on disk: the dashboard runs them on the blocking pool
//! (`spawn_blocking`) and gets plain data back. [`sync::sync`] is async (HTTP) and does its
//! own disk writes on the blocking pool.

mod doc;
mod error;
mod lock;
pub mod paths;
mod rows;
mod schema;
mod search;
mod store;
pub mod sync;
mod why;

use serde::{Deserialize, Serialize};

pub use doc::Mirrored;
pub use error::MirrorError;
pub use lock::{HolderLock, SyncLock, holders};
pub use paths::{MirrorFiles, MirrorLocation};
pub use rows::{DealRelations, LinkedRecord, MirrorPage, MirrorQuery};
pub use search::{SearchGroup, SearchHit, SearchQuery, SearchResults};
pub use store::{Applied, FullPass, Mirror, MirrorStatus, Opened, ResourceStatus, SyncState};
pub use sync::{PassKind, ResourceReport, SyncOptions, SyncProgress, SyncReport};

/// The three mirrored resources.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Resource {
    Contacts,
    Deals,
    Projects,
}

impl Resource {
    pub const ALL: [Resource; 3] = [Resource::Contacts, Resource::Deals, Resource::Projects];

    /// `contacts`, `deals`, `projects` (as in the API's paths).
    pub fn as_str(self) -> &'static str {
        match self {
            Resource::Contacts => "contacts",
            Resource::Deals => "deals",
            Resource::Projects => "projects",
        }
    }

    /// `contact`, `deal`, `project`.
    pub fn singular(self) -> &'static str {
        match self {
            Resource::Contacts => "contact",
            Resource::Deals => "deal",
            Resource::Projects => "project",
        }
    }
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
