//! `App::update` driven by key events, asserting on state and effects: sort cycling, paging
//! bounds, stale responses dropped, per-tab state kept, prefetch and cache decisions,
//! includes, per_page steps, quitting.

use crate::dashboard_support;

use std::time::Duration;

use crmdash::api::SortDirection;
use crmdash::app::{Effect, Resource};
use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness};

fn loaded() -> Harness {
    let mut h = Harness::new((120, 40));
    h.answer_all();
    h
}

#[test]
fn initial_query_is_explicit() {
    let h = Harness::new((120, 40));
    let first = h.fetches()[0].clone();
    assert_eq!(first.kind, Resource::Deals);
    assert_eq!(
        (first.sort_by, first.direction),
        ("updated_at", SortDirection::Desc)
    );
    assert_eq!((first.page, first.per_page), (1, 25));
    assert_eq!(first.includes, ["account", "assigned_user"]);
}

#[test]
fn s_cycles_exactly_the_seed_sort_keys_and_requeries() {
    let mut h = loaded();
    let mut seen = vec![h.app.tab().sort_by];
    for i in 0..5 {
        let fx = h.ch('s');
        // The fifth press comes back to the first key, whose page is still cached.
        assert!(i == 4 || fx.iter().any(|e| matches!(e, Effect::Fetch { spec, .. } if spec.sort_by == h.app.tab().sort_by && spec.page == 1)));
        seen.push(h.app.tab().sort_by);
        h.answer_all();
    }
    assert_eq!(
        seen,
        [
            "updated_at",
            "name",
            "status",
            "value",
            "created_at",
            "updated_at"
        ]
    );
    h.ch('S');
    assert_eq!(h.app.tab().direction, SortDirection::Asc);
    assert_eq!(h.fetches().last().unwrap().direction, SortDirection::Asc);
}

#[test]
fn paging_stops_at_the_bounds() {
    let mut h = loaded();
    assert!(h.ch('p').is_empty(), "no page before 1");
    // 60 deals at 25 a page: 3 pages.
    for expected in [2, 3] {
        h.ch('n');
        h.answer_all();
        assert_eq!(h.app.tab().page, expected);
    }
    let before = h.fetches().len();
    h.ch('n');
    assert_eq!(h.app.tab().page, 3);
    assert_eq!(h.fetches().len(), before, "no request past the last page");
    h.key(KeyCode::PageUp);
    assert_eq!(h.app.tab().page, 2);
}

#[test]
fn per_page_steps_through_the_allowed_sizes() {
    let mut h = loaded();
    for expected in [50, 100, 100] {
        h.ch('+');
        h.answer_all();
        assert_eq!(h.app.tab().per_page, expected);
    }
    assert!(h.fetches().iter().all(|s| s.per_page <= 100));
    for expected in [50, 25, 10, 10] {
        h.ch('-');
        h.answer_all();
        assert_eq!(h.app.tab().per_page, expected);
    }
}

#[test]
fn stale_responses_are_dropped() {
    let mut h = loaded();
    h.ch('s'); // sort by name: request A
    h.ch('s'); // sort by status: request B supersedes A
    assert!(h.effects.iter().any(|e| matches!(e, Effect::Cancel(_))));
    // A's answer arrives anyway (the abort raced): it must not be shown.
    let stale_spec = h.fetches()[h.fetches().len() - 2].clone();
    let page = std::sync::Arc::new(h.data.page(&stale_spec));
    let stale_id = h
        .effects
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::Cancel(id) => Some(*id),
            _ => None,
        })
        .unwrap();
    h.send(crmdash::app::Message::Fetched {
        id: stale_id,
        result: Ok(page),
        elapsed: Duration::ZERO,
    });
    assert_ne!(h.app.tab().shown.as_ref().unwrap().spec.sort_by, "name");
    h.answer_all();
    assert_eq!(h.app.tab().shown.as_ref().unwrap().spec.sort_by, "status");
}

#[test]
fn tabs_keep_their_own_state() {
    let mut h = loaded();
    h.ch('s');
    h.answer_all();
    h.ch('j');
    h.ch('j');
    h.ch('n');
    h.answer_all();
    h.ch('j');
    h.ch('3');
    h.answer_all();
    h.ch('S');
    h.answer_all();
    h.ch('2');
    let t = h.app.tab();
    assert_eq!((t.sort_by, t.page, t.selected), ("name", 2, 1));
    assert_eq!(
        h.app.tab_of(Resource::Projects).direction,
        SortDirection::Asc
    );
    // Back on a loaded tab: nothing to fetch.
    let before = h.fetches().len();
    h.ch('3');
    h.ch('2');
    assert_eq!(h.fetches().len(), before);
}

