//! The Projects tab's timeline view (`T`): update() of toggling, reading every page,
//! selection, scrolling, scale and Enter for the detail; the reading against the sandbox; snapshots at 80x24 and 160x45 (and 60x16) with fixed projects
//! and today fixed at `wall0()` (2026-11-22).

use crate::dashboard_support;

use std::sync::Arc;
use std::time::Duration;

use crmdash::app::message::CollectEvent;
use crmdash::app::timeline::MAX_PAGES;
use crmdash::app::{Effect, Message, Resource};
use crmdash::insights::pipeline::Coverage;
use crmdash::insights::timeline::Scale;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
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

/// The harness with the timeline open and its projects read.
fn opened(size: (u16, u16)) -> Harness {
    let mut h = harness(size);
    h.ch('T');
    h.answer_all();
    h.answer_collects();
    h
}

/// The id of the reading `T` asked for.
fn collect_id(fx: &[Effect]) -> crmdash::app::RequestId {
    fx.iter()
        .find_map(|e| match e {
            Effect::Collect { id, .. } => Some(*id),
            _ => None,
        })
        .expect("T reads the projects")
}

fn snap(name: &str, size: (u16, u16), screen: String) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen);
}

#[test]
fn t_toggles_the_timeline_and_reads_every_project_of_the_filter() {
    let mut h = Harness::with((80, 24), data(), test_config());
    h.answer_all();
    assert_ne!(h.app.active, Resource::Projects);
    let fx = h.ch('T');
    // From another tab, T switches to Projects (loading its page as a tab switch does) and
    // reads every project of the tab's query, in pages of 100, at most MAX_PAGES.
    assert_eq!(h.app.active, Resource::Projects);
    assert!(h.app.timeline_shown().is_some());
    let (spec, max_pages) = fx
        .iter()
        .find_map(|e| match e {
            Effect::Collect {
                spec, max_pages, ..
            } => Some((spec.clone(), *max_pages)),
            _ => None,
        })
        .expect("T reads the projects");
    assert_eq!(spec.kind, Resource::Projects);
    assert_eq!(spec.page, 1);
    assert_eq!(max_pages, MAX_PAGES);
    h.answer_all();
    assert!(h.render().contains("Reading projects"), "{}", h.render());
    h.answer_collects();
    let screen = h.render();
    assert!(screen.contains("Timeline"), "{screen}");
    assert!(screen.contains("12 projects · all projects"), "{screen}");
    assert!(h.app.hint_line(160).starts_with("T table"));
    h.ch('T');
    assert!(h.app.timeline_shown().is_none());
    assert!(!h.render().contains("Timeline"));
    h.ch('T');
    assert!(h.app.timeline_shown().is_some());
    h.key(KeyCode::Esc);
    // The first Esc stops the reading; the second leaves.
    assert!(h.app.timeline_shown().is_some());
    assert!(h.render().contains("Reading stopped"), "{}", h.render());
    h.key(KeyCode::Esc);
    assert!(h.app.timeline_shown().is_none());
}

#[test]
fn every_page_is_shown_not_only_the_tabs_page() {
    // 230 projects: the table shows a page of 25, the timeline all of them.
    let mut h = Harness::with((160, 45), FakeData::new(230), test_config());
    h.answer_all();
    h.ch('3');
    h.answer_all();
    assert!(h.app.tab().records().len() < 230);
    h.ch('T');
    h.answer_all();
    h.answer_collects();
    assert_eq!(h.app.timeline_bars().len(), 230);
    let cov = h.app.timeline_shown().unwrap().coverage().unwrap();
    assert_eq!((cov.pages, cov.partial), (3, false));
    assert!(h.render().contains("230 projects"), "{}", h.render());
    // Paging keys belong to the table: the timeline already shows every page.
    let before = h.fetches().len();
    h.key(KeyCode::PageDown);
    h.ch(']');
    assert_eq!(h.fetches().len(), before);
    // The last project can be selected and opened.
    h.ch('G');
    h.key(KeyCode::Enter);
    assert_eq!(h.app.overlays.len(), 1);
}

