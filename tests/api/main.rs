//! The typed API client: decoding, queries and errors, and real HTTP against local servers.

mod api_wire;
mod decode;
mod faults;
mod http;
mod props;
mod query;

/// A write ticket from the gate (no flags, an in-memory journal): what the client's write
/// calls take. The gate itself is tested in `crmdash-api` and by the CLI's tests.
pub(crate) fn ticket() -> crmdash::gate::WriteTicket {
    crmdash::gate::MemoryJournal::default().admit_unflagged("test")
}
