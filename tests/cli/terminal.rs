//! What changes on a terminal: `appointments reschedule` shows the body and asks before
//! sending, and lists default to a table. The binary runs in a pseudo-terminal.

use crate::cli_support;

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::Duration;

use cli_support::Env;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// Generous: only guards against a hang, never measures speed.
const HANG_GUARD: Duration = Duration::from_secs(120);

struct Session {
    output: mpsc::Receiver<Vec<u8>>,
    seen: String,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Session {
    fn start(env: &Env, args: &[&str]) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 30,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_crmdash"));
        cmd.env_clear();
        let d = env.dir.path();
        for (k, v) in [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("HOME", d.display().to_string()),
            (
                "XDG_CONFIG_HOME",
                d.join("xdg-config").display().to_string(),
            ),
            ("XDG_DATA_HOME", d.join("xdg-data").display().to_string()),
            ("XDG_STATE_HOME", d.join("xdg-state").display().to_string()),
            ("CRMDASH_CONFIG", env.config_path().display().to_string()),
            ("CRMDASH_TOKEN", env.sb.token()),
            (
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent".to_string(),
            ),
            ("NO_COLOR", "1".to_string()),
            ("TERM", "xterm".to_string()),
            ("TZ", "UTC".to_string()),
        ] {
            cmd.env(k, v);
        }
        cmd.cwd(d);
        cmd.arg("--base-url");
        cmd.arg(env.sb.base_url());
        cmd.args(args);
        let child = pair.slave.spawn_command(cmd).expect("spawn");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _keep_master = pair.master;
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Session {
            output: rx,
            seen: String::new(),
            writer,
            child,
        }
    }

    /// Reads until `needle` shows (panics with what was seen if the program ends first).
    fn expect(&mut self, needle: &str) {
        while !self.seen.contains(needle) {
            match self.output.recv_timeout(HANG_GUARD) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!("never saw {needle:?}; output:\n{}", self.seen),
            }
        }
    }

    fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    fn finish(mut self) -> (u32, String) {
        let status = self.child.wait().expect("wait");
        while let Ok(bytes) = self.output.recv_timeout(Duration::from_millis(500)) {
            self.seen.push_str(&String::from_utf8_lossy(&bytes));
        }
        (status.exit_code(), self.seen)
    }
}

fn appointment(env: &Env) -> String {
    env.sb.ids("appointments").into_iter().next().unwrap()
}

#[test]
fn on_a_terminal_reschedule_shows_the_body_and_sends_after_yes() {
    let env = Env::new();
    let id = appointment(&env);
    let mut s = Session::start(
        &env,
        &[
            "appointments",
            "reschedule",
            &id,
            "--start",
            "2030-02-03T10:00:00Z",
        ],
    );
    s.expect("\"start_time\": \"2030-02-03T10:00:00Z\"");
    s.expect("crmdash's defaults");
    s.expect("Send? [y/N]");
    assert!(env.sb.requests().is_empty(), "nothing before the answer");
    s.send("y\r");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen}");
    assert_eq!(env.requests_to("POST", "appointments").len(), 1);
    // A terminal gets a table by default.
    assert!(seen.contains("ID"), "{seen}");
}

#[test]
fn on_a_terminal_answering_no_sends_nothing() {
    let env = Env::new();
    let id = appointment(&env);
    let mut s = Session::start(&env, &["appointments", "reschedule", &id, "--start", "+1d"]);
    s.expect("Send? [y/N]");
    s.send("n\r");
    let (code, seen) = s.finish();
    assert_eq!(code, 1, "{seen}");
    assert!(seen.contains("error: cancelled"), "{seen}");
    assert!(env.requests_to("POST", "appointments").is_empty());
}

#[test]
fn on_a_terminal_lists_default_to_a_table() {
    let env = Env::new();
    let s = Session::start(&env, &["deals", "list", "--per-page", "3"]);
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen}");
    assert!(seen.contains("NAME") && seen.contains("STATUS"), "{seen}");
    assert!(
        !seen.trim_start().starts_with('['),
        "not JSON on a terminal: {seen}"
    );
}

