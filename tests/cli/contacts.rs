//! `crmdash contacts create` and `contacts import` against the sandbox: the duplicate check,
//! idempotency keys, validation before sending, and re-runs that never duplicate.

use crate::cli_support;

use cli_support::{Env, run};

#[test]
fn create_prints_the_returned_record_and_sends_an_idempotency_key() {
    let env = Env::new();
    let out = run(env.cmd(&[
        "contacts",
        "create",
        "--first-name",
        "Ada",
        "--last-name",
        "Lovelace",
        "--email",
        "ada.cli@example.com",
        "--phone",
        "+44 20 7946 0000",
        "--set",
        "tags=[\"vip\"]",
        "--set",
        "source=cli-test",
    ]))
    .code(0);
    let v = out.json();
    let id = v["id"].as_str().expect("the data object with an id");
    assert_eq!(v["email"], "ada.cli@example.com");
    let stored = env.sb.contact(id).expect("stored");
    assert_eq!(stored["tags"], serde_json::json!(["vip"]));
    assert_eq!(stored["source"], "cli-test");
    let post = &env.requests_to("POST", "contacts")[0];
    let key = post.idempotency_key.clone().expect("an Idempotency-Key");
    assert!(uuid::Uuid::parse_str(&key).is_ok(), "a fresh UUID: {key}");
    // The duplicate lookup came first.
    let gets = env.requests_to("GET", "contacts");
    assert_eq!(gets.len(), 1);
    assert!(
        gets[0]
            .query
            .clone()
            .unwrap()
            .contains("email=ada.cli%40example.com")
    );
}

#[test]
fn an_existing_email_refuses_with_exit_5_naming_the_contact() {
    let env = Env::new();
    let first = run(env.cmd(&[
        "contacts",
        "create",
        "--email",
        "dup@example.com",
        "--first-name",
        "A",
    ]))
    .code(0);
    let id = first.json()["id"].as_str().unwrap().to_string();
    let out = run(env.cmd(&[
        "contacts",
        "create",
        "--email",
        "DUP@example.com",
        "--first-name",
        "B",
    ]))
    .code(5);
    assert!(out.error_line().contains(&id), "{}", out.stderr);
    assert_eq!(env.sb.contacts_with_email("dup@example.com"), 1);
    run(env.cmd(&[
        "contacts",
        "create",
        "--email",
        "dup@example.com",
        "--first-name",
        "B",
        "--allow-duplicate",
    ]))
    .code(0);
    assert_eq!(env.sb.contacts_with_email("dup@example.com"), 2);
}

#[test]
fn the_same_idempotency_key_never_creates_twice() {
    let env = Env::new();
    let args = [
        "contacts",
        "create",
        "--email",
        "key@example.com",
        "--idempotency-key",
        "ext-42",
        "--allow-duplicate",
    ];
    let a = run(env.cmd(&args)).code(0).json();
    let b = run(env.cmd(&args)).code(0).json();
    assert_eq!(a["id"], b["id"], "the replay returns the same contact");
    assert_eq!(env.sb.contacts_with_email("key@example.com"), 1);
    for r in env.requests_to("POST", "contacts") {
        assert_eq!(r.idempotency_key.as_deref(), Some("ext-42"));
    }
}

