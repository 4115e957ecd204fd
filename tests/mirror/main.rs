//! The local mirror (SQLite) against the sandbox: sync (first, resumed, incremental against a
//! churning sandbox, deletions), search, privacy, damaged files, and the `sync`/`search`/`cache`
//! commands of the real binary.

mod changes;
mod changes_cli;
mod changes_golden;
mod churn;
mod cli;
#[path = "../cli/cli_support.rs"]
mod cli_support;
mod counts;
mod damage;
mod dupes;
mod dupes_read;
mod faults;
mod first_sync;
mod hostile;
mod lists;
mod migrate;
mod mirror_support;
mod search;
mod sync;
mod today_read;