/// Issue 27: `deals list` printed 25 of 500 with no word, `--page 99` only a header.
#[test]
fn on_a_terminal_a_partial_list_and_a_page_past_the_end_say_so() {
    let env = Env::new();
    let total = env.sb.ids("deals").len();
    let pages = total.div_ceil(25);
    let (code, seen) = Session::start(&env, &["deals", "list"]).finish();
    assert_eq!(code, 0, "{seen}");
    assert!(
        seen.contains(&format!(
            "25 of {total} deals (page 1/{pages}); --all for every page"
        )),
        "{seen}"
    );
    let (code, seen) = Session::start(&env, &["deals", "list", "--page", "99"]).finish();
    assert_eq!(code, 0, "{seen}");
    assert!(
        seen.contains(&format!(
            "page 99 is past the end: {total} deals make {pages} pages of 25 (--page 1 to {pages})"
        )),
        "{seen}"
    );
    // Everything on one page: nothing to add.
    let (_, seen) = Session::start(&env, &["deals", "list", "--all"]).finish();
    assert!(!seen.contains("--all for every page"), "{seen}");
}

/// Whether `seen` holds any of the hostile text's active parts as bytes.
fn raw_escapes(seen: &str) -> bool {
    seen.contains("\u{1b}]52")
        || seen.contains("\u{1b}[2J")
        || seen.contains("\u{1b}]0;")
        || seen.contains("\u{1b}]8;")
        || seen.contains('\u{202e}')
        || seen.contains('\u{200b}')
}

#[test]
fn on_a_terminal_every_output_shows_the_services_escapes_and_a_pipe_gets_its_bytes() {
    use crmdash::sandbox::{FaultKind, HostileShape};
    let env = Env::new();
    env.fault(
        crate::cli_support::fault(FaultKind::Hostile {
            shape: HostileShape::Escapes,
            depth: 0,
        })
        .on("GET", "/contacts")
        .always(),
    );
    let runs: [&[&str]; 6] = [
        &[
            "api",
            "GET",
            "contacts?per_page=1",
            "--jq",
            ".data[0].first_name",
        ],
        &[
            "api",
            "GET",
            "contacts?per_page=1",
            "--template",
            "{{ data[0].first_name }}",
        ],
        &["contacts", "list", "--per-page", "2", "--format", "csv"],
        &["contacts", "list", "--per-page", "1", "--format", "jsonl"],
        &["api", "GET", "contacts?per_page=1", "--include"],
        // An error message that carries the service's text.
        &[
            "api",
            "GET",
            "contacts?per_page=1",
            "--jq",
            ".data[0].first_name | error",
        ],
    ];
    for args in runs {
        let s = Session::start(&env, args);
        let (_, seen) = s.finish();
        assert!(!raw_escapes(&seen), "{args:?} wrote the escapes: {seen:?}");
        // JSON (and jq's error, which quotes the value as JSON) writes controls as \u001b
        // already; text shows them as symbols. Bidi and zero-width characters show as `�`.
        let json = args.contains(&"jsonl")
            || args.contains(&"--include")
            || args.iter().any(|a| a.ends_with("| error"));
        if !json {
            assert!(seen.contains("␛]52;c;cHduZWQ=␇"), "{args:?}: {seen:?}");
        }
        assert!(
            seen.contains("Eve") && seen.contains("�txt.exe�"),
            "{args:?}: {seen:?}"
        );
    }
    // Piped: the exact bytes.
    let out = crate::cli_support::run(env.cmd(&[
        "api",
        "GET",
        "contacts?per_page=1",
        "--jq",
        ".data[0].first_name",
    ]))
    .code(0);
    assert_eq!(out.stdout.trim_end(), crmdash::sandbox::HOSTILE_ESCAPES);
}

/// A usage error echoes the argument it refused (`invalid value '…'`): on a terminal its
/// escapes never reach it as bytes that act, and a bidi override shows as `�` (issue 43's
/// tryout: the title changed and the screen cleared).
#[test]
fn on_a_terminal_a_usage_error_shows_the_argument_s_escapes() {
    let env = Env::new();
    let hostile = "\u{1b}]0;PWNED\u{7}\u{1b}[2Jx\u{202e}";
    for args in [
        vec!["contacts", "list", "--per-page", hostile],
        vec!["contacts", "list", "--format", hostile],
        vec![hostile],
    ] {
        let (code, seen) = Session::start(&env, &args).finish();
        assert_eq!(code, 2, "{args:?}: {seen:?}");
        assert!(!raw_escapes(&seen), "{args:?} wrote the escapes: {seen:?}");
        // The escape sequences are dropped from the message; the bidi override shows.
        assert!(seen.contains("x�"), "{args:?}: {seen:?}");
    }
}
