//! Issue 14, the dashboard's rough edges: suggestions replaced by typing, `+1h` as a length,
//! the filter bar (first field, invalid values, every filter visible, `Esc` clears), the hint
//! line following the focus, `y` in the detail pane, `Ctrl-L`, stale rows after a failed
//! refresh, and dialogs kept inside the table's borders. `update()` driven by synthetic keys,
//! screens rendered to a `TestBackend`.

use crate::dashboard_support;

use std::time::Duration;

use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::reschedule::{Field, RescheduleForm};
use crmdash::app::{Effect, Resource};
use crmdash::reschedule::EndSpec;
use crossterm::event::KeyCode;
use dashboard_support::Harness;

fn loaded(size: (u16, u16)) -> Harness {
    let mut h = Harness::new(size);
    h.answer_all();
    h.advance(Duration::from_secs(12));
    h
}

fn reschedule(h: &Harness) -> &RescheduleForm {
    match h.app.overlays.last() {
        Some(Overlay::Reschedule(f)) => f,
        _ => panic!("the reschedule dialog is not on top"),
    }
}

/// The screen's last line: the hint line.
fn hint_of(screen: &str) -> String {
    screen.lines().last().unwrap_or_default().to_string()
}

// --- Entering text -------------------------------------------------------------------------

#[test]
fn typing_into_a_suggested_start_or_length_replaces_it() {
    let mut h = loaded((160, 48));
    h.ch('a');
    h.key(KeyCode::Tab);
    h.type_str("2026-11-23 09:30");
    assert_eq!(reschedule(&h).inputs[1].value(), "2026-11-23 09:30");
    h.key(KeyCode::Tab);
    h.type_str("30m");
    assert_eq!(reschedule(&h).inputs[2].value(), "30m");
    assert_eq!(
        reschedule(&h).end_spec(),
        Ok(EndSpec::Duration(chrono::TimeDelta::minutes(30)))
    );
}

#[test]
fn arrows_keep_a_suggestion_for_editing() {
    let mut h = loaded((160, 48));
    h.ch('a');
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.key(KeyCode::End);
    h.type_str("30m");
    assert_eq!(reschedule(&h).inputs[2].value(), "1h30m");
    // Back on the start: still a suggestion, selected again; Home edits it in place.
    h.key(KeyCode::BackTab);
    let start = reschedule(&h).inputs[1].value().to_string();
    h.key(KeyCode::Home);
    h.ch('x');
    assert_eq!(reschedule(&h).inputs[1].value(), format!("x{start}"));
}

#[test]
fn plus_one_hour_is_a_length_and_errors_show_minutes() {
    let mut h = loaded((160, 48));
    h.ch('a');
    h.key(KeyCode::Tab);
    h.type_str("2026-11-23 09:30");
    h.key(KeyCode::Tab);
    h.type_str("+1h");
    assert_eq!(
        reschedule(&h).end_spec(),
        Ok(EndSpec::Duration(chrono::TimeDelta::hours(1)))
    );
    assert_eq!(reschedule(&h).error_for(Field::End), None);
    // An end before the start: both times to the minute.
    for _ in 0..3 {
        h.key(KeyCode::Backspace);
    }
    h.type_str("2026-11-23 09:00");
    let err = reschedule(&h).error_for(Field::End).unwrap().to_string();
    assert!(
        err.contains("(2026-11-23 09:00)") && err.contains("(2026-11-23 09:30)"),
        "{err}"
    );
}

#[test]
fn the_export_file_name_is_replaced_by_typing() {
    let mut h = loaded((160, 48));
    h.ch('e');
    h.type_str("won.csv");
    match h.app.overlays.last() {
        Some(Overlay::Export(d)) => assert_eq!(d.path.value(), "won.csv"),
        _ => panic!("no export dialog"),
    }
}

// --- The filter bar ------------------------------------------------------------------------

#[test]
fn slash_opens_on_the_first_field() {
    let mut h = loaded((160, 48));
    h.ch('/');
    h.key(KeyCode::Tab);
    h.key(KeyCode::Esc);
    h.ch('/');
    assert_eq!(h.app.tab().filter_bar.focused, 0);
}

