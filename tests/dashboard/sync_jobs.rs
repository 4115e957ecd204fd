//! Long work as jobs of the runner, for real against the embedded sandbox (its latency fault
//! keeps the work going long enough to be seen): `:sync` is listed in `:jobs` as running and
//! counted on the status line, `x` stops it (the job says stopped, the mirror's note says
//! stopped, not failed), a `:sync` right after a stop waits for the stopped one's last writes
//! and completes the mirror, and the finished sync is listed with its outcome; a tab's export
//! is stopped the same way; "send now" at quit waits (bounded) for a released plan run.

use std::time::Duration;

use crmdash::app::dialogs::Overlay;
use crmdash::app::jobs::{JobKind, JobState};
use crmdash::mirror::{Mirror, MirrorLocation};
use crmdash::runtime::Engine;
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::KeyCode;

use crate::mirror::{QUIET, engine, press, screen, settings, typed};

fn command(e: &mut Engine, line: &str) {
    press(e, KeyCode::Char(':'));
    typed(e, line);
    press(e, KeyCode::Enter);
}

/// Handles messages until `done` holds (a guard against a hang, not a timed assertion).
async fn until(e: &mut Engine, what: &str, done: impl Fn(&Engine) -> bool) {
    let waited = tokio::time::timeout(Duration::from_secs(120), async {
        while !done(e) {
            let m = e.next_message().await;
            e.handle(m);
        }
    })
    .await;
    assert!(waited.is_ok(), "waited for {what}");
}

/// A started dashboard with no automatic sync, on a sandbox slowed to 60 ms a request, its
/// settings and mirror in the returned directory.
async fn slow_sandbox_engine() -> (tempfile::TempDir, SandboxHandle, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::start(SandboxConfig {
        latency: Some(Duration::from_millis(60)),
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    (dir, sb, e)
}

fn sync_jobs(e: &Engine) -> Vec<crmdash::app::jobs::JobEntry> {
    e.app
        .jobs
        .in_order()
        .into_iter()
        .filter(|j| j.kind == JobKind::Sync)
        .cloned()
        .collect()
}

/// Records per resource (`contacts`, …).
type Counts = Vec<(String, u64)>;

/// Records per resource in the mirror, and in the sandbox.
fn counts(dir: &std::path::Path, sb: &SandboxHandle) -> (Counts, Counts) {
    let loc =
        MirrorLocation::for_settings(&settings(dir, 0).cache, "test", &sb.base_url()).unwrap();
    // A stopped sync's writer commits what it was handed on its own thread: the file may be
    // busy for a moment after the stop (a guard, not a timed assertion).
    let mut tries = 0;
    let status = loop {
        match Mirror::open(&loc.db_path()).and_then(|m| m.mirror.status()) {
            Ok(s) => break s,
            Err(e) if tries < 100 && e.to_string().contains("locked") => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("the mirror opens: {e}"),
        }
    };
    let mut mirrored = Vec::new();
    let mut served = Vec::new();
    for r in status.resources {
        let Some(kind) = r.resource else { continue };
        mirrored.push((kind.noun().to_string(), r.records));
        served.push((kind.noun().to_string(), sb.ids(kind.noun()).len() as u64));
    }
    (mirrored, served)
}

#[tokio::test]
async fn a_sync_is_a_job_stopped_with_x_and_a_later_sync_completes_the_mirror() {
    // No automatic sync: each one here is asked for.
    let (dir, sb, mut e) = slow_sandbox_engine().await;
    assert!(sync_jobs(&e).is_empty());

    // `:sync`: a running job with the sync's progress, counted on the status line.
    command(&mut e, "sync");
    until(&mut e, "the sync's first progress", |e| {
        sync_jobs(e).first().is_some_and(|j| j.progress.is_some())
    })
    .await;
    let j = sync_jobs(&e).remove(0);
    assert_eq!(j.state, JobState::Running);
    assert!(j.cancellable, "a sync can be stopped");
    assert!(screen(&e).contains("1 job"), "{}", screen(&e));
    press(&mut e, KeyCode::Char('J'));
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Jobs(_))));
    let text = screen(&e);
    assert!(text.contains("sync"), "{text}");
    assert!(text.contains(j.progress.as_deref().unwrap()), "{text}");
    assert!(text.contains("stop the job"), "x is offered: {text}");

    // `x`: the sync's task is aborted; the job ends stopped and nothing says it failed.
    press(&mut e, KeyCode::Char('x'));
    e.settle(QUIET).await;
    let stopped = sync_jobs(&e).remove(0);
    assert_eq!(stopped.id, j.id);
    assert_eq!(stopped.state, JobState::Cancelled);
    assert_eq!(stopped.outcome(), "stopped");
    assert!(
        e.app.mirror.syncing.is_none(),
        "the status line's sync ended"
    );
    assert!(
        e.app.mirror.last_sync.is_none(),
        "not reported as a sync's end"
    );
    assert_eq!(e.app.jobs.running(), 0);
    let text = screen(&e);
    assert!(text.contains("stopped"), "{text}");
    assert!(!text.contains("failed"), "{text}");
    press(&mut e, KeyCode::Esc);
    let (mirrored, served) = counts(dir.path(), &sb);
    assert_ne!(mirrored, served, "stopped before the mirror was complete");

    // A later sync completes the mirror: every record the sandbox serves.
    command(&mut e, "sync");
    until(&mut e, "the second sync's end", |e| {
        e.app.mirror.last_sync.is_some()
    })
    .await;
    let summary = e.app.mirror.last_sync.clone().unwrap();
    let summary = summary.expect("the second sync succeeded");
    let (mirrored, served) = counts(dir.path(), &sb);
    assert_eq!(mirrored, served);

    // Both are listed: the finished one with its outcome, newest first.
    let jobs = sync_jobs(&e);
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0].state, JobState::Done(summary.clone()));
    assert_eq!(jobs[1].state, JobState::Cancelled);
    press(&mut e, KeyCode::Char('J'));
    let text = screen(&e);
    assert!(text.contains(&summary), "{text}");
    assert!(!text.contains("stop the job"), "nothing runs: {text}");
    press(&mut e, KeyCode::Esc);
    sb.shutdown().await;
}

