//! Scripting you can trust (issue 19), through the real binary against the sandbox: stable CSV
//! columns, streamed `--all` output, quiet pipes, idempotent retries of a create, waits for a
//! key in flight, one reschedule log, the End grammar, exit codes, help and warnings.

use crate::cli_support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use cli_support::{Env, fault, run};
use crmdash::sandbox::{FaultKind, SandboxConfig};

const DEAL_COLUMNS: &str = "id,created_at,updated_at,name,status,value,currency,account,contacts,assigned_user,assigned_users";
const CONTACT_COLUMNS: &str = "id,created_at,updated_at,first_name,last_name,email,phone,accounts,assigned_user,assigned_users";

/// `env.cmd(args)` as a `std::process::Command`, to run it in the background.
fn std_cmd(env: &Env, args: &[&str]) -> std::process::Command {
    let mut c = env.bare_std();
    c.env("CRMDASH_TOKEN", env.sb.token())
        .arg("--base-url")
        .arg(env.sb.base_url())
        .args(args);
    c
}

fn header(csv: &str) -> &str {
    csv.split("\r\n").next().unwrap_or_default()
}

#[test]
fn csv_has_the_same_header_on_every_page_and_when_empty() {
    let env = Env::new();
    for page in ["1", "2", "3", "40"] {
        let out = run(env.cmd(&[
            "deals",
            "list",
            "--per-page",
            "3",
            "--page",
            page,
            "--format",
            "csv",
        ]))
        .code(0);
        assert_eq!(header(&out.stdout), DEAL_COLUMNS, "page {page}");
        assert!(
            out.stdout.ends_with("\r\n"),
            "page {page}: {:?}",
            out.stdout
        );
    }
    // Nothing matches: the same header, a complete line.
    let out = run(env.cmd(&[
        "deals",
        "list",
        "--name",
        "no deal is called this",
        "--format",
        "csv",
    ]))
    .code(0);
    assert_eq!(out.stdout, format!("{DEAL_COLUMNS}\r\n"));
    let out = run(env.cmd(&[
        "contacts",
        "list",
        "--email",
        "nobody@nowhere.example",
        "--format",
        "csv",
    ]))
    .code(0);
    assert_eq!(out.stdout, format!("{CONTACT_COLUMNS}\r\n"));
    // Every row has as many cells as the header, whatever the record holds.
    let out = run(env.cmd(&[
        "deals",
        "list",
        "--all",
        "--include",
        "account,contacts",
        "--format",
        "csv",
    ]))
    .code(0);
    let mut reader = csv::Reader::from_reader(out.stdout.as_bytes());
    assert_eq!(
        reader
            .headers()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
            .join(","),
        DEAL_COLUMNS
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 500);
    assert!(rows.iter().any(|r| !r[6].is_empty()), "account summaries");
}

#[test]
fn columns_select_order_and_add_fields() {
    let env = Env::new();
    let out = run(env.cmd(&[
        "contacts",
        "list",
        "--per-page",
        "5",
        "--format",
        "csv",
        "--columns",
        "email,id,tags",
    ]))
    .code(0);
    let raw: serde_json::Value = serde_json::from_str(&env.raw_get("contacts?per_page=5")).unwrap();
    let mut reader = csv::Reader::from_reader(out.stdout.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        ["email", "id", "tags"]
    );
    for (row, rec) in reader.records().zip(raw["data"].as_array().unwrap()) {
        let row = row.unwrap();
        assert_eq!(&row[0], rec["email"].as_str().unwrap_or_default());
        assert_eq!(&row[1], rec["id"].as_str().unwrap());
        let tags = rec.get("tags").filter(|t| !t.is_null());
        assert_eq!(
            &row[2],
            tags.map(|t| t.to_string()).unwrap_or_default().as_str()
        );
    }
    // Tables take the same choice; empty results still print the header.
    let out = run(env.cmd(&[
        "deals",
        "list",
        "--name",
        "none such",
        "--format",
        "table",
        "--columns",
        "name,value",
    ]))
    .code(0);
    assert_eq!(out.stdout, "NAME  VALUE\n");
    let out = run(env.cmd(&["deals", "list", "--name", "none such", "--format", "table"])).code(0);
    assert_eq!(out.stdout.lines().count(), 1);
    assert!(out.stdout.starts_with("ID"), "{}", out.stdout);
    // JSON prints whole records: --columns there is a usage error, before any request.
    let before = env.requests_to("GET", "deals").len();
    let out = run(env.cmd(&["deals", "list", "--format", "json", "--columns", "id"])).code(2);
    out.error_line();
    assert_eq!(env.requests_to("GET", "deals").len(), before);
    run(env.cmd(&["deals", "list", "--format", "csv", "--columns", "id,id"])).code(5);
}

