//! `:plan PATH` against the embedded sandbox (real HTTP): the preview names a bad row and
//! nothing can run; a run is a job that sends each row once (the sandbox's request log), a
//! re-run sends only what is not done, a stopped run never sends a row twice; the profile's
//! safety holds; `:jobs` opens the per-row report. The preview's snapshots come from
//! `update()` with the plan read as the runtime reads it.

use crate::dashboard_support::{self, Harness};

use std::path::Path;
use std::time::Duration;

use crmdash::api::Client;
use crmdash::app::dialogs::plan::{PlanMode, PlanView};
use crmdash::app::dialogs::{FormsConfig, Overlay};
use crmdash::app::jobs::{JobKind, JobState};
use crmdash::app::plan::{PlanLoaded, PlanWords};
use crmdash::app::{Message, RequestId, SafetyConfig};
use crmdash::config::RescheduleSettings;
use crmdash::reschedule::plan::journal::Journal;
use crmdash::reschedule::plan::{Plan, PlanOptions, preview};
use crmdash::runtime::{Engine, build_engine};
use crmdash::safety::ProfileSafety;
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crmdash::timeparse::Zone;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use secrecy::SecretString;

const QUIET: Duration = Duration::from_millis(400);

fn settings() -> RescheduleSettings {
    RescheduleSettings {
        timezone: "Europe/Berlin".into(),
        ..RescheduleSettings::default()
    }
}

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
    let s = settings();
    e.app.set_forms_config(FormsConfig {
        zone: s.timezone.parse().unwrap(),
        reschedule: s,
        log_path: Some(dir.path().join("reschedules.jsonl")),
        ..FormsConfig::default()
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

fn plan_view(e: &Engine) -> &PlanView {
    match e.app.overlays.last() {
        Some(Overlay::Plan(v)) => v,
        _ => panic!("the plan dialog is on top"),
    }
}

/// The reschedules that reached the sandbox, by appointment id (one entry per request).
fn sent(sb: &SandboxHandle) -> Vec<String> {
    sb.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/reschedule"))
        .map(|r| {
            r.path
                .trim_start_matches("/public/v1/appointments/")
                .trim_end_matches("/reschedule")
                .to_string()
        })
        .collect()
}

fn write_plan(dir: &Path, name: &str, ids: &[String]) -> String {
    let mut text = String::from("id,start,end\n");
    for (i, id) in ids.iter().enumerate() {
        text.push_str(&format!("{id},2026-12-07 {:02}:00,\n", 8 + i % 10));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[tokio::test]
async fn a_plan_with_a_bad_row_shows_it_and_sends_nothing() {
    let (sb, mut e, dir) = start(None).await;
    let ids = sb.ids("appointments");
    let path = dir.path().join("bad.csv");
    std::fs::write(
        &path,
        format!(
            "id,start,end\n{},2026-12-07 09:00,30m\n{},not a time,\n{},2026-12-07 11:00,\n",
            ids[0], ids[1], ids[2]
        ),
    )
    .unwrap();
    command(&mut e, &format!("plan {}", path.display()));
    e.settle(QUIET).await;
    let v = plan_view(&e);
    assert_eq!(v.bad.len(), 1, "{:?}", v.bad);
    assert!(v.bad[0].starts_with("line 3: start:"), "{:?}", v.bad);
    assert!(
        v.why.as_deref().unwrap().contains("nothing can run"),
        "{:?}",
        v.why
    );
    assert!(!v.can_run());
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(sent(&sb).is_empty(), "nothing sent: {:?}", sent(&sb));
    assert!(e.app.jobs.list.is_empty(), "no job started");
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Plan(_))));
}

#[tokio::test]
async fn a_plan_runs_as_a_job_sending_each_row_once_and_a_rerun_sends_only_new_rows() {
    let (sb, mut e, dir) = start(None).await;
    let ids: Vec<String> = sb.ids("appointments").into_iter().take(6).collect();
    let path = write_plan(dir.path(), "monday.csv", &ids[..5]);
    command(&mut e, &format!("plan {path} shift=+1d end=30m"));
    e.settle(QUIET).await;
    let v = plan_view(&e);
    assert!(v.can_run(), "{:?} {:?}", v.why, v.bad);
    assert!(
        v.sentence.starts_with("5 rows: 5 to send"),
        "{}",
        v.sentence
    );
    // The new times are shifted a day, in the configured zone.
    assert_eq!(v.rows[0][3], "2026-12-08 08:00");
    assert_eq!(v.rows[0][4], "08:30");
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let mut got = sent(&sb);
    got.sort();
    assert_eq!(got, ids[..5].to_vec(), "each row once");
    let apt = sb.appointment(&ids[0]).unwrap();
    assert!(
        apt["start_time"]
            .as_str()
            .unwrap()
            .starts_with("2026-12-08T07:00"),
        "{apt}"
    );
    let j = e.app.jobs.in_order()[0].clone();
    assert_eq!(j.kind, JobKind::Plan);
    assert_eq!(j.state, JobState::Done("5 moved".into()));
    // `:jobs`, Enter: the report, a row each.
    press(&mut e, KeyCode::Char('J'));
    press(&mut e, KeyCode::Enter);
    let v = plan_view(&e);
    assert!(matches!(v.mode, PlanMode::Report { .. }));
    assert_eq!(v.rows.len(), 5);
    assert!(v.rows.iter().all(|r| r[2] == "moved"), "{:?}", v.rows);
    press(&mut e, KeyCode::Esc);
    press(&mut e, KeyCode::Esc);
    // Each went to the write journal, from the dashboard.
    let journal = std::fs::read_to_string(dir.path().join("writes.jsonl")).unwrap();
    let entries = crate::dashboard_support::journal_entries(&dir.path().join("writes.jsonl"));
    assert_eq!(entries.len(), 5, "{journal}");
    assert!(entries.iter().all(|e| e.answer.ok), "{journal}");
    assert!(journal.contains("\"dashboard\""), "{journal}");

    // The same plan with one row more: only that row goes out.
    sb.clear_requests();
    let path = write_plan(dir.path(), "monday.csv", &ids);
    command(&mut e, &format!("plan {path} shift=+1d end=30m"));
    e.settle(QUIET).await;
    let v = plan_view(&e);
    assert!(
        v.sentence
            .starts_with("6 rows: 1 to send, 5 done by an earlier run"),
        "{}",
        v.sentence
    );
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert_eq!(sent(&sb), vec![ids[5].clone()]);
    assert_eq!(
        e.app.jobs.in_order()[0].state,
        JobState::Done("1 moved, 5 done before".into())
    );
}

#[tokio::test]
async fn a_stopped_plan_sends_no_row_twice_and_a_rerun_finishes_it() {
    let (sb, mut e, dir) = start(Some(Duration::from_millis(120))).await;
    let ids: Vec<String> = sb.ids("appointments").into_iter().take(40).collect();
    let path = write_plan(dir.path(), "many.csv", &ids);
    command(&mut e, &format!("plan {path}"));
    e.settle(QUIET).await;
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
    let JobState::Done(outcome) = &j.state else {
        panic!("{:?}", j.state)
    };
    assert!(outcome.contains("not sent; stopped"), "{outcome}");
    let first = sent(&sb);
    assert!(first.len() < ids.len(), "stopped early: {}", first.len());
    press(&mut e, KeyCode::Esc);
    command(&mut e, &format!("plan {path}"));
    e.settle(QUIET).await;
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let mut all = sent(&sb);
    all.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(all, want, "every row exactly once over both runs");
}

#[tokio::test]
async fn the_profile_s_safety_holds_for_a_plan() {
    let (sb, mut e, dir) = start(None).await;
    let ids: Vec<String> = sb.ids("appointments").into_iter().take(2).collect();
    let path = write_plan(dir.path(), "two.csv", &ids);
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
    command(&mut e, &format!("plan {path}"));
    e.settle(QUIET).await;
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(sent(&sb).is_empty());
    assert!(e.app.jobs.list.is_empty());
    let error = e.app.status.error.clone().unwrap_or_default();
    assert!(error.contains("read-only"), "{error}");

    e.app.set_safety(flags(false, true));
    command(&mut e, &format!("plan {path}"));
    e.settle(QUIET).await;
    press(&mut e, KeyCode::Enter);
    assert!(matches!(e.app.overlays.last(), Some(Overlay::TypeName(_))));
    for c in profile.chars() {
        press(&mut e, KeyCode::Char(c));
    }
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert_eq!(sent(&sb).len(), 2);
}

/// The preview as the runtime reads it, for `update()`.
pub(crate) fn loaded(text: &str, words: PlanWords) -> PlanLoaded {
    let s = settings();
    let zone: Zone = s.timezone.parse().unwrap();
    let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00Z")
        .unwrap()
        .to_utc();
    let opts = PlanOptions {
        shift: words.shift.clone(),
        default_end: words.end.clone(),
        extra: Default::default(),
    };
    let plan = Plan::parse(text, &opts, &s, &zone, now).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::open(dir.path().join("j.jsonl"), "sandbox").unwrap();
    let rows = preview::preview(&plan, &journal, &[], "sandbox", &s, &zone, false);
    PlanLoaded {
        path: "monday.csv".into(),
        words,
        rows: plan.rows,
        preview: rows,
        bad: plan.bad,
        zone: zone.describe(),
        journal: dir.path().join("j.jsonl"),
    }
}

#[test]
fn plan_preview_snapshots() {
    let mut text = String::from("id,start,end\n");
    for i in 1..=12 {
        text.push_str(&format!("apt_{i:06},2026-12-07 {:02}:00,30m\n", 7 + i));
    }
    text.push_str("apt_000013,someday,\n");
    text.push_str("apt_000014,2026-12-07 23:30,01:00\n");
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = Harness::new(size);
        h.answer_all();
        let words = PlanWords {
            shift: Some("+1d".into()),
            end: None,
        };
        h.send(Message::PlanRead {
            id: RequestId(999),
            result: Ok(Box::new(loaded(&text, words))),
        });
        let screen = h.render();
        // Wrapped, not cut: the bad row's line and all of its reason, all of the sentence.
        for said in ["✗ line 14: start:", "RFC 3339", "again)"] {
            assert!(screen.contains(said), "{said} at {size:?}:\n{screen}");
        }
        insta::assert_snapshot!(format!("plan_preview_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn plan_words_take_shift_and_end_once() {
    let w = |s: &[&str]| PlanWords::parse(&s.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(
        w(&["shift=+1d", "end=30m"]).unwrap(),
        PlanWords {
            shift: Some("+1d".into()),
            end: Some("30m".into())
        }
    );
    assert!(
        w(&["shift=+1d", "shift=+2d"])
            .unwrap_err()
            .contains("twice")
    );
    assert!(w(&["zone=UTC"]).unwrap_err().contains("not zone="));
    assert!(w(&["+1d"]).unwrap_err().contains("KEY=VALUE"));
}

/// `q` while a plan run sends (no write held in the undo window) asks before stopping it:
/// the question says how far it got and that a re-run sends only the rest; `n` keeps it
/// running, `y` stops it (as `x` in `:jobs` does) and quits once it has ended.
#[test]
fn quitting_while_a_plan_sends_asks_first_and_stops_it_only_on_yes() {
    use crmdash::app::effects::Effect;
    use crmdash::app::jobs::{JobEvent, JobSpec};

    let mut text = String::from("id,start,end\n");
    for i in 1..=5 {
        text.push_str(&format!("apt_{i:06},2026-12-07 {:02}:00,30m\n", 8 + i));
    }
    let mut h = Harness::new((80, 24));
    h.answer_all();
    h.send(Message::PlanRead {
        id: RequestId(999),
        result: Ok(Box::new(loaded(&text, PlanWords::default()))),
    });
    let fx = h.key(KeyCode::Enter);
    let id = fx
        .iter()
        .find_map(|e| match e {
            Effect::StartJob {
                id,
                job: JobSpec::Plan(_),
            } => Some(*id),
            _ => None,
        })
        .expect("the run starts at once (no undo window here)");
    h.send(Message::Job {
        id,
        event: JobEvent::Progress {
            done: 120,
            total: Some(500),
            unit: "rows",
            records: None,
        },
    });
    let is_quit = |fx: &[Effect]| fx.iter().any(|e| matches!(e, Effect::Quit));
    let asked = |h: &Harness| match h.app.overlays.last() {
        Some(Overlay::ConfirmQuit(c)) => Some(c.reason.clone()),
        _ => None,
    };
    // `q`: a question, nothing stopped.
    let fx = h.ch('q');
    assert!(!is_quit(&fx), "{fx:?}");
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::CancelJob(_))),
        "{fx:?}"
    );
    let reason = asked(&h).expect("the quit asks");
    assert!(
        reason.starts_with("A plan is sending (120 of 500 done)"),
        "{reason}"
    );
    assert!(
        reason.contains(":plan with the same file later sends only the rest"),
        "{reason}"
    );
    let screen = h.render();
    assert!(screen.contains("Quit and stop it?"), "{screen}");
    // `n`: the plan runs on.
    let fx = h.ch('n');
    assert!(!is_quit(&fx) && asked(&h).is_none(), "{fx:?}");
    assert!(h.app.jobs.get(id).unwrap().running());
    // `q`, `y`: the plan is stopped; the app quits when it has ended, not before.
    h.ch('q');
    let fx = h.ch('y');
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::CancelJob(j) if *j == id)),
        "{fx:?}"
    );
    assert!(!is_quit(&fx), "waits for the stopped plan: {fx:?}");
    let fx = h.send(Message::Job {
        id,
        event: JobEvent::Cancelled,
    });
    assert!(is_quit(&fx), "quits once the plan has ended: {fx:?}");
}

/// A plan with nothing but bad rows: no column header over them, each reason whole.
#[test]
fn a_plan_of_bad_rows_only_draws_no_header() {
    let text = "id,start,end\napt_000001,someday,\napt_000002,2026-12-07 09:00,-30m\n";
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = Harness::new(size);
        h.answer_all();
        h.send(Message::PlanRead {
            id: RequestId(999),
            result: Ok(Box::new(loaded(text, PlanWords::default()))),
        });
        let screen = h.render();
        assert!(screen.contains("✗ line 2: start:"), "{screen}");
        assert!(screen.contains("RFC 3339"), "{size:?}:\n{screen}");
        assert!(
            !screen.contains("new start"),
            "no header at {size:?}:\n{screen}"
        );
    }
}
