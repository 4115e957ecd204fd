//! The dashboard with the local mirror, for real against the embedded sandbox: the last known
//! rows at start, offline browsing after the service stops (sorting, paging, the offline
//! marker, a create refused with the form kept), back online on the next successful request,
//! the `Ctrl-F` search dialog, related records with `Backspace` back, and the background sync.

use std::time::Duration;

use crmdash::api::{Client, ClientOptions};
use crmdash::app::dialogs::Overlay;
use crmdash::app::{Message, Resource};
use crmdash::config::Settings;
use crmdash::mirror::MirrorLocation;
use crmdash::mirror::sync::{self, SyncOptions};
use crmdash::runtime::{DashboardOptions, Engine, attach_mirror, build_engine};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use secrecy::SecretString;

use crate::dashboard_support::buffer_text;

pub(crate) const QUIET: Duration = Duration::from_millis(500);

pub(crate) fn settings(dir: &std::path::Path, sync_every_minutes: u64) -> Settings {
    let mut s = Settings::default();
    s.cache.dir = Some(dir.join("mirror"));
    s.cache.sync_every_minutes = sync_every_minutes;
    s
}

fn client(base_url: &str, token: &str) -> Client {
    Client::with_options(
        base_url,
        SecretString::from(token.to_string()),
        ClientOptions {
            max_retries: 1,
            backoff_base: Duration::from_millis(10),
            connect_timeout: Duration::from_secs(2),
            ..ClientOptions::default()
        },
    )
    .unwrap()
}