#[test]
fn a_capped_reading_says_it_is_partial() {
    let mut h = harness((80, 24));
    let id = collect_id(&h.ch('T'));
    let page = h.data.page(&h.app.tab().spec().at_page(1));
    h.send(Message::Collected {
        id,
        event: CollectEvent::Done(Arc::new((
            page.records,
            Coverage {
                pages: MAX_PAGES,
                total: Some(9000),
                partial: true,
                synced_at: None,
            },
        ))),
    });
    let screen = h.render();
    assert!(screen.contains("(partial: first 50 pages)"), "{screen}");
}

#[test]
fn a_failed_reading_says_why_and_r_reads_again() {
    let mut h = harness((80, 24));
    let id = collect_id(&h.ch('T'));
    h.send(Message::Collected {
        id,
        event: CollectEvent::Failed("server error 502".into()),
    });
    let screen = h.render();
    assert!(screen.contains("Could not read the projects"), "{screen}");
    assert!(screen.contains("server error 502"), "{screen}");
    let fx = h.ch('r');
    assert!(fx.iter().any(|e| matches!(e, Effect::Collect { .. })));
}

#[test]
fn a_filter_change_while_shown_rereads_with_the_new_filter() {
    let mut h = opened((80, 24));
    h.ch('/');
    h.type_str("Acme");
    let fx = h.key(KeyCode::Enter);
    let spec = fx
        .iter()
        .find_map(|e| match e {
            Effect::Collect { spec, .. } => Some(spec.clone()),
            _ => None,
        })
        .expect("the timeline follows the filter");
    assert_eq!(spec.filter_summary(), "name=Acme");
    h.answer_all();
    h.answer_collects();
    assert!(h.render().contains("name=Acme"), "{}", h.render());
}

