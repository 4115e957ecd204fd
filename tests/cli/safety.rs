//! Safe writes from the CLI against the sandbox: a protected profile needs `--yes` and an
//! explicit `--profile`; a read-only profile sends nothing through any write path (the
//! sandbox's request log stays empty); every write is journalled once, also from two runs
//! at the same time; `crmdash log` filters and formats it; the earlier logs are merged once.

use std::collections::HashSet;

use crate::cli_support;

use cli_support::{Env, run};

/// Exit code of a write refused by the profile's safety flags.
const REFUSED: i32 = 8;

fn config(env: &Env, flags: &str) {
    env.write_config(&format!(
        "[profiles.live]\nbase_url = \"{}\"\n{flags}\n[reschedule]\nend_field = \"\"\n",
        env.sb.base_url()
    ));
}

/// `crmdash ARGS` with the token in the environment and no `--base-url`: the profile's.
fn cmd(env: &Env, args: &[&str]) -> assert_cmd::Command {
    let mut c = env.bare();
    c.env("CRMDASH_TOKEN", env.sb.token());
    c.args(args);
    c
}

fn first_appointment(env: &Env) -> String {
    env.sb.ids("appointments").into_iter().next().unwrap()
}

fn writes(env: &Env) -> usize {
    env.sb
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count()
}

fn journal(env: &Env, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["log", "--format", "json"];
    args.extend_from_slice(extra);
    let out = run(cmd(env, &args)).code(0);
    out.json().as_array().unwrap().clone()
}

#[test]
fn a_protected_profile_refuses_a_write_named_only_by_crmdash_profile() {
    let env = Env::new();
    config(&env, "protected = true");
    let create = ["contacts", "create", "--email", "live@example.com", "--yes"];
    // CRMDASH_PROFILE alone, even with --yes: refused, nothing sent.
    let out = run(cmd(&env, &create).env("CRMDASH_PROFILE", "live")).code(REFUSED);
    let line = out.error_line();
    assert!(
        line.contains("protected") && line.contains("--profile live"),
        "{line}"
    );
    // The default profile naming it is not enough either.
    env.write_config(&format!(
        "default_profile = \"live\"\n[profiles.live]\nbase_url = \"{}\"\nprotected = true\n",
        env.sb.base_url()
    ));
    run(cmd(&env, &create)).code(REFUSED);
    // --profile without --yes: refused.
    let no_yes = ["contacts", "create", "--email", "live@example.com"];
    run(cmd(&env, &no_yes).args(["--profile", "live"])).code(REFUSED);
    let id = first_appointment(&env);
    let resched = ["appointments", "reschedule", &id, "--start", "+1d", "--yes"];
    run(cmd(&env, &resched).env("CRMDASH_PROFILE", "live")).code(REFUSED);
    assert_eq!(writes(&env), 0, "nothing reached the service");
    assert!(env.sb.requests().is_empty(), "not even a look-up");
    // Both on the command line: sent once.
    run(cmd(&env, &create).args(["--profile", "live"])).code(0);
    assert_eq!(env.requests_to("POST", "contacts").len(), 1);
    let status = run(cmd(&env, &["auth", "status", "--profile", "live"])).code(0);
    assert!(
        status
            .stdout
            .contains("safety:    read_only = false, protected = true"),
        "{}",
        status.stdout
    );
}

#[test]
fn a_read_only_profile_sends_nothing_through_any_write_path() {
    let env = Env::new();
    config(&env, "read_only = true");
    let id = first_appointment(&env);
    let csv = env.dir.path().join("people.csv");
    std::fs::write(&csv, "first_name,email\nAda,ada@example.com\n").unwrap();
    let missing = env.dir.path().join("not-there.csv");
    let paths: [Vec<&str>; 5] = [
        vec!["contacts", "create", "--email", "ro@example.com", "--yes"],
        vec!["appointments", "reschedule", &id, "--start", "+1d", "--yes"],
        vec!["contacts", "import", csv.to_str().unwrap(), "--yes"],
        // Refused before the file is read: a missing file is not the error.
        vec!["contacts", "import", missing.to_str().unwrap()],
        vec!["contacts", "create", "--email", "ro@example.com"],
    ];
    for args in &paths {
        for profile in [["--profile", "live"].as_slice(), &[]] {
            let out =
                run(cmd(&env, args).args(profile).env("CRMDASH_PROFILE", "live")).code(REFUSED);
            let line = out.error_line();
            assert!(line.contains("read-only"), "{args:?}: {line}");
            assert!(line.contains("nothing was sent"), "{line}");
        }
    }
    assert!(
        env.sb.requests().is_empty(),
        "the sandbox saw no request at all: {:?}",
        env.sb.requests()
    );
    // A dry run writes nothing and may look.
    run(cmd(
        &env,
        &["contacts", "import", csv.to_str().unwrap(), "--dry-run"],
    )
    .env("CRMDASH_PROFILE", "live"))
    .code(0);
    assert_eq!(writes(&env), 0);
    assert!(
        journal(&env, &[]).is_empty(),
        "nothing sent, nothing journalled"
    );
    let status = run(cmd(&env, &["auth", "status", "--profile", "live"])).code(0);
    assert!(
        status.stdout.contains("read_only = true"),
        "{}",
        status.stdout
    );
}