/// A sandbox on `port` (0: any), synced into a mirror under `dir`.
pub(crate) async fn synced_sandbox(dir: &std::path::Path, port: u16) -> SandboxHandle {
    let sb = Sandbox::start(SandboxConfig {
        port,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let s = settings(dir, 0);
    let loc = MirrorLocation::for_settings(&s.cache, "test", &sb.base_url()).unwrap();
    sync::sync(
        &client(&sb.base_url(), &sb.token()),
        &loc,
        &SyncOptions::default(),
        &|_| {},
    )
    .await
    .expect("sync");
    sb
}

pub(crate) fn engine(base_url: &str, token: &str, settings: Settings) -> Engine {
    let opts = DashboardOptions {
        profile: "test".into(),
        base_url: base_url.to_string(),
        client: Some(client(base_url, token)),
        settings,
        state_file: None,
        log_path: None,
        demo: false,
    };
    let mut engine = attach_mirror(build_engine(&opts, (120, 30)), &opts);
    // The write gate has its own tests (safe_writes): here writes go out at once, and no
    // test writes the journal in the real data directory.
    engine
        .app
        .set_safety(crate::dashboard_support::test_safety());
    engine
}

/// A sandbox (synced into a mirror, or not) and the dashboard started against it, settled.
pub(crate) async fn started(synced: bool) -> (tempfile::TempDir, SandboxHandle, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let sb = if synced {
        synced_sandbox(dir.path(), 0).await
    } else {
        Sandbox::start(SandboxConfig::default()).await.unwrap()
    };
    let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    (dir, sb, e)
}

pub(crate) fn key(e: &mut Engine, code: KeyCode, m: KeyModifiers) {
    e.handle(Message::Key(KeyEvent::new(code, m)));
}

pub(crate) fn press(e: &mut Engine, code: KeyCode) {
    key(e, code, KeyModifiers::NONE);
}

pub(crate) fn typed(e: &mut Engine, s: &str) {
    for c in s.chars() {
        press(e, KeyCode::Char(c));
    }
}

pub(crate) fn screen(e: &Engine) -> String {
    let (w, h) = e.app.size;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| crmdash::ui::render(&e.app, f)).unwrap();
    buffer_text(t.backend())
}

pub(crate) fn search_dialog(e: &Engine) -> &crmdash::app::dialogs::search::SearchDialog {
    e.app
        .overlays
        .iter()
        .find_map(|o| match o {
            Overlay::Search(d) => Some(d.as_ref()),
            _ => None,
        })
        .expect("the search dialog is open")
}

fn mirrored(e: &Engine) -> bool {
    e.app
        .tab()
        .shown
        .as_ref()
        .is_some_and(|s| s.page.mirrored.is_some())
}

#[tokio::test]
async fn offline_start_browses_the_mirror_and_refuses_a_create() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let (base, token) = (sb.base_url(), sb.token());
    sb.shutdown().await;

    let mut e = engine(&base, &token, settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    assert!(e.app.is_offline(), "connection refused: offline");
    assert!(mirrored(&e), "rows from the mirror");
    assert_eq!(e.app.tab().records().len(), 25);
    let text = screen(&e);
    assert!(text.contains("offline · data from "), "{text}");
    assert!(
        !text.contains("from mirror · "),
        "said once, by the offline marker: {text}"
    );
    assert!(
        e.app.tab().error.is_none(),
        "no error beside the offline marker"
    );

    // Sorting and paging work from the mirror.
    let first_before = e.app.tab().records()[0].id.clone();
    press(&mut e, KeyCode::Char('S'));
    e.settle(QUIET).await;
    assert!(mirrored(&e));
    assert_ne!(
        e.app.tab().records()[0].id,
        first_before,
        "direction flipped"
    );
    press(&mut e, KeyCode::Char('n'));
    e.settle(QUIET).await;
    assert_eq!(e.app.tab().shown.as_ref().unwrap().spec.page, 2);
    assert!(mirrored(&e));

    // Filtering too: the name filter of the Deals tab.
    press(&mut e, KeyCode::Char('2'));
    e.settle(QUIET).await;
    assert_eq!(e.app.active, Resource::Deals);
    assert!(mirrored(&e));
    let name = e.app.tab().records()[0].label.clone();
    let word: String = name.split_whitespace().next().unwrap().to_string();
    press(&mut e, KeyCode::Char('/'));
    typed(&mut e, &word);
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(mirrored(&e));
    let rows = e.app.tab().records();
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r.label.to_lowercase().contains(&word.to_lowercase())),
        "{word}"
    );

    // A create is refused at once with a clear message; the form keeps what was typed.
    press(&mut e, KeyCode::Char('1'));
    press(&mut e, KeyCode::Char('c'));
    typed(&mut e, "Offline");
    press(&mut e, KeyCode::Tab);
    press(&mut e, KeyCode::Tab);
    typed(&mut e, "offline.user@example.com");
    e.settle(QUIET).await;
    key(&mut e, KeyCode::Char('s'), KeyModifiers::CONTROL);
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let form = e
        .app
        .overlays
        .iter()
        .find_map(|o| match o {
            Overlay::ContactForm(f) => Some(f.as_ref()),
            _ => None,
        })
        .expect("the form stays open");
    let banner = form.banner.clone().unwrap_or_default();
    assert!(
        banner.contains("offline") && banner.contains("nothing was sent"),
        "{banner}"
    );
    assert_eq!(form.inputs[0].value(), "Offline");
    assert_eq!(form.inputs[2].value(), "offline.user@example.com");
}

