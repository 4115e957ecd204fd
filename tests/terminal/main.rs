//! The real binary in a terminal (tmux or a pseudo-terminal): the demo end to end, terminal
//! restore on signals and panics, and a whole session that never leaks the token.

#[path = "../cli/cli_support.rs"]
mod cli_support;
mod e2e;
mod exit;
mod first_run;
mod reliability_support;
mod restore;
mod scripts;
mod secrets;

/// A write ticket from the gate (no flags, an in-memory journal): what the client's write
/// calls take. The gate itself is tested in `crmdash-api` and by the CLI's tests.
pub(crate) fn ticket() -> crmdash::gate::WriteTicket {
    crmdash::gate::MemoryJournal::default().admit_unflagged("test")
}
