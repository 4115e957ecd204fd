//! Terminal restore, from the bytes the dashboard wrote and the pty's termios: killed with
//! SIGTERM or SIGHUP, or panicking (the debug-only `CRMDASH_DEBUG_PANIC=1` trigger), it leaves
//! the alternate screen, turns mouse reporting and bracketed paste off and raw mode off, and a
//! panic's message is printed after the restore, on the normal screen.
//! (tests/dashboard_e2e.rs checks the same from tmux's side: stty and tmux's mode flags.)

use crate::reliability_support;

use reliability_support::{Pty, command, rfind};

/// What `terminal::restore` must write after the last `ESC[?1049h` (enter alternate screen).
const RESTORE: [(&str, &[u8]); 5] = [
    ("leave the alternate screen", b"\x1b[?1049l"),
    ("mouse button reporting off", b"\x1b[?1000l"),
    ("mouse SGR encoding off", b"\x1b[?1006l"),
    ("bracketed paste off", b"\x1b[?2004l"),
    ("cursor shown", b"\x1b[?25h"),
];

fn demo(root: &std::path::Path, envs: &[(&str, &str)]) -> Pty {
    let pty = Pty::spawn(command(root, &["--demo"], envs));
    pty.wait_for("page 1/");
    assert!(!pty.cooked(), "the dashboard runs in raw mode");
    let bytes = pty.bytes();
    for set in [&b"\x1b[?1049h"[..], b"\x1b[?2004h", b"\x1b[?1000h"] {
        assert!(
            rfind(&bytes, set).is_some(),
            "{:?} was set",
            String::from_utf8_lossy(set)
        );
    }
    pty
}

/// Every restoring sequence comes after the last switch into the alternate screen.
fn assert_restored_bytes(bytes: &[u8]) -> usize {
    let entered = rfind(bytes, b"\x1b[?1049h").expect("the alternate screen was entered");
    let after = &bytes[entered..];
    let mut left = 0;
    for (what, seq) in RESTORE {
        let at = rfind(after, seq).unwrap_or_else(|| {
            panic!(
                "{what}: {:?} missing after entering; tail: {:?}",
                String::from_utf8_lossy(seq),
                String::from_utf8_lossy(&after[after.len().saturating_sub(400)..])
            )
        });
        if seq == b"\x1b[?1049l" {
            left = entered + at;
        }
    }
    // Nothing sets a mode again afterwards.
    for set in [&b"\x1b[?1049h"[..], b"\x1b[?1000h", b"\x1b[?2004h"] {
        assert!(
            rfind(&bytes[left..], set).is_none(),
            "{:?} set again after the restore",
            String::from_utf8_lossy(set)
        );
    }
    left
}

#[test]
fn sigterm_restores_the_terminal_bytes_and_termios() {
    let dir = tempfile::tempdir().unwrap();
    let mut pty = demo(dir.path(), &[]);
    pty.signal(libc::SIGTERM);
    let status = pty.wait_exit();
    assert_eq!(
        status.exit_code(),
        128 + 15,
        "SIGTERM exits 128+15: {status:?}"
    );
    assert_restored_bytes(&pty.bytes());
    assert!(pty.cooked(), "raw mode is off after SIGTERM");
}

#[test]
fn sighup_restores_the_terminal_bytes_and_termios() {
    let dir = tempfile::tempdir().unwrap();
    let mut pty = demo(dir.path(), &[]);
    pty.signal(libc::SIGHUP);
    pty.wait_exit();
    assert_restored_bytes(&pty.bytes());
    assert!(pty.cooked(), "raw mode is off after SIGHUP");
}

#[test]
fn q_restores_the_terminal_bytes_and_termios() {
    let dir = tempfile::tempdir().unwrap();
    let mut pty = demo(dir.path(), &[]);
    pty.send("q");
    assert!(pty.wait_exit().success());
    assert_restored_bytes(&pty.bytes());
    assert!(pty.cooked());
}

#[test]
fn a_panic_restores_the_terminal_then_prints_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(command(
        dir.path(),
        &["--demo"],
        &[("CRMDASH_DEBUG_PANIC", "1")],
    ));
    let status = pty.wait_exit();
    assert!(!status.success(), "a panic is a failure: {status:?}");
    let bytes = pty.bytes();
    let left = assert_restored_bytes(&bytes);
    let message = b"deliberate panic after the first frame";
    let said = rfind(&bytes, message).unwrap_or_else(|| {
        panic!(
            "the panic message was not printed: {:?}",
            String::from_utf8_lossy(&bytes)
        )
    });
    assert!(
        said > left,
        "the message is printed after leaving the alternate screen, where it stays readable"
    );
    assert!(pty.cooked(), "raw mode is off after a panic");
    assert!(
        pty.screen().contains("deliberate panic"),
        "{}",
        pty.screen()
    );
}