#[test]
fn enter_on_an_invalid_date_keeps_the_bar_open_with_the_error() {
    let mut h = loaded((160, 48));
    h.ch('1');
    h.answer_all();
    h.ch('/');
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.type_str("notadate");
    h.key(KeyCode::Tab);
    h.key(KeyCode::Enter);
    let tab = h.app.tab();
    assert!(tab.filter_open, "the bar closed on an invalid value");
    assert_eq!(tab.filter_bar.focused, 2, "focus goes to the refused field");
    assert!(tab.filter_bar.fields[2].error.is_some());
    let screen = h.render();
    let line = screen
        .lines()
        .find(|l| l.contains("notadate"))
        .expect("the field is on screen");
    // Too long for the room beside the field at 160 columns: whole under the fields.
    assert!(line.contains("not used: see below"), "{line}");
    assert!(
        screen.contains("Created after: \"notadate\" is not a time: try"),
        "{screen}"
    );
}

#[test]
fn every_active_filter_is_visible_with_the_bar_closed() {
    let mut h = loaded((160, 48));
    h.ch('1');
    h.answer_all();
    h.ch('/');
    h.type_str("Ada");
    h.key(KeyCode::Tab);
    h.type_str("person1");
    h.key(KeyCode::Enter);
    h.answer_all();
    assert!(!h.app.tab().filter_open);
    let screen = h.render();
    assert!(
        screen.contains("full_name=Ada") && screen.contains("email=person1"),
        "{screen}"
    );
}

#[test]
fn esc_on_the_table_clears_the_filters_once() {
    let mut h = loaded((160, 48));
    h.ch('/');
    h.type_str("Acme");
    h.key(KeyCode::Enter);
    h.answer_all();
    assert_eq!(h.app.tab().filters.len(), 1);
    let fx = h.key(KeyCode::Esc);
    assert!(h.app.tab().filters.is_empty());
    assert!(h.app.tab().filter_bar.fields[0].input.is_empty());
    // The unfiltered list comes back (fetched, or from the cache).
    let refetch = fx.iter().any(|e| match e {
        Effect::Fetch { spec, .. } => spec.kind == Resource::Deals && !spec.filters.is_empty(),
        _ => false,
    });
    assert!(!refetch, "{fx:?}");
    h.answer_all();
    let shown = h.app.tab().shown.as_ref().unwrap();
    assert!(shown.spec.filters.is_empty());
    assert!(h.render().contains("Filters cleared"));
    assert!(h.key(KeyCode::Esc).is_empty(), "a second Esc does nothing");
}

// --- Reading what is on screen -------------------------------------------------------------

#[test]
fn the_hint_line_follows_the_focus() {
    let mut h = loaded((160, 48));
    let table = hint_of(&h.render());
    assert!(table.contains("c new contact"), "{table}");
    assert!(table.contains("a reschedule"), "{table}");
    assert!(table.contains("q quit"), "{table}");

    h.ch('/');
    let bar = hint_of(&h.render());
    assert!(!bar.contains("q quit"), "{bar}");
    assert!(
        bar.contains("Enter apply") && bar.contains("Esc close"),
        "{bar}"
    );
    h.key(KeyCode::Esc);

    h.ch('a');
    let form = hint_of(&h.render());
    assert!(!form.contains("q quit"), "{form}");
    assert!(form.contains("Ctrl-S preview"), "{form}");
    assert!(form.contains("Tab/Shift-Tab field"), "{form}");
}

#[test]
fn the_hint_line_fits_small_screens_keeping_the_essentials() {
    let h = loaded((80, 24));
    let hint = hint_of(&h.render());
    assert!(unicode_width::UnicodeWidthStr::width(hint.as_str()) <= 80);
    assert!(hint.starts_with("q quit · ? help · / filter"), "{hint}");
    assert!(hint.contains("Enter detail"), "{hint}");
}

