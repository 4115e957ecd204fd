//! How the dashboard ends (issue 19): a signal exits 128 + its number after the terminal is
//! restored, and a state file that cannot be saved is said on stderr after the restore.

use crate::reliability_support;

use reliability_support::{Pty, command, rfind};

fn demo(root: &std::path::Path) -> Pty {
    let pty = Pty::spawn(command(root, &["--demo"], &[]));
    pty.wait_for("page 1/");
    pty
}

#[test]
fn signals_exit_128_plus_their_number_after_restoring_the_terminal() {
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
        (libc::SIGINT, 130),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut pty = demo(dir.path());
        pty.signal(sig);
        let status = pty.wait_exit();
        assert_eq!(status.signal(), None, "exits, not killed: {status:?}");
        assert_eq!(status.exit_code(), code, "signal {sig}: {status:?}");
        assert!(pty.cooked(), "raw mode is off after signal {sig}");
        assert!(rfind(&pty.bytes(), b"\x1b[?1049l").is_some());
    }
}

#[test]
fn a_state_file_that_cannot_be_saved_is_said_after_the_restore() {
    // A profile's dashboard (a demo keeps no state beyond its run).
    let env = crate::cli_support::Env::new();
    let dir = &env.dir;
    // A directory where the state file should go: it cannot be written.
    let state = dir.path().join("xdg-data/crmdash/dashboard.json");
    std::fs::create_dir_all(state.join("in-the-way")).unwrap();
    let base = env.sb.base_url();
    let token = env.sb.token();
    let mut pty = Pty::spawn(command(
        dir.path(),
        &["--base-url", &base],
        &[("CRMDASH_TOKEN", token.as_str())],
    ));
    pty.wait_for("page 1/");
    pty.send("q");
    let status = pty.wait_exit();
    assert!(status.success(), "{status:?}");
    let bytes = pty.bytes();
    let left = rfind(&bytes, b"\x1b[?1049l").expect("the alternate screen was left");
    let after = String::from_utf8_lossy(&bytes[left..]);
    assert!(
        after.contains("warning: the dashboard's state") && after.contains("was not saved"),
        "after the restore: {after:?}"
    );
}
