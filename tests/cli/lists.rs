//! `crmdash deals|projects|contacts list` against the sandbox: formats, paging, `--all`, and
//! every error class's exit code.

use crate::cli_support;

use cli_support::{Env, fault, run};
use crmdash::sandbox::FaultKind;
use serde_json::value::RawValue;

#[test]
fn json_records_are_byte_identical_to_the_server() {
    let env = Env::new();
    let out = run(env.cmd(&[
        "deals",
        "list",
        "--per-page",
        "7",
        "--page",
        "2",
        "--format",
        "json",
    ]))
    .code(0);
    let printed: Vec<Box<RawValue>> = serde_json::from_str(&out.stdout).expect("a JSON array");
    #[derive(serde::Deserialize)]
    struct Body {
        data: Vec<Box<RawValue>>,
    }
    let server: Body = serde_json::from_str(&env.raw_get("deals?page=2&per_page=7")).unwrap();
    assert_eq!(printed.len(), 7);
    let a: Vec<&str> = printed.iter().map(|r| r.get()).collect();
    let b: Vec<&str> = server.data.iter().map(|r| r.get()).collect();
    assert_eq!(a, b);
}

#[test]
fn json_is_the_default_when_stdout_is_not_a_terminal() {
    let env = Env::new();
    let out = run(env.cmd(&["projects", "list", "--per-page", "3"])).code(0);
    let v = out.json();
    assert_eq!(v.as_array().map(Vec::len), Some(3), "{}", out.stdout);
    assert!(v[0]["id"].is_string());
}

#[test]
fn csv_has_a_header_row_and_one_row_per_record() {
    let env = Env::new();
    let out = run(env.cmd(&["deals", "list", "--per-page", "5", "--format", "csv"])).code(0);
    let mut reader = csv::Reader::from_reader(out.stdout.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert!(headers.iter().any(|h| h == "id"), "{headers:?}");
    assert!(headers.iter().any(|h| h == "name"), "{headers:?}");
    assert_eq!(reader.records().count(), 5);
}

#[test]
fn table_prints_aligned_columns() {
    let env = Env::new();
    let out = run(env.cmd(&["deals", "list", "--per-page", "4", "--format", "table"])).code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines.len() >= 5, "{}", out.stdout);
    let header = lines[0].to_ascii_lowercase();
    assert!(
        header.contains("name") && header.contains("status"),
        "{header}"
    );
}

#[test]
fn all_follows_every_page_with_per_page_100() {
    let env = Env::new();
    let total = env.sb.ids("contacts").len();
    assert!(total > 200, "the seed has several pages of contacts");
    let out = run(env.cmd(&["contacts", "list", "--all", "--format", "json"])).code(0);
    let v = out.json();
    assert_eq!(v.as_array().map(Vec::len), Some(total));
    let gets = env.requests_to("GET", "contacts");
    assert_eq!(gets.len(), total.div_ceil(100));
    for (i, r) in gets.iter().enumerate() {
        let q = r.query.clone().unwrap_or_default();
        assert!(q.contains("per_page=100"), "{q}");
        assert!(q.contains(&format!("page={}", i + 1)), "{q}");
    }
    // Progress goes to stderr only on a terminal: not here.
    assert_eq!(out.stderr, "");
}

#[test]
fn filters_sort_and_include_reach_the_server() {
    let env = Env::new();
    run(env.cmd(&[
        "deals",
        "list",
        "--status",
        "won",
        "--sort-by",
        "value",
        "--sort-direction",
        "desc",
        "--include",
        "account,assigned_user",
        "--name",
        "a",
    ]))
    .code(0);
    let q = env.requests_to("GET", "deals")[0].query.clone().unwrap();
    for part in [
        "status=won",
        "sort_by=value",
        "sort_direction=desc",
        "name=a",
    ] {
        assert!(q.contains(part), "{q}");
    }
    assert!(
        q.contains("include=account%2Cassigned_user")
            || q.contains("include=account,assigned_user"),
        "{q}"
    );
}

