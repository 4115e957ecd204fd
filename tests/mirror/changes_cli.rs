//! `crmdash changes` and `crmdash watch` through the real binary: `--since last --mark`
//! delivers each change once across runs that fail half way, the formats, and `watch --exec`
//! runs its program once per change with the JSON on stdin and argv exactly as typed.

use crate::cli_support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli_support::{Env, fault, run};
use crmdash::mirror::{ChangeQuery, Mirror, MirrorLocation};
use crmdash::sandbox::FaultKind;
use serde_json::Value;

fn mirror(env: &Env) -> Mirror {
    let loc = MirrorLocation::new(
        env.dir.path().join("xdg-cache/crmdash/mirror"),
        "default",
        &env.sb.base_url(),
    );
    Mirror::open(&loc.db_path()).expect("mirror opens").mirror
}

fn seqs(stdout: &str) -> Vec<i64> {
    stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            v["seq"].as_i64().expect("seq")
        })
        .collect()
}

fn all_seqs(env: &Env) -> Vec<i64> {
    mirror(env)
        .changes(&ChangeQuery::default())
        .unwrap()
        .iter()
        .map(|c| c.seq)
        .collect()
}

const LAST: [&str; 6] = ["changes", "--since", "last", "--mark", "--format", "jsonl"];

#[test]
fn since_last_mark_delivers_each_change_once_across_failed_runs() {
    let env = Env::new();
    run(env.cmd(&["sync"])).code(0);
    // The baseline recorded nothing.
    let none = run(env.cmd(&["changes", "--since", "last", "--format", "json"])).code(0);
    assert_eq!(none.json(), serde_json::json!([]));

    env.sb.churn(100);
    let first = seqs(
        &run(env.cmd(&[&LAST[..], &["--sync"]].concat()))
            .code(0)
            .stdout,
    );
    assert!(!first.is_empty());
    // Marked: a second run finds nothing new.
    assert_eq!(run(env.cmd(&LAST)).code(0).stdout, "");

    // A run whose sync fails half way (contacts and deals synced, projects refused): the
    // changes it recorded are not delivered and the cursor stays.
    env.sb.churn(100);
    env.fault(
        fault(FaultKind::ServerError { status: 503 })
            .on("GET", "/projects")
            .always(),
    );
    let failed = run(env.cmd(&[&LAST[..], &["--sync"]].concat()));
    assert_ne!(failed.code, 0, "{}", failed.stderr);
    assert_eq!(failed.stdout, "");
    env.sb.faults().clear();
    assert!(
        all_seqs(&env).len() > first.len(),
        "the failed run recorded changes"
    );

    // A run whose output cannot be written (a full disk) marks nothing either.
    let mut full = env.bare_std();
    full.env("CRMDASH_TOKEN", env.sb.token())
        .args(["--base-url", &env.sb.base_url()])
        .args(LAST)
        .stdout(std::fs::File::create("/dev/full").expect("/dev/full"));
    let out = full.output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let second = seqs(
        &run(env.cmd(&[&LAST[..], &["--sync"]].concat()))
            .code(0)
            .stdout,
    );
    let all = all_seqs(&env);
    assert!(!second.is_empty());
    assert!(first.iter().all(|s| !second.contains(s)), "delivered twice");
    assert_eq!(
        [first, second].concat(),
        all,
        "every change, once, in order"
    );
    assert_eq!(run(env.cmd(&LAST)).code(0).stdout, "");
}

