//! `crmdash contacts import` through the real binary over HTTP against the sandbox: header
//! variants, separators, duplicates in the file and on the service, an exact dry run, a rate
//! limit storm, two imports of one file at once, and a run killed half way then re-run.

use crate::cli_support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cli_support::{Env, run};
use crmdash::sandbox::SandboxConfig;
use serde_json::Value;

/// Emails the sandbox's seed data has (read over HTTP, as a user would).
fn existing_emails(env: &Env, n: usize) -> Vec<String> {
    let body: Value = serde_json::from_str(&env.raw_get("contacts?per_page=50&page=2")).unwrap();
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["email"].as_str().map(str::to_string))
        .take(n)
        .collect()
}

fn write(env: &Env, name: &str, text: &str) -> PathBuf {
    let p = env.dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `n` new people, `tag` keeping their emails apart from other tests' files.
fn people(n: usize, tag: &str) -> Vec<String> {
    (0..n)
        .map(|i| format!("p{i}.{tag}@import.example"))
        .collect()
}

fn csv_of(emails: &[String]) -> String {
    let mut s = String::from("first_name,last_name,email\n");
    for (i, e) in emails.iter().enumerate() {
        s.push_str(&format!("P{i},Import,{e}\n"));
    }
    s
}

/// `line -> (outcome, id)` of a `--format json` report.
fn outcomes(report: &Value) -> HashMap<u64, (String, Option<String>)> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                (
                    r["outcome"].as_str().unwrap().to_string(),
                    r["id"].as_str().map(str::to_string),
                ),
            )
        })
        .collect()
}

