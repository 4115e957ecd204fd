//! Bad input through the real binary: options, filters, contact fields, times, ids, the base
//! URL and the config file, each with empty, whitespace, 10,000-character, control-character,
//! emoji and right-to-left values. What is wrong is refused with a clear error before any
//! request (the sandbox's request log stays empty); what is merely unusual is sent intact.

use crate::cli_support;

use cli_support::{Env, Run, run};

const CONTROL: &str = "Ada\u{7}\u{1b}[31mred";
const BIDI_OVERRIDE: &str = "evil\u{202e}gpj.exe";
const EMOJI: &str = "Zoë 🚀 東京";
const RTL: &str = "שלום עליכם";

fn long() -> String {
    "x".repeat(10_000)
}

/// Runs, expects `code`, a one-line `error:` naming something in `needles`, and nothing sent.
fn refused(env: &Env, args: &[&str], code: i32, needles: &[&str]) -> Run {
    let out = run(env.cmd(args)).code(code);
    let first = out.stderr.lines().next().unwrap_or_default().to_string();
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(
        first.starts_with("error:") || first.starts_with("error: "),
        "{args:?}: {}",
        out.stderr
    );
    assert!(
        needles.iter().any(|n| out.stderr.contains(n)),
        "{args:?}: expected one of {needles:?} in:\n{}",
        out.stderr
    );
    assert!(
        first.chars().count() < 400,
        "the error stays readable, not the whole input echoed: {} chars",
        first.chars().count()
    );
    assert!(
        env.sb.requests().is_empty(),
        "{args:?} sent {:?}",
        env.sb.requests()
    );
    out
}

#[test]
fn page_and_per_page_out_of_range_or_not_numbers_are_refused() {
    let env = Env::new();
    for v in ["0", "101", "-1"] {
        refused(
            &env,
            &["deals", "list", "--per-page", v],
            5,
            &["--per-page"],
        );
    }
    for v in ["0", "-1"] {
        refused(&env, &["projects", "list", "--page", v], 5, &["--page"]);
    }
    for v in ["abc", "", " ", "１０", "🚀", "99999999999999999999"] {
        refused(&env, &["deals", "list", "--per-page", v], 2, &["per-page"]);
    }
    refused(
        &env,
        &["deals", "list", "--sort-by", "drop table"],
        2,
        &["sort-by"],
    );
}

#[test]
fn text_filters_with_control_characters_or_10000_characters_are_refused() {
    let env = Env::new();
    let long = long();
    for v in [CONTROL, "a\nb", "tab\there", long.as_str()] {
        refused(
            &env,
            &["deals", "list", "--name", v],
            5,
            &["control characters", "at most 1000"],
        );
    }
    let out = refused(
        &env,
        &["contacts", "list", "--email", long.as_str()],
        5,
        &["at most 254"],
    );
    assert!(
        out.stderr.starts_with("error: --email: too long"),
        "the option is named: {}",
        out.stderr
    );
}

#[test]
fn blank_filters_mean_no_filter_and_unicode_filters_are_sent_intact() {
    let env = Env::new();
    for v in ["", "   "] {
        run(env.cmd(&["deals", "list", "--name", v, "--format", "json"])).code(0);
    }
    for r in env.sb.requests() {
        assert!(
            !r.query.unwrap_or_default().contains("name="),
            "a blank filter is not sent"
        );
    }
    env.sb.clear_requests();
    for v in [EMOJI, RTL] {
        run(env.cmd(&["deals", "list", "--name", v, "--format", "json"])).code(0);
    }
    let sent: Vec<String> = env
        .requests_to("GET", "deals")
        .into_iter()
        .map(|r| {
            let q = r.query.unwrap_or_default();
            url::form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "name")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(sent, [EMOJI, RTL]);
}

#[test]
fn invalid_times_are_refused_before_sending() {
    let env = Env::new();
    let long = long();
    for v in [
        "",
        "   ",
        "2026-02-30",
        "2026-13-01",
        "2026-01-01 25:00",
        "next blue moon",
        EMOJI,
        RTL,
        CONTROL,
        long.as_str(),
    ] {
        refused(
            &env,
            &["contacts", "list", "--created-after", v],
            5,
            &["created-after", "time"],
        );
    }
}

#[test]
fn contact_fields_are_checked_and_nothing_is_created() {
    let env = Env::new();
    let long = long();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "nothing to create"),
        (
            vec!["--email", "", "--first-name", "  "],
            "nothing to create",
        ),
        (vec!["--first-name", long.as_str()], "--first-name"),
        (vec!["--last-name", CONTROL], "--last-name"),
        (vec!["--first-name", BIDI_OVERRIDE], "--first-name"),
        (vec!["--email", "not an email"], "email"),
        (vec!["--email", EMOJI], "email"),
        (vec!["--phone", "call me 🚀"], "phone"),
        (vec!["--phone", RTL], "phone"),
        (vec!["--set", "=value"], "set"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["contacts", "create"];
        args.extend(extra);
        let code = if needle == "set" { 2 } else { 5 };
        refused(&env, &args, code, &[needle]);
    }
}

