//! The API token never leaks: a whole session with `CRMDASH_LOG=trace` (CLI commands, failures
//! included, and the dashboard in a pty, a panic included) against a sandbox that accepts only
//! a distinctive token, then every byte written and every file left behind is searched for it.
//! Also: plain `http://` to a non-loopback host is refused before any connection.

use crate::cli_support;
use crate::reliability_support;

use std::net::{TcpListener, UdpSocket};
use std::path::Path;

use cli_support::{Env, fault, run};
use crmdash::sandbox::{FaultKind, SandboxConfig};
use reliability_support::{Pty, command};

const TOKEN: &str = "rely-Secret-Tok3n-9f3k2m7q4xZw";
/// Every log level, every crate: reqwest, hyper and rustls included.
const ALL_TRACE: &str = "trace,crmdash=trace";

/// The token and long pieces of it (the status line may show its last 4 characters only).
fn needles() -> Vec<&'static str> {
    vec![
        TOKEN,
        &TOKEN[..16],
        &TOKEN[8..24],
        &TOKEN[TOKEN.len() - 16..],
    ]
}

fn assert_clean(label: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for n in needles() {
        assert!(!text.contains(n), "{label} contains the token ({n:?})");
    }
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn a_whole_traced_session_never_shows_the_token() {
    let env = Env::with(SandboxConfig {
        token: TOKEN.into(),
        ..SandboxConfig::default()
    });
    assert_eq!(env.sb.token(), TOKEN);
    let mut seen: Vec<(String, Vec<u8>)> = Vec::new();
    let mut cli = |args: &[&str], log: &str, expect: i32, stdin: Option<&str>| {
        let mut c = env.cmd(args);
        c.env("CRMDASH_LOG", log);
        if let Some(s) = stdin {
            c.write_stdin(s);
        }
        let out = c.output().expect("crmdash runs");
        assert_eq!(
            out.status.code(),
            Some(expect),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        seen.push((format!("stdout of {args:?}"), out.stdout));
        seen.push((format!("stderr of {args:?}"), out.stderr));
    };
    let appointment = env.sb.ids("appointments")[0].clone();
    cli(&["deals", "list", "--format", "json"], "trace", 0, None);
    cli(
        &["deals", "list", "-vv", "--format", "csv"],
        ALL_TRACE,
        0,
        None,
    );
    cli(&["contacts", "list", "--format", "table"], "trace", 0, None);
    cli(
        &[
            "contacts",
            "create",
            "--email",
            "secret.session@example.com",
            "--first-name",
            "S",
        ],
        ALL_TRACE,
        0,
        None,
    );
    cli(
        &[
            "appointments",
            "reschedule",
            &appointment,
            "--start",
            "+2h",
            "--yes",
            "-v",
        ],
        "trace",
        0,
        None,
    );
    cli(&["auth", "status"], ALL_TRACE, 0, None);
    // The keyring is unreachable here: login fails, and must not echo what it read.
    let token_line = format!("{TOKEN}\n");
    let mut c = env.bare();
    c.env("CRMDASH_LOG", "trace")
        .args(["login", "--token-stdin", "--base-url", &env.sb.base_url()])
        .write_stdin(token_line.as_str());
    let out = c.output().unwrap();
    assert_ne!(out.status.code(), Some(0));
    let login = [
        ("stdout of login".to_string(), out.stdout),
        ("stderr of login".to_string(), out.stderr),
    ];
    // Failures: revoked token, server errors with retries, a redirect.
    env.fault(fault(FaultKind::Unauthorized));
    cli(&["deals", "list", "-vv"], ALL_TRACE, 3, None);
    env.fault(fault(FaultKind::ServerError { status: 503 }).always());
    cli(&["projects", "list", "-v"], ALL_TRACE, 6, None);
    env.sb.faults().clear();
    env.fault(fault(FaultKind::Redirect {
        location: "https://elsewhere.example/steal".into(),
        status: 302,
    }));
    cli(&["deals", "list"], ALL_TRACE, 1, None);
    env.sb.faults().clear();
    seen.extend(login);

    // The dashboard in a pty, fully traced: browse, filter, detail, help, copy, quit.
    let root = env.dir.path();
    let dash_env = [("CRMDASH_TOKEN", TOKEN), ("CRMDASH_LOG", ALL_TRACE)];
    let base = env.sb.base_url();
    let mut pty = Pty::spawn(command(root, &["--base-url", &base], &dash_env));
    pty.wait_for("page 1/");
    for keys in ["2", "s", "n", "/", "a", "\x1b", "\r"] {
        pty.send(keys);
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
    // Keys apart: an Esc followed at once by a key reads as Alt-<key>.
    for keys in ["y", "\x1b", "?"] {
        pty.send(keys);
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    seen.push(("dashboard screen".into(), pty.screen().into_bytes()));
    pty.send("\x1b");
    std::thread::sleep(std::time::Duration::from_millis(200));
    pty.send("q");
    assert!(pty.wait_exit().success());
    seen.push(("dashboard bytes".into(), pty.bytes()));
    drop(pty);

    // A panic mid-session: its message and whatever else it prints.
    let mut envs = dash_env.to_vec();
    envs.push(("CRMDASH_DEBUG_PANIC", "1"));
    envs.push(("RUST_BACKTRACE", "1"));
    let mut pty = Pty::spawn(command(root, &["--base-url", &base], &envs));
    pty.wait_exit();
    let bytes = pty.bytes();
    assert!(
        String::from_utf8_lossy(&bytes).contains("deliberate panic"),
        "the panic ran"
    );
    seen.push(("panic output".into(), bytes));
    drop(pty);

    for (label, bytes) in &seen {
        assert_clean(label, bytes);
    }
    let all = files(root);
    let logs: Vec<_> = all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    assert!(!logs.is_empty(), "trace logs were written: {all:?}");
    let traced: usize = logs
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len() as usize)
        .sum();
    assert!(
        traced > 10_000,
        "the logs hold the traced session: {traced} bytes"
    );
    let log_text: String = logs
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(
        log_text.contains("/public/v1/deals"),
        "requests are in the log"
    );
    for f in &all {
        assert_clean(&f.display().to_string(), &std::fs::read(f).unwrap());
    }
}

/// An address of this machine that is not loopback (the interface of the default route), if
/// it has one. Nothing is sent: connecting a UDP socket only picks the route.
fn non_loopback_ip() -> Option<std::net::IpAddr> {
    let s = UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("192.0.2.1:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[test]
fn plain_http_to_a_non_loopback_host_is_refused_before_any_connection() {
    let env = Env::new();
    let refused = |url: &str| {
        let out =
            run(env
                .bare()
                .env("CRMDASH_TOKEN", TOKEN)
                .args(["--base-url", url, "deals", "list"]))
            .code(5);
        let line = out.error_line().to_string();
        assert!(line.contains("refusing plain http://"), "{line}");
        assert_clean("refusal", out.stderr.as_bytes());
    };
    // A listener on this machine's own non-loopback address: it must never see a connection.
    if let Some(ip) = non_loopback_ip() {
        let l = TcpListener::bind((ip, 0)).unwrap();
        l.set_nonblocking(true).unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        refused(&url);
        let dir = tempfile::tempdir().unwrap();
        // The dashboard refuses it too, before opening the terminal.
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_crmdash"))
            .env_clear()
            .env("HOME", dir.path())
            .env("CRMDASH_TOKEN", TOKEN)
            .env("CRMDASH_CONFIG", dir.path().join("none.toml"))
            .args(["--base-url", &url])
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(0));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("refusing plain http://"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        match l.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Ok(_) => panic!("a connection was attempted to {url}"),
            Err(e) => panic!("{e}"),
        }
    }
    // Unroutable and documentation addresses: refused at once, not after a connect timeout
    // (the error is the refusal, not a network error).
    for url in [
        "http://10.255.255.1",
        "http://192.0.2.1:8080",
        "http://crm.example.com",
    ] {
        refused(url);
    }
    assert!(env.sb.requests().is_empty());
}

/// Issue 28.2: the `[ui] opener` (and every program crmdash starts) gets an environment
/// without `CRMDASH_TOKEN` and without any variable holding the token. The fake opener dumps
/// its environment and arguments to a file.
#[test]
fn the_opener_gets_no_token_in_its_environment() {
    let env = Env::with(SandboxConfig {
        token: TOKEN.into(),
        ..SandboxConfig::default()
    });
    let root = env.dir.path();
    let dump = root.join("opener-env.txt");
    let opener = root.join("fake-opener.sh");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nenv > '{0}.tmp'\necho \"ARGS: $*\" >> '{0}.tmp'\nmv '{0}.tmp' '{0}'\n",
            dump.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    std::fs::write(
        root.join("config.toml"),
        format!(
            "[ui]\nopener = \"{}\"\n\n[profiles.default]\nweb_url = \"https://crm.example.com/{{resource}}/{{id}}\"\n",
            opener.display()
        ),
    )
    .unwrap();
    let base = env.sb.base_url();
    let copy = format!("Bearer {TOKEN}");
    let dash_env = [
        ("CRMDASH_TOKEN", TOKEN),
        ("MY_CRM_TOKEN", TOKEN),
        ("AUTH_HEADER", copy.as_str()),
        ("CRMDASH_ENV_MARKER", "kept"),
    ];
    let mut pty = Pty::spawn(command(root, &["--base-url", &base], &dash_env));
    pty.wait_for("page 1/");
    pty.send("o");
    let started = std::time::Instant::now();
    while !dump.exists() {
        assert!(
            started.elapsed() < reliability_support::LIMIT,
            "the opener ran: {}",
            pty.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    pty.send("q");
    pty.wait_exit();
    let seen = std::fs::read_to_string(&dump).unwrap();
    assert!(seen.contains("ARGS: https://crm.example.com/"), "{seen}");
    assert!(
        seen.contains("CRMDASH_ENV_MARKER=kept"),
        "the rest is passed on: {seen}"
    );
    assert!(!seen.contains("CRMDASH_TOKEN="), "{seen}");
    assert!(
        !seen.contains("MY_CRM_TOKEN=") && !seen.contains("AUTH_HEADER="),
        "{seen}"
    );
    assert_clean("the opener's environment", seen.as_bytes());
}
