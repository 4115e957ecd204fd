//! The effect runner (`runtime::Engine`) with a fake source on tokio's paused clock: typed
//! filter text waits for the debounce, superseded requests are aborted, the spinner only
//! runs while something is in flight.

use crate::dashboard_support;

use std::time::Duration;

use crmdash::app::persist::PersistedState;
use crmdash::app::{App, Message, Now};
use crmdash::runtime::Engine;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use dashboard_support::{FakeData, FakeSource, test_config};

fn key(c: char) -> Message {
    Message::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn engine(delay: Duration) -> (Engine, std::sync::Arc<FakeSource>) {
    let source = FakeSource::new(FakeData::new(60), delay);
    let app = App::new(
        test_config(),
        &PersistedState::default(),
        (120, 40),
        Now::current(),
    );
    let e = Engine::new(app, Some(source.clone()), "no source", None);
    (e, source)
}

#[tokio::test(start_paused = true)]
async fn typing_waits_for_the_debounce_then_sends_one_request() {
    let (mut e, source) = engine(Duration::from_millis(50));
    e.start();
    e.settle(Duration::from_millis(300)).await;
    let base = source.calls();
    assert_eq!(base, 2, "page 1 and the prefetch of page 2");
    e.handle(key('/'));
    for c in "acme".chars() {
        e.handle(key(c));
        tokio::time::advance(Duration::from_millis(100)).await;
        // The deadline keeps moving while typing: nothing is sent.
        if let Some(d) = e.app.next_deadline()
            && d <= tokio::time::Instant::now()
        {
            e.handle(Message::Tick);
        }
    }
    assert_eq!(e.app.requests_in_flight(), 0, "no request while typing");
    tokio::time::advance(Duration::from_millis(160)).await;
    e.handle(Message::Tick);
    assert_eq!(e.app.requests_in_flight(), 1);
    e.settle(Duration::from_millis(300)).await;
    assert_eq!(source.calls(), base + 1, "one request for the whole word");
    let last = source.seen.lock().unwrap().last().unwrap().clone();
    assert_eq!(last.filter_summary(), "name=acme");
    assert!(
        e.app
            .tab()
            .records()
            .iter()
            .all(|r| r.label.to_lowercase().contains("acme"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_superseded_request_is_aborted_and_never_shown() {
    let (mut e, source) = engine(Duration::from_millis(500));
    e.start();
    e.settle(Duration::from_millis(600)).await;
    e.handle(key('s')); // name
    tokio::time::advance(Duration::from_millis(100)).await;
    e.handle(key('s')); // status: the name request is cancelled
    e.settle(Duration::from_millis(600)).await;
    let shown = e.app.tab().shown.as_ref().unwrap();
    assert_eq!(shown.spec.sort_by, "status");
    assert!(source.calls() >= 4);
    assert_eq!(e.app.requests_in_flight(), 0);
}

#[tokio::test(start_paused = true)]
async fn spinner_turns_only_while_a_request_is_in_flight() {
    let (mut e, _source) = engine(Duration::from_millis(500));
    e.start();
    assert!(e.app.busy());
    let d = e.app.next_deadline().unwrap();
    assert!(
        d - tokio::time::Instant::now() <= Duration::from_millis(100),
        "spinner deadline"
    );
    e.settle(Duration::from_millis(600)).await;
    assert!(!e.app.busy());
    let d = e.app.next_deadline().unwrap();
    assert!(
        d - tokio::time::Instant::now() >= Duration::from_secs(9),
        "only the age label is left"
    );
}