#[test]
fn selection_moves_over_the_bars_and_stays_in_range() {
    let mut h = opened((80, 24));
    let n = h.app.timeline_bars().len();
    assert_eq!(n, 12);
    h.ch('g');
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

/// The window the view shows now.
fn window(h: &Harness) -> crmdash::insights::timeline::Window {
    let t = h.app.timeline_shown().unwrap();
    t.window(h.app.today(), h.app.timeline_cells())
}

#[test]
fn h_and_l_move_a_screen_and_z_zooms_about_today() {
    let mut h = opened((80, 24));
    let cells = h.app.timeline_cells();
    assert!(cells > 20);
    let w0 = window(&h);
    let screen_days = i64::from(cells) * w0.scale.days_per_cell() as i64;
    h.key(KeyCode::Right);
    assert_eq!((window(&h).start - w0.start).num_days(), screen_days);
    h.ch('l');
    assert_eq!((window(&h).start - w0.start).num_days(), 2 * screen_days);
    h.app.dirty = false;
    h.key(KeyCode::Left);
    assert!(h.app.dirty);
    h.ch('h');
    h.ch('h');
    assert_eq!((window(&h).start - w0.start).num_days(), -screen_days);
    // `z`: the next scale, today's column stays where it was.
    h.ch('l');
    assert_eq!(window(&h), w0);
    let before = window(&h);
    let today = h.app.today();
    let col = before
        .column(today)
        .expect("back where it opened: today shows");
    h.ch('z');
    let after = window(&h);
    assert_eq!(after.scale, before.scale.next());
    assert_eq!(after.column(today), Some(col), "{before:?} {after:?}");
    for _ in 0..4 {
        h.ch('z');
    }
    assert_eq!(window(&h).scale, after.scale, "four scales, round");
}

#[test]
fn f_brings_the_selected_project_into_view_and_is_in_the_key_map() {
    let mut h = opened((80, 24));
    // Far away from everything: the selected bar is out of the window.
    for _ in 0..6 {
        h.ch('l');
    }
    let t = h.app.timeline_shown().unwrap();
    let bar = h.app.timeline_bars()[t.selected].clone();
    let start = bar.start.unwrap();
    assert_eq!(window(&h).column(start), None);
    h.ch('f');
    let cells = h.app.timeline_cells();
    assert_eq!(window(&h).column(start), Some(cells / 8));
    let screen = h.render();
    let marked = screen.lines().find(|l| l.contains('›')).unwrap();
    assert!(
        marked.contains('█')
            || marked.contains('░')
            || marked.contains('▓')
            || marked.contains('▒'),
        "{marked}\n{screen}"
    );
    // A project without a start date says why `f` cannot show it.
    let undated = h
        .app
        .timeline_bars()
        .iter()
        .position(|b| b.start.is_none())
        .unwrap();
    h.ch('G');
    assert_eq!(h.app.timeline_shown().unwrap().selected, undated);
    let before = window(&h);
    h.ch('f');
    assert_eq!(window(&h), before);
    assert!(
        dashboard_support::note_of(&h.app).contains("has no start date"),
        "{}",
        dashboard_support::note_of(&h.app)
    );
    // The key is in the map: help and the hint line show it.
    assert!(
        h.app
            .keymap
            .help_rows()
            .iter()
            .any(|(k, d)| k == "f" && d.contains("selected project")),
    );
    assert!(
        h.app.hint_line(160).contains("f to selected"),
        "{}",
        h.app.hint_line(160)
    );
    assert!(
        h.app.hint_line(160).contains("h/l screen"),
        "{}",
        h.app.hint_line(160)
    );
}

#[test]
fn date_labels_carry_the_year_at_every_scale() {
    let mut h = opened((80, 24));
    for _ in 0..3 {
        let screen = h.render();
        let header = screen.lines().nth(2).unwrap();
        let years = header
            .split_whitespace()
            .filter(|w| {
                w.len() == 4 && w.starts_with("20") && w.chars().all(|c| c.is_ascii_digit())
            })
            .count();
        let scale = h.app.timeline_shown().unwrap().scale;
        assert!(years >= 1, "{scale:?}: {header}");
        h.ch('z');
    }
}

#[test]
fn the_title_and_legend_are_whole_at_every_size() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = harness(size);
        h.ch('T');
        h.answer_all();
        h.answer_collects();
        let screen = h.render();
        for said in [
            "12 projects",
            "all projects",
            "today 22 Nov 2026",
            "1 column = ",
            "! overdue",
            "▶ open end",
        ] {
            assert!(screen.contains(said), "{size:?}: {said}\n{screen}");
        }
        let title = screen.lines().nth(1).unwrap();
        assert!(!title.contains('…'), "{title}");
        let legend_cut = screen
            .lines()
            .skip(2)
            .take(size.1 as usize - 4)
            .filter(|l| l.contains("overdue") || l.contains("today") || l.contains("column ="))
            .any(|l| l.contains('…'));
        assert!(!legend_cut, "{size:?}\n{screen}");
    }
}

/// The seed's 120 projects (2023 to 2026), as the demo and the sandbox serve them.
fn seed_projects() -> FakeData {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/sandbox/projects.json"
    ))
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let rows = v
        .as_array()
        .cloned()
        .or_else(|| v["data"].as_array().cloned())
        .unwrap();
    let mut d = FakeData::new(4);
    d.projects = rows;
    d
}

#[test]
fn it_opens_on_a_scale_that_shows_bars_not_only_edge_arrows() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = Harness::with(size, seed_projects(), test_config());
        h.answer_all();
        h.ch('T');
        h.answer_all();
        h.answer_collects();
        assert_eq!(h.app.timeline_bars().len(), 120);
        // Today is in view at every size (issue 44: not at 60 and 80 columns).
        let today = h.app.today();
        assert!(
            window(&h).column(today).is_some(),
            "{size:?}: {:?}",
            window(&h)
        );
        let screen = h.render();
        let has = |l: &str, glyphs: &[char]| glyphs.iter().any(|g| l.contains(*g));
        // The project rows: below the title and the date header, above the legend.
        let rows: Vec<&str> = screen
            .lines()
            .skip(3)
            .filter(|l| !l.contains("overdue") && !l.contains("1 column ="))
            .filter(|l| has(l, &['◁', '▷', '█', '░', '▓', '▒', '◀', '▶']))
            .collect();
        let with_bars = rows
            .iter()
            .filter(|l| has(l, &['█', '░', '▓', '▒', '◀', '▶']))
            .count();
        assert!(
            rows.len() >= 5 && with_bars * 4 >= rows.len() * 3,
            "{size:?}: {with_bars} of {} rows show bars\n{screen}",
            rows.len()
        );
        if size == (80, 24) {
            snap("timeline_seed", size, screen);
        }
    }
}

