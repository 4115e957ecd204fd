//! `:import PATH` against the embedded sandbox (real HTTP): the preview (the CLI's dry run)
//! names a bad row and nothing can run; a run is a job that creates each contact once (the
//! sandbox's request log), a re-run creates nobody twice, a stopped run re-run neither; the
//! profile's safety holds; `:jobs` opens the per-row report. The snapshots come from
//! `update()` driven with keys, the preview and the report answered as the runtime answers.

use crate::dashboard_support::{self, Harness};

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crmdash::api::Client;
use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::import::{ImportMode, ImportView};
use crmdash::app::effects::Effect;
use crmdash::app::import::{ImportPreview, ImportReport, ImportRowReport, ImportWords, PreviewRow};
use crmdash::app::jobs::{JobEvent, JobKind, JobOutput, JobSpec, JobState};
use crmdash::app::{Message, SafetyConfig};
use crmdash::cli::import::{Counts, DupesPolicy, ExistingBy, Outcome};
use crmdash::runtime::{Engine, build_engine};
use crmdash::safety::ProfileSafety;
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use secrecy::SecretString;

const QUIET: Duration = Duration::from_millis(400);

async fn start(latency: Option<Duration>) -> (SandboxHandle, Engine, tempfile::TempDir) {
    let sb = Sandbox::start(SandboxConfig {
        latency,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).unwrap();
    let opts = dashboard_support::sandbox_options(&sb, client, None);
    let dir = tempfile::tempdir().unwrap();
    let mut e = build_engine(&opts, (160, 45));
    e.app.set_safety(SafetyConfig {
        journal: Some(dir.path().join("writes.jsonl")),
        ..SafetyConfig::default()
    });
    e.start();
    e.settle(QUIET).await;
    (sb, e, dir)
}

fn press(e: &mut Engine, code: KeyCode) {
    e.handle(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn command(e: &mut Engine, line: &str) {
    press(e, KeyCode::Char(':'));
    for c in line.chars() {
        press(e, KeyCode::Char(c));
    }
    press(e, KeyCode::Enter);
}

fn import_view(e: &Engine) -> &ImportView {
    match e.app.overlays.last() {
        Some(Overlay::Import(v)) => v,
        other => panic!(
            "the import dialog is on top, not {:?} (status: {:?})",
            other.map(std::mem::discriminant),
            e.app.status.error
        ),
    }
}

/// The creates that reached the sandbox: (email, Idempotency-Key), one per request.
fn creates(sb: &SandboxHandle) -> Vec<(String, String)> {
    sb.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.trim_end_matches('/').ends_with("/contacts"))
        .map(|r| {
            let body: serde_json::Value =
                serde_json::from_str(r.body.as_deref().unwrap_or("{}")).unwrap();
            (
                body["email"].as_str().unwrap_or_default().to_string(),
                r.idempotency_key.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// `n` new people, `first_name,last_name,email,phone`, one per line after the header.
fn people(n: usize, tag: &str) -> (String, Vec<String>) {
    const NAMES: [(&str, &str); 8] = [
        ("Ada", "Quimby"),
        ("Bjorn", "Vasquez"),
        ("Chidi", "Okafor"),
        ("Dolores", "Haze"),
        ("Emeka", "Lindqvist"),
        ("Farah", "Tanaka"),
        ("Gustav", "Mbeki"),
        ("Hiroko", "Delacroix"),
    ];
    let mut text = String::from("First Name,Surname,E-Mail,Mobile\n");
    let mut emails = Vec::new();
    for i in 0..n {
        let email = format!("import-{tag}-{i}@example.org");
        let (first, last) = NAMES[i % NAMES.len()];
        text.push_str(&format!(
            "{first},{last}{},{email},+44 20 7946 {:04}\n",
            if i < NAMES.len() {
                String::new()
            } else {
                format!("-{i}")
            },
            1000 + i * 37
        ));
        emails.push(email);
    }
    (text, emails)
}

#[tokio::test]
async fn a_file_with_a_bad_row_shows_it_and_sends_nothing() {
    let (sb, mut e, dir) = start(None).await;
    let path = write(
        dir.path(),
        "bad.csv",
        "first_name,last_name,email\nAda,Lovelace,ada@example.org\nBob,Smith,not-an-email\nCy,Young,cy@example.org\n",
    );
    sb.clear_requests();
    command(&mut e, &format!("import {path}"));
    e.settle(QUIET).await;
    let v = import_view(&e);
    assert_eq!(v.bad.len(), 1, "{:?}", v.bad);
    // The words the snapshots of a bad file draw (`BAD_EMAIL`) are the real check's.
    assert_eq!(v.bad[0], BAD_EMAIL, "{:?}", v.bad);
    let why = v.why.clone().unwrap();
    // The title names the file; the sentence says what is wrong with it.
    assert!(why.starts_with("1 bad row"), "{why}");
    assert!(v.title.ends_with("bad.csv"), "{}", v.title);
    assert!(why.contains("nothing can run"), "{why}");
    assert!(!v.can_run());
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(creates(&sb).is_empty(), "nothing sent: {:?}", creates(&sb));
    // Not even a look-up: the file is refused before the service is asked anything.
    assert!(
        !sb.requests().iter().any(|r| r.path.contains("/contacts")),
        "{:?}",
        sb.requests()
    );
    assert!(
        !e.app
            .jobs
            .list
            .iter()
            .any(|j| j.title.starts_with(&path) && j.kind == JobKind::Import),
        "no run started"
    );
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Import(_))));
}

#[tokio::test]
async fn a_good_file_creates_each_contact_once_and_a_rerun_creates_nobody() {
    let (sb, mut e, dir) = start(None).await;
    let (mut text, emails) = people(5, "good");
    // A contact the service has, and a row repeating an earlier row's email.
    let (existing_id, existing) = sb
        .ids("contacts")
        .into_iter()
        .find_map(|id| {
            let email = sb.contact(&id)?["email"].as_str()?.to_string();
            Some((id, email))
        })
        .unwrap();
    text.push_str(&format!("Old,Timer,{existing},\n"));
    text.push_str(&format!("Again,Twice,{},\n", emails[1].to_uppercase()));
    let path = write(dir.path(), "people.csv", &text);
    command(&mut e, &format!("import {path}"));
    e.settle(QUIET).await;
    assert!(creates(&sb).is_empty(), "the preview creates nothing");
    let v = import_view(&e);
    assert!(v.can_run(), "{:?} {:?}", v.why, v.bad);
    assert!(
        v.sentence.starts_with("7 rows: 5 to create, 2 to skip"),
        "{}",
        v.sentence
    );
    // The common names were mapped and said so.
    assert!(
        v.notes.iter().any(|n| n.contains("'Surname' → last_name")),
        "{:?}",
        v.notes
    );
    assert_eq!(v.rows[0][1], "create");
    assert_eq!(v.rows[0][2], emails[0]);
    assert_eq!(v.rows[0][3], "Ada Quimby");
    assert_eq!(v.rows[5][1], "skip: exists");
    assert!(v.rows[5][5].contains(&existing_id), "{:?}", v.rows[5]);
    assert_eq!(v.rows[6][1], "skip: in file");
    assert!(v.rows[6][5].contains("line 3"), "{:?}", v.rows[6]);

    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let sent = creates(&sb);
    let mut got: Vec<String> = sent.iter().map(|(m, _)| m.clone()).collect();
    got.sort();
    assert_eq!(got, emails, "each new contact once");
    let mut keys: Vec<&String> = sent.iter().map(|(_, k)| k).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 5, "a key per row");
    for m in &emails {
        assert_eq!(sb.contacts_with_email(m), 1, "{m}");
    }
    assert_eq!(sb.contacts_with_email(&existing), 1);
    let j = e.app.jobs.in_order()[0].clone();
    assert_eq!(j.kind, JobKind::Import);
    assert_eq!(
        j.state,
        JobState::Done(
            "7 rows: 5 created, 2 skipped (1 already on the service, 1 duplicate in the file), 0 failed"
                .into()
        )
    );
    // `:jobs`, Enter: the report, a row each.
    press(&mut e, KeyCode::Char('J'));
    press(&mut e, KeyCode::Enter);
    let v = import_view(&e);
    assert!(matches!(v.mode, ImportMode::Report { .. }));
    assert_eq!(v.rows.len(), 7);
    let outcomes: Vec<&str> = v.rows.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(
        outcomes,
        [
            "created",
            "created",
            "created",
            "created",
            "created",
            "exists",
            "duplicate"
        ]
    );
    assert!(v.rows[..5].iter().all(|r| !r[2].is_empty()), "ids named");
    press(&mut e, KeyCode::Esc);
    press(&mut e, KeyCode::Esc);
    // Each create went to the write journal, from the dashboard.
    let journal = std::fs::read_to_string(dir.path().join("writes.jsonl")).unwrap();
    let entries = crate::dashboard_support::journal_entries(&dir.path().join("writes.jsonl"));
    assert_eq!(entries.len(), 5, "{journal}");
    assert!(entries.iter().all(|e| e.answer.ok), "{journal}");
    assert!(journal.contains("\"dashboard\""), "{journal}");
    assert!(journal.contains("people.csv:2"), "{journal}");

    // The same file again: everyone is there; nothing can run.
    sb.clear_requests();
    command(&mut e, &format!("import {path}"));
    e.settle(QUIET).await;
    let v = import_view(&e);
    assert!(!v.can_run());
    assert!(
        v.why.as_deref().unwrap().starts_with("nothing to send"),
        "{:?}",
        v.why
    );
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(creates(&sb).is_empty());
}

#[tokio::test]
async fn a_stopped_import_sends_no_row_twice_and_a_rerun_finishes_it() {
    let (sb, mut e, dir) = start(Some(Duration::from_millis(120))).await;
    let (text, emails) = people(40, "stop");
    let path = write(dir.path(), "many.csv", &text);
    command(
        &mut e,
        &format!("import {path} jobs=4 dupes=create existing=search"),
    );
    e.settle(QUIET).await;
    assert!(import_view(&e).can_run());
    press(&mut e, KeyCode::Enter);
    // Stopped as soon as it starts: requests under way finish, no new one goes out.
    press(&mut e, KeyCode::Char('J'));
    assert!(
        crmdash::app::keymap::KeyMap::default()
            .hint_text(e.app.overlays.last().unwrap().dialog().hints(), 200)
            .contains("stop"),
        "x offered while it runs"
    );
    press(&mut e, KeyCode::Char('x'));
    e.settle(QUIET).await;
    let j = e.app.jobs.in_order()[0].clone();
    assert_eq!(j.kind, JobKind::Import);
    let JobState::Done(outcome) = &j.state else {
        panic!("{:?}", j.state)
    };
    assert!(outcome.contains("not sent; stopped"), "{outcome}");
    let first = creates(&sb);
    assert!(first.len() < emails.len(), "stopped early: {}", first.len());
    press(&mut e, KeyCode::Esc);
    command(
        &mut e,
        &format!("import {path} jobs=4 dupes=create existing=search"),
    );
    e.settle(QUIET).await;
    let v = import_view(&e);
    assert!(
        v.sentence.contains(&format!(
            "{} to create, {} to skip",
            emails.len() - first.len(),
            first.len()
        )),
        "{}",
        v.sentence
    );
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let mut all: Vec<String> = creates(&sb).into_iter().map(|(m, _)| m).collect();
    all.sort();
    let mut want = emails.clone();
    want.sort();
    assert_eq!(all, want, "every row created exactly once over both runs");
    for m in &emails {
        assert_eq!(sb.contacts_with_email(m), 1, "{m}");
    }
}

#[tokio::test]
async fn the_profile_s_safety_holds_for_an_import() {
    let (sb, mut e, dir) = start(None).await;
    let (text, emails) = people(2, "safe");
    let path = write(dir.path(), "two.csv", &text);
    let profile = e.app.workspace.profile.clone();
    let flags = |read_only, protected| SafetyConfig {
        flags: [(
            profile.clone(),
            ProfileSafety {
                read_only,
                protected,
            },
        )]
        .into(),
        ..crate::dashboard_support::test_safety()
    };
    e.app.set_safety(flags(true, false));
    command(&mut e, &format!("import {path}"));
    e.settle(QUIET).await;
    assert!(import_view(&e).can_run(), "a preview only looks");
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(creates(&sb).is_empty());
    assert!(
        !e.app.jobs.list.iter().any(|j| j.title.starts_with(&path)),
        "no run started: {:?}",
        e.app.jobs.list
    );
    let error = e.app.status.error.clone().unwrap_or_default();
    assert!(error.contains("read-only"), "{error}");
    assert!(error.contains("import"), "{error}");

    e.app.set_safety(flags(false, true));
    command(&mut e, &format!("import {path}"));
    e.settle(QUIET).await;
    press(&mut e, KeyCode::Enter);
    assert!(matches!(e.app.overlays.last(), Some(Overlay::TypeName(_))));
    for c in profile.chars() {
        press(&mut e, KeyCode::Char(c));
    }
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let mut got: Vec<String> = creates(&sb).into_iter().map(|(m, _)| m).collect();
    got.sort();
    assert_eq!(got, emails);
}

/// A preview as the runtime answers one: every kind of row.
fn preview(job: crmdash::app::import::ImportJob) -> ImportPreview {
    let row = |line: u64, outcome, name: &str, email: &str, phone: &str, note: &str| PreviewRow {
        line,
        outcome,
        name: name.into(),
        email: email.into(),
        phone: phone.into(),
        note: note.into(),
        near: note.starts_with("near"),
    };
    let mut rows = vec![
        row(
            2,
            Outcome::WouldCreate,
            "Ada Lovelace",
            "ada@example.org",
            "+44 20 7946 0000",
            "",
        ),
        row(
            3,
            Outcome::WouldCreate,
            "Grace Hopper",
            "grace@example.org",
            "",
            "",
        ),
        row(
            4,
            Outcome::Exists,
            "Alan Turing",
            "alan@example.org",
            "",
            "exists as contact con_000041",
        ),
        row(
            5,
            Outcome::Duplicate,
            "Ada L.",
            "ADA@example.org",
            "",
            "same email as line 2",
        ),
        row(
            6,
            Outcome::WouldCreate,
            "Adah Lovelace",
            "",
            "020 7946 0000",
            "near duplicate of line 2 (1.00: same phone, name 0.97)",
        ),
    ];
    for i in 7..=20 {
        rows.push(row(
            i,
            Outcome::WouldCreate,
            &format!("Person {i}"),
            &format!("p{i}@example.org"),
            "",
            "",
        ));
    }
    let counts = Counts {
        rows: 19,
        would_create: 17,
        exists: 1,
        duplicates: 1,
        near_warned: 1,
        ..Counts::default()
    };
    ImportPreview {
        job,
        notes: vec![
            "columns mapped: 'Surname' → last_name, 'Mobile' → phone (map=HEADER=FIELD to choose)"
                .into(),
        ],
        bad: Vec::new(),
        bad_summary: None,
        rows,
        counts,
    }
}

fn report() -> ImportReport {
    let row = |line: u64, outcome, id: Option<&str>, email: &str, detail: &str| ImportRowReport {
        line,
        outcome,
        id: id.map(str::to_string),
        email: Some(email.into()),
        detail: detail.into(),
    };
    ImportReport {
        path: "people.csv".into(),
        rows: vec![
            row(
                2,
                Outcome::Created,
                Some("con_100001"),
                "ada@example.org",
                "",
            ),
            row(
                3,
                Outcome::Created,
                Some("con_100002"),
                "grace@example.org",
                "",
            ),
            row(
                4,
                Outcome::Exists,
                Some("con_000041"),
                "alan@example.org",
                "exists as contact con_000041",
            ),
            row(
                5,
                Outcome::Duplicate,
                None,
                "ADA@example.org",
                "same email as line 2",
            ),
            row(
                6,
                Outcome::Failed,
                None,
                "bad@example",
                "422 validation: email: The email must be a valid email address.",
            ),
        ],
        counts: Counts {
            rows: 5,
            created: 2,
            exists: 1,
            duplicates: 1,
            failed: 1,
            rejected: 1,
            ..Counts::default()
        },
        stopped: false,
        halted: None,
        rate_limited: 2,
    }
}

/// `:import people.csv dupes=warn` typed into a harness: the preview job it starts.
fn typed_import(h: &mut Harness) -> (crmdash::app::RequestId, crmdash::app::import::ImportJob) {
    h.ch(':');
    h.type_str("import people.csv dupes=warn existing=search");
    let fx = h.key(KeyCode::Enter);
    fx.into_iter()
        .find_map(|e| match e {
            Effect::StartJob {
                id,
                job: JobSpec::ImportPreview(job),
            } => Some((id, *job)),
            _ => None,
        })
        .expect("a preview job")
}

#[test]
fn import_preview_and_report_snapshots_driven_by_keys() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = Harness::new(size);
        h.answer_all();
        let (id, job) = typed_import(&mut h);
        assert_eq!(job.path, Path::new("people.csv"));
        assert_eq!(job.words.options.dupes, DupesPolicy::Warn);
        assert_eq!(job.words.options.existing, ExistingBy::Search);
        assert_eq!(h.app.jobs.get(id).unwrap().kind, JobKind::Import);
        h.send(Message::Job {
            id,
            event: JobEvent::Done(JobOutput::ImportPreview(Arc::new(preview(job)))),
        });
        let screen = h.render();
        insta::assert_snapshot!(format!("import_preview_{}x{}", size.0, size.1), screen);
        // Scrolling moves the body, not the header.
        h.key(KeyCode::Down);
        let Some(Overlay::Import(v)) = h.app.overlays.last() else {
            panic!("the preview is open")
        };
        assert_eq!(v.scroll, 1);
        // Enter: the run, through the write gate (no undo window here).
        let fx = h.key(KeyCode::Enter);
        let run = fx
            .iter()
            .find_map(|e| match e {
                Effect::StartJob {
                    id,
                    job: JobSpec::Import(job),
                } => Some((*id, job.rows)),
                _ => None,
            })
            .expect("the run starts");
        assert_eq!(run.1, 19);
        assert!(h.app.overlays.is_empty(), "the preview closed");
        h.send(Message::Job {
            id: run.0,
            event: JobEvent::Progress {
                done: 3,
                total: Some(19),
                unit: "rows",
                records: None,
            },
        });
        assert_eq!(h.app.jobs.get(run.0).unwrap().outcome(), "3/19 rows");
        // `q` while it sends asks (the re-run's promise in the question); `n` keeps it.
        h.ch('q');
        let Some(Overlay::ConfirmQuit(ask)) = h.app.overlays.last() else {
            panic!("the quit asks while an import sends")
        };
        assert!(
            ask.reason
                .starts_with("An import is sending (3 of 19 done)")
                && ask
                    .reason
                    .contains(":import with the same file later sends only the rest"),
            "{}",
            ask.reason
        );
        let fx = h.ch('n');
        assert!(
            !fx.iter()
                .any(|e| matches!(e, Effect::Quit | Effect::CancelJob(_)))
        );
        assert!(h.app.jobs.get(run.0).unwrap().running());
        h.send(Message::Job {
            id: run.0,
            event: JobEvent::Done(JobOutput::Import(Arc::new(report()))),
        });
        h.ch('J');
        h.key(KeyCode::Enter);
        let screen = h.render();
        insta::assert_snapshot!(format!("import_report_{}x{}", size.0, size.1), screen);
    }
}

