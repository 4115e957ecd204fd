//! The embedded sandbox over real HTTP: lists, writes, every fault kind, and its OpenAPI
//! document checked against its own answers and the client's requests.

#[path = "../api/api_wire.rs"]
mod api_wire;
mod faults;
mod lists;
mod openapi;
mod writes;

/// A write ticket from the gate (no flags, an in-memory journal): what the client's write
/// calls take. The gate itself is tested in `crmdash-api` and by the CLI's tests.
pub(crate) fn ticket() -> crmdash::gate::WriteTicket {
    crmdash::gate::MemoryJournal::default().admit_unflagged("test")
}
