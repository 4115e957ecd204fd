//! `login` / `auth status` / `logout` through a real Secret Service (run it under
//! `../shared/ci/with-secret-service.sh`). With `CI=true` an unreachable Secret Service fails
//! the test; elsewhere the test is skipped with the reason printed.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use crmdash::credentials::Keyring;
use secrecy::{ExposeSecret, SecretString};

const GOOD: &str = "it_tok_7c1e55d0b9a24f3e";

/// True when the Secret Service answers; false (after printing why) when the test may skip.
async fn secret_service_or_skip() -> bool {
    let why = match Keyring::platform().get("crmdash-it-probe").await {
        Ok(_) => match Command::new("secret-tool").arg("--version").output() {
            Ok(_) => return true,
            Err(e) => format!("secret-tool is not installed ({e})"),
        },
        Err(e) => e.to_string(),
    };
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but no Secret Service is reachable: {why}");
    }
    eprintln!(
        "skipping: no Secret Service reachable ({why}); run under ../shared/ci/with-secret-service.sh"
    );
    false
}

fn unique_profile(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("it-{tag}-{}-{nanos}", std::process::id())
}

/// A stand-in service on 127.0.0.1:0 that accepts only `GOOD`.
async fn fake_service() -> String {
    async fn contacts(headers: HeaderMap) -> (StatusCode, &'static str) {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if auth == format!("Bearer {GOOD}") {
            (
                StatusCode::OK,
                r#"{"data":[],"meta":{"current_page":1,"last_page":1}}"#,
            )
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

/// Runs the binary with every config, data and state dir inside `root`, `stdin` piped in.
fn crmdash(root: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crmdash"))
        .args(args)
        .env("HOME", root.join("home"))
        .env("XDG_CONFIG_HOME", root.join("config"))
        .env("XDG_DATA_HOME", root.join("data"))
        .env("XDG_STATE_HOME", root.join("state"))
        .env("CRMDASH_CONFIG", root.join("config/crmdash/config.toml"))
        .env_remove("CRMDASH_TOKEN")
        .env_remove("CRMDASH_BASE_URL")
        .env_remove("CRMDASH_PROFILE")
        .env_remove("CRMDASH_KEYRING")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn secret_tool_lookup(profile: &str) -> String {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", "crmdash", "username", profile])
        .output()
        .unwrap();
    text(&out.stdout)
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_status_logout_round_trip_through_the_secret_service() {
    if !secret_service_or_skip().await {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let base = fake_service().await;
    let profile = unique_profile("cli");
    let r = root.path().to_path_buf();

    // A token the service rejects is not stored.
    let (r1, b1, p1) = (r.clone(), base.clone(), profile.clone());
    let out = tokio::task::spawn_blocking(move || {
        crmdash(
            &r1,
            &[
                "login",
                "--profile",
                &p1,
                "--base-url",
                &b1,
                "--token-stdin",
            ],
            "wrong_token_000000\n",
        )
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    assert!(
        text(&out.stderr).starts_with("error: the token was not stored"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(secret_tool_lookup(&profile), "");

    // The right one is verified, stored in the keyring, and its base URL saved.
    let (r1, b1, p1) = (r.clone(), base.clone(), profile.clone());
    let out = tokio::task::spawn_blocking(move || {
        crmdash(
            &r1,
            &[
                "login",
                "--profile",
                &p1,
                "--base-url",
                &b1,
                "--token-stdin",
            ],
            &format!("{GOOD}\n"),
        )
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(secret_tool_lookup(&profile), GOOD);
    let config = std::fs::read_to_string(r.join("config/crmdash/config.toml")).unwrap();
    assert!(
        config.contains(&format!("[profiles.{profile}]")) && config.contains(&base),
        "{config}"
    );

    // Status: profile, base URL, origin and only the last four characters; the service accepts.
    let (r1, p1) = (r.clone(), profile.clone());
    let out = tokio::task::spawn_blocking(move || {
        crmdash(&r1, &["auth", "status", "--profile", &p1], "")
    })
    .await
    .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout} stderr: {}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains(&profile) && stdout.contains(&base),
        "{stdout}"
    );
    assert!(
        stdout.contains("…4f3e") && stdout.contains("keyring"),
        "{stdout}"
    );
    assert!(stdout.contains("accepts the token"), "{stdout}");
    assert!(!stdout.contains(GOOD) && !text(&out.stderr).contains(GOOD));

    // Another base URL never gets the keyring token.
    let (r1, p1) = (r.clone(), profile.clone());
    let out = tokio::task::spawn_blocking(move || {
        crmdash(
            &r1,
            &[
                "auth",
                "status",
                "--profile",
                &p1,
                "--base-url",
                "https://elsewhere.example.com",
            ],
            "",
        )
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("refusing to send"),
        "{}",
        text(&out.stderr)
    );

    // No file crmdash wrote (config, data, state/logs) holds the token.
    let mut files = Vec::new();
    files_under(&r, &mut files);
    assert!(!files.is_empty());
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_default();
        assert!(
            !text(&bytes).contains(GOOD),
            "{} contains the token",
            f.display()
        );
    }

    // Logout removes the entry; a second logout says there was none.
    let (r1, p1) = (r.clone(), profile.clone());
    let out = tokio::task::spawn_blocking(move || crmdash(&r1, &["logout", "--profile", &p1], ""))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(secret_tool_lookup(&profile), "");
    let (r1, p1) = (r.clone(), profile.clone());
    let out = tokio::task::spawn_blocking(move || {
        crmdash(&r1, &["auth", "status", "--profile", &p1], "")
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("crmdash login --profile"),
        "{}",
        text(&out.stderr)
    );
}

/// The store runs inside both tokio runtime flavours without zbus panicking (keyring-rs#132).
async fn in_process_round_trip(tag: &str) {
    if !secret_service_or_skip().await {
        return;
    }
    let profile = unique_profile(tag);
    let k = Keyring::platform();
    k.set(&profile, SecretString::from(GOOD.to_string()))
        .await
        .unwrap();
    assert_eq!(secret_tool_lookup(&profile), GOOD);
    let got = k.get(&profile).await.unwrap().unwrap();
    assert_eq!(got.expose_secret(), GOOD);
    assert!(k.delete(&profile).await.unwrap());
    assert!(k.get(&profile).await.unwrap().is_none());
}

#[tokio::test(flavor = "current_thread")]
async fn keyring_inside_a_current_thread_runtime() {
    in_process_round_trip("ct").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyring_inside_a_multi_thread_runtime() {
    in_process_round_trip("mt").await;
}