/// Through `update()`: `:sync` starts a runner job (`StartJob` with `JobSpec::Sync`) whose
/// progress is the status line's, `x` asks the runner's cancel (`CancelJob`, the one stop of
/// every job), and a stop that comes after the sync ended leaves its outcome alone.
#[test]
fn x_on_the_sync_asks_cancel_job_and_a_late_stop_keeps_the_outcome() {
    use crmdash::app::Message;
    use crmdash::app::effects::Effect;
    use crmdash::app::jobs::{JobEvent, JobOutput, JobSpec};

    let mut h = crate::dashboard_support::Harness::new((120, 30));
    h.app.set_mirror(true, None);
    h.ch(':');
    h.type_str("sync");
    let fx = h.key(KeyCode::Enter);
    let id = h.app.jobs.sync.expect("the sync is a job");
    assert!(
        matches!(&fx[..], [Effect::StartJob { id: x, job: JobSpec::Sync }] if *x == id),
        "{fx:?}"
    );
    h.send(Message::Job {
        id,
        event: JobEvent::Progress {
            done: 30,
            total: Some(120),
            unit: "deals",
            records: None,
        },
    });
    assert!(h.render().contains("syncing deals 25%"), "{}", h.render());
    assert_eq!(
        h.app.jobs.get(id).unwrap().progress.as_deref(),
        Some("30/120 deals")
    );
    h.ch('J');
    let fx = h.ch('x');
    assert!(
        matches!(&fx[..], [Effect::CancelJob(x)] if *x == id),
        "{fx:?}"
    );

    // The sync ended before the stop reached it: done first, then the stop's report.
    h.send(Message::Job {
        id,
        event: JobEvent::Done(JobOutput::Synced("12 changes in 3 requests".into())),
    });
    h.send(Message::Job {
        id,
        event: JobEvent::Cancelled,
    });
    let j = h.app.jobs.get(id).unwrap();
    assert_eq!(j.state, JobState::Done("12 changes in 3 requests".into()));
    assert_eq!(
        h.app.mirror.last_sync,
        Some(Ok("12 changes in 3 requests".to_string()))
    );
    assert!(h.app.mirror.syncing.is_none());
    let note = crate::dashboard_support::note_of(&h.app);
    assert!(!note.contains("stopped"), "{note}");
    assert!(note.contains("Local mirror synced"), "{note}");
    assert!(h.render().contains("12 changes in 3 requests"));

    // `x`, then `:sync` before the stop is reported: the new sync starts once the stopped
    // one has reported (not "a sync is running", and not lost).
    h.key(KeyCode::Esc);
    h.ch(':');
    h.type_str("sync");
    h.key(KeyCode::Enter);
    let second = h.app.jobs.sync.expect("a second sync");
    assert_ne!(second, id);
    h.ch('J');
    assert!(matches!(&h.ch('x')[..], [Effect::CancelJob(x)] if *x == second));
    h.key(KeyCode::Esc);
    h.ch(':');
    h.type_str("sync");
    assert!(h.key(KeyCode::Enter).is_empty(), "nothing starts yet");
    let note = crate::dashboard_support::note_of(&h.app);
    assert!(note.contains("once the stopped sync"), "{note}");
    let fx = h.send(Message::Job {
        id: second,
        event: JobEvent::Cancelled,
    });
    let third = h.app.jobs.sync.expect("a third sync");
    assert!(
        matches!(&fx[..], [Effect::StartJob { id: x, job: JobSpec::Sync }] if *x == third),
        "{fx:?}"
    );
    assert_eq!(h.app.jobs.get(second).unwrap().state, JobState::Cancelled);
    assert!(h.app.jobs.get(third).unwrap().running());
    assert!(h.app.mirror.syncing.is_some());
}

