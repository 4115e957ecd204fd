//! `crmdash appointments reschedule --plan`: a bad row sends nothing, the preview, a run
//! killed half way and re-run sends each row exactly once (the sandbox's request log), a
//! 429 storm fails nothing, and every sent row reaches the reschedule log.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crmdash::sandbox::{FaultKind, FaultRule, SandboxConfig};

use crate::cli_support::{self, Env, run};

fn appointments(env: &Env, n: usize) -> Vec<String> {
    let ids = env.sb.ids("appointments");
    assert!(ids.len() >= n, "{} seeded appointments", ids.len());
    ids.into_iter().take(n).collect()
}

/// A plan moving each appointment to its own hour on 2030-06-0x (Berlin config).
fn plan_of(ids: &[String]) -> String {
    let mut text = String::from("id,start,end\n");
    for (i, id) in ids.iter().enumerate() {
        text.push_str(&format!(
            "{id},2030-06-{:02} {:02}:00,30m\n",
            1 + i / 10,
            8 + i % 10
        ));
    }
    text
}

fn write_plan(env: &Env, name: &str, text: &str) -> PathBuf {
    env.write_config("[reschedule]\ntimezone = \"Europe/Berlin\"\n");
    let p = env.dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn plan_cmd(env: &Env, file: &std::path::Path, extra: &[&str]) -> cli_support::Run {
    let mut args = vec![
        "appointments",
        "reschedule",
        "--plan",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(env.cmd(&args))
}

/// POSTs per appointment id, from the sandbox's request log.
fn posts_per_id(env: &Env) -> HashMap<String, usize> {
    let mut n = HashMap::new();
    for r in env.requests_to("POST", "appointments/") {
        let id = r.path.split('/').nth(4).unwrap_or_default().to_string();
        *n.entry(id).or_insert(0) += 1;
    }
    n
}

fn jsonl(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn a_plan_with_a_bad_row_sends_nothing_and_names_each_bad_line() {
    let env = Env::new();
    let ids = appointments(&env, 3);
    let text = format!(
        "{}\n{},someday\n{},2030-06-01 10:00,45\n",
        plan_of(&ids[..1]).trim_end(),
        ids[1],
        ids[2]
    );
    let f = write_plan(&env, "bad.csv", &text);
    let out = plan_cmd(&env, &f, &["--yes"]).code(5);
    assert!(out.error_line().contains("2 bad rows"), "{}", out.stderr);
    assert!(out.stderr.contains("line 3: start:"), "{}", out.stderr);
    assert!(out.stderr.contains("line 4: end:"), "{}", out.stderr);
    assert!(env.requests_to("POST", "appointments").is_empty());
}

#[test]
fn without_a_terminal_a_plan_needs_yes_and_the_dry_run_shows_old_and_new_times() {
    let env = Env::new();
    let ids = appointments(&env, 2);
    let f = write_plan(&env, "p.csv", &plan_of(&ids));
    let out = plan_cmd(&env, &f, &[]).code(2);
    assert!(out.error_line().contains("--yes"), "{}", out.stderr);
    assert!(env.sb.requests().is_empty());
    // One of them moved before, by the single command: the preview knows its last times.
    run(env.cmd(&[
        "appointments",
        "reschedule",
        &ids[0],
        "--start",
        "2030-05-01 09:00",
        "--end",
        "10:00",
        "--yes",
    ]))
    .code(0);
    let table = |cols: &str| {
        let mut cmd = env.cmd(&[
            "appointments",
            "reschedule",
            "--plan",
            f.to_str().unwrap(),
            "--dry-run",
            "--shift",
            "+1d",
            "--format",
            "table",
        ]);
        cmd.env("COLUMNS", cols);
        run(cmd).code(0).stdout
    };
    let wide = table("200");
    assert!(wide.contains("2030-05-01 09:00"), "{wide}");
    assert!(wide.contains("(new to crmdash)"), "{wide}");
    assert!(wide.contains("2030-06-02 08:00"), "{wide}");
    assert!(wide.contains("2 rows: 2 to send"), "{wide}");
    // Narrow: what it previews stays (issue 44: 80 columns showed LINE ID OLD START OLD END).
    let narrow = table("80");
    let header = narrow.lines().next().unwrap();
    for col in ["NEW START", "NEW END", "NOTE"] {
        assert!(header.contains(col), "80 columns: {narrow}");
    }
    assert!(narrow.contains("2030-06-02 08:00"), "{narrow}");
    // Piped, by the run's own rule: JSON, each row with the exact body it would send.
    let out = plan_cmd(&env, &f, &["--dry-run", "--shift", "+1d"]).code(0);
    let rows = out.json();
    assert_eq!(rows.as_array().unwrap().len(), 2, "{}", out.stdout);
    assert_eq!(rows[0]["id"], ids[0].as_str());
    assert_eq!(rows[0]["send"], true);
    assert_eq!(rows[1]["body"]["start_time"], "2030-06-02T07:00:00Z");
    assert_eq!(env.requests_to("POST", "appointments").len(), 1);
    // A read-only profile shows a dry run too: nothing would be sent.
    env.write_config(&format!(
        "[reschedule]\ntimezone = \"Europe/Berlin\"\n[profiles.default]\nbase_url = \"{}\"\nread_only = true\n",
        env.sb.base_url()
    ));
    plan_cmd(&env, &f, &["--dry-run", "--format", "jsonl"]).code(0);
    plan_cmd(&env, &f, &["--yes"]).code(8);
    assert_eq!(env.requests_to("POST", "appointments").len(), 1);
}

#[test]
fn a_plan_sends_each_row_once_reports_it_and_a_re_run_sends_nothing() {
    let env = Env::new();
    let ids = appointments(&env, 12);
    let f = write_plan(&env, "p.csv", &plan_of(&ids));
    let out = plan_cmd(&env, &f, &["--yes", "--format", "json"]).code(0);
    let report = out.json();
    assert_eq!(report["summary"]["moved"], 12, "{}", out.stdout);
    assert_eq!(report["rows"][0]["line"], 2);
    assert_eq!(report["rows"][0]["start"], "2030-06-01T06:00:00Z");
    let post = &env.requests_to("POST", &format!("appointments/{}/", ids[0]))[0];
    let body: serde_json::Value = serde_json::from_str(post.body.as_deref().unwrap()).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"start_time": "2030-06-01T06:00:00Z", "end_time": "2030-06-01T06:30:00Z"})
    );
    assert_eq!(
        env.sb.appointment(&ids[0]).unwrap()["status"],
        "rescheduled"
    );
    // Every row is in the shared reschedule log.
    let log = run(env.cmd(&["appointments", "log", "--format", "json"])).code(0);
    assert_eq!(log.json().as_array().unwrap().len(), 12);
    // And each once in the write journal, as one bulk run.
    let journal = run(env.cmd(&["log", "--type", "bulk", "--format", "json"])).code(0);
    let entries = journal.json();
    let entries = entries.as_array().unwrap();
    assert_eq!(entries.len(), 12, "{entries:?}");
    let runs: std::collections::HashSet<_> = entries.iter().map(|e| e["run"].clone()).collect();
    assert_eq!(runs.len(), 1, "one run id for the whole plan");
    // Again: all done already, nothing sent.
    let again = plan_cmd(&env, &f, &["--yes", "--format", "json"]).code(0);
    assert_eq!(again.json()["summary"]["already_done"], 12);
    assert!(posts_per_id(&env).values().all(|n| *n == 1));
    // `log --type reschedule` lists a plan's rows (type bulk) with the single reschedules.
    let log = run(env.cmd(&["log", "--type", "reschedule", "--format", "json"]))
        .code(0)
        .json();
    let kinds: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.len(), 12, "{log}");
    assert!(kinds.iter().all(|k| *k == "bulk"), "{kinds:?}");
}

