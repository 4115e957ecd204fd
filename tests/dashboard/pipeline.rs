//! The Deals tab's pipeline view (`P`): update() of opening, progress, cancelling, selection
//! and drill-down; snapshots at 80x24 and 160x45 (and 60x16); and, against the sandbox, totals
//! equal to sums computed independently from `assets/sandbox/deals.json`.

use crate::dashboard_support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crmdash::api::Deal;
use crmdash::app::message::SummaryEvent;
use crmdash::app::pipeline::{MAX_PAGES, PipelineData};
use crmdash::app::table::spec::FilterValue;
use crmdash::app::{Effect, Message, RequestId, TabKind};
use crmdash::insights::pipeline::{Coverage, PipelineSummary, SummaryOptions};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use dashboard_support::{FakeData, Harness, test_config, wall0};
use rust_decimal::Decimal;
use serde_json::json;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];
const CURRENCIES: [&str; 3] = ["EUR", "USD", "JPY"];

/// Fake deals with currencies and `updated_at` spread over a year and a half.
fn data() -> FakeData {
    let mut d = FakeData::new(60);
    for (i, deal) in d.deals.iter_mut().enumerate() {
        deal["currency"] = json!(CURRENCIES[i % 3]);
        let at = wall0() - chrono::Duration::days(9 * i as i64);
        deal["updated_at"] = json!(at.to_rfc3339());
    }
    d
}

fn harness(size: (u16, u16)) -> Harness {
    let mut h = Harness::with(size, data(), test_config());
    h.answer_all();
    h
}

/// Presses `P` and returns the summary request it made.
fn open(h: &mut Harness) -> (RequestId, SummaryOptions, u32) {
    let fx = h.ch('P');
    fx.into_iter()
        .find_map(|e| match e {
            Effect::Summarize {
                id,
                opts,
                max_pages,
                spec,
                from_service,
            } => {
                assert!(!from_service, "opening may read the mirror's copy");
                assert_eq!(spec.kind, TabKind::Deals);
                Some((id, opts, max_pages))
            }
            _ => None,
        })
        .expect("P asks for a summary")
}

/// The summary of the fake deals, as the engine would build it.
fn summary_of(h: &Harness, opts: &SummaryOptions) -> PipelineSummary {
    let mut s = PipelineSummary::new(opts);
    for d in &h.data.deals {
        let raw = serde_json::value::RawValue::from_string(d.to_string()).unwrap();
        let deal = <Deal as crmdash::api::ApiRecord>::from_raw(raw).unwrap();
        s.add(&deal, opts);
    }
    s
}

fn finish(h: &mut Harness, id: RequestId, s: PipelineSummary, partial: bool) {
    let cov = Coverage {
        pages: 1,
        total: Some(s.deals),
        partial,
        synced_at: None,
    };
    h.send(Message::Summary {
        id,
        event: SummaryEvent::Done(Arc::new((s, cov))),
    });
}

fn ready(size: (u16, u16)) -> Harness {
    let mut h = harness(size);
    let (id, opts, _) = open(&mut h);
    let s = summary_of(&h, &opts);
    finish(&mut h, id, s, false);
    h
}

fn snap(name: &str, size: (u16, u16), screen: String) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen);
}

#[test]
fn opening_reads_the_deals_tab_query_in_pages_of_100_capped() {
    let mut h = harness((80, 24));
    let (id, opts, max_pages) = open(&mut h);
    assert_eq!(max_pages, MAX_PAGES);
    assert_eq!(max_pages, 50);
    assert_eq!(opts.months, 12);
    assert_eq!(opts.today, wall0().date_naive());
    assert!(h.app.pipeline_visible);
    h.send(Message::Summary {
        id,
        event: SummaryEvent::Progress {
            pages: 3,
            last_page: Some(7),
            deals: 300,
        },
    });
    assert!(h.app.dirty);
    assert!(
        h.render()
            .contains("Reading deals: page 3 of 7, 300 deals so far")
    );
    // A stale answer (another id) changes nothing.
    h.send(Message::Summary {
        id: RequestId(9999),
        event: SummaryEvent::Failed("old".into()),
    });
    assert!(h.app.pipeline.as_ref().unwrap().loading());
}