#[tokio::test]
async fn back_online_on_the_next_successful_request() {
    let dir = tempfile::tempdir().unwrap();
    // A port of our own, so the service can come back on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let sb = synced_sandbox(dir.path(), port).await;
    let (base, token) = (sb.base_url(), sb.token());
    sb.shutdown().await;
    let mut e = engine(&base, &token, settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    assert!(e.app.is_offline());

    let sb = Sandbox::start(SandboxConfig {
        port,
        token: token.clone(),
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    // `r` asks the service again.
    press(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    assert!(!e.app.is_offline(), "online again");
    assert!(!mirrored(&e), "the service's rows replace the mirror's");
    let note = crate::dashboard_support::note_of(&e.app);
    assert!(note.contains("Online again"), "{note}");
    sb.shutdown().await;
}

#[tokio::test]
async fn search_dialog_finds_without_accents_and_opens_the_record() {
    let (_dir, sb, mut e) = started(true).await;
    key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
    typed(&mut e, "muller");
    e.settle(QUIET).await;
    let d = search_dialog(&e);
    let hits = d.hits();
    assert!(!hits.is_empty(), "muller finds Müller");
    assert!(hits.iter().any(|h| h.label.contains("Müller")));
    let text = screen(&e);
    assert!(text.contains("Contacts 20+"), "{text}");
    assert!(text.contains("Deals"), "{text}");
    let first = hits[0].id.clone();
    press(&mut e, KeyCode::Enter);
    match e.app.overlays.last() {
        Some(Overlay::Detail(v)) => assert!(v.title.contains(&first), "{}", v.title),
        _ => panic!("Enter opens the detail"),
    }
    // Esc comes back to the results.
    press(&mut e, KeyCode::Esc);
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Search(_))));
    sb.shutdown().await;
}

/// A first sync stopped half way leaves contacts without their search entries: the search
/// dialog says they are not searchable yet (as `crmdash search` does on stderr).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_says_what_an_interrupted_first_sync_left_unsearchable() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let s = settings(dir.path(), 0);
    let loc = MirrorLocation::for_settings(&s.cache, "test", &sb.base_url()).unwrap();
    // The service fails once 300 contacts were read: the pass stops in its bulk phase.
    let failing = std::sync::atomic::AtomicBool::new(false);
    let stop = |p: &sync::SyncProgress| {
        if p.fetched >= 300 && !failing.swap(true, std::sync::atomic::Ordering::SeqCst) {
            let fault = serde_json::json!({
                "kind": "server_error", "status": 503, "path": "/contacts", "times": 0
            });
            sb.faults().add(serde_json::from_value(fault).unwrap());
        }
    };
    let contacts_only = SyncOptions {
        resources: vec![Resource::Contacts],
        // One read at a time: with more, the reads already out when the service starts
        // failing can finish the whole pass (1,000 contacts) before any 503 comes back.
        jobs: 1,
        ..SyncOptions::default()
    };
    let client = client(&sb.base_url(), &sb.token());
    sync::sync(&client, &loc, &contacts_only, &stop)
        .await
        .expect_err("stopped by the 503s");
    sb.faults().clear();
    let mut e = engine(&sb.base_url(), &sb.token(), s);
    e.start();
    e.settle(QUIET).await;
    key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
    typed(&mut e, "example");
    e.settle(QUIET).await;
    let d = search_dialog(&e);
    let unsearchable = &d.results.as_ref().expect("searched").unsearchable;
    assert_eq!(unsearchable, &[Resource::Contacts]);
    let text = screen(&e);
    assert!(
        text.contains("Contacts are not searchable yet: their first sync stopped"),
        "{text}"
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn search_without_a_mirror_says_how_to_get_one() {
    let (_dir, sb, mut e) = started(false).await;
    key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
    typed(&mut e, "ada");
    e.settle(QUIET).await;
    let text = screen(&e);
    assert!(text.contains("No local mirror yet"), "{text}");
    assert!(text.contains("crmdash sync"), "{text}");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_deals_account_and_contacts_and_back_with_backspace() {
    let (_dir, sb, mut e) = started(true).await;
    press(&mut e, KeyCode::Char('2'));
    e.settle(QUIET).await;
    // A deal with contacts.
    let with_contacts = e
        .app
        .tab()
        .records()
        .iter()
        .position(|r| r.raw.contains("\"contact_ids\":[\"") && r.raw.contains("\"account_id\":\""))
        .expect("a deal with an account and contacts");
    for _ in 0..with_contacts {
        press(&mut e, KeyCode::Char('j'));
    }
    press(&mut e, KeyCode::Enter);
    press(&mut e, KeyCode::Char('R'));
    e.settle(QUIET).await;
    let related = match e.app.overlays.last() {
        Some(Overlay::Related(r)) => r,
        _ => panic!("o lists the related records"),
    };
    let items = related.items();
    assert!(
        items
            .iter()
            .any(|i| i.kind == crmdash::app::mirror::LinkKind::Account)
    );
    let contact = items
        .iter()
        .position(|i| i.kind == crmdash::app::mirror::LinkKind::Record(Resource::Contacts))
        .expect("a contact");
    let contact_id = items[contact].id.clone();
    let text = screen(&e);
    assert!(
        text.contains("Account") && text.contains("Contacts"),
        "{text}"
    );
    for _ in 0..contact {
        press(&mut e, KeyCode::Char('j'));
    }
    press(&mut e, KeyCode::Enter);
    match e.app.overlays.last() {
        Some(Overlay::Detail(v)) => assert!(v.title.contains(&contact_id), "{}", v.title),
        _ => panic!("Enter opens the contact"),
    }
    // From the contact: its deals, the one we came from among them.
    press(&mut e, KeyCode::Char('R'));
    e.settle(QUIET).await;
    match e.app.overlays.last() {
        Some(Overlay::Related(r)) => assert!(!r.items().is_empty(), "the contact's deals"),
        _ => panic!("o on a contact lists its deals"),
    }
    // Backspace unwinds: deals list, contact, related of the deal, the deal.
    let depth = e.app.overlays.len();
    for n in 1..=3 {
        press(&mut e, KeyCode::Backspace);
        assert_eq!(e.app.overlays.len(), depth - n);
    }
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Detail(_))));
    sb.shutdown().await;
}

