//! The dashboard's mirror under faults (issue 28) and its creates (issue 27.4), for real
//! against the sandbox: a damaged mirror said once while the dashboard keeps working from the
//! service and `:sync` rebuilds it; `cache clear` refused while the dashboard holds the
//! mirror; `:sync` while another process syncs says so and says when it ends; a contact
//! created in the form is found by `Ctrl-F` at once.

use std::path::Path;
use std::time::Duration;

use crmdash::mirror::{MirrorError, MirrorLocation, SyncLock};
use crmdash::sandbox::SandboxHandle;
use crossterm::event::{KeyCode, KeyModifiers};

use crate::damage::{Damage, damage};
use crate::mirror::{QUIET, engine, key, press, search_dialog, settings, synced_sandbox, typed};

fn location(dir: &Path, sb: &SandboxHandle) -> MirrorLocation {
    MirrorLocation::for_settings(&settings(dir, 0).cache, "test", &sb.base_url()).unwrap()
}

fn said(e: &crmdash::runtime::Engine, part: &str) -> usize {
    e.app
        .status
        .history
        .iter()
        .filter(|s| s.text.contains(part))
        .count()
}

/// Runs the engine until a background sync has ended.
async fn until_synced(e: &mut crmdash::runtime::Engine) {
    let done = tokio::time::timeout(Duration::from_secs(120), async {
        while e.app.mirror.last_sync.is_none() {
            let m = e.next_message().await;
            e.handle(m);
        }
    })
    .await;
    assert!(done.is_ok(), "the sync ended");
}

fn command(e: &mut crmdash::runtime::Engine, text: &str) {
    press(e, KeyCode::Char(':'));
    typed(e, text);
    press(e, KeyCode::Enter);
}

#[tokio::test]
async fn a_damaged_mirror_is_said_once_the_service_still_answers_and_sync_rebuilds_it() {
    for how in [Damage::Truncated, Damage::Text, Damage::BitFlipped] {
        let dir = tempfile::tempdir().unwrap();
        let sb = synced_sandbox(dir.path(), 0).await;
        let path = location(dir.path(), &sb).db_path();
        damage(&path, how);
        let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 0));
        e.start();
        e.settle(QUIET).await;
        // The rows come from the service.
        let shown = e.app.tab().shown.as_ref().expect("rows shown");
        assert!(shown.page.mirrored.is_none(), "{how:?}: from the service");
        assert!(!shown.page.records.is_empty(), "{how:?}");
        // Searching reads the mirror again: still damaged, said once in all.
        key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
        typed(&mut e, "muller");
        e.settle(QUIET).await;
        press(&mut e, KeyCode::Esc);
        assert_eq!(said(&e, "The local mirror is damaged"), 1, "{how:?}");
        assert!(path.exists() && !std::fs::read(&path).unwrap().is_empty());
        let untouched = std::fs::read_dir(dir.path().join("mirror"))
            .unwrap()
            .flatten()
            .all(|f| !f.file_name().to_string_lossy().contains(".corrupt-"));
        assert!(untouched, "{how:?}: a read moves nothing");

        // `:sync` moves it aside, rebuilds it and says so; search finds again.
        command(&mut e, "sync");
        until_synced(&mut e).await;
        let summary = e.app.mirror.last_sync.clone().unwrap();
        assert!(
            summary.as_ref().is_ok_and(|s| s.contains("moved to")),
            "{how:?}: {summary:?}"
        );
        e.settle(QUIET).await;
        key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
        typed(&mut e, "muller");
        e.settle(QUIET).await;
        assert!(!search_dialog(&e).hits().is_empty(), "{how:?}: rebuilt");
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn cache_clear_is_refused_while_a_dashboard_holds_the_mirror_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let s = settings(dir.path(), 0);
    let mut e = engine(&sb.base_url(), &sb.token(), s.clone());
    e.start();
    e.settle(QUIET).await;
    let db = location(dir.path(), &sb).db_path();
    match crmdash::cli::cache::remove(&s, None) {
        Err(e @ MirrorError::InUse { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains(&format!("process {}", std::process::id()))
                    && text.contains("quit it first"),
                "{text}"
            );
        }
        other => panic!("refused while held: {other:?}"),
    }
    assert!(db.exists(), "nothing deleted");
    drop(e);
    let removed = crmdash::cli::cache::remove(&s, None).expect("deleted once the dashboard quit");
    assert!(removed.files.contains(&db), "{removed:?}");
    assert!(!db.exists());
    sb.shutdown().await;
}

#[tokio::test]
async fn sync_while_another_process_syncs_says_so_and_says_when_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    // Another sync of the same mirror (as `crmdash sync` in another terminal would hold it).
    let other = SyncLock::acquire(&location(dir.path(), &sb).lock_path()).unwrap();
    command(&mut e, "sync");
    let waiting = tokio::time::timeout(Duration::from_secs(30), async {
        while said(&e, "Another sync of the local mirror is running") == 0 {
            let m = e.next_message().await;
            e.handle(m);
        }
    })
    .await;
    assert!(waiting.is_ok(), "said that another sync runs");
    let note = &e.app.status.note.as_ref().unwrap().0;
    assert!(
        note.contains(&format!("(process {})", std::process::id()))
            && note.contains("its end will be said here"),
        "{note}"
    );
    assert!(
        e.app.mirror.last_sync.is_none(),
        "not over while the other runs"
    );
    drop(other);
    until_synced(&mut e).await;
    assert_eq!(said(&e, "Local mirror synced: the other sync"), 1);
    assert!(said(&e, "another sync was running") == 0);
    sb.shutdown().await;
}

#[tokio::test]
async fn a_contact_created_in_the_dashboard_is_found_by_ctrl_f_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    press(&mut e, KeyCode::Char('c'));
    typed(&mut e, "Zebulon");
    press(&mut e, KeyCode::Tab);
    typed(&mut e, "Quartermaine");
    press(&mut e, KeyCode::Tab);
    typed(&mut e, "zq@example.org");
    e.settle(QUIET).await;
    key(&mut e, KeyCode::Char('s'), KeyModifiers::CONTROL);
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert_eq!(sb.contacts_with_email("zq@example.org"), 1, "created");
    key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
    typed(&mut e, "quartermaine");
    e.settle(QUIET).await;
    let hits = search_dialog(&e).hits();
    assert!(
        hits.iter().any(|h| h.label.contains("Zebulon")),
        "found before any sync: {:?}",
        hits.iter().map(|h| &h.label).collect::<Vec<_>>()
    );
    sb.shutdown().await;
}
