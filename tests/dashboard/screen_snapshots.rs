//! Whole-screen snapshots of the dashboard at 80x24 and 160x48: each tab, the filter bar,
//! the detail pane, help, and the empty, error, loading and too-small states. Fixed data,
//! UTC display zone and a hand-moved clock keep them stable.

use crate::dashboard_support;

use std::time::Duration;

use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness, test_config};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn snap(name: &str, size: (u16, u16), screen: String) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen);
}

fn loaded(size: (u16, u16)) -> Harness {
    let mut h = Harness::new(size);
    h.answer_all();
    h.advance(Duration::from_secs(12));
    h
}

#[test]
fn deals_tab() {
    for size in SIZES {
        let h = loaded(size);
        snap("deals", size, h.render());
    }
}

#[test]
fn contacts_tab() {
    for size in SIZES {
        let mut h = loaded(size);
        h.ch('1');
        h.answer_all();
        snap("contacts", size, h.render());
    }
}

#[test]
fn projects_tab() {
    for size in SIZES {
        let mut h = loaded(size);
        h.ch('3');
        h.answer_all();
        snap("projects", size, h.render());
    }
}

#[test]
fn filter_bar_with_status_suggestions() {
    for size in SIZES {
        let mut h = loaded(size);
        h.ch('/');
        h.type_str("acme");
        h.key(KeyCode::Tab);
        h.ch('w');
        h.advance(Duration::from_millis(300));
        h.answer_all();
        snap("filter_bar", size, h.render());
    }
}

#[test]
fn contacts_filter_with_bad_date() {
    for size in SIZES {
        let mut h = loaded(size);
        h.ch('1');
        h.answer_all();
        h.ch('/');
        h.key(KeyCode::Tab);
        h.key(KeyCode::Tab);
        h.type_str("not a date");
        h.advance(Duration::from_millis(300));
        snap("contacts_filter_error", size, h.render());
    }
}

#[test]
fn detail_pane() {
    for size in SIZES {
        let mut h = loaded(size);
        h.ch('j');
        h.key(KeyCode::Enter);
        snap("detail", size, h.render());
    }
}

#[test]
fn help_overlay() {
    for size in SIZES {
        let mut h = loaded(size);
        h.ch('?');
        snap("help", size, h.render());
    }
}

#[test]
fn empty_state_names_the_filter() {
    for size in SIZES {
        let mut h = loaded(size);
        h.ch('/');
        h.key(KeyCode::Tab);
        h.type_str("nothing-like-this");
        h.key(KeyCode::Enter);
        h.answer_all();
        let screen = h.render();
        assert!(
            screen.contains("No deals match status=nothing-like-this"),
            "{screen}"
        );
        snap("empty", size, screen);
    }
}

#[test]
fn error_state_offers_retry() {
    for size in SIZES {
        let mut h = Harness::new(size);
        h.fail(
            0,
            "Unauthorized (401): the token was rejected - run `crmdash login` (Unauthenticated.)",
        );
        let screen = h.render();
        assert!(screen.contains("Press r to retry."), "{screen}");
        snap("error", size, screen);
    }
}

#[test]
fn loading_state() {
    let h = Harness::new((80, 24));
    let screen = h.render();
    assert!(screen.contains("Loading deals…"), "{screen}");
    snap("loading", (80, 24), screen);
}

#[test]
fn too_small_notice() {
    let h = Harness::new((59, 20));
    let screen = h.render();
    assert!(screen.contains("Terminal too small"));
    assert!(screen.contains("at least 60x16"), "{screen}");
    snap("too_small", (59, 20), screen);
    // One row short is too small too; 60x16 itself is the table.
    assert!(
        Harness::new((60, 15))
            .render()
            .contains("Terminal too small")
    );
    assert!(
        !Harness::new((60, 16))
            .render()
            .contains("Terminal too small")
    );
}

#[test]
fn unpaged_contacts_show_the_whole_list() {
    let mut data = FakeData::new(40);
    data.contacts_unpaged = true;
    let mut h = Harness::with((80, 24), data, test_config());
    h.answer_all();
    h.ch('1');
    h.answer_all();
    h.key(KeyCode::PageDown);
    let screen = h.render();
    assert!(screen.contains("all 40 contacts"), "{screen}");
    snap("contacts_unpaged", (80, 24), screen);
}