#[tokio::test]
async fn background_sync_fills_the_mirror_and_reports_progress() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 15));
    e.start();
    // A search typed before there is a mirror runs again once the sync made one.
    key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
    typed(&mut e, "muller");
    let mut progress_seen = false;
    let done = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let m = e.next_message().await;
            e.handle(m);
            if e.app.mirror.syncing.as_ref().is_some_and(|p| p.is_some()) {
                progress_seen = true;
                assert!(screen(&e).contains("syncing "));
            }
            if e.app.mirror.last_sync.is_some() {
                break;
            }
        }
    })
    .await;
    assert!(done.is_ok(), "the sync ended");
    assert!(progress_seen, "progress on the status line");
    let summary = e.app.mirror.last_sync.clone().unwrap();
    assert!(summary.is_ok(), "{summary:?}");
    let loc = MirrorLocation::for_settings(&settings(dir.path(), 15).cache, "test", &sb.base_url())
        .unwrap();
    assert!(loc.db_path().exists());
    e.settle(QUIET).await;
    assert!(
        !search_dialog(&e).hits().is_empty(),
        "searched again after the sync"
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn cache_disabled_keeps_nothing_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let mut s = settings(dir.path(), 1);
    s.cache.enabled = false;
    let mut e = engine(&sb.base_url(), &sb.token(), s);
    e.start();
    e.settle(QUIET).await;
    assert!(e.mirror().is_none());
    assert!(e.app.mirror.sync_due.is_none(), "no background sync");
    key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
    let text = screen(&e);
    assert!(text.contains("turned off"), "{text}");
    assert!(!dir.path().join("mirror").exists());
    sb.shutdown().await;
}

#[tokio::test]
async fn the_first_frame_has_the_mirrors_rows_marked_then_the_services() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 0));
    // What `run_dashboard` does before its first frame.
    e.preload_mirror(Duration::from_secs(10)).await;
    assert!(mirrored(&e), "rows before any request");
    assert_eq!(e.app.requests_in_flight(), 0);
    let text = screen(&e);
    assert!(text.contains("from mirror · "), "{text}");
    assert!(text.contains("page 1/"), "{text}");
    e.start();
    e.settle(QUIET).await;
    assert!(!mirrored(&e), "the service's answer replaces them");
    assert!(!e.app.is_offline());
    assert!(!screen(&e).contains("from mirror"));
    sb.shutdown().await;
}

/// Requests the sandbox received for a list path (`deals`, `projects`).
fn list_requests(sb: &SandboxHandle, path: &str) -> usize {
    let full = format!("/public/v1/{path}");
    sb.requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path == full)
        .count()
}

