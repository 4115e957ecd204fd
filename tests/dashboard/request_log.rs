//! The request log (`W`, `:requests`) on the real engine against the sandbox: every request
//! of the session with the view that asked, the token masked everywhere, `Enter` showing one
//! whole, `y` copying a curl command line that works with `CRMDASH_TOKEN` set.

use crmdash::app::Message;
use crmdash::app::dialogs::Overlay;
use crmdash::runtime::TermAction;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::dashboard_support::{buffer_text, sandbox_engine};

fn key(c: KeyCode) -> Message {
    Message::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

fn screen(e: &crmdash::runtime::Engine) -> String {
    let (w, h) = e.app.size;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| crmdash::ui::render(&e.app, f)).unwrap();
    buffer_text(t.backend())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_lists_requests_masks_the_token_and_copies_a_working_curl_line() {
    let (sb, mut e) = sandbox_engine(None, (160, 45), None).await;
    let token = sb.token();
    let log = &e.app.requests.entries;
    assert!(!log.is_empty(), "the first page's request is logged");
    let first = &log[0];
    assert_eq!(first.exchange.method, "GET");
    assert_eq!(first.exchange.status, Some(200));
    assert_eq!(first.origin, e.app.active.title());
    assert!(first.exchange.size > 0);
    assert!(
        !format!("{log:?}").contains(&token),
        "the token is in the log"
    );

    e.handle(key(KeyCode::Char('W')));
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Requests(_))));
    let list = screen(&e);
    assert!(
        list.contains("Requests (") && list.contains("/public/v1/"),
        "{list}"
    );
    e.handle(key(KeyCode::Enter));
    // The request's lines are built once, when it is opened: the answer indented as JSON
    // before its cut, so even a long page reads as indented JSON up to the cut.
    let Some(Overlay::Requests(v)) = e.app.overlays.last() else {
        panic!("the log is open");
    };
    let lines = &v
        .detail
        .as_ref()
        .expect("Enter shows the request whole")
        .lines;
    assert!(lines.iter().any(|l| l == "  \"data\": ["), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.starts_with("      \"id\": ")),
        "{lines:#?}"
    );
    let whole = screen(&e);
    assert!(whole.contains("> authorization: Bearer ****"), "{whole}");
    assert!(
        whole.contains("\"data\""),
        "the answer's body is shown: {whole}"
    );
    assert!(!whole.contains(&token));

    let copied: Vec<String> = e
        .handle(key(KeyCode::Char('y')))
        .into_iter()
        .filter_map(|a| match a {
            TermAction::Copy(t) => Some(t),
            _ => None,
        })
        .collect();
    let line = copied.first().expect("y copies the request");
    assert!(
        line.contains("\"Authorization: Bearer $CRMDASH_TOKEN\""),
        "{line}"
    );
    assert!(!line.contains(&token), "{line}");
    if std::process::Command::new("curl")
        .arg("--version")
        .output()
        .is_ok()
    {
        let before = sb.requests().len();
        let out = tokio::task::spawn_blocking({
            let line = line.clone();
            move || {
                std::process::Command::new("sh")
                    .arg("-c")
                    .arg(format!("{line} --silent --show-error --fail"))
                    .env("CRMDASH_TOKEN", token)
                    .output()
                    .expect("sh runs")
            }
        })
        .await
        .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let body: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert!(body["data"].is_array());
        assert_eq!(sb.requests().len(), before + 1);
    }
    // Esc goes back to the list, again closes; `:requests` opens it too.
    e.handle(key(KeyCode::Esc));
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Requests(v)) if v.detail.is_none()));
    e.handle(key(KeyCode::Esc));
    assert!(e.app.overlays.is_empty());
    e.handle(key(KeyCode::Char(':')));
    for c in "requests".chars() {
        e.handle(key(KeyCode::Char(c)));
    }
    e.handle(key(KeyCode::Enter));
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Requests(_))));
}

#[test]
fn the_log_keeps_the_last_500_and_the_selection_stays_on_its_request() {
    use crmdash::api::exchange::Exchange;
    use crmdash::app::dialogs::requests::{KEPT, LoggedRequest, RequestLog, RequestLogView};
    let entry = |n: usize| {
        LoggedRequest::new(
            std::sync::Arc::new(Exchange {
                at: chrono::Utc::now(),
                method: "GET".into(),
                url: format!("http://127.0.0.1:9/public/v1/contacts?page={n}"),
                status: Some(200),
                error: None,
                elapsed: std::time::Duration::from_millis(3),
                request_headers: Vec::new(),
                request_body: None,
                response_headers: Vec::new(),
                response_body: String::new(),
                response_cut: false,
                size: 10,
            }),
            "Contacts",
        )
    };
    let mut log = RequestLog::default();
    for n in 0..KEPT {
        log.push(entry(n));
    }
    let mut view = RequestLogView::new(log.entries.len());
    view.selected = 10;
    let before = log.entries.len();
    let dropped = log.push(entry(KEPT));
    view.grew(before, log.entries.len(), dropped);
    assert_eq!(log.entries.len(), KEPT);
    assert!(log.entries[0].exchange.url.ends_with("page=1"));
    assert!(log.entries[view.selected].exchange.url.ends_with("page=10"));
    // On the newest, the view follows new requests.
    let mut view = RequestLogView::new(log.entries.len());
    let before = log.entries.len();
    let dropped = log.push(entry(KEPT + 1));
    view.grew(before, log.entries.len(), dropped);
    assert_eq!(view.selected, KEPT - 1);
}

/// Issue 44: a request's detail is read whole at 60x16: its URL wraps onto the next lines
/// instead of being cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_s_url_is_read_whole_at_60x16() {
    let (sb, mut e) = sandbox_engine(None, (60, 16), None).await;
    e.handle(key(KeyCode::Char('W')));
    e.handle(key(KeyCode::Enter));
    let Some(Overlay::Requests(v)) = e.app.overlays.last() else {
        panic!("the log is open");
    };
    let url = e.app.requests.entries[v.selected].exchange.url.clone();
    assert!(url.len() > 56, "a URL longer than the pane: {url}");
    let shown = screen(&e);
    // Its end shows (it used to be cut with `…` at the pane's edge), and its start.
    let tail: String = url
        .chars()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert!(shown.contains(&tail), "{tail} in\n{shown}");
    assert!(shown.contains(&url[..40]), "{url} in\n{shown}");
    sb.shutdown().await;
}