/// A bad row as the preview names it (the real check's words: see
/// `a_file_with_a_bad_row_shows_it_and_sends_nothing`).
const BAD_EMAIL: &str = "line 3: email: an email needs an @ (name@example.com)";

/// A file refused for its bad rows, answered as the runtime answers it: the notes on the
/// columns, two bad rows, no rows.
fn bad_preview(job: crmdash::app::import::ImportJob) -> ImportPreview {
    ImportPreview {
        job,
        notes: vec![
            "columns mapped: 'Surname' → last_name, 'Mobile' → phone (map=HEADER=FIELD to choose)"
                .into(),
        ],
        bad: vec![
            BAD_EMAIL.into(),
            "line 9: email: an email needs an @ (name@example.com); phone: a phone number has digits (+44 20 7946 0000)".into(),
        ],
        bad_summary: Some("2 bad rows".into()),
        rows: Vec::new(),
        counts: Counts::default(),
    }
}

/// At 60, 80 and 160 columns a bad row's reason wraps and reads whole (its end is on
/// screen), and a file with only bad rows has no column header over them.
#[test]
fn a_bad_file_s_preview_wraps_each_reason_and_draws_no_header() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = Harness::new(size);
        h.answer_all();
        let (id, job) = typed_import(&mut h);
        h.send(Message::Job {
            id,
            event: JobEvent::Done(JobOutput::ImportPreview(Arc::new(bad_preview(job)))),
        });
        let screen = h.render();
        for end in ["(name@example.com)", ":import again)"] {
            assert!(screen.contains(end), "{end} at {size:?}:\n{screen}");
        }
        // The last reason's end: on screen, or after `G` (the last row) on a short one.
        let last = "(+44 20 7946 0000)";
        if size.1 < 24 {
            assert!(!screen.contains(last), "{screen}");
            h.key(KeyCode::End);
            let scrolled = h.render();
            assert!(scrolled.contains(last), "{last} at {size:?}:\n{scrolled}");
            assert!(!scrolled.contains("line will"), "{scrolled}");
            h.key(KeyCode::Home);
        } else {
            assert!(screen.contains(last), "{last} at {size:?}:\n{screen}");
        }
        let dialog: Vec<&str> = screen.lines().filter(|l| l.contains('│')).collect();
        assert!(
            !dialog.iter().any(|l| l.contains("line will")),
            "no header over bad rows only at {size:?}:\n{screen}"
        );
        // The notes on the columns come before the bad rows.
        let note = dialog.iter().position(|l| l.contains("columns mapped"));
        let bad = dialog.iter().position(|l| l.contains("✗ line 3"));
        assert!(note < bad && bad.is_some(), "{screen}");
        insta::assert_snapshot!(format!("import_bad_{}x{}", size.0, size.1), screen);
    }
}