/// The stop race, against the sandbox: `x` drops the sync while its writer may still be
/// committing on its own thread (and holds the mirror's sync lock until it has); a `:sync`
/// at once waits for that instead of finding "another sync" running or the file locked, and
/// completes the mirror.
#[tokio::test]
async fn a_sync_started_right_after_a_stop_waits_for_the_stopped_one_and_completes() {
    let (dir, sb, mut e) = slow_sandbox_engine().await;
    // The first sync is a full one: its writer has thousands of records to commit.
    command(&mut e, "sync");
    until(&mut e, "the sync's first progress", |e| {
        sync_jobs(e).first().is_some_and(|j| j.progress.is_some())
    })
    .await;
    let stopped = e.app.jobs.sync.unwrap();
    // `x` in `:jobs`, then `:sync` in the same breath: no message is handled between.
    press(&mut e, KeyCode::Char('J'));
    press(&mut e, KeyCode::Char('x'));
    press(&mut e, KeyCode::Esc);
    command(&mut e, "sync");
    until(&mut e, "the stop's report", |e| {
        e.app.jobs.get(stopped).is_some_and(|j| !j.running())
    })
    .await;
    assert_eq!(e.app.jobs.get(stopped).unwrap().state, JobState::Cancelled);
    let restarted = e
        .app
        .jobs
        .sync
        .expect("a new sync job once the stop was reported");
    assert_ne!(restarted, stopped);
    until(&mut e, "the new sync's end", |e| {
        e.app.jobs.get(restarted).is_some_and(|j| !j.running())
    })
    .await;
    let notes: Vec<String> = e
        .app
        .status
        .history
        .iter()
        .map(|n| n.text.clone())
        .collect();
    assert!(
        !notes.iter().any(|n| n.contains("Another sync")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("locked")), "{notes:?}");
    let j = e.app.jobs.get(restarted).unwrap().clone();
    let JobState::Done(summary) = &j.state else {
        panic!("{:?}", j.state)
    };
    assert!(summary.contains("requests"), "{summary}");
    assert!(!summary.contains("other sync"), "{summary}");
    assert_eq!(e.app.mirror.last_sync, Some(Ok(summary.clone())));
    let (mirrored, served) = counts(dir.path(), &sb);
    assert_eq!(mirrored, served);
    sb.shutdown().await;
}