#[test]
fn all_streams_json_jsonl_csv_and_table_with_the_same_records() {
    let env = Env::with(SandboxConfig {
        contacts: 1234,
        ..SandboxConfig::default()
    });
    let json = run(env.cmd(&["contacts", "list", "--all", "--format", "json"])).code(0);
    let array = json.json();
    let array = array.as_array().unwrap();
    assert_eq!(array.len(), 1234);
    let jsonl = run(env.cmd(&["contacts", "list", "--all", "--format", "jsonl"])).code(0);
    let lines: Vec<serde_json::Value> = jsonl
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&lines, array);
    let csv = run(env.cmd(&["contacts", "list", "--all", "--format", "csv"])).code(0);
    assert_eq!(csv.stdout.matches(CONTACT_COLUMNS).count(), 1);
    let mut reader = csv::Reader::from_reader(csv.stdout.as_bytes());
    assert_eq!(reader.records().count(), 1234);
    let table = run(env.cmd(&["contacts", "list", "--all", "--format", "table"])).code(0);
    assert_eq!(table.stdout.lines().count(), 1 + 1234);
    assert_eq!(table.stdout.matches("EMAIL").count(), 1);
    // Empty: a valid empty array, and no line at all for JSON Lines.
    let out = run(env.cmd(&[
        "contacts",
        "list",
        "--all",
        "--email",
        "no@no.example",
        "--format",
        "json",
    ]))
    .code(0);
    assert_eq!(out.stdout, "[]\n");
    let out = run(env.cmd(&[
        "contacts",
        "list",
        "--all",
        "--email",
        "no@no.example",
        "--format",
        "jsonl",
    ]))
    .code(0);
    assert_eq!(out.stdout, "");
}

