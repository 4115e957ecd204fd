//! The dashboard's sync as a job, for real against the embedded sandbox (its latency fault
//! keeps the sync going long enough to be seen): `:sync` is listed in `:jobs` as running and
//! counted on the status line, `x` stops it (the job says stopped, the mirror's note says
//! stopped, not failed), a later sync completes the mirror, and the finished sync is listed
//! with its outcome.

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

/// Through `update()`: `x` on the sync asks the runner's cancel (`CancelJob`, the one stop
/// of every job), and a stop that comes after the sync ended leaves its outcome alone.
#[test]
fn x_on_the_sync_asks_cancel_job_and_a_late_stop_keeps_the_outcome() {
    use crmdash::app::Message;
    use crmdash::app::effects::Effect;
    use crmdash::app::mirror::{MirrorEffect, MirrorMessage};

    let mut h = crate::dashboard_support::Harness::new((120, 30));
    h.app.set_mirror(true, None);
    h.ch(':');
    h.type_str("sync");
    let fx = h.key(KeyCode::Enter);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Mirror(MirrorEffect::Sync))),
        "{fx:?}"
    );
    let id = h.app.jobs.sync.expect("the sync is a job");
    h.ch('J');
    let fx = h.ch('x');
    assert!(
        matches!(&fx[..], [Effect::CancelJob(x)] if *x == id),
        "{fx:?}"
    );

    // The sync ended before the stop reached it: `Synced` first, then `SyncStopped`.
    h.send(Message::Mirror(MirrorMessage::Synced(Ok(
        "12 changes in 3 requests".into(),
    ))));
    h.send(Message::Mirror(MirrorMessage::SyncStopped));
    let j = h.app.jobs.get(id).unwrap();
    assert_eq!(j.state, JobState::Done("12 changes in 3 requests".into()));
    let note = crate::dashboard_support::note_of(&h.app);
    assert!(!note.contains("stopped"), "{note}");
    assert!(h.render().contains("12 changes in 3 requests"));
}

/// A tab's export is a job stopped the same way: Esc in its dialog (as `x` in `:jobs`) sends
/// `CancelJob`, the runtime stops the export where it runs, the job says stopped and no file
/// is left behind.
#[tokio::test]
async fn a_tab_export_is_a_job_stopped_by_the_same_cancel() {
    let (dir, sb, mut e) = slow_sandbox_engine().await;
    let out = dir.path().join("contacts.csv");
    press(&mut e, KeyCode::Char('e'));
    e.handle(crmdash::app::Message::Paste(out.display().to_string()));
    press(&mut e, KeyCode::Enter);
    let export = |e: &Engine| {
        e.app
            .jobs
            .in_order()
            .into_iter()
            .find(|j| j.kind == JobKind::Export)
            .cloned()
    };
    until(&mut e, "the export's first page", |e| {
        export(e).is_some_and(|j| j.progress.is_some())
    })
    .await;
    assert!(screen(&e).contains("1 job"), "{}", screen(&e));
    press(&mut e, KeyCode::Esc);
    e.settle(QUIET).await;
    let j = export(&e).unwrap();
    assert_eq!(j.state, JobState::Cancelled);
    assert_eq!(j.outcome(), "stopped");
    assert!(!out.exists(), "nothing written");
    sb.shutdown().await;
}
