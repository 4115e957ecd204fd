//! The local mirror: a per-profile SQLite copy of contacts, deals and projects (raw JSON plus
//! indexed columns and a full-text index), kept fresh by incremental and full syncs, searched
//! and browsed without the network. It knows `api/` models, never the terminal.
//!
//! Every call on [`Mirror`] blocks on disk: the dashboard runs them on the blocking pool
//! (`spawn_blocking`) and gets plain data back. [`sync::sync`] is async (HTTP) and does its
//! own disk writes on the blocking pool.

mod account_contacts;
pub mod changes;
mod complete;
mod contact_fields;
mod deferred;
mod doc;
mod error;
mod lock;
mod open;
mod packed;
pub mod paths;
#[cfg(test)]
mod plans;
mod rows;
mod schema;
mod search;
mod seek;
mod select;
mod store;
pub mod sync;
mod why;

pub use changes::{
    ChangeKind, ChangeQuery, Cursor, DealFacts, FieldChange, RawChange, RecordChange, Selection,
    write_json_line,
};
pub use contact_fields::ContactFields;
pub use doc::Mirrored;
pub use error::MirrorError;
pub use lock::{HolderLock, SyncLock, holders};
pub use open::Opened;
pub use paths::{MirrorFiles, MirrorLocation};
pub use rows::{DealRelations, LinkedRecord, MirrorPage, MirrorQuery};
pub use search::{SearchGroup, SearchHit, SearchQuery, SearchResults};
pub use store::{Applied, FullPass, Mirror, MirrorStatus, ResourceStatus, SyncState};
pub use sync::{PassKind, ResourceReport, SyncOptions, SyncProgress, SyncReport};

/// The mirror keeps every [`Resource`]; its rows and sync state are keyed by its noun.
pub use crate::resource::Resource;
