//! The engineer's kit against the sandbox: `crmdash api` (GET, POST, pages), `--jq` and
//! `--template` on lists, `--version`, `crmdash doctor`, and completion of names offline.

use crate::cli_support::{Env, run};

#[test]
fn api_get_prints_the_answer_and_fields_go_to_the_query() {
    let env = Env::new();
    let out = run(env.cmd(&["api", "GET", "contacts", "-f", "per_page=2", "-F", "page=2"])).code(0);
    let body = out.json();
    assert_eq!(body["data"].as_array().unwrap().len(), 2);
    assert_eq!(body["meta"]["current_page"], 2);
    let sent = env.requests_to("GET", "contacts");
    assert_eq!(sent.len(), 1);
    let query = sent[0].query.clone().unwrap_or_default();
    assert!(query.contains("per_page=2"), "{query}");
    // The same bytes as the server's own answer.
    assert_eq!(
        out.stdout.trim_end(),
        env.raw_get("contacts?per_page=2&page=2")
    );
}

#[test]
fn api_post_sends_the_fields_as_one_json_body_a_hostile_value_as_one_string() {
    let env = Env::new();
    let hostile = "; rm -rf ~ $(touch pwned)";
    let out = run(env.cmd(&[
        "api",
        "post",
        "/public/v1/contacts",
        "-f",
        "first_name=Ada",
        "-f",
        &format!("last_name={hostile}"),
        "-f",
        "email=ada.api@example.com",
        "-H",
        "Idempotency-Key: kit-api-1",
    ]))
    .code(0);
    let created = out.json();
    assert_eq!(created["data"]["last_name"], hostile);
    assert_eq!(env.requests_to("POST", "contacts").len(), 1);
    assert!(!env.dir.path().join("pwned").exists());
}

#[test]
fn api_paginate_follows_every_page_into_one_array_or_lines() {
    let env = Env::new();
    let total = run(env.cmd(&["api", "GET", "deals", "-f", "per_page=1"]))
        .code(0)
        .json()["meta"]["total"]
        .as_u64()
        .unwrap();
    let all = run(env.cmd(&["api", "GET", "deals", "--paginate", "-f", "per_page=100"])).code(0);
    let records = all.json();
    assert_eq!(records.as_array().unwrap().len() as u64, total);
    assert_eq!(
        env.requests_to("GET", "deals").len() as u64,
        1 + total.div_ceil(100),
        "one request a page"
    );
    let lines = run(env.cmd(&[
        "api",
        "GET",
        "deals",
        "--paginate",
        "--format",
        "jsonl",
        "-f",
        "per_page=100",
    ]))
    .code(0);
    assert_eq!(lines.stdout.lines().count() as u64, total);
    // --jq reads the one array.
    let n = run(env.cmd(&["api", "GET", "deals", "--paginate", "--jq", "length"])).code(0);
    assert_eq!(n.stdout.trim(), total.to_string());
}

#[test]
fn api_errors_print_the_body_and_exit_as_documented_and_other_hosts_are_refused() {
    let env = Env::new();
    let out = run(env.cmd(&["api", "GET", "no-such-thing"])).code(4);
    assert!(out.stdout.contains("message"), "{}", out.stdout);
    out.error_line();
    let before = env.sb.requests().len();
    for (args, code) in [
        (
            vec!["api", "GET", "https://elsewhere.example/public/v1/contacts"],
            5,
        ),
        (vec!["api", "GET", "//elsewhere.example/contacts"], 5),
        (
            vec!["api", "GET", "contacts", "-H", "Authorization: Bearer x"],
            2,
        ),
        (vec!["api", "POST", "contacts", "--paginate"], 2),
        (vec!["api", "GET", "contacts", "--jq", ".[] |"], 2),
    ] {
        let out = run(env.cmd(&args)).code(code);
        out.error_line();
    }
    assert_eq!(env.sb.requests().len(), before, "refused before sending");
}

#[test]
fn lists_and_search_take_jq_and_template_on_the_records_as_sent() {
    let env = Env::new();
    let json = run(env.cmd(&["contacts", "list", "--per-page", "5", "--format", "json"])).code(0);
    let ids: Vec<String> = json.json()["data"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_else(|| {
            json.json()
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect()
        });
    let jq = run(env.cmd(&["contacts", "list", "--per-page", "5", "--jq", ".[].id"])).code(0);
    assert_eq!(jq.stdout.lines().collect::<Vec<_>>(), ids);
    let t = run(env.cmd(&[
        "deals",
        "list",
        "--per-page",
        "3",
        "--template",
        "{% for d in records %}{{ d.id }}={{ d.value }};{% endfor %}",
    ]))
    .code(0);
    assert_eq!(t.stdout.trim_end().matches(';').count(), 3, "{}", t.stdout);
    // The server's numbers keep their digits through --jq.
    let raw = env.raw_get("deals?per_page=1");
    let first: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let value = run(env.cmd(&["deals", "list", "--per-page", "1", "--jq", ".[0].value"])).code(0);
    let sent = raw
        .split("\"value\":")
        .nth(1)
        .map(|rest| {
            rest.split([',', '}'])
                .next()
                .unwrap()
                .trim()
                .trim_matches('"')
        })
        .unwrap();
    assert!(first["data"][0].get("value").is_some());
    assert_eq!(value.stdout.trim(), sent);
    // Each other's output: refused before anything is sent.
    let before = env.sb.requests().len();
    run(env.cmd(&["contacts", "list", "--jq", ".", "--format", "csv"])).code(2);
    run(env.cmd(&["contacts", "list", "--template", "{% if %}"])).code(2);
    assert_eq!(env.sb.requests().len(), before);
}

#[test]
fn version_says_the_commit_and_its_date() {
    let env = Env::new();
    let out = run(env.bare().arg("--version")).code(0);
    let line = out.stdout.trim();
    let inner = line
        .strip_prefix(concat!("crmdash ", env!("CARGO_PKG_VERSION"), " ("))
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line}"));
    let (commit, date) = inner.split_once(", ").unwrap();
    assert!(
        commit == "unknown commit" || commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{commit}"
    );
    assert!(
        chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok(),
        "{date}"
    );
}