#[test]
fn esc_cancels_a_reading_then_closes_the_view() {
    let mut h = harness((80, 24));
    let (id, _, _) = open(&mut h);
    let fx = h.key(KeyCode::Esc);
    assert_eq!(fx, vec![Effect::Cancel(id)]);
    assert!(matches!(
        h.app.pipeline.as_ref().unwrap().data,
        PipelineData::Cancelled { .. }
    ));
    assert!(h.render().contains("Reading stopped"));
    // A late answer is ignored: no partial figures appear.
    h.send(Message::Summary {
        id,
        event: SummaryEvent::Progress {
            pages: 1,
            last_page: None,
            deals: 100,
        },
    });
    assert!(matches!(
        h.app.pipeline.as_ref().unwrap().data,
        PipelineData::Cancelled { .. }
    ));
    h.key(KeyCode::Esc);
    assert!(!h.app.pipeline_visible);
    // `r` in the view reads again.
    open(&mut h);
    let fx = h.ch('r');
    assert!(fx.iter().any(|e| matches!(e, Effect::Summarize { .. })));
}

#[test]
fn p_toggles_back_to_the_table_and_reopens_without_rereading() {
    let mut h = ready((80, 24));
    assert!(h.render().contains("Pipeline"));
    h.ch('P');
    assert!(!h.app.pipeline_visible);
    assert!(!h.render().contains(" Pipeline "));
    let fx = h.ch('P');
    assert!(fx.iter().all(|e| !matches!(e, Effect::Summarize { .. })));
    assert!(h.app.pipeline.as_ref().unwrap().summary().is_some());
}

#[test]
fn selection_moves_over_status_currency_bars_and_enter_filters_the_deals_tab() {
    let mut h = ready((80, 24));
    let rows: Vec<(String, String)> = {
        let (s, _) = h.app.pipeline.as_ref().unwrap().summary().unwrap();
        s.rows()
            .iter()
            .map(|(a, b, _)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(rows.len(), 12, "{rows:?}"); // 4 statuses x 3 currencies
    assert_eq!(rows[0].0, "open");
    h.ch('j');
    h.ch('j');
    h.ch('k');
    h.key(KeyCode::Down);
    let p = h.app.pipeline.as_ref().unwrap();
    assert_eq!(p.selected, 2);
    assert_eq!(p.selected_bar(), Some(rows[2].clone()));
    h.ch('G');
    assert_eq!(h.app.pipeline.as_ref().unwrap().selected, rows.len() - 1);
    h.ch('g');
    h.ch('j');
    let (status, currency) = rows[1].clone();
    let fx = h.key(KeyCode::Enter);
    // The table comes back, filtered to that status, and loads it.
    assert!(!h.app.pipeline_visible);
    assert_eq!(h.app.active, TabKind::Deals);
    let tab = h.app.tab_of(TabKind::Deals);
    assert!(
        tab.filters
            .contains(&("status", FilterValue::Text(status.clone()))),
        "{:?}",
        tab.filters
    );
    assert!(fx.iter().any(|e| matches!(e,
        Effect::Fetch { spec, .. } if spec.text("status").as_deref() == Some(status.as_str()))));
    // The currency is shown, and said not to be filtered.
    assert_eq!(h.app.currency_chip.as_deref(), Some(currency.as_str()));
    assert!(h.app.tab_titles()[1].contains(&format!("~{currency}")));
    let note = &h.app.status.note.as_ref().unwrap().0;
    assert!(note.contains("no currency filter"), "{note}");
    // Changing the filter again drops the chip.
    h.ch('/');
    h.type_str("Acme");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.currency_chip, None);
}

#[test]
fn a_filter_change_while_shown_rereads_with_the_new_filter() {
    let mut h = ready((80, 24));
    h.ch('/');
    h.type_str("Acme");
    let fx = h.key(KeyCode::Enter);
    let spec = fx
        .iter()
        .find_map(|e| match e {
            Effect::Summarize { spec, .. } => Some(spec.clone()),
            _ => None,
        })
        .expect("the view follows the filter");
    assert_eq!(spec.text("name").as_deref(), Some("Acme"));
    assert!(h.app.pipeline.as_ref().unwrap().loading());
}

#[test]
fn the_pipeline_key_is_rebindable_and_shown_in_hint_and_help() {
    let mut keys = BTreeMap::new();
    keys.insert("pipeline".to_string(), vec!["v".to_string()]);
    let (map, warnings) = crmdash::app::keymap::KeyMap::from_settings(&keys);
    assert!(warnings.is_empty());
    let mut config = test_config();
    config.keymap = map;
    let mut h = Harness::with((80, 24), data(), config);
    h.answer_all();
    assert!(
        h.app
            .keymap
            .help_rows()
            .iter()
            .any(|(k, d)| k == "v" && d.contains("pipeline"))
    );
    let fx = h.send(Message::Key(KeyEvent::new(
        KeyCode::Char('v'),
        KeyModifiers::NONE,
    )));
    assert!(fx.iter().any(|e| matches!(e, Effect::Summarize { .. })));
    assert!(h.app.hint_line(160).starts_with("v table"));
    assert!(h.render().contains("v table"));
}

#[test]
fn snapshots_of_the_pipeline() {
    for size in SIZES {
        let h = ready(size);
        snap("pipeline", size, h.render());
    }
    let mut h = ready((160, 45));
    for _ in 0..5 {
        h.ch('j');
    }
    snap("pipeline_selected", (160, 45), h.render());
    let h = ready((60, 16));
    snap("pipeline", (60, 16), h.render());
}

#[test]
fn snapshots_of_loading_and_partial() {
    for size in SIZES {
        let mut h = harness(size);
        let (id, _, _) = open(&mut h);
        h.send(Message::Summary {
            id,
            event: SummaryEvent::Progress {
                pages: 2,
                last_page: Some(3),
                deals: 200,
            },
        });
        snap("pipeline_loading", size, h.render());
    }
    let mut h = harness((80, 24));
    let (id, opts, _) = open(&mut h);
    let s = summary_of(&h, &opts);
    finish(&mut h, id, s, true);
    let screen = h.render();
    assert!(screen.contains("PARTIAL"), "{screen}");
    snap("pipeline_partial", (80, 24), screen);
}

/// Sums per (status, currency) straight from the seed file, with Decimal parsing only.
fn seed_sums() -> BTreeMap<(String, String), (u64, Decimal)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/sandbox/deals.json"
    ))
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rows = v
        .as_array()
        .cloned()
        .or_else(|| v["data"].as_array().cloned())
        .unwrap();
    let mut out: BTreeMap<(String, String), (u64, Decimal)> = BTreeMap::new();
    for d in rows {
        let status = d["status"].as_str().unwrap().to_string();
        let currency = d["currency"].as_str().unwrap().to_uppercase();
        let value: Decimal = match &d["value"] {
            serde_json::Value::String(s) => s.parse().unwrap(),
            other => other.to_string().parse().unwrap(),
        };
        let e = out.entry((status, currency)).or_default();
        e.0 += 1;
        e.1 += value;
    }
    out
}