#[test]
fn changes_filters_and_formats() {
    let env = Env::new();
    run(env.cmd(&["sync"])).code(0);
    env.sb.churn(300);
    run(env.cmd(&["sync"])).code(0);
    let json = run(env.cmd(&["changes", "--type", "deals", "--field", "status"])).code(0);
    let list = json.json();
    let list = list.as_array().expect("an array when piped");
    assert!(!list.is_empty());
    for c in list {
        assert_eq!(c["resource"], "deals");
        assert_eq!(c["kind"], "updated");
        let fields = c["fields"].as_array().unwrap();
        assert!(fields.iter().any(|f| f["field"] == "status"), "{c}");
        let keys: Vec<&str> = c.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["at", "fields", "id", "kind", "resource", "seq"]);
    }
    let id = list[0]["id"].as_str().unwrap();
    let one = run(env.cmd(&["changes", "--id", id, "--format", "jsonl"])).code(0);
    assert!(
        one.stdout
            .lines()
            .all(|l| l.contains(&format!("\"id\":\"{id}\"")))
    );

    let csv = run(env.cmd(&["changes", "--since", "1d", "--format", "csv"])).code(0);
    assert!(
        csv.stdout
            .starts_with("seq,at,resource,id,kind,field,old,new\n"),
        "{}",
        csv.stdout
    );
    let table = run(env.cmd(&["changes", "--type", "deals", "--format", "table"])).code(0);
    assert!(table.stdout.contains(" → "), "{}", table.stdout);
    // A header, then each row a deal's.
    let mut lines = table.stdout.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("WHEN") && header.contains("CHANGE"),
        "{header}"
    );
    assert!(lines.all(|l| l.contains("deal")), "{}", table.stdout);

    // Nothing from the future; bad input is a usage error.
    let later = run(env.cmd(&["changes", "--since", "tomorrow", "--format", "jsonl"])).code(0);
    assert_eq!(later.stdout, "");
    let bad = run(env.cmd(&["changes", "--since", "lately"])).code(2);
    assert!(bad.stderr.contains("--since"), "{}", bad.stderr);
    run(env.cmd(&["changes", "--since", "1d", "--mark"])).code(2);

    // The JSON lines are the array's objects, one a line, in the same order; --jq and
    // --template read that array.
    let lines = run(env.cmd(&["changes", "--since", "1d", "--format", "jsonl"])).code(0);
    let array = run(env.cmd(&["changes", "--since", "1d", "--format", "json"])).code(0);
    let from_lines: Vec<Value> = lines
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(Value::Array(from_lines.clone()), array.json());
    let ids = run(env.cmd(&["changes", "--since", "1d", "--jq", ".[] | .id"])).code(0);
    let expected: Vec<&str> = from_lines
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.stdout.lines().collect::<Vec<_>>(), expected);
    let template = "{% for c in records %}{{ c.seq }} {{ c.kind }}\n{% endfor %}";
    let shaped = run(env.cmd(&["changes", "--since", "1d", "--template", template])).code(0);
    let first = &from_lines[0];
    assert!(
        shaped.stdout.starts_with(&format!(
            "{} {}\n",
            first["seq"],
            first["kind"].as_str().unwrap()
        )),
        "{}",
        shaped.stdout
    );
    let both = run(env.cmd(&["changes", "--jq", ".", "--format", "json"])).code(2);
    assert!(both.stderr.contains("--format"), "{}", both.stderr);
    run(env.cmd(&["changes", "--jq", ".[] | ]"])).code(2);
}