#[test]
fn a_plan_killed_half_way_and_re_run_sends_each_row_exactly_once() {
    let env = Env::with(SandboxConfig {
        latency: Some(Duration::from_millis(400)),
        ..SandboxConfig::default()
    });
    let ids = appointments(&env, 40);
    let f = write_plan(&env, "p.csv", &plan_of(&ids));
    let mut child = env.bare_std();
    child
        .env("CRMDASH_TOKEN", env.sb.token())
        .args(["--base-url", &env.sb.base_url()])
        .args(["appointments", "reschedule", "--plan"])
        .arg(&f)
        .args(["--yes", "--jobs", "4"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = child.spawn().expect("crmdash starts");
    // Killed while requests are under way: a wave has just reached the sandbox, whose
    // latency holds their answers.
    let deadline = Instant::now() + Duration::from_secs(60);
    while env.requests_to("POST", "appointments").len() < 12 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(150));
    child.kill().unwrap();
    child.wait().unwrap();
    let first = env.requests_to("POST", "appointments").len();
    assert!((12..40).contains(&first), "stopped half way: {first} sent");

    let out = plan_cmd(&env, &f, &["--yes", "--format", "jsonl"]);
    let rows = jsonl(&out.stdout);
    let outcome = |o: &str| rows.iter().filter(|r| r["outcome"] == o).count();
    // Rows whose answer the kill lost are in doubt: not sent again, and the exit says so.
    let in_doubt = outcome("in_doubt");
    assert_eq!(out.code, if in_doubt > 0 { 9 } else { 0 }, "{}", out.stderr);
    assert!(
        (1..=4).contains(&in_doubt),
        "the 4 under way at the kill: {in_doubt}"
    );
    assert_eq!(outcome("already_done") + in_doubt, first, "{}", out.stdout);
    assert_eq!(outcome("moved"), 40 - first);
    let posts = posts_per_id(&env);
    for id in &ids {
        assert_eq!(posts.get(id), Some(&1), "{id}: {posts:?}");
    }
}

#[test]
fn a_plan_under_a_429_storm_completes_with_nothing_failed() {
    let env = Env::with(SandboxConfig {
        rate_limit: Some(5),
        ..SandboxConfig::default()
    });
    env.fault(
        FaultRule::new(FaultKind::RateLimited {
            retry_after_secs: 1,
        })
        .on("POST", "/appointments/*/reschedule")
        .times(6),
    );
    let ids = appointments(&env, 20);
    let f = write_plan(&env, "p.csv", &plan_of(&ids));
    let out = plan_cmd(&env, &f, &["--yes", "--format", "json", "--jobs", "8"]).code(0);
    let summary = &out.json()["summary"];
    assert_eq!(summary["moved"], 20, "{}", out.stdout);
    assert_eq!(summary["failed"], 0);
    for id in &ids {
        assert_eq!(env.sb.appointment(id).unwrap()["status"], "rescheduled");
    }
    assert!(
        env.sb.requests().len() > 20,
        "the storm refused some requests"
    );
}

#[test]
fn a_plan_from_stdin_as_json_lines_with_a_default_end() {
    let env = Env::new();
    let ids = appointments(&env, 2);
    env.write_config("[reschedule]\ntimezone = \"UTC\"\n");
    let text = format!(
        "{{\"id\": \"{}\", \"start\": \"2030-01-02 09:00\"}}\n{{\"id\": \"https://crm.example.com/appointments/{}\", \"start\": \"2030-01-02 10:00\", \"end\": \"11:00\"}}\n",
        ids[0], ids[1]
    );
    let out = run(env
        .cmd(&[
            "appointments",
            "reschedule",
            "--plan",
            "-",
            "--end",
            "15m",
            "--yes",
            "--format",
            "csv",
        ])
        .write_stdin(text))
    .code(0);
    assert!(
        out.stdout.starts_with("line,outcome,id,start,end"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!(
            "1,moved,{},2030-01-02T09:00:00Z,2030-01-02T09:15:00Z",
            ids[0]
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!(
            "2,moved,{},2030-01-02T10:00:00Z,2030-01-02T11:00:00Z",
            ids[1]
        )),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("2 rows: 2 moved"), "{}", out.stderr);
}

/// A plan row the write gate refuses after the run journal claimed it (here: the write journal
/// cannot be written) was never sent: a re-run sends it, not "in doubt" (exit 9).
#[test]
fn a_row_the_gate_refused_is_sent_by_a_re_run_not_held_in_doubt() {
    let env = Env::new();
    let ids = appointments(&env, 2);
    let file = write_plan(&env, "gate.csv", &plan_of(&ids));
    let journal = env
        .dir
        .path()
        .join("xdg-data")
        .join("crmdash")
        .join("write-journal.jsonl");
    std::fs::create_dir_all(&journal).unwrap();
    let first = plan_cmd(&env, &file, &["--yes", "--format", "jsonl"]);
    assert_ne!(first.code, 0, "{}", first.stderr);
    assert!(posts_per_id(&env).is_empty(), "nothing sent");
    std::fs::remove_dir(&journal).unwrap();
    plan_cmd(&env, &file, &["--yes", "--format", "jsonl"]).code(0);
    let posts = posts_per_id(&env);
    assert_eq!(posts.len(), 2, "{posts:?}");
    assert!(posts.values().all(|n| *n == 1), "{posts:?}");
}
