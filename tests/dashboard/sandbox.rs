//! The dashboard's effects run for real against the embedded sandbox (HTTP on 127.0.0.1,
//! port 0), without a terminal: first load, sorting by value, filtering by name, paging,
//! contacts, the detail JSON, export to CSV and JSON, and a slow link with stale answers.

use std::time::Duration;

use crmdash::api::SortDirection;
use crmdash::app::{Message, Resource};
use crmdash::config::Settings;
use crmdash::runtime::{DashboardOptions, Engine, build_engine};
use crmdash::sandbox::SandboxHandle;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rust_decimal::Decimal;

const QUIET: Duration = Duration::from_millis(400);

async fn start(
    latency: Option<Duration>,
    state: Option<std::path::PathBuf>,
) -> (SandboxHandle, Engine) {
    crate::dashboard_support::sandbox_engine(latency, (160, 48), state).await
}

async fn press(e: &mut Engine, code: KeyCode) {
    e.handle(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

async fn typed(e: &mut Engine, s: &str) {
    for c in s.chars() {
        press(e, KeyCode::Char(c)).await;
    }
}

fn value_column(e: &Engine) -> Vec<Decimal> {
    let cols = e.app.tab().resource.columns;
    let i = cols.iter().position(|c| c.title == "Value").unwrap();
    e.app
        .tab()
        .records()
        .iter()
        // `338,858.30 EUR`: the amount, grouped, then its currency.
        .filter_map(|r| {
            let amount = r.cells[i].text.split(' ').next()?.replace(',', "");
            amount.parse().ok()
        })
        .collect()
}

#[tokio::test]
async fn browse_sort_filter_page_against_the_sandbox() {
    let (sb, mut e) = start(None, None).await;
    let tab = e.app.tab();
    assert_eq!(tab.resource.kind, Resource::Deals);
    assert_eq!(tab.records().len(), 25);
    let meta = tab.shown.as_ref().unwrap().page.meta.unwrap();
    assert!(meta.total.unwrap() > 25);
    // The account column is filled: includes were requested for the visible columns.
    assert!(tab.records().iter().any(|r| r.cells[3].text != "-"));

    // Sort by value, descending.
    for _ in 0..3 {
        press(&mut e, KeyCode::Char('s')).await;
    }
    e.settle(QUIET).await;
    assert_eq!(e.app.tab().sort_by, "value");
    assert_eq!(e.app.tab().direction, SortDirection::Desc);
    let values = value_column(&e);
    assert!(values.len() >= 20);
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");

    // Page forward: page 2 continues the order.
    let last_on_1 = *values.last().unwrap();
    press(&mut e, KeyCode::Char('n')).await;
    e.settle(QUIET).await;
    assert_eq!(
        e.app
            .tab()
            .shown
            .as_ref()
            .unwrap()
            .page
            .meta
            .unwrap()
            .current_page,
        Some(2)
    );
    assert!(value_column(&e)[0] <= last_on_1);

    // Filter by name.
    press(&mut e, KeyCode::Char('/')).await;
    typed(&mut e, "a").await;
    press(&mut e, KeyCode::Enter).await;
    e.settle(QUIET).await;
    let tab = e.app.tab();
    assert_eq!(tab.page, 1);
    assert!(!tab.records().is_empty());
    assert!(
        tab.records()
            .iter()
            .all(|r| r.cells[0].text.to_lowercase().contains('a'))
    );

    // Detail JSON and copy.
    let fx_copy = {
        press(&mut e, KeyCode::Enter).await;
        assert!(!e.app.overlays.is_empty());
        e.handle(Message::Key(KeyEvent::new(
            KeyCode::Char('y'),
            KeyModifiers::NONE,
        )))
    };
    match fx_copy.as_slice() {
        [crmdash::runtime::TermAction::Copy(json)] => {
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            assert!(v["id"].as_str().unwrap().starts_with("deal_"));
        }
        other => panic!("{other:?}"),
    }
    sb.shutdown().await;
}

#[tokio::test]
async fn contacts_and_projects_load() {
    let (sb, mut e) = start(None, None).await;
    press(&mut e, KeyCode::Char('1')).await;
    e.settle(QUIET).await;
    let t = e.app.tab();
    assert_eq!(t.resource.kind, Resource::Contacts);
    assert_eq!(t.records().len(), 25);
    assert!(t.records().iter().all(|r| r.id.starts_with("con_")));
    press(&mut e, KeyCode::Char('3')).await;
    e.settle(QUIET).await;
    assert!(
        e.app
            .tab()
            .records()
            .iter()
            .all(|r| r.id.starts_with("prj_"))
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn export_writes_every_page_with_the_cli_writers() {
    let dir = tempfile::tempdir().unwrap();
    let (sb, mut e) = start(None, None).await;
    let total = e
        .app
        .tab()
        .shown
        .as_ref()
        .unwrap()
        .page
        .meta
        .unwrap()
        .total
        .unwrap() as usize;
    for (name, is_json) in [("deals.csv", false), ("deals.json", true)] {
        let path = dir.path().join(name);
        press(&mut e, KeyCode::Char('e')).await;
        // Replace the default name with our path.
        e.handle(Message::Key(KeyEvent::new(
            KeyCode::Char('u'),
            KeyModifiers::CONTROL,
        )));
        e.handle(Message::Paste(path.display().to_string()));
        press(&mut e, KeyCode::Enter).await;
        e.settle(QUIET).await;
        let text = std::fs::read_to_string(&path).unwrap();
        if is_json {
            let v: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
            assert_eq!(v.len(), total);
        } else {
            let rows = csv::Reader::from_reader(text.as_bytes()).records().count();
            assert_eq!(rows, total);
        }
        press(&mut e, KeyCode::Esc).await;
        assert!(e.app.overlays.is_empty());
    }
    sb.shutdown().await;
}

#[tokio::test]
async fn slow_link_shows_only_the_latest_answer() {
    let (sb, mut e) = start(Some(Duration::from_millis(300)), None).await;
    press(&mut e, KeyCode::Char('s')).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    press(&mut e, KeyCode::Char('s')).await;
    assert!(e.app.busy(), "the spinner runs while waiting");
    // Watch every intermediate state: never a page of the superseded sort.
    loop {
        if let Some(s) = &e.app.tab().shown {
            assert_ne!(s.spec.sort_by, "name", "a superseded page was shown");
        }
        if e.app.requests_in_flight() == 0 {
            break;
        }
        let m = e.next_message().await;
        e.handle(m);
    }
    assert_eq!(e.app.tab().shown.as_ref().unwrap().spec.sort_by, "status");
    sb.shutdown().await;
}

#[tokio::test]
async fn tabs_and_sorts_are_remembered_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state").join("dashboard.json");
    let (sb, mut e) = start(None, Some(state.clone())).await;
    press(&mut e, KeyCode::Char('3')).await;
    press(&mut e, KeyCode::Char('S')).await;
    e.settle(QUIET).await;
    let out = e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('q'),
        KeyModifiers::NONE,
    )));
    assert_eq!(out, [crmdash::runtime::TermAction::Quit]);
    sb.shutdown().await;
    let (sb, e) = start(None, Some(state)).await;
    assert_eq!(e.app.active, Resource::Projects);
    assert_eq!(e.app.tab().direction, SortDirection::Asc);
    assert_eq!(
        e.app.tab().shown.as_ref().unwrap().spec.direction,
        SortDirection::Asc
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn without_a_token_the_error_says_how_to_log_in() {
    let opts = DashboardOptions {
        profile: "work".into(),
        base_url: "https://crm.example.com".into(),
        client: None,
        settings: Settings::default(),
        state_file: None,
        log_path: None,
        demo: false,
    };
    let mut e = build_engine(&opts, (80, 24));
    e.start();
    e.settle(QUIET).await;
    // The login dialog is up and says it; skipped, the table and status bar say how.
    press(&mut e, KeyCode::Esc).await;
    let err = e.app.tab().error.clone().unwrap();
    assert!(
        err.contains("crmdash login") && err.contains("'work'"),
        "{err}"
    );
    assert_eq!(e.app.status.error.as_ref(), Some(&err));
}

#[tokio::test]
async fn dialog_writes_reach_the_sandbox_and_come_back_as_messages() {
    use crmdash::api::{IdempotencyKey, NewContact};
    use crmdash::app::{Effect, RequestId};
    let (sb, mut e) = start(None, None).await;
    let before = sb.contact_count();
    let contact = NewContact {
        first_name: Some("Ada".into()),
        last_name: Some("Lovelace".into()),
        email: Some("ada@example.com".into()),
        ..Default::default()
    };
    e.run(vec![Effect::CreateContact {
        id: RequestId(9_001),
        contact,
        key: IdempotencyKey::random(),
    }]);
    match answer(&mut e).await {
        Message::ContactCreated { id, result } if result.is_ok() => {
            let created = result.unwrap();
            assert_eq!(id, RequestId(9_001));
            assert_eq!(created.status, 201);
            assert_eq!(created.record.unwrap().full_name(), "Ada Lovelace");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(sb.contact_count(), before + 1);

    let appointment = sb.ids("appointments")[0].clone();
    let mut body = serde_json::Map::new();
    body.insert(
        "start_time".into(),
        serde_json::json!("2030-01-02T10:00:00Z"),
    );
    e.run(vec![Effect::Reschedule {
        id: RequestId(9_002),
        appointment_id: appointment.clone(),
        body,
    }]);
    match answer(&mut e).await {
        Message::Rescheduled { id, result } if result.is_ok() => {
            let a = result.unwrap();
            assert_eq!(id, RequestId(9_002));
            assert_eq!(a.id, appointment);
        }
        other => panic!("{other:?}"),
    }
    // Without a dialog to take them, the results are reported in the status bar.
    let m = Message::Rescheduled {
        id: RequestId(9_003),
        result: Box::new(Err(crmdash::api::ApiError::new(
            crmdash::api::ErrorKind::NotFound,
            "gone",
        ))),
    };
    e.handle(m);
    assert!(e.app.status.error.as_deref().unwrap().contains("gone"));
    sb.shutdown().await;
}

/// The next message that is not the request log's (each request is logged as it ends).
async fn answer(e: &mut crmdash::runtime::Engine) -> Message {
    loop {
        match e.next_message().await {
            Message::RequestLogged(_) | Message::WriteAdmitted { .. } => continue,
            m => return m,
        }
    }
}