#[test]
fn a_closed_pipe_ends_quietly_and_stops_fetching() {
    let env = Env::with(SandboxConfig {
        contacts: 5000,
        ..SandboxConfig::default()
    });
    for format in ["csv", "json", "jsonl", "table"] {
        env.sb.clear_requests();
        let mut child = std_cmd(&env, &["contacts", "list", "--all", "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // `| head -1`: read one line, then close the pipe.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty(), "{format}: a first line came");
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{format}");
        // 50 pages in all; only what fits in the pipe's buffer was fetched.
        let pages = env.requests_to("GET", "contacts").len();
        assert!(
            pages < 20,
            "{format}: {pages} pages fetched after the reader left"
        );
    }
}

#[test]
fn running_a_create_again_with_its_key_replays_it() {
    let env = Env::new();
    let args = [
        "contacts",
        "create",
        "--first-name",
        "Ada",
        "--email",
        "retry@example.com",
        "--idempotency-key",
        "k1",
        "--format",
        "json",
    ];
    let a = run(env.cmd(&args)).code(0).json();
    let b = run(env.cmd(&args)).code(0);
    assert_eq!(a["id"], b.json()["id"]);
    assert!(b.stderr.contains("replayed"), "{}", b.stderr);
    assert_eq!(env.sb.contacts_with_email("retry@example.com"), 1);
    // A new key for the same email is still refused as a duplicate, naming the contact.
    let c = run(env.cmd(&[
        "contacts",
        "create",
        "--email",
        "retry@example.com",
        "--idempotency-key",
        "k2",
    ]))
    .code(5);
    assert!(
        c.error_line().contains(a["id"].as_str().expect("an id")),
        "{}",
        c.stderr
    );
    let journal = std::fs::read_to_string(
        env.dir
            .path()
            .join("xdg-data/crmdash/idempotency-journal.jsonl"),
    )
    .unwrap();
    assert!(journal.contains("\"key\":\"k1\""), "{journal}");
    assert!(!journal.contains(&env.sb.token()));
}

#[test]
fn a_rerun_after_a_lost_answer_finishes_the_create_without_a_duplicate() {
    let env = Env::new();
    // A first run that crashed after sending: its key is in crmdash's journal (written before
    // sending), the service created the contact, the answer never came back.
    let journal = crmdash::idempotency_journal::Journal::at(
        env.dir
            .path()
            .join("xdg-data/crmdash")
            .join(crmdash::idempotency_journal::FILE_NAME),
    );
    let scope =
        crmdash::idempotency_journal::scope_of(&url::Url::parse(&env.sb.base_url()).unwrap());
    let key = crmdash::api::IdempotencyKey::from_stable("ext-7").unwrap();
    journal.sent(&scope, &key).unwrap();
    let url = format!("{}/public/v1/contacts", env.sb.base_url());
    let token = env.sb.token();
    let first_id = env.rt.block_on(async move {
        let v: serde_json::Value = reqwest::Client::new()
            .post(url)
            .bearer_auth(token)
            .header("Idempotency-Key", "ext-7")
            .json(&serde_json::json!({"email": "lost@example.com"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["data"]["id"].as_str().unwrap().to_string()
    });
    let args = [
        "contacts",
        "create",
        "--email",
        "lost@example.com",
        "--idempotency-key",
        "ext-7",
        "--format",
        "json",
    ];
    // The email check would find the first run's contact; the known key replays instead.
    let rerun = run(env.cmd(&args)).code(0);
    assert_eq!(rerun.json()["id"], first_id.as_str());
    assert!(rerun.stderr.contains("replayed"), "{}", rerun.stderr);
    assert_eq!(env.sb.contacts_with_email("lost@example.com"), 1);
    // The journal now holds the id.
    let entry = journal.lookup(&scope, &key).unwrap().unwrap();
    assert_eq!(entry.id.as_deref(), Some(first_id.as_str()));
}

#[test]
fn a_key_still_in_flight_is_waited_for_not_failed() {
    let env = Env::new();
    // The first request holds its key for 3 s.
    env.fault(
        fault(FaultKind::Latency { ms: 3000 })
            .on("POST", "/contacts")
            .times(1),
    );
    let args = [
        "contacts",
        "create",
        "--email",
        "twice-at-once@example.com",
        "--idempotency-key",
        "same-key",
        "--format",
        "json",
    ];
    let a = std_cmd(&env, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The second starts once the first one's request is in.
    // Polled, at most 3,000 times (no timed assertion: the machine may be slow).
    for _ in 0..3_000 {
        if !env.requests_to("POST", "contacts").is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        !env.requests_to("POST", "contacts").is_empty(),
        "the first create's request arrived"
    );
    let b = run(env.cmd(&args)).code(0);
    let a = a.wait_with_output().unwrap();
    assert_eq!(
        a.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    let a: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(a["id"], b.json()["id"]);
    assert_eq!(env.sb.contacts_with_email("twice-at-once@example.com"), 1);
    assert!(
        env.requests_to("POST", "contacts").len() >= 3,
        "the second run was told to wait at least once"
    );
}

/// The appointment ids the sandbox holds.
fn an_appointment(env: &Env) -> String {
    env.sb
        .ids("appointments")
        .into_iter()
        .next()
        .expect("an appointment")
}

#[test]
fn end_takes_a_length_as_in_the_dialog() {
    let env = Env::new();
    let id = an_appointment(&env);
    for (end, minutes) in [("30m", 30), ("1h", 60), ("+1h", 60), ("1h30m", 90)] {
        env.sb.clear_requests();
        run(env.cmd(&[
            "appointments",
            "reschedule",
            &id,
            "--start",
            "2026-12-01T09:00:00Z",
            "--end",
            end,
            "--yes",
        ]))
        .code(0);
        let post = &env.requests_to("POST", "appointments")[0];
        let body: serde_json::Value = serde_json::from_str(post.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["start_time"], "2026-12-01T09:00:00Z", "{end}");
        let want = chrono::DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z").unwrap()
            + chrono::TimeDelta::minutes(minutes);
        let got = chrono::DateTime::parse_from_rfc3339(body["end_time"].as_str().unwrap()).unwrap();
        assert_eq!(got, want, "--end {end}");
    }
    // A time still works; nonsense names the option and sends nothing.
    run(env.cmd(&[
        "appointments",
        "reschedule",
        &id,
        "--start",
        "2026-12-01T09:00:00Z",
        "--end",
        "2026-12-01T11:00:00Z",
        "--yes",
    ]))
    .code(0);
    env.sb.clear_requests();
    let out = run(env.cmd(&[
        "appointments",
        "reschedule",
        &id,
        "--start",
        "2026-12-01T09:00:00Z",
        "--end",
        "soonish",
        "--yes",
    ]))
    .code(5);
    assert!(
        out.error_line().starts_with("error: --end:"),
        "{}",
        out.stderr
    );
    assert!(env.requests_to("POST", "appointments").is_empty());
}

#[test]
fn one_reschedule_log_written_and_shown_by_the_cli_with_old_logs_migrated() {
    let env = Env::new();
    let id = an_appointment(&env);
    let data = env.dir.path().join("xdg-data/crmdash");
    std::fs::create_dir_all(&data).unwrap();
    // The two files earlier versions wrote (the CLI's, then the dashboard's).
    std::fs::write(
        data.join("reschedule-log.jsonl"),
        "{\"id\":\"from-cli\",\"profile\":\"p\",\"host\":\"h\",\"body\":{\"a\":1},\"at\":\"2026-01-01T00:00:00Z\"}\n",
    )
    .unwrap();
    std::fs::write(
        data.join("reschedules.jsonl"),
        "{\"id\":\"from-dashboard\",\"profile\":\"p\",\"host\":\"h\",\"body\":{\"a\":2},\"at\":\"2026-02-01T00:00:00Z\"}\n",
    )
    .unwrap();
    run(env.cmd(&[
        "appointments",
        "reschedule",
        &id,
        "--start",
        "2026-12-01T09:00:00Z",
        "--end",
        "30m",
        "--yes",
    ]))
    .code(0);
    let log = run(env.cmd(&["appointments", "log", "--format", "json"]))
        .code(0)
        .json();
    let ids: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["from-cli", "from-dashboard", id.as_str()]);
    assert_eq!(log[2]["body"]["end_time"], "2026-12-01T09:30:00Z");
    // Read once: the old files are set aside, nothing is shown twice.
    assert!(!data.join("reschedules.jsonl").exists());
    assert!(data.join("reschedules.jsonl.migrated").exists());
    let again = run(env.cmd(&["appointments", "log", "--format", "jsonl"])).code(0);
    assert_eq!(again.stdout.lines().count(), 3);
    let csv = run(env.cmd(&["appointments", "log", "--format", "csv", "--last", "1"])).code(0);
    assert!(
        csv.stdout
            .starts_with("at,id,profile,host,updated_at,body\r\n"),
        "{}",
        csv.stdout
    );
    assert_eq!(csv.stdout.lines().count(), 2);
    // The dashboard reads and writes this same file.
    assert_eq!(
        crmdash::reschedule::log::FILE_NAME,
        "reschedule-history.jsonl"
    );
    assert!(data.join(crmdash::reschedule::log::FILE_NAME).exists());
}

#[test]
fn concurrent_reschedules_each_leave_one_whole_line() {
    let env = Env::new();
    let id = an_appointment(&env);
    let children: Vec<_> = (0..6)
        .map(|i| {
            std_cmd(
                &env,
                &[
                    "appointments",
                    "reschedule",
                    &id,
                    "--start",
                    &format!("2026-12-0{}T09:00:00Z", i + 1),
                    "--yes",
                ],
            )
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let log = run(env.cmd(&["appointments", "log", "--format", "json"]))
        .code(0)
        .json();
    assert_eq!(log.as_array().unwrap().len(), 6);
}

#[test]
fn a_missing_base_url_is_a_configuration_error_exit_1() {
    let env = Env::new();
    let mut cmd = env.bare();
    cmd.env("CRMDASH_TOKEN", env.sb.token())
        .args(["deals", "list"]);
    let out = run(cmd).code(1);
    assert!(out.error_line().contains("no base URL"), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "one problem, one message");
}

#[test]
fn create_help_describes_every_option_and_one_problem_is_one_message() {
    let env = Env::new();
    let help = run(env.cmd(&["contacts", "create", "--help"]))
        .code(0)
        .stdout;
    for flag in [
        "--first-name",
        "--last-name",
        "--email",
        "--phone",
        "--idempotency-key",
    ] {
        let line = help
            .lines()
            .position(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} in\n{help}"));
        let text = help.lines().nth(line + 1).unwrap_or_default().trim();
        assert!(!text.is_empty(), "{flag} has help text:\n{help}");
    }
    let out = run(env.cmd(&["contacts", "create", "--phone", "+1 555 0100"])).code(5);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    let out = run(env.cmd(&["contacts", "create", "--email", "nope@"])).code(5);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.error_line().starts_with("error: --email:"),
        "{}",
        out.stderr
    );
}

#[test]
fn unknown_key_actions_warn_and_many_unknown_keys_are_counted() {
    let env = Env::new();
    let mut text = String::from("[keys]\nfilter = [\"ctrl-f\"]\nfly_away = [\"x\"]\n[ui]\n");
    for i in 0..5000 {
        text.push_str(&format!("k{i} = 1\n"));
    }
    env.write_config(&text);
    let out = run(env.cmd(&["deals", "list", "--per-page", "1"])).code(0);
    let warnings: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert!(
        warnings.iter().any(|w| w.contains("'keys.fly_away'")),
        "{}",
        out.stderr
    );
    assert_eq!(warnings.len(), 21, "{}", out.stderr);
    assert!(
        warnings[20].contains("4981 more unknown keys"),
        "{}",
        warnings[20]
    );
}