/// A plan of `ids` in `dir`, each moved to a morning hour of 7 December.
fn plan_file(dir: &std::path::Path, ids: &[String]) -> String {
    let mut text = String::from("id,start,end\n");
    for (i, id) in ids.iter().enumerate() {
        text.push_str(&format!("{id},2026-12-07 {:02}:00,30m\n", 8 + i % 10));
    }
    let path = dir.join("quit-plan.csv");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The reschedules that reached the sandbox (one entry per request).
fn reschedules(sb: &SandboxHandle) -> Vec<String> {
    sb.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/reschedule"))
        .map(|r| r.path.clone())
        .collect()
}

/// "Send now" at quit for a plan held in its undo window: the plan runs, and the dashboard
/// quits only once it has (every row sent once, each in the write journal), not at once
/// (rows in doubt) and not never.
#[tokio::test]
async fn send_now_at_quit_waits_for_a_released_plan_run() {
    use crmdash::app::SafetyConfig;
    use crmdash::app::dialogs::FormsConfig;
    use crmdash::app::jobs::JobKind;
    use crmdash::runtime::TermAction;

    let sb = Sandbox::start(SandboxConfig {
        latency: Some(Duration::from_millis(60)),
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let client =
        crmdash::api::Client::new(&sb.base_url(), secrecy::SecretString::from(sb.token())).unwrap();
    let opts = crate::dashboard_support::sandbox_options(&sb, client, None);
    let dir = tempfile::tempdir().unwrap();
    let mut e = crmdash::runtime::build_engine(&opts, (80, 24));
    e.app.set_safety(SafetyConfig {
        journal: Some(dir.path().join("writes.jsonl")),
        undo: Duration::from_secs(30),
        ..SafetyConfig::default()
    });
    let reschedule = crmdash::config::RescheduleSettings::default();
    e.app.set_forms_config(FormsConfig {
        zone: reschedule.timezone.parse().unwrap(),
        reschedule,
        log_path: Some(dir.path().join("reschedules.jsonl")),
        ..FormsConfig::default()
    });
    e.start();
    e.settle(QUIET).await;
    let ids: Vec<String> = sb.ids("appointments").into_iter().take(24).collect();
    let path = plan_file(dir.path(), &ids);
    command(&mut e, &format!("plan {path}"));
    e.settle(QUIET).await;
    press(&mut e, KeyCode::Enter);
    assert_eq!(e.app.writes_held(), 1, "the plan waits in its undo window");
    press(&mut e, KeyCode::Char('q'));
    assert!(matches!(
        e.app.overlays.last(),
        Some(Overlay::PendingQuit(_))
    ));
    // `y`: send now and quit. The plan starts; the quit waits for it.
    let out = e.handle(crmdash::app::Message::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('y'),
        crossterm::event::KeyModifiers::NONE,
    )));
    assert!(!out.contains(&TermAction::Quit), "not at once: {out:?}");
    let note = crate::dashboard_support::note_of(&e.app);
    assert!(note.contains("quits when the plan has run"), "{note}");
    let quit = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let m = e.next_message().await;
            if e.handle(m).contains(&TermAction::Quit) {
                break;
            }
        }
    })
    .await;
    assert!(quit.is_ok(), "the dashboard quit once the plan ended");
    let plan = e
        .app
        .jobs
        .list
        .iter()
        .find(|j| j.kind == JobKind::Plan)
        .unwrap();
    assert_eq!(plan.state, JobState::Done("24 moved".into()));
    assert_eq!(reschedules(&sb).len(), ids.len(), "each row once");
    let journal = std::fs::read_to_string(dir.path().join("writes.jsonl")).unwrap();
    let entries = crate::dashboard_support::journal_entries(&dir.path().join("writes.jsonl"));
    assert_eq!(entries.len(), ids.len(), "{journal}");
    assert!(entries.iter().all(|e| e.answer.ok), "{journal}");
    sb.shutdown().await;
}