#[test]
fn enter_opens_the_detail_of_the_selected_project() {
    let mut h = opened((80, 24));
    h.ch('g');
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
fn it_opens_on_the_first_project_not_ended_before_today() {
    let h = opened((80, 24));
    let bars = h.app.timeline_bars();
    let t = h.app.timeline_shown().unwrap();
    let today = h.app.today();
    let sel = &bars[t.selected];
    assert!(sel.end.is_none_or(|e| e >= today), "{sel:?}");
    // Every bar before it ended before today (or has no start).
    for b in &bars[..t.selected] {
        assert!(
            b.start.is_none() || b.end.is_some_and(|e| e < today),
            "{b:?}"
        );
    }
    assert!(
        t.selected > 0,
        "the fixture starts with projects that ended"
    );
    let screen = h.render();
    let marked = screen
        .lines()
        .find(|l| l.contains('›'))
        .expect("a selected row");
    assert!(marked.contains(&sel.name[..12]), "{marked}\n{screen}");
}

#[test]
fn overdue_and_date_only_values_are_as_sent() {
    let h = opened((80, 24));
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
        let h = opened(size);
        snap("timeline", size, h.render());
    }
    // It opens on months (every project fits); `z` goes to quarters, then days, then weeks.
    let mut h = opened((160, 45));
    assert_eq!(h.app.timeline_shown().unwrap().scale, Scale::Month);
    h.ch('j');
    snap("timeline_month", (160, 45), h.render());
    let mut h = opened((80, 24));
    h.ch('z');
    assert_eq!(h.app.timeline_shown().unwrap().scale, Scale::Quarter);
    h.ch('z');
    assert_eq!(h.app.timeline_shown().unwrap().scale, Scale::Day);
    snap("timeline_day", (80, 24), h.render());
    h.ch('z');
    assert_eq!(h.app.timeline_shown().unwrap().scale, Scale::Week);
    snap("timeline_week", (80, 24), h.render());
    // At 60x16 the table is too small to show, so `3` does nothing; `T` opens the timeline
    // (which fits) on the Projects tab, whose page then loads.
    let mut h = harness((60, 16));
    h.ch('T');
    h.answer_all();
    h.answer_collects();
    snap("timeline", (60, 16), h.render());
}

#[tokio::test]
async fn sandbox_timeline_shows_every_project_of_the_service() {
    let (sb, mut e) = dashboard_support::sandbox_engine(None, (160, 45), None).await;
    let quiet = Duration::from_millis(400);
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('T'),
        KeyModifiers::NONE,
    )));
    e.settle(quiet).await;
    let mut ids: Vec<String> = e.app.timeline_bars().iter().map(|b| b.id.clone()).collect();
    ids.sort();
    let mut want = sb.ids("projects");
    want.sort();
    assert!(want.len() > 25, "the seed has more projects than a page");
    assert_eq!(ids, want);
    assert!(!e.app.timeline_shown().unwrap().coverage().unwrap().partial);
}

#[test]
fn the_timelines_keys_elsewhere_say_where_they_work() {
    let mut h = harness((80, 24));
    assert!(h.app.timeline_shown().is_none());
    for c in ['f', 'z'] {
        h.ch(c);
        let note = dashboard_support::note_of(&h.app);
        assert!(
            note.starts_with(&format!("{c} (timeline: ")) && note.ends_with("T opens it"),
            "{c}: {note}"
        );
    }
}