#[test]
fn created_after_is_sent_as_utc_rfc3339() {
    let env = Env::new();
    run(env.cmd(&["contacts", "list", "--created-after", "2026-01-02 10:30"])).code(0);
    let q = env.requests_to("GET", "contacts")[0].query.clone().unwrap();
    // TZ=UTC in the harness: local 10:30 is 10:30Z.
    assert!(q.contains("created_after=2026-01-02T10%3A30%3A00Z"), "{q}");
}

#[test]
fn a_sort_key_not_in_the_list_is_a_usage_error_and_nothing_is_sent() {
    let env = Env::new();
    let out = run(env.cmd(&["deals", "list", "--sort-by", "start_date"])).code(2);
    assert!(out.stderr.contains("possible values"), "{}", out.stderr);
    assert!(env.sb.requests().is_empty());
    run(env.cmd(&["projects", "list", "--include", "account"])).code(2);
    run(env.cmd(&["deals", "list", "--bogus"])).code(2);
    assert!(env.sb.requests().is_empty());
}

#[test]
fn per_page_page_and_times_are_checked_after_parsing_with_exit_5() {
    let env = Env::new();
    for args in [
        &["deals", "list", "--per-page", "101"][..],
        &["deals", "list", "--per-page", "0"],
        &["projects", "list", "--page", "0"],
        &["contacts", "list", "--created-after", "next blue moon"],
        &["contacts", "list", "--email", "not an email"],
    ] {
        let out = run(env.cmd(args)).code(5);
        out.error_line();
    }
    let out = run(env.cmd(&["deals", "list", "--per-page", "500"])).code(5);
    assert!(
        out.error_line()
            .contains("--per-page must be between 1 and 100"),
        "{}",
        out.stderr
    );
    assert!(env.sb.requests().is_empty(), "nothing may be sent");
}

#[test]
fn a_wrong_token_exits_3() {
    let env = Env::new();
    let out = run(env
        .cmd(&["deals", "list"])
        .env("CRMDASH_TOKEN", "not-the-token"))
    .code(3);
    assert!(out.error_line().contains("Unauthorized"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("not-the-token"),
        "the token never shows"
    );
}

#[test]
fn server_errors_and_undecodable_answers_exit_6() {
    let env = Env::new();
    env.fault(fault(FaultKind::ServerError { status: 500 }).always());
    let out = run(env.cmd(&["deals", "list"])).code(6);
    assert!(out.error_line().contains("500"), "{}", out.stderr);
    env.sb.faults().clear();
    env.fault(fault(FaultKind::NonJson));
    let out = run(env.cmd(&["projects", "list"])).code(6);
    assert!(out.error_line().contains("Bad response"), "{}", out.stderr);
}

#[test]
fn an_unreachable_service_exits_6() {
    let env = Env::new();
    let out = run(env.bare().env("CRMDASH_TOKEN", "t").args([
        "--base-url",
        "http://127.0.0.1:9",
        "deals",
        "list",
    ]))
    .code(6);
    out.error_line();
}

#[test]
fn verbose_prints_each_request_without_the_token() {
    let env = Env::new();
    let out = run(env.cmd(&["-vv", "projects", "list", "--per-page", "2"])).code(0);
    assert!(
        out.stderr.contains("GET http://127.0.0.1:"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("/public/v1/projects?per_page=2 -> 200 ("),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("Authorization: Bearer ****"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains(&env.sb.token()),
        "the token never shows"
    );
}

#[test]
fn global_options_work_after_the_subcommand_too() {
    let env = Env::new();
    let mut c = env.bare();
    c.env("CRMDASH_TOKEN", env.sb.token()).args([
        "deals",
        "list",
        "--per-page",
        "1",
        "--base-url",
        &env.sb.base_url(),
        "-v",
    ]);
    let out = run(c).code(0);
    assert!(out.stderr.contains("-> 200"), "{}", out.stderr);
}