#[test]
fn emoji_and_right_to_left_names_are_created_intact() {
    let env = Env::new();
    let out = run(env.cmd(&[
        "contacts",
        "create",
        "--first-name",
        EMOJI,
        "--last-name",
        RTL,
        "--email",
        "unicode.names@example.com",
        "--format",
        "json",
    ]))
    .code(0);
    let id = out.json()["id"].as_str().unwrap().to_string();
    let stored = env.sb.contact(&id).unwrap();
    assert_eq!(stored["first_name"], EMOJI);
    assert_eq!(stored["last_name"], RTL);
}

#[test]
fn appointment_ids_and_times_are_checked_before_sending() {
    let env = Env::new();
    let long = long();
    for id in ["", "   ", "..", "."] {
        refused(
            &env,
            &["appointments", "reschedule", id, "--start", "+2h", "--yes"],
            5,
            &["id"],
        );
    }
    for start in ["", "2026-02-30 10:00", CONTROL, long.as_str(), EMOJI] {
        refused(
            &env,
            &[
                "appointments",
                "reschedule",
                "apt_1",
                "--start",
                start,
                "--yes",
            ],
            5,
            &["start", "time"],
        );
    }
}

#[test]
fn bad_base_urls_and_profiles_are_refused_before_any_connection() {
    let env = Env::new();
    let long = format!("https://{}.example.com", long());
    for url in [
        "",
        "   ",
        "not a url",
        "ftp://example.com",
        "http://crm.example.com",
        "https://user:pw@crm.example.com",
        "https://exa mple.com",
        long.as_str(),
    ] {
        let out =
            run(env
                .bare()
                .env("CRMDASH_TOKEN", "t")
                .args(["--base-url", url, "deals", "list"]));
        // No base URL at all is a configuration error (exit 1); a bad one is refused.
        let expected: &[i32] = if url.trim().is_empty() { &[1] } else { &[2, 5] };
        assert!(
            expected.contains(&out.code),
            "{url:?}: exit {} {}",
            out.code,
            out.stderr
        );
        out.error_line();
    }
    // (An empty --profile means the default profile, as when it is not given.)
    for profile in ["a/b", "../x", CONTROL, EMOJI] {
        let out = run(env.cmd(&["--profile", profile, "deals", "list"]));
        assert_eq!(out.code, 2, "{profile:?}: {}", out.stderr);
        out.error_line();
    }
    assert!(env.sb.requests().is_empty());
}

#[test]
fn a_broken_config_file_warns_and_defaults_apply() {
    let env = Env::new();
    let long = long();
    for text in [
        "\u{0}\u{1}\u{2}".to_string(),
        "[ui]\nper_page = \"abc\"\n".to_string(),
        "[ui]\nper_page = 0\n".to_string(),
        format!("[ui]\ntheme = \"{long}\"\n"),
        "[reschedule]\ntimezone = \"Mars/Olympus\"\n".to_string(),
        "🚀 = 1\n".to_string(),
    ] {
        env.write_config(&text);
        let out = run(env.cmd(&["deals", "list", "--format", "json"]));
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
        assert!(
            out.code == 0 || out.code == 1 || out.code == 5,
            "{text:?}: exit {}: {}",
            out.code,
            out.stderr
        );
        if out.code == 0 {
            assert!(out.stderr.contains("warning"), "{text:?}: {}", out.stderr);
        }
    }
}