/// The quit's wait for a plan is bounded: past `QUIT_WAIT` the plan is asked to stop (rows
/// under way finish and are recorded), and the app quits on its report, or past
/// `QUIT_STOP_GRACE` without one.
#[test]
fn the_quits_wait_for_a_plan_is_bounded() {
    use crmdash::app::effects::Effect;
    use crmdash::app::jobs::{JobEvent, JobOutput, JobSpec};
    use crmdash::app::plan::{PlanReport, PlanWords};
    use crmdash::app::{Message, QUIT_STOP_GRACE, QUIT_WAIT, RequestId, SafetyConfig};

    let plan_read = |h: &mut crate::dashboard_support::Harness| {
        let dir = tempfile::tempdir().unwrap();
        let ids: Vec<String> = (1..=3).map(|i| format!("apt_{i:06}")).collect();
        let path = plan_file(dir.path(), &ids);
        let text = std::fs::read_to_string(&path).unwrap();
        h.send(Message::PlanRead {
            id: RequestId(999),
            result: Ok(Box::new(crate::plan::loaded(&text, PlanWords::default()))),
        });
    };
    let held_plan = |h: &mut crate::dashboard_support::Harness| -> RequestId {
        plan_read(h);
        h.key(KeyCode::Enter);
        assert_eq!(h.app.writes_held(), 1);
        h.ch('q');
        let fx = h.ch('y');
        let id = fx
            .iter()
            .find_map(|e| match e {
                Effect::StartJob {
                    id,
                    job: JobSpec::Plan(_),
                } => Some(*id),
                _ => None,
            })
            .expect("the plan starts now");
        assert!(!fx.contains(&Effect::Quit) && !h.app.quitting, "{fx:?}");
        id
    };
    let report = |stopped| {
        JobEvent::Done(JobOutput::Plan(std::sync::Arc::new(PlanReport {
            path: "quit-plan.csv".into(),
            rows: Vec::new(),
            stopped,
            halted: None,
            rate_limited: 0,
        })))
    };
    let harness = || {
        let mut h = crate::dashboard_support::Harness::new((80, 24));
        h.answer_all();
        h.app.set_safety(SafetyConfig {
            undo: Duration::from_secs(10),
            ..SafetyConfig::default()
        });
        h
    };

    // It ends in time: the quit follows its report.
    let mut h = harness();
    let id = held_plan(&mut h);
    let fx = h.advance(Duration::from_secs(5));
    assert!(!fx.contains(&Effect::CancelJob(id)) && !fx.contains(&Effect::Quit));
    let fx = h.send(Message::Job {
        id,
        event: report(false),
    });
    assert!(fx.contains(&Effect::Quit), "{fx:?}");

    // It runs long: stopped at the bound, then the quit follows the stopped run's report.
    let mut h = harness();
    let id = held_plan(&mut h);
    let fx = h.advance(QUIT_WAIT);
    assert!(fx.contains(&Effect::CancelJob(id)), "{fx:?}");
    assert!(!fx.contains(&Effect::Quit), "{fx:?}");
    let note = crate::dashboard_support::note_of(&h.app);
    assert!(note.contains("stopping it"), "{note}");
    assert!(!h.app.quitting);
    let fx = h.send(Message::Job {
        id,
        event: report(true),
    });
    assert!(fx.contains(&Effect::Quit), "{fx:?}");

    // Its report never comes: the app quits after the grace all the same.
    let mut h = harness();
    let id = held_plan(&mut h);
    assert!(h.advance(QUIT_WAIT).contains(&Effect::CancelJob(id)));
    assert!(!h.advance(QUIT_STOP_GRACE / 2).contains(&Effect::Quit));
    let fx = h.advance(QUIT_STOP_GRACE);
    assert!(fx.contains(&Effect::Quit), "{fx:?}");
}