#[test]
fn y_in_the_detail_pane_says_copied() {
    let mut h = loaded((160, 48));
    h.key(KeyCode::Enter);
    let fx = h.ch('y');
    assert!(fx.iter().any(|e| matches!(e, Effect::Copy(_))), "{fx:?}");
    let note = h.app.status.note.as_ref().map(|n| n.0.clone());
    assert!(
        note.as_deref().is_some_and(|n| n.starts_with("Copied")),
        "{note:?}"
    );
    assert!(h.render().contains("Copied"));
}

#[test]
fn ctrl_l_redraws_everywhere() {
    let mut h = loaded((160, 48));
    let redraw = |fx: &[Effect]| fx.iter().any(|e| matches!(e, Effect::Redraw));
    assert!(redraw(&h.ctrl('l')), "table");
    h.ch('/');
    assert!(redraw(&h.ctrl('l')), "filter bar");
    assert!(h.app.tab().filter_open);
    h.key(KeyCode::Esc);
    h.ch('a');
    assert!(redraw(&h.ctrl('l')), "form");
    assert!(!h.app.overlays.is_empty());
    assert_eq!(reschedule(&h).inputs[0].value(), "", "Ctrl-L types nothing");
}

#[test]
fn a_failed_refresh_keeps_the_rows_marked_stale() {
    let mut h = loaded((160, 48));
    h.advance(Duration::from_secs(120));
    h.ch('r');
    let i = h.pending.len() - 1;
    h.fail(i, "503 Service Unavailable");
    let screen = h.render();
    assert!(!screen.contains("Could not load"), "{screen}");
    assert!(screen.contains("Acme renewal #1"), "{screen}");
    assert!(screen.contains("STALE"), "{screen}");
    assert!(screen.contains("2 min ago"), "{screen}");
    assert!(screen.contains("503 Service Unavailable"), "{screen}");
    insta::assert_snapshot!("stale_rows_160x48", screen);
}

/// The table's bottom border is whole under an open dialog: no corner of the dialog on it.
#[test]
fn dialogs_do_not_merge_into_the_table_border() {
    for size in [(80, 24), (160, 48)] {
        let mut h = loaded(size);
        h.key(KeyCode::Enter);
        let screen = h.render();
        let lines: Vec<&str> = screen.lines().collect();
        let border = lines[size.1 as usize - 3];
        let inner: String = border.chars().skip(1).take(size.0 as usize - 2).collect();
        assert!(
            inner.chars().all(|c| c == '─'),
            "{}x{}: {border}",
            size.0,
            size.1
        );
        insta::assert_snapshot!(format!("detail_over_table_{}x{}", size.0, size.1), screen);
    }
}

/// Below the smallest size only the "too small" notice is drawn: keys must not act on the
/// hidden screen (open a form, type into it), and `q` quits as the notice says.
#[test]
fn a_too_small_terminal_ignores_keys_but_quit() {
    let mut h = loaded((59, 16));
    assert!(h.app.too_small());
    let active = h.app.active;
    for c in ['2', 'c', 'J', 'o', '/'] {
        assert!(h.ch(c).is_empty(), "{c} acted on a hidden screen");
    }
    assert!(
        h.app.overlays.is_empty(),
        "no dialog opened behind the notice"
    );
    assert_eq!(h.app.active, active);
    assert!(h.render().contains("Terminal too small"));
    let fx = h.ch('q');
    assert!(fx.iter().any(|e| matches!(e, Effect::Quit)), "{fx:?}");
}

/// Issue 44: `q` goes back one level everywhere (the detail pane, the related records, Today)
/// and quits only from the main view.
#[test]
fn q_goes_back_one_level_and_quits_only_from_the_main_view() {
    let mut h = crate::dashboard_support::Harness::new((100, 30));
    h.answer_all();
    h.key(crossterm::event::KeyCode::Enter);
    assert_eq!(h.app.overlays.len(), 1, "the detail pane is open");
    let fx = h.ch('q');
    assert!(h.app.overlays.is_empty(), "q closed the detail pane");
    assert!(!h.app.quitting, "and did not quit: {fx:?}");
    let fx = h.ch('q');
    assert!(
        h.app.quitting && fx.contains(&crmdash::app::Effect::Quit),
        "q quits from the main view: {fx:?}"
    );
}