#[test]
fn watch_exec_runs_once_per_change_with_json_on_stdin_and_argv_as_typed() {
    let env = Env::new();
    run(env.cmd(&["sync"])).code(0);
    let dir = env.dir.path();
    // The program: fails the first time it is run at all (the change must come again), then
    // logs its arguments, the environment's facts and stdin.
    let script = dir.join("hook.sh");
    std::fs::write(
        &script,
        r#"#!/bin/sh
if [ ! -e "$HOOK_DIR/failed-once" ]; then : > "$HOOK_DIR/failed-once"; exit 3; fi
printf '%s|' "$#" "$@" >> "$HOOK_DIR/argv"; echo >> "$HOOK_DIR/argv"
printf '%s %s %s %s %s %s\n' "$CRMDASH_CHANGE_SEQ" "$CRMDASH_CHANGE_ID" "$CRMDASH_CHANGE_RESOURCE" \
  "$CRMDASH_CHANGE_KIND" "$CRMDASH_CHANGE_FIELDS" "${CRMDASH_TOKEN:-no-token}" >> "$HOOK_DIR/env"
cat >> "$HOOK_DIR/stdin"
"#,
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut cmd = env.bare_std();
    cmd.env("CRMDASH_TOKEN", env.sb.token())
        .env("HOOK_DIR", dir)
        .args(["--base-url", &env.sb.base_url()])
        .args(["watch", "--every", "5s", "--exec"])
        .arg(&script)
        .args(["$(touch pwned)", "--type", "a b"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("watch starts");
    env.sb.churn(60);

    let deadline = Instant::now() + Duration::from_secs(120);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    loop {
        let want = all_seqs(&env).len();
        if want > 0 && read("env").lines().count() >= want {
            break;
        }
        assert!(Instant::now() < deadline, "watch delivered {}", read("env"));
        std::thread::sleep(Duration::from_millis(200));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        stderr.push_str(&line.unwrap());
        stderr.push('\n');
    }
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("it is tried again next round"), "{stderr}");
    assert!(stderr.contains("watch: stopped"), "{stderr}");

    let all = mirror(&env).changes(&ChangeQuery::default()).unwrap();
    let env_lines: Vec<String> = read("env").lines().map(str::to_string).collect();
    let delivered: Vec<i64> = env_lines
        .iter()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        delivered,
        all.iter().map(|c| c.seq).collect::<Vec<_>>(),
        "once each, in order"
    );
    for (line, c) in env_lines.iter().zip(&all) {
        let fields: Vec<&str> = c.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            *line,
            format!(
                "{} {} {} {} {} no-token",
                c.seq,
                c.id,
                c.resource.noun(),
                c.kind.word(),
                fields.join(",")
            )
        );
    }
    // Each program got its change as one JSON object, keys in the documented order, values
    // as the mirror recorded them.
    let stdin: Vec<String> = read("stdin").lines().map(str::to_string).collect();
    assert_eq!(stdin.len(), all.len());
    for (line, c) in stdin.iter().zip(&all) {
        let at = c.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let head = format!(
            r#"{{"seq":{},"at":"{at}","resource":"{}","id":"{}","kind":"{}","fields":["#,
            c.seq,
            c.resource.noun(),
            c.id,
            c.kind.word()
        );
        assert!(line.starts_with(&head), "{line}\nwanted {head}");
        let fields: Vec<serde_json::Value> = c
            .fields
            .iter()
            .map(|f| serde_json::json!({"field": f.field, "old": f.old, "new": f.new}))
            .collect();
        let got: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(got["fields"], serde_json::Value::Array(fields), "{line}");
        assert_eq!(got.as_object().unwrap().len(), 6, "{line}");
    }
    // argv is exactly what was typed: nothing expanded, nothing added.
    for line in read("argv").lines() {
        assert_eq!(line, "3|$(touch pwned)|--type|a b|");
    }
    assert!(!dir.join("pwned").exists());
    // The cursor is past every change.
    assert_eq!(
        mirror(&env).cursor("watch").unwrap().unwrap().seq,
        all.last().unwrap().seq
    );
}

#[test]
fn watch_exec_stops_a_program_that_hangs_and_the_feed_goes_on() {
    let env = Env::new();
    run(env.cmd(&["sync"])).code(0);
    let dir = env.dir.path();
    // Hangs the first time it is run (never reading its input), then logs each change's seq.
    let script = dir.join("hang.sh");
    std::fs::write(
        &script,
        r#"#!/bin/sh
if [ ! -e "$HOOK_DIR/hung-once" ]; then : > "$HOOK_DIR/hung-once"; exec sleep 600; fi
echo "$CRMDASH_CHANGE_SEQ" >> "$HOOK_DIR/seqs"
"#,
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut cmd = env.bare_std();
    cmd.env("CRMDASH_TOKEN", env.sb.token())
        .env("HOOK_DIR", dir)
        .args(["--base-url", &env.sb.base_url()])
        .args(["watch", "--every", "5s", "--exec-timeout", "2s", "--exec"])
        .arg(&script)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("watch starts");
    env.sb.churn(10);
    let deadline = Instant::now() + Duration::from_secs(90);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    loop {
        let want = all_seqs(&env).len();
        if want > 0 && read("seqs").lines().count() >= want {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "watch delivered {}",
            read("seqs")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "not stalled by the hang"
    );
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        stderr.push_str(&line.unwrap());
        stderr.push('\n');
    }
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("did not finish within 2 s (--exec-timeout) and was stopped; it is tried again next round"),
        "{stderr}"
    );
    let all: Vec<String> = mirror(&env)
        .changes(&ChangeQuery::default())
        .unwrap()
        .iter()
        .map(|c| c.seq.to_string())
        .collect();
    assert_eq!(read("seqs").lines().collect::<Vec<_>>(), all);
}