#[test]
fn doctor_checks_config_service_and_mirror_and_fails_on_a_refused_token() {
    let env = Env::new();
    env.write_config(&format!(
        "[profiles.default]\nbase_url = \"{}\"\n",
        env.sb.base_url()
    ));
    let mut ok = env.bare();
    ok.arg("doctor").env("CRMDASH_TOKEN", env.sb.token());
    let out = run(ok).code(0);
    for (verdict, name) in [
        ("info", "version"),
        ("ok", "config"),
        ("ok", "profile"),
        ("ok", "service"),
        ("warn", "mirror"),
        ("info", "terminal"),
    ] {
        assert!(
            out.stdout
                .lines()
                .any(|l| l.starts_with(verdict) && l.split_whitespace().nth(1) == Some(name)),
            "{verdict} {name} in\n{}",
            out.stdout
        );
    }
    assert!(out.stdout.contains("keyring"), "{}", out.stdout);
    let mut refused = env.bare();
    refused.arg("doctor").env("CRMDASH_TOKEN", "not-the-token");
    let out = run(refused).code(1);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("FAIL") && l.contains("refuses the token")),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("not-the-token"));
    env.write_config("[profiles.default\nbase_url = 3\n");
    let out = run(env.bare().arg("doctor")).code(1);
    assert!(
        out.stdout.lines().any(|l| l.starts_with("FAIL  config")),
        "{}",
        out.stdout
    );
}

/// `COMPLETE=fish crmdash -- WORDS...`: the candidates, one `value<TAB>help` a line.
fn complete(env: &Env, words: &[&str]) -> Vec<(String, String)> {
    let mut c = env.bare();
    c.env("COMPLETE", "fish")
        .env("CRMDASH_TOKEN", env.sb.token());
    c.arg("--").args(words);
    let out = run(c).code(0);
    out.stdout
        .lines()
        .map(|l| match l.split_once('\t') {
            Some((v, h)) => (v.to_string(), h.to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

#[test]
fn completion_offers_ids_with_names_profiles_and_views_offline() {
    let env = Env::new();
    env.write_config(&format!(
        "[profiles.default]\nbase_url = \"{}\"\n\n[profiles.staging]\nbase_url = \"https://staging.example.com\"\n",
        env.sb.base_url()
    ));
    run(env.cmd(&["sync"])).code(0);
    let profiles = complete(&env, &["crmdash", "--profile", ""]);
    let names: Vec<&str> = profiles.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(names, ["default", "staging"]);
    assert_eq!(profiles[1].1, "https://staging.example.com");

    // Contacts by name: the sandbox's first contact, found by its first name.
    let first = run(env.cmd(&["contacts", "list", "--per-page", "1", "--jq", ".[0]"])).code(0);
    let first: serde_json::Value = serde_json::from_str(&first.stdout).unwrap();
    let (id, name) = (
        first["id"].as_str().unwrap().to_string(),
        first["first_name"].as_str().unwrap().to_string(),
    );
    let synced = env.sb.requests().len();
    let by_name = complete(
        &env,
        &[
            "crmdash",
            "api",
            "GET",
            &format!("contacts/{}", name.to_lowercase()),
        ],
    );
    assert!(
        by_name
            .iter()
            .any(|(v, h)| *v == format!("contacts/{id}") && h.contains(&name)),
        "{by_name:?}"
    );
    let by_id = complete(&env, &["crmdash", "api", "GET", &format!("contacts/{id}")]);
    assert_eq!(by_id[0].0, format!("contacts/{id}"), "{by_id:?}");
    let deals = complete(&env, &["crmdash", "api", "GET", "deals/"]);
    assert!(
        !deals.is_empty()
            && deals
                .iter()
                .all(|(v, h)| v.starts_with("deals/") && !h.is_empty())
    );
    let paths = complete(&env, &["crmdash", "api", "GET", "de"]);
    assert!(paths.iter().any(|(v, _)| v == "deals/"), "{paths:?}");
    assert_eq!(
        env.sb.requests().len(),
        synced,
        "completion never asks the service"
    );
}