#[tokio::test]
async fn sandbox_totals_equal_sums_from_the_seed_file() {
    let (_sb, mut e) = dashboard_support::sandbox_engine(None, (160, 45), None).await;
    let quiet = Duration::from_millis(400);
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('P'),
        KeyModifiers::NONE,
    )));
    e.settle(quiet).await;
    let p = e.app.pipeline.as_ref().unwrap();
    let (s, cov) = p.summary().expect("the summary arrived");
    assert!(!cov.partial);
    assert_eq!(cov.pages, 5);
    let mine: BTreeMap<(String, String), (u64, Decimal)> = s
        .by_status
        .iter()
        .map(|(k, b)| (k.clone(), (b.count, b.total)))
        .collect();
    assert_eq!(mine, seed_sums());
    assert!(s.by_status.values().all(|b| b.without_value == 0));
}

#[tokio::test]
async fn sandbox_reading_stops_on_esc() {
    let (_sb, mut e) =
        dashboard_support::sandbox_engine(Some(Duration::from_millis(150)), (80, 24), None).await;
    let quiet = Duration::from_millis(400);
    let key = |c| Message::Key(KeyEvent::new(c, KeyModifiers::NONE));
    e.handle(key(KeyCode::Char('P')));
    e.handle(key(KeyCode::Esc));
    e.settle(quiet).await;
    assert_eq!(e.app.requests_in_flight(), 0);
    assert!(matches!(
        e.app.pipeline.as_ref().unwrap().data,
        PipelineData::Cancelled { .. }
    ));
}