/// The preview's column widths are worked out once, when the rows arrive: a frame draws
/// from the view's widths, which hold each column's widest cell.
#[test]
fn the_preview_s_column_widths_come_with_its_rows() {
    let mut h = Harness::new((160, 45));
    h.answer_all();
    let (id, job) = typed_import(&mut h);
    h.send(Message::Job {
        id,
        event: JobEvent::Done(JobOutput::ImportPreview(Arc::new(preview(job)))),
    });
    let v = match h.app.overlays.last() {
        Some(Overlay::Import(v)) => v,
        _ => panic!("the preview is open"),
    };
    for (i, w) in v.widths.iter().enumerate() {
        let widest = v
            .rows
            .iter()
            .map(|r| r[i].chars().count())
            .chain([v.header[i].chars().count()])
            .max()
            .unwrap();
        assert_eq!(*w, widest, "column {}", v.header[i]);
    }
}

#[test]
fn import_words_take_the_cli_s_options() {
    let w = |s: &[&str]| ImportWords::parse(&s.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let o = w(&[
        "dupes=skip",
        "existing=scan",
        "key=external_id",
        "map=Handy=phone",
        "map=Kontakt Name=full_name",
        "delimiter=;",
        "jobs=16",
        "only-known",
        "allow_duplicate",
    ])
    .unwrap()
    .options;
    assert_eq!(o.dupes, DupesPolicy::Skip);
    assert_eq!(o.existing, ExistingBy::Scan);
    assert_eq!(o.key_column.as_deref(), Some("external_id"));
    assert_eq!(
        o.map,
        [
            ("Handy".to_string(), "phone".to_string()),
            ("Kontakt Name".to_string(), "full_name".to_string())
        ]
    );
    assert_eq!(o.delimiter, Some(b';'));
    assert_eq!(o.jobs, 16);
    assert!(o.only_known && o.allow_duplicate);
    assert!(
        w(&["dupes=maybe"])
            .unwrap_err()
            .contains("warn, skip or create")
    );
    assert!(w(&["jobs=0"]).unwrap_err().contains("1 to 64"));
    assert!(
        w(&["dupes=skip", "dupes=warn"])
            .unwrap_err()
            .contains("twice")
    );
    assert!(
        w(&["map=Handy=fax"])
            .unwrap_err()
            .contains("not a contact field")
    );
    assert!(w(&["shift=+1d"]).unwrap_err().contains("not shift"));
    let d = w(&[]).unwrap().options;
    assert_eq!(
        (d.dupes, d.existing, d.jobs),
        (DupesPolicy::Warn, ExistingBy::Auto, 8)
    );
}