#[test]
fn bad_input_exits_5_with_one_line_per_field_and_sends_nothing() {
    let env = Env::new();
    let out = run(env.cmd(&["contacts", "create", "--phone", "+1 555 0100"])).code(5);
    assert!(
        out.error_line().contains("nothing to create"),
        "{}",
        out.stderr
    );
    let out = run(env.cmd(&[
        "contacts",
        "create",
        "--first-name",
        "X",
        "--email",
        "nope@",
        "--phone",
        "555 0100",
    ]))
    .code(5);
    out.error_line();
    assert!(
        out.stderr.lines().any(|l| l.starts_with("  email: ")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.lines().any(|l| l.starts_with("  phone: ")),
        "{}",
        out.stderr
    );
    assert!(env.sb.requests().is_empty());
}

#[test]
fn a_rejection_by_the_server_exits_5_with_its_field_errors() {
    let env = Env::with(crmdash::sandbox::SandboxConfig {
        unique_emails: true,
        ..Default::default()
    });
    let taken = env.sb.contact(&env.sb.ids("contacts")[0]).unwrap()["email"]
        .as_str()
        .expect("seed contact has an email")
        .to_string();
    let out = run(env.cmd(&[
        "contacts",
        "create",
        "--first-name",
        "Again",
        "--email",
        &taken,
        "--allow-duplicate",
    ]))
    .code(5);
    assert!(out.error_line().contains("422"), "{}", out.stderr);
    assert!(
        out.stderr.lines().any(|l| l.starts_with("  email: ")),
        "{}",
        out.stderr
    );
}

const PEOPLE: &str = "\
external_id,first_name,last_name,email,phone,source
a1,Ada,Lovelace,ada.import@example.com,+44 20 7946 0000,fair
a2,Grace,Hopper,grace.import@example.com,,fair
a3,Alan,Turing,,+44 161 496 0000,web
";

#[test]
fn import_dry_run_then_real_then_rerun_never_duplicates() {
    let env = Env::new();
    let file = env.dir.path().join("people.csv");
    std::fs::write(&file, PEOPLE).unwrap();
    let file = file.to_str().unwrap();
    let before = env.sb.contact_count();

    let dry = run(env.cmd(&["contacts", "import", file, "--dry-run"])).code(0);
    assert!(
        dry.stdout.contains("3 rows: 3 would be created"),
        "{}",
        dry.stdout
    );
    assert!(
        env.requests_to("POST", "contacts").is_empty(),
        "a dry run only looks up"
    );

    let real = run(env.cmd(&["contacts", "import", file, "--key-column", "external_id"])).code(0);
    assert!(real.stdout.contains("3 rows: 3 created"), "{}", real.stdout);
    assert_eq!(env.sb.contact_count(), before + 3);
    let grace = env.sb.ids("contacts").into_iter().rev().find_map(|id| {
        let c = env.sb.contact(&id)?;
        (c["email"] == "grace.import@example.com").then_some(c)
    });
    assert_eq!(grace.expect("grace stored")["source"], "fair");

    let again = run(env.cmd(&["contacts", "import", file, "--key-column", "external_id"])).code(0);
    assert_eq!(
        env.sb.contact_count(),
        before + 3,
        "a re-run creates nothing"
    );
    // Rows with an email are found by the lookup; Alan (no email) is replayed by his key.
    assert!(
        again.stdout.contains(
            "3 rows: 0 created, 1 already imported by an earlier run, 2 skipped (2 already on the service), 0 failed"
        ),
        "{}",
        again.stdout
    );

    // Even without the duplicate lookup the keys stop duplicates.
    let forced = run(env.cmd(&[
        "contacts",
        "import",
        file,
        "--key-column",
        "external_id",
        "--allow-duplicate",
    ]))
    .code(0);
    assert!(
        forced
            .stdout
            .contains("3 already imported by an earlier run"),
        "{}",
        forced.stdout
    );
    assert_eq!(env.sb.contact_count(), before + 3);
}

#[test]
fn import_without_a_key_column_derives_stable_keys_from_the_rows() {
    let env = Env::new();
    let file = env.dir.path().join("people.csv");
    std::fs::write(&file, PEOPLE).unwrap();
    let file = file.to_str().unwrap();
    let before = env.sb.contact_count();
    run(env.cmd(&[
        "contacts",
        "import",
        file,
        "--allow-duplicate",
        "--only-known",
    ]))
    .code(0);
    run(env.cmd(&[
        "contacts",
        "import",
        file,
        "--allow-duplicate",
        "--only-known",
    ]))
    .code(0);
    assert_eq!(env.sb.contact_count(), before + 3);
    let keys: Vec<_> = env
        .requests_to("POST", "contacts")
        .into_iter()
        .map(|r| (r.idempotency_key.unwrap(), r.body.unwrap()))
        .collect();
    assert_eq!(keys.len(), 6);
    // Rows go out concurrently: compare each run's (key, body) pairs as sets.
    let (mut first, mut second) = (keys[..3].to_vec(), keys[3..].to_vec());
    first.sort();
    second.sort();
    assert_eq!(first, second);
    assert!(
        !keys[0].1.contains("source"),
        "--only-known drops other columns"
    );
}

#[test]
fn import_reports_every_bad_row_with_its_line_and_sends_nothing() {
    let env = Env::new();
    let file = env.dir.path().join("bad.csv");
    std::fs::write(
        &file,
        "first_name,email,phone\nAda,ada@example.com,+1 555 0100\nBob,bob@,\nCy,cy@example.com,5550100\n",
    )
    .unwrap();
    let out = run(env.cmd(&["contacts", "import", file.to_str().unwrap()])).code(5);
    out.error_line();
    assert!(out.stderr.contains("line 3: email: "), "{}", out.stderr);
    assert!(out.stderr.contains("line 4: phone: "), "{}", out.stderr);
    assert!(!out.stderr.contains("line 2"), "{}", out.stderr);
    assert!(env.sb.requests().is_empty());
}

#[test]
fn import_skips_a_taken_email_and_counts_failed_rows() {
    let env = Env::with(crmdash::sandbox::SandboxConfig {
        unique_emails: true,
        ..Default::default()
    });
    let taken = env.sb.contact(&env.sb.ids("contacts")[0]).unwrap()["email"]
        .as_str()
        .expect("seed contact has an email")
        .to_string();
    let file = env.dir.path().join("p.csv");
    std::fs::write(
        &file,
        format!("first_name,email\nNew,new.one@example.com\nOld,{taken}\n"),
    )
    .unwrap();
    // The service refuses the taken email (422): a skip, not a failure.
    let out = run(env.cmd(&[
        "contacts",
        "import",
        file.to_str().unwrap(),
        "--allow-duplicate",
    ]))
    .code(0);
    assert!(
        out.stdout
            .contains("2 rows: 1 created, 1 skipped (1 already on the service), 0 failed"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("line 3: skipped"), "{}", out.stdout);
    // A server error fails its row (counted, exit 6); the re-run finishes it.
    env.fault(
        cli_support::fault(crmdash::sandbox::FaultKind::ServerError { status: 500 })
            .on("POST", "/contacts")
            .times(1),
    );
    let file2 = env.dir.path().join("q.csv");
    std::fs::write(
        &file2,
        "first_name,email
New,new.two@example.com
",
    )
    .unwrap();
    let out = run(env.cmd(&["contacts", "import", file2.to_str().unwrap()])).code(6);
    assert!(
        out.stdout.contains("1 row: 0 created, 0 skipped, 1 failed"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("line 2: failed: "), "{}", out.stdout);
    out.error_line();
    run(env.cmd(&["contacts", "import", file2.to_str().unwrap()])).code(0);
    assert_eq!(env.sb.contacts_with_email("new.two@example.com"), 1);
}

#[test]
fn a_lost_answer_is_retried_with_the_same_key_and_never_duplicates() {
    let env = Env::new();
    env.fault(
        cli_support::fault(crmdash::sandbox::FaultKind::DropAfterCommit).on("POST", "/contacts"),
    );
    let out = run(env.cmd(&["contacts", "create", "--email", "lost@example.com"])).code(0);
    assert_eq!(env.sb.contacts_with_email("lost@example.com"), 1);
    let posts = env.requests_to("POST", "contacts");
    assert_eq!(posts.len(), 2, "the first try and one retry");
    assert_eq!(posts[0].idempotency_key, posts[1].idempotency_key);
    assert!(out.stderr.contains("replayed"), "{}", out.stderr);
}
