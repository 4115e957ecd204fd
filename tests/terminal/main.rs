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
