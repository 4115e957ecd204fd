//! A first run in a real terminal: `crmdash` with an empty config dir (no base URL, no
//! token, no keyring reachable) opens the login dialog instead of exiting, refuses plain
//! http to a remote host, logs in against the embedded sandbox with the typed base URL and
//! token, saves the URL in the config file and says the token is kept for this session only
//! (with the `CRMDASH_TOKEN` advice). The real binary on a pty, the screen read with vt100.

use crate::cli_support::Env;
use crate::reliability_support::{Pty, command};

#[test]
fn a_first_run_asks_for_the_base_url_and_the_token_then_shows_the_data() {
    let env = Env::new();
    let root = env.dir.path();
    let mut pty = Pty::spawn(command(root, &[], &[("CRMDASH_LOG", "off")]));
    let s = pty.wait_for("Log in");
    assert!(s.contains("has no base URL and no API token yet"), "{s}");
    // The keyring is out of reach here: said once, in the dialog, never behind it.
    pty.send("http://crm.example.com\r");
    let s = pty.wait_for("clear text");
    assert!(s.contains("Base URL"), "{s}");
    pty.send("\x15"); // Ctrl-U clears the field.
    pty.send(&format!("{}\r", env.sb.base_url()));
    pty.send(&format!("{}\r", env.sb.token()));
    // Said in full in the dialog (the data loads behind it), closed with Enter.
    let s = pty.wait_for("this session only");
    assert!(s.contains("CRMDASH_TOKEN"), "{s}");
    assert!(s.contains("base URL is saved in"), "{s}");
    pty.wait_for("page 1/");
    pty.send("\r");
    let s = pty.wait_for("q quit");
    assert!(!s.contains("Log in") && !s.contains("Logged in ─"), "{s}");
    let host = crmdash::config::host_label(&env.sb.base_url());
    assert!(s.contains(&host), "the status bar names the host:\n{s}");
    pty.send("q");
    let status = pty.wait_exit();
    assert!(status.success(), "{status:?}");
    let config = std::fs::read_to_string(root.join("config.toml")).unwrap();
    assert!(config.contains("[profiles.default]"), "{config}");
    assert!(
        config.contains(&crmdash::config::normalize_base_url(&env.sb.base_url())),
        "{config}"
    );
    assert!(
        !config.contains(&env.sb.token()),
        "the token is never written"
    );
}