#[test]
fn next_page_is_prefetched_once_and_then_served_from_cache() {
    let mut h = Harness::new((120, 40));
    h.answer(0);
    // Settled on page 1: exactly one prefetch of page 2.
    let prefetches: Vec<_> = h.pending.iter().map(|(_, s)| s.page).collect();
    assert_eq!(prefetches, [2]);
    h.answer_all();
    h.ch('j'); // more messages on the same settled query: no second prefetch
    assert!(h.pending.is_empty());
    let before = h.fetches().len();
    h.ch('n');
    assert_eq!(
        h.app.tab().shown.as_ref().unwrap().spec.page,
        2,
        "page 2 comes from the cache at once"
    );
    // ...and page 3 is prefetched in turn.
    assert_eq!(h.fetches().len(), before + 1);
    assert_eq!(h.fetches().last().unwrap().page, 3);
    h.answer_all();
    h.ch('p');
    assert_eq!(h.fetches().len(), before + 1, "page 1 is still cached");
}

#[test]
fn cache_expires_after_thirty_seconds_and_r_bypasses_it() {
    let mut h = loaded();
    h.ch('n');
    h.answer_all();
    h.advance(Duration::from_secs(31));
    let before = h.fetches().len();
    h.ch('p');
    assert_eq!(
        h.fetches().len(),
        before + 1,
        "expired page is fetched again"
    );
    h.answer_all();
    let before = h.fetches().len();
    h.ch('r');
    assert_eq!(h.fetches().len(), before + 1, "r always asks the server");
}

#[test]
fn switching_to_a_page_being_prefetched_adopts_that_request() {
    let mut h = Harness::new((120, 40));
    h.answer(0);
    assert_eq!(h.pending.len(), 1);
    let before = h.fetches().len();
    h.ch('n');
    assert_eq!(h.fetches().len(), before, "no second request for page 2");
    h.answer_all();
    assert_eq!(h.app.tab().shown.as_ref().unwrap().spec.page, 2);
}

#[test]
fn includes_checklist_changes_the_query() {
    let mut h = loaded();
    h.ch('i');
    h.key(KeyCode::Char(' ')); // account off
    h.ch('j');
    h.key(KeyCode::Char(' ')); // contacts on
    h.key(KeyCode::Enter);
    assert!(h.app.overlays.is_empty());
    assert_eq!(
        h.fetches().last().unwrap().includes,
        ["assigned_user", "contacts"]
    );
}

#[test]
fn filter_text_applies_after_the_debounce_only() {
    let mut h = loaded();
    let before = h.fetches().len();
    h.ch('/');
    h.type_str("acm");
    h.advance(Duration::from_millis(200));
    h.ch('e');
    h.advance(Duration::from_millis(200));
    assert_eq!(h.fetches().len(), before, "still typing");
    h.advance(Duration::from_millis(60));
    assert_eq!(h.fetches().len(), before + 1);
    let spec = (*h.fetches().last().unwrap()).clone();
    assert_eq!(spec.filter_summary(), "name=acme");
    h.answer_all();
    assert!(
        h.app
            .tab()
            .records()
            .iter()
            .all(|r| r.label.to_lowercase().contains("acme"))
    );
    // Ctrl-U clears; Esc applies at once.
    h.ctrl('u');
    h.key(KeyCode::Esc);
    assert!(!h.app.tab().filter_open);
    assert!(h.app.tab().filters.is_empty());
    let shown = &h.app.tab().shown.as_ref().unwrap().spec;
    assert_eq!(
        shown.filter_summary(),
        "",
        "the unfiltered page comes back from the cache"
    );
}

#[test]
fn keys_typed_in_the_filter_bar_do_not_trigger_actions() {
    let mut h = loaded();
    h.ch('/');
    h.type_str("qsn2");
    assert!(!h.app.quitting);
    assert_eq!(h.app.active, Resource::Deals);
    assert_eq!(h.app.tab().filter_bar.fields[0].input.value(), "qsn2");
}

#[test]
fn errors_show_and_retry_with_r() {
    let mut h = Harness::new((120, 40));
    h.fail(0, "Server error (503): down");
    assert_eq!(
        h.app.tab().error.as_deref(),
        Some("Server error (503): down")
    );
    assert_eq!(
        h.app.status.error.as_deref(),
        Some("Server error (503): down")
    );
    h.ch('r');
    h.answer_all();
    assert!(h.app.tab().error.is_none());
    assert!(h.app.status.error.is_none());
}

#[test]
fn q_quits_and_saves_the_remembered_state() {
    let mut h = loaded();
    h.ch('s');
    let fx = h.ch('q');
    let Some(Effect::SaveState(state)) = fx.first() else {
        panic!("{fx:?}")
    };
    assert_eq!(state.active_tab, Some(Resource::Deals));
    assert_eq!(state.tabs[&Resource::Deals].sort_by, "name");
    assert_eq!(fx.last(), Some(&Effect::Quit));
}