#[tokio::test]
async fn pipeline_and_timeline_read_the_mirrors_complete_copy_and_r_asks_the_service() {
    let (_dir, sb, mut e) = started(true).await;
    let deals_before = list_requests(&sb, "deals");
    press(&mut e, KeyCode::Char('2'));
    e.settle(QUIET).await;
    let deals_before = deals_before.max(list_requests(&sb, "deals"));
    press(&mut e, KeyCode::Char('P'));
    e.settle(QUIET).await;
    let (mirror_summary, mirror_cov) = {
        let (s, c) = e.app.pipeline.as_ref().unwrap().summary().expect("summary");
        (s.clone(), *c)
    };
    assert!(mirror_cov.synced_at.is_some(), "read from the mirror");
    assert!(!mirror_cov.partial);
    assert_eq!(
        list_requests(&sb, "deals"),
        deals_before,
        "no request for the pipeline's reading"
    );
    let text = screen(&e);
    assert!(text.contains("from the local mirror, synced"), "{text}");

    // `r` reads the service: the same figures, and it says nothing of the mirror.
    press(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    let (s, c) = e.app.pipeline.as_ref().unwrap().summary().expect("summary");
    assert!(c.synced_at.is_none(), "read from the service");
    assert!(list_requests(&sb, "deals") >= deals_before + 5);
    assert_eq!(s.by_status, mirror_summary.by_status);
    assert_eq!(s.deals, mirror_summary.deals);

    // The timeline: every project, from the mirror, without a request.
    let projects_before = list_requests(&sb, "projects");
    press(&mut e, KeyCode::Char('T'));
    e.settle(QUIET).await;
    let projects_after_switch = list_requests(&sb, "projects");
    assert!(
        projects_after_switch - projects_before <= 2,
        "the tab's page only"
    );
    let t = e.app.timeline_shown().expect("timeline");
    assert!(t.coverage().unwrap().synced_at.is_some());
    let mut ids: Vec<String> = e.app.timeline_bars().iter().map(|b| b.id.clone()).collect();
    ids.sort();
    let mut want = sb.ids("projects");
    want.sort();
    assert_eq!(ids, want);
    assert!(screen(&e).contains("projects (mirror, "), "{}", screen(&e));
}

#[tokio::test]
async fn offline_the_pipeline_still_reads_the_mirror() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let want = sb.ids("deals").len() as u64;
    let (base, token) = (sb.base_url(), sb.token());
    sb.shutdown().await;
    let mut e = engine(&base, &token, settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    assert!(e.app.is_offline());
    press(&mut e, KeyCode::Char('P'));
    e.settle(QUIET).await;
    let (s, c) = e
        .app
        .pipeline
        .as_ref()
        .unwrap()
        .summary()
        .expect("summary offline");
    assert_eq!(s.deals, want);
    assert!(c.synced_at.is_some());
}

#[tokio::test]
async fn offline_the_probe_asks_the_service_once_without_retries() {
    use crmdash::sandbox::{FaultKind, FaultRule};
    let (_dir, sb, mut e) = started(true).await;
    let path = e.app.active.noun().to_string();
    // Every list request of the tab now loses its connection: unreachable, so offline.
    sb.faults().add(
        FaultRule::new(FaultKind::DropAfterCommit)
            .method("GET")
            .always(),
    );
    press(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    assert!(e.app.is_offline(), "{}", screen(&e));
    // `r` offline: the rows come from the mirror and one probe asks the service, once (the
    // test's client would otherwise try twice).
    let before = list_requests(&sb, &path);
    press(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    assert_eq!(list_requests(&sb, &path) - before, 1, "one attempt");
    assert!(e.app.is_offline());
    assert!(!screen(&e).contains("retrying"), "{}", screen(&e));
}

#[tokio::test]
async fn on_a_narrow_screen_the_mirror_mark_outlasts_the_page_position() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let mut e = engine(&sb.base_url(), &sb.token(), settings(dir.path(), 0));
    e.handle(Message::Resize(66, 24));
    e.preload_mirror(Duration::from_secs(10)).await;
    // The first frame's requests are in flight: `⠹ loading` beside the mirror's mark.
    e.start();
    assert!(e.app.busy());
    let text = screen(&e);
    let status = text.lines().nth(22).unwrap_or_default();
    assert!(status.contains("from mirror · "), "{status}");
    assert!(status.contains("loading"), "{status}");
    e.settle(QUIET).await;
    sb.shutdown().await;
}

#[tokio::test]
async fn offline_an_export_is_read_from_the_mirror() {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let want = sb.ids("deals").len();
    let (base, token) = (sb.base_url(), sb.token());
    sb.shutdown().await;
    let mut e = engine(&base, &token, settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    assert!(e.app.is_offline());
    press(&mut e, KeyCode::Char('2'));
    e.settle(QUIET).await;
    let out = dir.path().join("deals.csv");
    press(&mut e, KeyCode::Char('e'));
    e.handle(Message::Paste(out.display().to_string()));
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let text = std::fs::read_to_string(&out).expect("the export was written");
    // A header, then every mirrored deal, in the CLI's columns.
    assert!(text.starts_with("id,"), "{}", &text[..80.min(text.len())]);
    assert_eq!(text.lines().count(), want + 1);
    let note = crate::dashboard_support::note_of(&e.app);
    assert!(note.contains("read from the local mirror"), "{note}");
}