/// The bar rows of a rendered pipeline (the ones with a share column): currency, bar cells,
/// and the bar's room (from its first cell to the right border).
fn bar_rows(screen: &str) -> Vec<(String, usize, usize)> {
    screen
        .lines()
        .filter(|l| l.contains('%') && !l.contains("share of"))
        .filter_map(|l| {
            let chars: Vec<char> = l.chars().collect();
            let border = chars.iter().rposition(|c| *c == '│')?;
            let first = chars.iter().position(|c| *c == '█' || *c == '▒')?;
            let cells = chars.iter().filter(|c| **c == '█' || **c == '▒').count();
            let cur = CURRENCIES
                .iter()
                .find(|c| l.contains(&format!(" {c} ")))?
                .to_string();
            Some((cur, cells, border - first))
        })
        .collect()
}

#[test]
fn bars_are_shares_of_their_currency_so_few_are_full_width_and_the_header_says_so() {
    let h = ready((160, 45));
    let screen = h.render();
    let rows = bar_rows(&screen);
    assert_eq!(rows.len(), 12, "{screen}");
    // Before: each currency's largest bar took the whole width (3 of 12 bars).
    let full = rows.iter().filter(|(_, cells, room)| cells >= room).count();
    assert_eq!(full, 0, "{screen}");
    // One currency's bars together make the width (each rounded up by at most a cell).
    for cur in CURRENCIES {
        let (sum, room) = rows
            .iter()
            .filter(|(c, _, _)| c == cur)
            .fold((0, 0), |(s, _), (_, cells, room)| (s + cells, *room));
        assert!(
            sum <= room + 4 && sum + 4 >= room,
            "{cur}: {sum} of {room}\n{screen}"
        );
    }
    assert!(
        screen.contains(crmdash::app::pipeline::BAR_SCALE),
        "{screen}"
    );
}

#[test]
fn the_header_and_legend_wrap_rather_than_cut() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = harness(size);
        let (id, opts, _) = open(&mut h);
        let s = summary_of(&h, &opts);
        finish(&mut h, id, s, true);
        let screen = h.render();
        for said in [
            "PARTIAL: stopped at the 1-page cap, 60 of 60 deals",
            "totals per currency, never summed together",
            crmdash::app::pipeline::BAR_SCALE,
        ] {
            assert!(screen.contains(said), "{size:?}: {said}\n{screen}");
        }
        // Nothing of the view's own text ends in a cut.
        let cut = screen
            .lines()
            .skip(1)
            .take(size.1 as usize - 3)
            .any(|l| l.contains('…'));
        assert!(!cut, "{size:?}\n{screen}");
    }
}

#[test]
fn after_a_resize_the_selected_bar_stays_in_view() {
    let mut h = ready((160, 45));
    h.ch('G');
    let last = h.app.pipeline.as_ref().unwrap().selected;
    assert_eq!(last, 11);
    h.send(Message::Resize(60, 16));
    let visible = h.app.pipeline_rows_visible();
    let p = h.app.pipeline.as_ref().unwrap();
    assert!(visible < 12);
    assert!(
        p.offset <= last && last < p.offset + visible,
        "offset {} with {visible} rows",
        p.offset
    );
    let (status, cur) = p.selected_bar().unwrap();
    let screen = h.render();
    let marked = screen
        .lines()
        .find(|l| l.contains('▶'))
        .unwrap_or_else(|| panic!("no selected bar\n{screen}"));
    assert!(
        marked.contains(&status) && marked.contains(&cur),
        "{marked}\n{screen}"
    );
    snap("pipeline_resized", (60, 16), screen);
}

#[test]
fn e_exports_the_deals_summed_and_table_keys_say_where_they_work() {
    let mut h = ready((80, 24));
    h.ch('e');
    assert_eq!(h.app.overlays.len(), 1, "e opens the export");
    let screen = h.render();
    assert!(screen.contains("Export deals"), "{screen}");
    assert!(screen.contains("Every page of all deals"), "{screen}");
    h.key(KeyCode::Esc);
    assert!(h.app.overlays.is_empty());
    assert!(h.app.pipeline_visible);
    for c in ['s', 'S', 'i', 'y', '+'] {
        let before = h.fetches().len();
        h.ch(c);
        let note = dashboard_support::note_of(&h.app);
        assert!(
            note.starts_with(&format!("{c} ("))
                && note.contains("works in the table")
                && note.ends_with("P shows the table"),
            "{c}: {note}"
        );
        assert_eq!(h.fetches().len(), before, "{c} changed the hidden table");
        assert!(h.app.overlays.is_empty());
    }
    assert!(
        h.app.hint_line(160).contains("e export"),
        "{}",
        h.app.hint_line(160)
    );
}
