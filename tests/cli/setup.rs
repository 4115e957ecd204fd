//! Where an API command gets its base URL and token, and the exit codes when that goes wrong.

use crate::cli_support;

use cli_support::{Env, fault, run};
use crmdash::sandbox::{FaultKind, SandboxConfig};

#[test]
fn a_profile_in_the_config_file_supplies_the_base_url() {
    let env = Env::new();
    env.write_config(&format!(
        "default_profile = \"local\"\n[profiles.local]\nbase_url = \"{}\"\n",
        env.sb.base_url()
    ));
    let out = run(env.bare().env("CRMDASH_TOKEN", env.sb.token()).args([
        "deals",
        "list",
        "--per-page",
        "2",
    ]))
    .code(0);
    assert_eq!(out.json().as_array().map(Vec::len), Some(2));
    let out = run(env
        .bare()
        .env("CRMDASH_TOKEN", env.sb.token())
        .env("CRMDASH_PROFILE", "local")
        .args(["projects", "list", "--per-page", "1"]))
    .code(0);
    assert_eq!(out.json().as_array().map(Vec::len), Some(1));
}

#[test]
fn without_any_base_url_the_command_says_how_to_set_one() {
    let env = Env::new();
    let out = run(env.bare().env("CRMDASH_TOKEN", "t").args(["deals", "list"])).code(1);
    assert!(out.error_line().contains("--base-url"), "{}", out.stderr);
}

#[test]
fn a_keyring_token_is_never_sent_to_another_base_url() {
    let env = Env::new();
    env.write_config("[profiles.default]\nbase_url = \"https://crm.example.com\"\n");
    // No CRMDASH_TOKEN: the keyring token of `default` belongs to crm.example.com only.
    let out = run(env
        .bare()
        .args(["--base-url", &env.sb.base_url(), "deals", "list"]))
    .code(3);
    out.error_line();
    assert!(env.sb.requests().is_empty(), "nothing may be sent");
}

#[test]
fn plain_http_to_a_remote_host_is_refused_before_sending() {
    let env = Env::new();
    let out = run(env.bare().env("CRMDASH_TOKEN", "t").args([
        "--base-url",
        "http://crm.example.com",
        "deals",
        "list",
    ]))
    .code(5);
    assert!(out.error_line().contains("clear text"), "{}", out.stderr);
}

#[test]
fn a_read_only_token_gets_403_on_create_which_exits_3() {
    let env = Env::with(SandboxConfig {
        read_only_token: Some("viewer-token-1234".into()),
        ..Default::default()
    });
    let out = run(env
        .cmd(&[
            "contacts",
            "create",
            "--email",
            "ro@example.com",
            "--allow-duplicate",
        ])
        .env("CRMDASH_TOKEN", "viewer-token-1234"))
    .code(3);
    assert!(out.error_line().contains("Forbidden"), "{}", out.stderr);
}

#[test]
fn rate_limiting_after_retries_exits_6() {
    let env = Env::new();
    env.fault(
        fault(FaultKind::RateLimited {
            retry_after_secs: 0,
        })
        .always(),
    );
    let out = run(env.cmd(&["-v", "deals", "list"])).code(6);
    // With -v the request lines come first; the error is still one `error:` line.
    let errors: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", out.stderr);
    assert!(errors[0].contains("Rate limited"), "{}", out.stderr);
    assert_eq!(
        env.requests_to("GET", "deals").len(),
        4,
        "the first try and 3 retries"
    );
    assert!(
        out.stderr.contains("retrying (attempt 2/4)"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_sandbox_command_is_documented() {
    let env = Env::new();
    let out = run(env.bare().args(["sandbox", "--help"])).code(0);
    assert!(
        out.stdout.contains("crmdash sandbox --port"),
        "{}",
        out.stdout
    );
}