fn import(env: &Env, file: &Path, extra: &[&str]) -> cli_support::Run {
    let mut args = vec!["contacts", "import", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(env.cmd(&args))
}

/// The binary as a child process (for runs at once, or killed), like `Env::cmd`.
fn spawn(env: &Env, args: &[&str]) -> std::process::Child {
    let d = env.dir.path();
    std::process::Command::new(env!("CARGO_BIN_EXE_crmdash"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", d)
        .env("XDG_CONFIG_HOME", d.join("xdg-config"))
        .env("XDG_DATA_HOME", d.join("xdg-data"))
        .env("XDG_STATE_HOME", d.join("xdg-state"))
        .env("CRMDASH_CONFIG", env.config_path())
        .env("CRMDASH_TOKEN", env.sb.token())
        .env("NO_COLOR", "1")
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
        .arg("--base-url")
        .arg(env.sb.base_url())
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("crmdash starts")
}

#[test]
fn duplicates_in_the_file_and_on_the_service_are_skipped_and_the_dry_run_says_so_exactly() {
    let env = Env::new();
    let known = existing_emails(&env, 3);
    let mut emails = people(5, "dup");
    // An email the service has (in another case), and an in-file duplicate in another case.
    emails.push(known[0].to_uppercase());
    emails.push(emails[1].to_uppercase());
    emails.push(known[1].clone());
    let file = write(&env, "people.csv", &csv_of(&emails));
    let before = env.sb.contact_count();

    for existing in ["search", "scan"] {
        let dry = import(
            &env,
            &file,
            &["--dry-run", "--format", "json", "--existing", existing],
        )
        .code(0);
        let dry = outcomes(&dry.json());
        assert_eq!(env.sb.contact_count(), before, "a dry run creates nothing");
        assert!(env.requests_to("POST", "contacts").is_empty());
        assert_eq!(dry[&7].0, "exists", "{dry:?}");
        assert_eq!(dry[&9].0, "exists");
        assert_eq!(dry[&8].0, "duplicate");
        assert_eq!(dry.values().filter(|o| o.0 == "create").count(), 5);
    }
    let dry_report = import(&env, &file, &["--dry-run", "--format", "json"]).code(0);
    let real = import(&env, &file, &["--format", "json"]).code(0);
    let (dry, real_json) = (outcomes(&dry_report.json()), real.json());
    let done = outcomes(&real_json);
    for (line, (would, _)) in &dry {
        let did = &done[line].0;
        let same = match would.as_str() {
            "create" => did == "created",
            other => did == other,
        };
        assert!(same, "line {line}: dry run said {would}, the run did {did}");
    }
    assert!(done[&7].1.is_some(), "the existing contact is named");
    assert_eq!(real_json["summary"]["created"], 5);
    assert_eq!(real_json["summary"]["exists"], 2);
    assert_eq!(real_json["summary"]["duplicates"], 1);
    assert_eq!(env.sb.contact_count(), before + 5);
    for e in &emails {
        assert_eq!(env.sb.contacts_with_email(e), 1, "{e}");
    }
    // Every created id is in the report.
    let created_ids: Vec<&str> = real_json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] == "created")
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(created_ids.len(), 5);

    // The re-run creates nothing and fails nothing; the text summary reads well.
    let again = import(&env, &file, &[]).code(0);
    assert_eq!(env.sb.contact_count(), before + 5);
    assert!(
        again.stdout.contains(
            "8 rows: 0 created, 8 skipped (7 already on the service, 1 duplicate in the file), 0 failed"
        ),
        "{}",
        again.stdout
    );
}

#[test]
fn headers_match_whatever_their_spelling_and_separators_are_detected() {
    let env = Env::new();
    let before = env.sb.contact_count();
    let files = [
        (
            "semi.csv",
            "First Name;last-name;E-Mail;PHONE;Lead Source\nAda;Lovelace;ada@semi.example;+44 20 7946 0000;fair\n",
        ),
        (
            "tab.tsv",
            "FIRST_NAME\tLAST_NAME\temail\nGrace\tHopper\tgrace@tab.example\n",
        ),
    ];
    for (name, text) in files {
        let f = write(&env, name, text);
        let r = import(&env, &f, &[]).code(0);
        assert!(r.stdout.contains("1 row: 1 created"), "{}", r.stdout);
        if name == "semi.csv" {
            assert!(
                r.stderr.contains("'Lead Source'") && r.stderr.contains("extra attributes"),
                "the unknown column is named before sending: {}",
                r.stderr
            );
        }
    }
    let posts = env.requests_to("POST", "contacts");
    let bodies: Vec<Value> = posts
        .iter()
        .map(|r| serde_json::from_str(r.body.as_deref().unwrap()).unwrap())
        .collect();
    assert_eq!(bodies[0]["first_name"], "Ada");
    assert_eq!(bodies[0]["phone"], "+44 20 7946 0000");
    assert_eq!(bodies[0]["Lead Source"], "fair");
    assert_eq!(bodies[1]["last_name"], "Hopper");
    assert_eq!(env.sb.contact_count(), before + 2);

    // A given separator wins; a header naming no known field says which one was tried.
    let pipe = write(&env, "pipe.csv", "first_name|email\nLin|lin@pipe.example\n");
    let r = import(&env, &pipe, &[]).code(5);
    assert!(
        r.error_line().contains("separator ','") && r.error_line().contains("--delimiter"),
        "{}",
        r.stderr
    );
    import(&env, &pipe, &["--delimiter", "|"]).code(0);
    assert_eq!(env.sb.contacts_with_email("lin@pipe.example"), 1);
}

#[test]
fn bad_rows_are_all_listed_and_nothing_is_sent() {
    let env = Env::new();
    let f = write(
        &env,
        "bad.csv",
        "first_name,email,phone\nAda,not-an-email,\nBob,bob@example.com,12345\nCy,cy@example.com,\n",
    );
    let r = import(&env, &f, &[]).code(5);
    assert!(
        r.error_line().contains("2 bad rows; nothing was sent"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("line 2") && r.stderr.contains("line 3"),
        "{}",
        r.stderr
    );
    assert!(env.requests_to("POST", "contacts").is_empty());
}

#[test]
fn a_rate_limit_storm_slows_the_import_and_fails_no_row() {
    let env = Env::with(SandboxConfig {
        rate_limit: Some(5),
        ..SandboxConfig::default()
    });
    let emails = people(20, "storm");
    let f = write(&env, "storm.csv", &csv_of(&emails));
    let r = import(
        &env,
        &f,
        &["--existing", "search", "--jobs", "16", "--format", "json"],
    )
    .code(0);
    let report = r.json();
    assert_eq!(report["summary"]["created"], 20, "{}", r.stdout);
    assert_eq!(report["summary"]["failed"], 0);
    for e in &emails {
        assert_eq!(env.sb.contacts_with_email(e), 1, "{e}");
    }
    // 40 operations were needed; the sandbox refused some with 429 and they were sent again.
    let sent = env.requests_to("GET", "contacts").len() + env.requests_to("POST", "contacts").len();
    assert!(sent > 40, "only {sent} requests: no 429 storm happened");
}

#[test]
fn a_taken_email_refused_by_the_service_is_a_skip() {
    let env = Env::with(SandboxConfig {
        unique_emails: true,
        ..SandboxConfig::default()
    });
    let known = existing_emails(&env, 1);
    let f = write(
        &env,
        "taken.csv",
        &format!(
            "first_name,email\nKnown,{}\nNew,new@taken.example\n",
            known[0]
        ),
    );
    // --allow-duplicate sends without looking up: the service's 422 "already taken" decides.
    let r = import(&env, &f, &["--allow-duplicate", "--format", "json"]).code(0);
    let o = outcomes(&r.json());
    assert_eq!(o[&2].0, "exists", "{}", r.stdout);
    assert!(o[&2].1.is_some(), "the existing contact is named");
    assert_eq!(o[&3].0, "created");
    assert_eq!(env.sb.contacts_with_email(&known[0]), 1);
}

#[test]
fn two_imports_of_one_file_at_once_both_finish_without_duplicates() {
    let env = Env::with(SandboxConfig {
        latency: Some(Duration::from_millis(30)),
        ..SandboxConfig::default()
    });
    let emails = people(60, "twice");
    let mut text = csv_of(&emails);
    // Rows without an email rely on their Idempotency-Key alone.
    text.push_str("Solo,NoEmail,\n");
    let f = write(&env, "twice.csv", &text);
    let before = env.sb.contact_count();
    let path = f.to_str().unwrap();
    let runs: Vec<_> = (0..2)
        .map(|_| {
            spawn(
                &env,
                &[
                    "contacts",
                    "import",
                    path,
                    "--existing",
                    "search",
                    "--format",
                    "json",
                ],
            )
        })
        .collect();
    let mut created = 0;
    for child in runs {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["summary"]["failed"], 0, "{stdout}");
        created += report["summary"]["created"].as_u64().unwrap();
    }
    assert_eq!(created, 61, "each row created by exactly one of the runs");
    assert_eq!(env.sb.contact_count(), before + 61);
    for e in &emails {
        assert_eq!(env.sb.contacts_with_email(e), 1, "{e}");
    }
}

#[test]
fn a_run_killed_half_way_and_re_run_creates_nobody_twice() {
    let env = Env::with(SandboxConfig {
        latency: Some(Duration::from_millis(40)),
        ..SandboxConfig::default()
    });
    let emails = people(150, "killed");
    let mut text = csv_of(&emails);
    for i in 0..10 {
        text.push_str(&format!("NoMail{i},Killed,\n"));
    }
    let f = write(&env, "killed.csv", &text);
    let before = env.sb.contact_count();
    let path = f.to_str().unwrap();
    let mut child = spawn(&env, &["contacts", "import", path, "--jobs", "4"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    while env.sb.contact_count() < before + 40 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let half = env.sb.contact_count() - before;
    assert!(
        half < 160,
        "the first run was stopped before the end ({half} created)"
    );

    let r = import(&env, &f, &["--format", "json"]).code(0);
    let report = r.json();
    assert_eq!(report["summary"]["failed"], 0);
    assert_eq!(env.sb.contact_count(), before + 160, "{}", r.stdout);
    for e in &emails {
        assert_eq!(env.sb.contacts_with_email(e), 1, "{e}");
    }
    // Once more: nothing new; the rows without an email replay their keys.
    let again = import(&env, &f, &["--format", "json"]).code(0).json();
    assert_eq!(again["summary"]["created"], 0);
    assert_eq!(again["summary"]["replayed"], 10);
    assert_eq!(env.sb.contact_count(), before + 160);
}