#[test]
fn remembered_state_round_trips_into_a_new_app() {
    let mut h = loaded();
    h.ch('3');
    h.answer_all();
    h.ch('+');
    h.ch('S');
    let state = h.app.remembered();
    let json = serde_json::to_string(&state).unwrap();
    let back: crmdash::app::persist::PersistedState = serde_json::from_str(&json).unwrap();
    let app = crmdash::app::App::new(dashboard_support::test_config(), &back, (120, 40), h.now);
    assert_eq!(app.active, Resource::Projects);
    let p = app.tab_of(Resource::Projects);
    assert_eq!((p.per_page, p.direction), (50, SortDirection::Asc));
}

#[test]
fn y_copies_the_record_json() {
    let mut h = loaded();
    let fx = h.ch('y');
    let Some(Effect::Copy(text)) = fx.first() else {
        panic!("{fx:?}")
    };
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(v["id"], "1000");
}

/// A left click on the header of the column titled `title` (the table's first inner row);
/// the column must be shown at the harness's size.
fn header_click(h: &Harness, title: &str) -> crossterm::event::MouseEvent {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let inner = h.app.areas().table_inner();
    let columns = h.app.tab().resource.columns;
    let mut x = inner.x;
    for (i, w) in crmdash::app::layout::fit_columns(columns, inner.width) {
        if columns[i].title == title {
            return MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: x + 1,
                row: inner.y,
                modifiers: KeyModifiers::NONE,
            };
        }
        x += w + 1;
    }
    panic!("{title} is not shown at {} columns", inner.width)
}

#[test]
fn header_click_sorts_by_that_column() {
    use crossterm::event::MouseEvent;
    let mut h = loaded();
    // "Value" sits right of Status.
    let click = header_click(&h, "Value");
    h.send(crmdash::app::Message::Mouse(click));
    assert_eq!(h.app.tab().sort_by, "value");
    h.send(crmdash::app::Message::Mouse(click));
    assert_eq!(h.app.tab().direction, SortDirection::Desc);
    // A click on a tab title switches tabs.
    let tab_click = MouseEvent {
        row: 0,
        column: 2,
        ..click
    };
    h.send(crmdash::app::Message::Mouse(tab_click));
    assert_eq!(h.app.active, Resource::Contacts);
}

#[test]
fn a_click_on_a_header_that_cannot_sort_says_why() {
    let mut h = loaded();
    h.ch('1');
    h.answer_all();
    assert_eq!(h.app.active, Resource::Contacts);
    let sort = (h.app.tab().sort_by, h.app.tab().direction);
    let before = h.fetches().len();
    let click = header_click(&h, "Accounts");
    h.send(crmdash::app::Message::Mouse(click));
    assert_eq!((h.app.tab().sort_by, h.app.tab().direction), sort);
    assert_eq!(h.fetches().len(), before);
    let note = dashboard_support::note_of(&h.app);
    assert!(
        note.starts_with("Accounts cannot sort: the API sorts contacts only by "),
        "{note}"
    );
    assert!(note.contains("email"), "{note}");
}

#[test]
fn idle_app_wakes_only_for_the_coarse_age_label() {
    let mut h = loaded();
    // Loaded, nothing in flight: the only wakeup is the age label's next step (10 s).
    let d = h.app.next_deadline().unwrap();
    assert_eq!(d - h.now.at, Duration::from_secs(10));
    h.advance(Duration::from_secs(1));
    h.app.dirty = false;
    h.advance(Duration::from_secs(3));
    assert!(!h.app.dirty, "same label: no redraw");
    h.advance(Duration::from_secs(6));
    assert!(h.app.dirty, "label moved to 10 s");
    assert_eq!(h.app.age_label().as_deref(), Some("updated 10 s ago"));
    assert!(h.app.requests_in_flight() == 0 && !h.app.busy());
    let _ = FakeData::new(1);
}

#[test]
fn tab_and_shift_tab_cycle_tabs_as_terminals_report_them() {
    use crossterm::event::{KeyEvent, KeyModifiers};
    let mut h = loaded();
    h.key(KeyCode::Tab);
    assert_eq!(h.app.active, Resource::Projects);
    // crossterm reports Shift-Tab as BackTab with SHIFT set.
    h.send(crmdash::app::Message::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
    )));
    h.send(crmdash::app::Message::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
    )));
    assert_eq!(h.app.active, Resource::Contacts);
}

#[test]
fn auto_refresh_runs_on_schedule_and_pauses_while_the_filter_bar_is_open() {
    let mut config = dashboard_support::test_config();
    config.refresh = Some(Duration::from_secs(60));
    let mut h = Harness::with((120, 40), FakeData::new(60), config);
    h.answer_all();
    let before = h.fetches().len();
    h.advance(Duration::from_secs(61));
    assert_eq!(h.fetches().len(), before + 1, "refreshed after 60 s");
    h.answer_all();
    let before = h.fetches().len();
    h.ch('/');
    h.advance(Duration::from_secs(120));
    assert_eq!(h.fetches().len(), before, "paused while the bar is open");
    h.key(KeyCode::Esc);
    h.advance(Duration::from_secs(61));
    assert_eq!(h.fetches().len(), before + 1, "resumed once the bar closed");
}