#[test]
fn every_write_is_journalled_once_also_from_two_runs_at_once() {
    let env = Env::new();
    let rows = 40;
    let mut files = Vec::new();
    for run_no in 0..2 {
        let mut text = String::from("first_name,email\n");
        for i in 0..rows {
            text.push_str(&format!("P{run_no}x{i},p{run_no}x{i}@example.com\n"));
        }
        let path = env.dir.path().join(format!("run{run_no}.csv"));
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    let children: Vec<_> = files
        .iter()
        .map(|f| {
            let mut c = env.bare_std();
            c.env("CRMDASH_TOKEN", env.sb.token())
                .arg("--base-url")
                .arg(env.sb.base_url())
                .args(["contacts", "import", f.to_str().unwrap(), "--jobs", "4"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            c.spawn().unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let id = first_appointment(&env);
    run(env.cmd(&["contacts", "create", "--email", "one@example.com"])).code(0);
    run(env.cmd(&["appointments", "reschedule", &id, "--start", "+1d", "--yes"])).code(0);

    let posts = env.requests_to("POST", "contacts").len();
    assert_eq!(posts, 2 * rows + 1);
    let all = journal(&env, &[]);
    assert_eq!(all.len(), 2 * rows + 2, "one entry per write sent");
    let imports = journal(&env, &["--type", "import"]);
    assert_eq!(imports.len(), 2 * rows);
    let lines: HashSet<&str> = imports.iter().map(|e| e["run"].as_str().unwrap()).collect();
    let keys: HashSet<&str> = imports.iter().map(|e| e["key"].as_str().unwrap()).collect();
    assert_eq!(
        (lines.len(), keys.len()),
        (2 * rows, 2 * rows),
        "each row once"
    );
    for e in &imports {
        assert_eq!(e["who"], "cli");
        assert_eq!(e["profile"], "default");
        assert!(e["answer"]["ok"].as_bool().unwrap(), "{e}");
        assert!(e["host"].as_str().unwrap().starts_with("127.0.0.1:"), "{e}");
        assert!(e["sent"]["email"].is_string(), "{e}");
    }
    let resched = journal(&env, &["--type", "reschedule"]);
    assert_eq!(resched.len(), 1);
    assert_eq!(resched[0]["target"], id.as_str());
    assert!(
        resched[0]["sent"]["start_time"].is_string(),
        "{}",
        resched[0]
    );
    let creates = journal(&env, &["--type", "create", "--since", "-1h"]);
    assert_eq!(creates.len(), 1);
    assert!(creates[0]["key"].is_string() && creates[0]["target"].is_string());
    assert!(journal(&env, &["--since", "+1h"]).is_empty());
    let csv = run(env.cmd(&["log", "--type", "create", "--format", "csv"])).code(0);
    assert!(
        csv.stdout
            .starts_with("at,type,who,profile,host,target,answer"),
        "{}",
        csv.stdout
    );
    assert!(
        csv.stdout.contains(",create,cli,default,127.0.0.1:"),
        "{}",
        csv.stdout
    );
    let bad = run(env.cmd(&["log", "--since", "soonish"])).code(5);
    assert!(bad.error_line().contains("--since"));
}

#[test]
fn the_earlier_reschedule_log_is_merged_into_the_journal_once() {
    let env = Env::new();
    let data = env.dir.path().join("xdg-data/crmdash");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("reschedule-history.jsonl"),
        "{\"id\":\"A7\",\"profile\":\"work\",\"host\":\"crm.example.com\",\"body\":{\"start_time\":\"2026-01-02T10:00:00Z\"},\"at\":\"2026-01-01T09:00:00Z\"}\n",
    )
    .unwrap();
    for _ in 0..2 {
        let all = journal(&env, &[]);
        assert_eq!(all.len(), 1, "{all:?}");
        assert_eq!(all[0]["target"], "A7");
        assert_eq!(all[0]["merged_from"], "reschedule-history.jsonl");
    }
    run(env.cmd(&["contacts", "create", "--email", "m@example.com"])).code(0);
    assert_eq!(
        journal(&env, &[]).len(),
        2,
        "merged once, not again on the next write"
    );
}

/// `crmdash api` writes pass the same gate as every other write: a read-only profile refuses
/// them (exit 8, nothing sent), a protected one needs `--yes` and `--profile NAME`, and each
/// write sent is journalled once, as `api`. Reads are not journalled.
#[test]
fn api_writes_obey_the_profile_and_are_journalled_once() {
    let env = Env::new();
    config(&env, "read_only = true");
    let post = ["api", "POST", "contacts", "-f", "email=api@example.com"];
    let out = run(cmd(&env, &post).args(["--profile", "live"])).code(REFUSED);
    assert!(
        out.error_line().contains("read-only"),
        "{}",
        out.error_line()
    );
    run(cmd(&env, &post).args(["--profile", "live", "--yes"])).code(REFUSED);
    // A GET with a body, or with a header naming another method, is a write too.
    let body = env.dir.path().join("body.json");
    std::fs::write(&body, r#"{"email":"tunnel@example.com"}"#).unwrap();
    let tunnelled: [&[&str]; 3] = [
        &["api", "GET", "contacts", "--input", body.to_str().unwrap()],
        &[
            "api",
            "OPTIONS",
            "contacts",
            "--input",
            body.to_str().unwrap(),
        ],
        &[
            "api",
            "GET",
            "contacts",
            "-H",
            "X-HTTP-Method-Override: POST",
        ],
    ];
    for args in tunnelled {
        run(cmd(&env, args).args(["--profile", "live"])).code(REFUSED);
    }
    assert!(env.sb.requests().is_empty(), "{:?}", env.sb.requests());

    config(&env, "protected = true");
    run(cmd(&env, &post).args(["--profile", "live"])).code(REFUSED);
    run(cmd(&env, &post).env("CRMDASH_PROFILE", "live").arg("--yes")).code(REFUSED);
    assert_eq!(writes(&env), 0);
    run(cmd(&env, &["api", "GET", "contacts"]).env("CRMDASH_PROFILE", "live")).code(0);
    run(cmd(&env, &post).args(["--profile", "live", "--yes"])).code(0);
    assert_eq!(env.requests_to("POST", "contacts").len(), 1);
    let all = journal(&env, &[]);
    assert_eq!(all.len(), 1, "one write, one entry: {all:?}");
    assert_eq!(all[0]["kind"], "api");
    assert_eq!(all[0]["profile"], "live");
    assert_eq!(all[0]["sent"]["method"], "POST");
    assert_eq!(all[0]["sent"]["path"], "/public/v1/contacts");
    assert_eq!(all[0]["sent"]["body"]["email"], "api@example.com");
    assert_eq!(all[0]["answer"]["ok"], true);
    assert!(all[0]["answer"].get("pending").is_none(), "{}", all[0]);
    assert_eq!(journal(&env, &["--type", "api"]).len(), 1);
}

/// The flags follow the service, not only the profile's name: another profile name, or none,
/// with `--base-url` at a read-only profile's service is refused before anything is written.
#[test]
fn the_flags_follow_the_service_reached() {
    let env = Env::new();
    config(&env, "read_only = true");
    // env.cmd: the default profile, with --base-url at the live profile's service.
    let out =
        run(env.cmd(&["contacts", "create", "--email", "x@example.com", "--yes"])).code(REFUSED);
    assert!(
        out.error_line().contains("read-only"),
        "{}",
        out.error_line()
    );
    run(env.cmd(&["api", "POST", "contacts", "-f", "email=x@example.com"])).code(REFUSED);
    let id = first_appointment(&env);
    run(env.cmd(&["appointments", "reschedule", &id, "--start", "+1d", "--yes"])).code(REFUSED);
    assert!(
        env.sb.requests().is_empty(),
        "refused before anything was read or sent: {:?}",
        env.sb.requests()
    );
    // Any loopback name reaches the same service.
    let localhost = env.sb.base_url().replace("127.0.0.1", "localhost");
    for args in [
        vec!["contacts", "create", "--email", "x@example.com", "--yes"],
        vec!["api", "POST", "contacts", "-f", "email=x@example.com"],
    ] {
        let out = run(cmd(&env, &args).args(["--profile", "other", "--base-url", &localhost]))
            .code(REFUSED);
        assert!(out.error_line().contains("'live'"), "{}", out.error_line());
    }
    assert!(env.sb.requests().is_empty(), "{:?}", env.sb.requests());
    assert!(journal(&env, &[]).is_empty());
    // A protected service reached under another name needs --profile with its own name.
    config(&env, "protected = true");
    let create = ["contacts", "create", "--email", "p@example.com", "--yes"];
    let out = run(cmd(&env, &create).args(["--profile", "other", "--base-url", &localhost]))
        .code(REFUSED);
    assert!(
        out.error_line().contains("--profile live"),
        "{}",
        out.error_line()
    );
    run(cmd(&env, &create).args(["--profile", "live", "--base-url", &localhost])).code(0);
    assert_eq!(writes(&env), 1);
}

/// A write whose intent the journal cannot record is not sent (exit 11), on every path.
#[test]
fn a_write_the_journal_cannot_record_is_not_sent() {
    let env = Env::new();
    // The journal's file is a directory: it cannot be appended to.
    let data = env.dir.path().join("xdg-data").join("crmdash");
    std::fs::create_dir_all(data.join("write-journal.jsonl")).unwrap();
    let id = first_appointment(&env);
    let people = env.dir.path().join("people.csv");
    let rows: String = (0..40)
        .map(|i| format!("Nj{i},nj{i}@example.com\n"))
        .collect();
    std::fs::write(&people, format!("first_name,email\n{rows}")).unwrap();
    let plan = env.dir.path().join("plan.csv");
    std::fs::write(&plan, format!("id,start\n{id},2027-01-05 10:00\n")).unwrap();
    for args in [
        vec!["contacts", "create", "--email", "nj@example.com"],
        vec!["appointments", "reschedule", &id, "--start", "+1d", "--yes"],
        vec!["api", "POST", "contacts", "-f", "email=nj@example.com"],
        // A bulk run stops at its first row: every other row would fail the same way.
        vec!["contacts", "import", people.to_str().unwrap(), "--yes"],
        vec![
            "appointments",
            "reschedule",
            "--plan",
            plan.to_str().unwrap(),
            "--yes",
        ],
    ] {
        let out = run(env.cmd(&args)).code(11);
        let line = out.error_line();
        assert!(
            line.contains("write journal") && line.contains("not sent"),
            "{args:?}: {line}"
        );
    }
    assert_eq!(writes(&env), 0, "{:?}", env.sb.requests());
}

/// The journal knows before the wire: a write killed while its request is out shows in
/// `crmdash log` as in doubt, with its idempotency key, and the first write in a fresh data
/// dir is one entry.
#[test]
fn a_write_killed_in_flight_is_in_doubt_in_the_log() {
    let env = Env::new();
    env.fault(cli_support::fault(crmdash::sandbox::FaultKind::Hang).always());
    let mut child = env.bare_std();
    child
        .env("CRMDASH_TOKEN", env.sb.token())
        .args(["--base-url", &env.sb.base_url()])
        .args(["contacts", "create", "--email", "doubt@example.com"])
        .args(["--allow-duplicate", "--idempotency-key", "doubt-1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = child.spawn().unwrap();
    let t0 = std::time::Instant::now();
    while env.requests_to("POST", "contacts").is_empty() {
        assert!(t0.elapsed() < std::time::Duration::from_secs(30), "no POST");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no chance to write anything more
    child.wait().unwrap();
    env.sb.faults().clear();
    let all = journal(&env, &[]);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["answer"]["pending"], true, "{}", all[0]);
    assert_eq!(all[0]["key"], "doubt-1");
    let table = run(cmd(&env, &["log", "--format", "table"])).code(0);
    assert!(table.stdout.contains("in doubt"), "{}", table.stdout);
}

/// The first write in a fresh data directory is one entry (the earlier logs are merged in by
/// its intent, before the create's own key is remembered), answered, not in doubt.
#[test]
fn the_first_create_in_a_fresh_data_dir_is_one_entry() {
    let env = Env::new();
    run(env.cmd(&["contacts", "create", "--email", "first@example.com"])).code(0);
    let all = journal(&env, &[]);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["kind"], "create");
    assert_eq!(all[0]["answer"]["ok"], true);
    assert!(all[0]["id"].is_string(), "{}", all[0]);
    let lines =
        std::fs::read_to_string(env.dir.path().join("xdg-data/crmdash/write-journal.jsonl"))
            .unwrap();
    assert_eq!(lines.lines().count(), 2, "intent and answer: {lines}");
}

/// Plain HTTP (loopback only) never goes through a proxy, whatever the environment says: a
/// proxy would read the request whole, the token with it.
#[test]
fn plain_http_to_loopback_never_goes_through_a_proxy() {
    let env = Env::new();
    let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    proxy.set_nonblocking(true).unwrap();
    let url = format!("http://{}", proxy.local_addr().unwrap());
    for var in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
        run(env
            .cmd(&["deals", "list", "--format", "json"])
            .env(var, &url))
        .code(0);
    }
    assert!(
        matches!(proxy.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the proxy was connected to"
    );
    assert_eq!(env.requests_to("GET", "deals").len(), 4);
}
