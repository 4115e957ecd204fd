//! The Projects tab's timeline view (`T`): update() of toggling, selection, scrolling, scale
//! and Enter for the detail; snapshots at 80x24 and 160x45 (and 60x16) with fixed projects
//! and today fixed at `wall0()` (2026-11-22).

use crate::dashboard_support;

use crmdash::app::TabKind;
use crmdash::insights::timeline::Scale;
use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness, test_config};
use serde_json::{Value, json};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// Twelve projects with varied spans: running, planned, done, overdue, open-ended, undated.
fn data() -> FakeData {
    let mut d = FakeData::new(12);
    let spans: [(&str, Option<&str>, Option<&str>); 12] = [
        ("active", Some("2026-10-01"), Some("2026-12-20")),
        ("planned", Some("2026-12-07"), Some("2027-02-28")),
        ("completed", Some("2026-06-01"), Some("2026-10-31")),
        ("active", Some("2026-09-01"), Some("2026-11-15")), // overdue
        ("active", Some("2026-11-01"), None),               // open-ended
        ("on_hold", Some("2026-08-15"), Some("2027-01-31")),
        ("cancelled", Some("2026-10-10"), Some("2026-11-30")),
        ("active", None, None),                              // undated
        ("planned", Some("2027-06-01"), Some("2027-09-30")), // after the window
        ("done", Some("2025-01-01"), Some("2025-03-31")),    // before the window
        ("active", Some("2026-11-22T23:30:00Z"), Some("2026-11-29")),
        ("active", Some("2026-11-16"), Some("2026-11-21")), // overdue by a day
    ];
    for (p, (status, start, end)) in d.projects.iter_mut().zip(spans) {
        p["status"] = json!(status);
        p["start_date"] = start.map_or(Value::Null, |s| json!(s));
        p["end_date"] = end.map_or(Value::Null, |s| json!(s));
    }
    d
}

fn harness(size: (u16, u16)) -> Harness {
    let mut h = Harness::with(size, data(), test_config());
    h.answer_all();
    h.ch('3');
    h.answer_all();
    h
}

fn snap(name: &str, size: (u16, u16), screen: String) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen);
}

#[test]
fn t_toggles_the_timeline_on_the_projects_tab_without_fetching() {
    let mut h = Harness::with((80, 24), data(), test_config());
    h.answer_all();
    assert_ne!(h.app.active, TabKind::Projects);
    let fetched = h.fetches().len();
    h.ch('T');
    // From another tab, T switches to Projects (loading its page as a tab switch does).
    assert_eq!(h.app.active, TabKind::Projects);
    assert!(h.app.timeline_shown().is_some());
    h.answer_all();
    let after_switch = h.fetches().len();
    assert!(after_switch > fetched);
    let screen = h.render();
    assert!(screen.contains("Timeline"), "{screen}");
    assert!(screen.contains("this page"), "{screen}");
    assert!(h.app.hint_line(160).starts_with("T table"));
    h.ch('T');
    assert!(h.app.timeline_shown().is_none());
    assert!(!h.render().contains("Timeline"));
    h.ch('T');
    assert!(h.app.timeline_shown().is_some());
    h.key(KeyCode::Esc);
    assert!(h.app.timeline_shown().is_none());
    // Toggling never reads anything of its own.
    assert_eq!(h.fetches().len(), after_switch);
}

#[test]
fn selection_moves_over_the_bars_and_stays_in_range() {
    let mut h = harness((80, 24));
    h.ch('T');
    let n = h.app.timeline_bars().len();
    assert_eq!(n, 12);
    h.ch('j');
    h.ch('j');
    assert_eq!(h.app.timeline_shown().unwrap().selected, 2);
    h.ch('k');
    assert_eq!(h.app.timeline_shown().unwrap().selected, 1);
    h.ch('G');
    assert_eq!(h.app.timeline_shown().unwrap().selected, n - 1);
    h.ch('j');
    assert_eq!(h.app.timeline_shown().unwrap().selected, n - 1);
    let t = h.app.timeline_shown().unwrap();
    let visible = h.app.timeline_rows_visible();
    assert!(t.offset + visible > t.selected && t.offset <= t.selected);
    h.ch('g');
    assert_eq!(h.app.timeline_shown().unwrap().selected, 0);
    assert_eq!(h.app.timeline_shown().unwrap().offset, 0);
}

#[test]
fn left_right_scroll_one_column_and_z_cycles_the_scale() {
    let mut h = harness((80, 24));
    h.ch('T');
    assert_eq!(h.app.timeline_shown().unwrap().scale, Scale::Week);
    h.key(KeyCode::Right);
    h.ch('l');
    assert_eq!(h.app.timeline_shown().unwrap().shift, 2);
    h.app.dirty = false;
    h.key(KeyCode::Left);
    assert!(h.app.dirty);
    h.ch('h');
    h.ch('h');
    assert_eq!(h.app.timeline_shown().unwrap().shift, -1);
    h.ch('z');
    let t = h.app.timeline_shown().unwrap();
    assert_eq!((t.scale, t.shift), (Scale::Month, 0));
    assert!(h.render().contains("· months ·"));
    h.ch('z');
    assert_eq!(h.app.timeline_shown().unwrap().scale, Scale::Day);
    h.ch('z');
    assert_eq!(h.app.timeline_shown().unwrap().scale, Scale::Week);
}

#[test]
fn enter_opens_the_detail_of_the_selected_project() {
    let mut h = harness((80, 24));
    h.ch('T');
    for _ in 0..3 {
        h.ch('j');
    }
    let bar = h.app.timeline_bars()[3].clone();
    assert!(h.app.overlays.is_empty());
    h.key(KeyCode::Enter);
    assert_eq!(h.app.overlays.len(), 1);
    let screen = h.render();
    assert!(screen.contains(&bar.id), "{screen}");
    h.key(KeyCode::Esc);
    assert!(h.app.overlays.is_empty());
    assert!(h.app.timeline_shown().is_some());
}

#[test]
fn overdue_and_date_only_values_are_as_sent() {
    let h = harness((80, 24));
    let bars = h.app.timeline_bars();
    let overdue: Vec<&str> = bars
        .iter()
        .filter(|b| b.overdue)
        .map(|b| b.id.as_str())
        .collect();
    assert_eq!(overdue, ["p4", "p12"]);
    let p2 = bars.iter().find(|b| b.id == "p2").unwrap();
    assert_eq!(p2.start.unwrap().to_string(), "2026-12-07");
}

#[test]
fn snapshots_of_the_timeline() {
    for size in SIZES {
        let mut h = harness(size);
        h.ch('T');
        snap("timeline", size, h.render());
    }
    let mut h = harness((160, 45));
    h.ch('T');
    h.ch('z');
    h.ch('j');
    snap("timeline_month", (160, 45), h.render());
    let mut h = harness((80, 24));
    h.ch('T');
    h.ch('z');
    h.ch('z');
    snap("timeline_day", (80, 24), h.render());
    // At 60x16 the table is too small to show, so `3` does nothing; `T` opens the timeline
    // (which fits) on the Projects tab, whose page then loads.
    let mut h = harness((60, 16));
    h.ch('T');
    h.answer_all();
    snap("timeline", (60, 16), h.render());
}
