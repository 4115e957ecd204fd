//! Pictures of the data as plain values: deal totals for the pipeline (`pipeline`) and the
//! projects timeline (`timeline`). Pure modules, tested without a terminal; the CLI prints
//! them and the dashboard draws them.

pub mod changes;
pub mod dupes;
mod page_walk;
pub mod pipeline;
pub mod reports;
pub mod timeline;
pub mod today;
