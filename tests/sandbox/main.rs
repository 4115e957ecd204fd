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
    let intent = crmdash::gate::WriteIntent {
        kind: crmdash::gate::WriteKind::Create,
        who: crmdash::gate::Who::Cli,
        profile: "test".into(),
        base_url: "http://127.0.0.1".into(),
        target: None,
        sent: serde_json::Value::Null,
        key: None,
        run: None,
    };
    crmdash::gate::admit(
        crmdash::gate::ProfileSafety::default(),
        "test",
        crmdash::gate::Asker::Cli {
            flag_profile: None,
            yes: false,
        },
        &crmdash::gate::MemoryJournal::default(),
        &intent,
    )
    .expect("an unflagged write passes the gate")
}
