//! The credential commands' failure modes through the real binary, without a keyring:
//! env-token status, refused http://, unreachable keyring, bad config, usage errors.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;

const GOOD: &str = "env_tok_93b0c4aa51e2d7f6";

async fn fake_service() -> String {
    async fn contacts(headers: HeaderMap) -> (StatusCode, &'static str) {
        let ok = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a == format!("Bearer {GOOD}"));
        if ok {
            (StatusCode::OK, r#"{"data":[]}"#)
        } else {
            (
                StatusCode::UNAUTHORIZED,
                r#"{"message":"Unauthenticated."}"#,
            )
        }
    }
    let app = Router::new().route("/public/v1/contacts", get(contacts));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// The binary with all its dirs in `root`, an unusable keyring, and `envs` added.
fn run(root: &Path, args: &[&str], envs: &[(&str, &str)], stdin: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_crmdash"));
    cmd.args(args)
        .env("HOME", root.join("home"))
        .env("XDG_CONFIG_HOME", root.join("config"))
        .env("XDG_DATA_HOME", root.join("data"))
        .env("XDG_STATE_HOME", root.join("state"))
        .env("CRMDASH_CONFIG", root.join("config.toml"))
        .env("CRMDASH_KEYRING", "none-in-this-test")
        .env_remove("CRMDASH_TOKEN")
        .env_remove("CRMDASH_BASE_URL")
        .env_remove("CRMDASH_PROFILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_with_env_token_asks_the_service() {
    let root = tempfile::tempdir().unwrap();
    let base = fake_service().await;
    let r = root.path().to_path_buf();
    let b = base.clone();
    let o = blocking(move || {
        run(
            &r,
            &["auth", "status", "--base-url", &b],
            &[("CRMDASH_TOKEN", GOOD)],
            "",
        )
    })
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("profile:   default (default)"), "{s}");
    assert!(s.contains(&format!("base URL:  {base} (flag)")), "{s}");
    assert!(s.contains("…d7f6 (from CRMDASH_TOKEN)"), "{s}");
    assert!(s.contains("accepts the token"), "{s}");
    assert!(!s.contains(GOOD) && !err(&o).contains(GOOD));

    let r = root.path().to_path_buf();
    let o = blocking(move || {
        run(
            &r,
            &["auth", "status"],
            &[
                ("CRMDASH_TOKEN", "rejected_token_1234"),
                ("CRMDASH_BASE_URL", &base),
            ],
            "",
        )
    })
    .await;
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(out(&o).contains("(environment)"), "{}", out(&o));
    assert!(out(&o).contains("does not accept the token"));
    assert!(
        err(&o).starts_with("error: Unauthorized (401)"),
        "{}",
        err(&o)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_verifies_before_touching_the_keyring() {
    let root = tempfile::tempdir().unwrap();
    let base = fake_service().await;
    let r = root.path().to_path_buf();
    let o = blocking(move || {
        run(
            &r,
            &["login", "--base-url", &base, "--token-stdin"],
            &[],
            "bad_token_abcdef\n",
        )
    })
    .await;
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(err(&o).contains("--no-verify"), "{}", err(&o));
    assert!(!root.path().join("config.toml").exists());
}

#[test]
fn unreachable_keyring_is_explained_and_only_the_base_url_is_saved() {
    let root = tempfile::tempdir().unwrap();
    let o = run(
        root.path(),
        &[
            "login",
            "--base-url",
            "https://crm.example.com",
            "--no-verify",
        ],
        &[],
        &format!("{GOOD}\n"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let e = err(&o);
    assert!(e.starts_with("error: the OS keyring"), "{e}");
    assert!(
        e.contains("CRMDASH_KEYRING=none-in-this-test") && e.contains("CRMDASH_TOKEN"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("the base URL was saved in"), "{e}");
    // The base URL is kept (CRMDASH_TOKEN then works for the profile); the token is not.
    let config = std::fs::read_to_string(root.path().join("config.toml")).unwrap();
    assert!(config.contains("https://crm.example.com"), "{config}");
    assert!(!config.contains(GOOD), "{config}");
}

#[test]
fn plain_http_to_a_remote_host_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let o = run(
        root.path(),
        &[
            "login",
            "--base-url",
            "http://crm.example.com",
            "--no-verify",
        ],
        &[],
        &format!("{GOOD}\n"),
    );
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    assert!(err(&o).contains("clear text"), "{}", err(&o));
}

#[test]
fn empty_or_malformed_tokens_are_rejected_input() {
    let root = tempfile::tempdir().unwrap();
    for input in ["\n", "two words\n"] {
        let o = run(
            root.path(),
            &[
                "login",
                "--base-url",
                "https://crm.example.com",
                "--no-verify",
            ],
            &[],
            input,
        );
        assert_eq!(o.status.code(), Some(5), "{input:?}: {}", err(&o));
        assert!(err(&o).starts_with("error: the token"), "{}", err(&o));
    }
}

#[test]
fn bad_config_warns_with_its_line_and_defaults_apply() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("config.toml"), "[ui]\nper_page = = 3\n").unwrap();
    let o = run(root.path(), &["logout", "--profile", "work"], &[], "");
    let e = err(&o);
    assert!(
        e.contains("warning: config file") && e.contains("line 2"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(root.path().join("config.toml")).unwrap(),
        "[ui]\nper_page = = 3\n"
    );
}

#[test]
fn usage_errors_exit_2_and_no_subcommand_explains() {
    let root = tempfile::tempdir().unwrap();
    let o = run(root.path(), &["login", "--bogus"], &[], "");
    assert_eq!(o.status.code(), Some(2));
    let o = run(
        root.path(),
        &["auth", "status", "--profile", "a b"],
        &[],
        "",
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("bad profile name"));
    // Without a terminal (no one to answer the login dialog) the dashboard needs a base URL
    // first: a configuration error (exit 1) saying how to give one.
    let o = run(root.path(), &[], &[], "");
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains("--base-url"), "{}", err(&o));
    let o = run(root.path(), &["login", "--help"], &[], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("Examples:") && out(&o).contains("--token-stdin"));
}

#[test]
fn status_without_any_base_url_says_how_to_set_one() {
    let root = tempfile::tempdir().unwrap();
    let o = run(root.path(), &["auth", "status"], &[], "");
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains("--base-url"), "{}", err(&o));
}
