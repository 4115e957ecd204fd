//! The key path does no work the key did not change: the status and hint lines are drawn
//! again only when what they show changed (`app::chrome`), whatever the number of frames.

use std::time::Duration;

use crmdash::app::chrome::Builds;
use crossterm::event::KeyCode;

use crate::dashboard_support::Harness;

fn builds(h: &Harness) -> Builds {
    h.app.chrome.builds.get()
}

#[test]
fn moving_the_selection_rebuilds_neither_the_status_nor_the_hint_line() {
    let mut h = Harness::new((160, 45));
    h.answer_all();
    let first = h.render();
    let before = builds(&h);
    let generation = h.app.chrome.generation;
    for _ in 0..5 {
        h.ch('j');
        h.render();
    }
    h.ch('k');
    let screen = h.render();
    assert_eq!(builds(&h), before, "j/k rebuilt a line");
    assert_eq!(h.app.chrome.generation, generation);
    // The rows copied are the rows drawn (status and hint at the bottom).
    let bottom = |s: &str| {
        s.lines()
            .rev()
            .take(2)
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(bottom(&screen), bottom(&first));
}

#[test]
fn each_line_is_rebuilt_once_when_what_it_shows_changes() {
    let mut h = Harness::new((160, 45));
    h.answer_all();
    h.render();
    let b0 = builds(&h);
    // The filter bar: other keys on the hint line, the same status.
    h.ch('/');
    h.render();
    h.render();
    let b1 = builds(&h);
    assert_eq!((b1.hint, b1.status), (b0.hint + 1, b0.status));
    assert!(h.render().contains("apply"), "the filter bar's hints");
    h.key(KeyCode::Esc);
    h.render();
    // The data's age moves a step: the status line only.
    let b2 = builds(&h);
    h.advance(Duration::from_secs(12));
    let screen = h.render();
    assert!(screen.contains("updated 10 s ago"), "{screen}");
    let b3 = builds(&h);
    assert_eq!((b3.hint, b3.status), (b2.hint, b2.status + 1));
    // A tick that changes nothing shown rebuilds nothing.
    h.advance(Duration::from_secs(1));
    h.render();
    assert_eq!(builds(&h), b3);
    // A resize draws both again, once.
    h.send(crmdash::app::Message::Resize(80, 24));
    h.render();
    h.render();
    let b4 = builds(&h);
    assert_eq!((b4.hint, b4.status), (b3.hint + 1, b3.status + 1));
}
