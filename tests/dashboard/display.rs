//! Hostile server data on screen: very long names, multi-line values, control characters,
//! wide and combining unicode, emoji sequences and right-to-left text. At several terminal
//! sizes every screen line must be exactly as wide as the terminal (measured with
//! unicode-width, as a terminal would place the glyphs), hold no control character, and the
//! table's left and right borders must sit in the first and last column of every row.

use crate::dashboard_support;

use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness, test_config};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use unicode_width::UnicodeWidthStr;

const SIZES: [(u16, u16); 4] = [(80, 24), (97, 31), (120, 30), (160, 48)];

fn hostile_names() -> Vec<String> {
    vec![
        "N".repeat(10_000),
        "first line\nsecond line\r\nthird\tcolumn".into(),
        "bell\u{7} escape \u{1b}[31mred\u{1b}[0m".into(),
        "東京の大きな取引 株式会社 🚀🚀🚀".into(),
        "👩‍👩‍👧‍👦 family 🏳️‍🌈 flag 👍🏽 skin".into(),
        "e\u{301}\u{301}\u{301} combining a\u{20dd} zalgo".into(),
        "שלום עליכם مرحبا بالعالم".into(),
        "left\u{202e}thgir override\u{202c} back".into(),
        "zero\u{200b}width\u{feff}joiners\u{200d}".into(),
        "　full-width　ｓｐａｃｅｓ　".into(),
        String::new(),
        "   ".into(),
    ]
}

fn hostile_data() -> FakeData {
    let mut data = FakeData::new(40);
    let names = hostile_names();
    for (i, name) in names.iter().enumerate() {
        data.deals[i]["name"] = json!(name);
        data.deals[i]["status"] = json!(names[(i + 3) % names.len()]);
        data.deals[i]["account"] = json!({"id": "a", "name": names[(i + 5) % names.len()]});
        data.projects[i]["name"] = json!(name);
        data.contacts[i]["first_name"] = json!(name);
        data.contacts[i]["email"] = json!(format!("{}@example.com", "ü".repeat(i * 30)));
    }
    data.deals[0]["notes"] = json!("a multi-line\nfree text\nvalue\twith tabs");
    data.deals[0]["value"] = json!("99999999999999999999999999.99");
    data
}

/// Every row as a terminal would lay it out: each cell's glyph advances by its display width
/// (a wide glyph covers the next cell, which must then be blank), no cell holds a control
/// character or a zero-width glyph on its own, and the row ends exactly at the last column.
pub(crate) fn assert_rows_fit(t: &Terminal<TestBackend>, what: &str) {
    let buf = t.backend().buffer();
    let (w, h) = (buf.area.width, buf.area.height);
    for y in 0..h {
        let row: String = (0..w).map(|x| buf[(x, y)].symbol()).collect();
        let mut x = 0u16;
        let mut columns = 0usize;
        while x < w {
            let sym = buf[(x, y)].symbol();
            assert!(
                !sym.chars().any(|c| c.is_control()),
                "{what}: control character at ({x}, {y}): {row:?}"
            );
            let gw = sym.width();
            assert!(
                gw > 0,
                "{what}: zero-width glyph {sym:?} at ({x}, {y}): {row:?}"
            );
            for covered in x + 1..(x + gw as u16).min(w) {
                let c = buf[(covered, y)].symbol();
                assert!(
                    matches!(c, "" | " "),
                    "{what}: {sym:?} at ({x}, {y}) is half covered by {c:?}: {row:?}"
                );
            }
            columns += gw;
            x += gw as u16;
        }
        assert_eq!(
            columns, w as usize,
            "{what}: row {y} is not {w} columns wide: {row:?}"
        );
    }
}

/// The table block: rows between its top corner and bottom corner have a border at both ends.
fn assert_borders(t: &Terminal<TestBackend>, what: &str) {
    let buf = t.backend().buffer();
    let (w, h) = (buf.area.width, buf.area.height);
    let top = (0..h)
        .find(|y| buf[(0, *y)].symbol() == "┌")
        .unwrap_or_else(|| panic!("{what}: no table block"));
    let bottom = (top + 1..h)
        .find(|y| buf[(0, *y)].symbol() == "└")
        .unwrap_or_else(|| panic!("{what}: the table block is not closed"));
    assert_eq!(buf[(w - 1, top)].symbol(), "┐", "{what}");
    assert_eq!(buf[(w - 1, bottom)].symbol(), "┘", "{what}");
    for y in top + 1..bottom {
        assert_eq!(buf[(0, y)].symbol(), "│", "{what}: left border, row {y}");
        assert_eq!(
            buf[(w - 1, y)].symbol(),
            "│",
            "{what}: right border, row {y}"
        );
    }
}

fn draw(h: &Harness) -> Terminal<TestBackend> {
    let (w, hh) = h.app.size;
    let mut t = Terminal::new(TestBackend::new(w, hh)).unwrap();
    t.draw(|f| crmdash::ui::render(&h.app, f)).unwrap();
    t
}

#[test]
fn hostile_records_keep_every_tab_inside_the_terminal() {
    for size in SIZES {
        let mut h = Harness::with(size, hostile_data(), test_config());
        h.answer_all();
        for (tab, key) in [("deals", '2'), ("contacts", '1'), ("projects", '3')] {
            h.ch(key);
            h.answer_all();
            assert!(
                !h.app.tab().records().is_empty(),
                "{tab} loaded at {size:?}"
            );
            let what = format!("{tab} at {size:?}");
            let t = draw(&h);
            assert_rows_fit(&t, &what);
            assert_borders(&t, &what);
            // Down the table over every hostile row.
            for _ in 0..hostile_names().len() {
                h.key(KeyCode::Down);
            }
            let t = draw(&h);
            assert_rows_fit(&t, &format!("{what}, scrolled"));
            assert_borders(&t, &format!("{what}, scrolled"));
        }
    }
}

#[test]
fn the_detail_pane_of_a_hostile_record_stays_inside_the_terminal() {
    for size in SIZES {
        let mut h = Harness::with(size, hostile_data(), test_config());
        h.answer_all();
        for row in 0..hostile_names().len() {
            h.ch('g');
            for _ in 0..row {
                h.key(KeyCode::Down);
            }
            h.key(KeyCode::Enter);
            assert!(!h.app.overlays.is_empty(), "the detail opened");
            let t = draw(&h);
            assert_rows_fit(&t, &format!("detail of row {row} at {size:?}"));
            // Scrolling the long JSON down and back keeps it inside too.
            for _ in 0..30 {
                h.key(KeyCode::Down);
            }
            assert_rows_fit(&draw(&h), &format!("detail of row {row}, scrolled"));
            h.key(KeyCode::Esc);
            assert!(h.app.overlays.is_empty());
        }
    }
}

#[test]
fn a_hostile_filter_typed_in_the_bar_stays_inside_the_terminal() {
    let mut h = Harness::with((80, 24), hostile_data(), test_config());
    h.answer_all();
    h.ch('/');
    for name in hostile_names() {
        h.send(crmdash::app::Message::Paste(name));
    }
    let t = draw(&h);
    assert_rows_fit(&t, "filter bar");
}

#[test]
fn bidi_overrides_and_zero_width_characters_are_neutralised_on_screen() {
    let mut data = crate::dashboard_support::FakeData::new(5);
    for (i, c) in data.contacts.iter_mut().enumerate() {
        c["first_name"] = if i % 2 == 0 {
            serde_json::json!(crmdash::sandbox::HOSTILE_ESCAPES)
        } else {
            serde_json::json!("Mal\u{2066}lory\u{2069}\u{200e}\u{feff}\u{2060}")
        };
    }
    let mut h = crate::dashboard_support::Harness::with(
        (160, 30),
        data,
        crate::dashboard_support::test_config(),
    );
    h.answer_all();
    h.key(crossterm::event::KeyCode::Char('1'));
    h.answer_all();
    let table = h.render();
    h.key(crossterm::event::KeyCode::Enter);
    let detail = h.render();
    for screen in [&table, &detail] {
        for bad in [
            '\u{1b}', '\u{202e}', '\u{200b}', '\u{2066}', '\u{2069}', '\u{200e}', '\u{feff}',
            '\u{2060}',
        ] {
            assert!(!screen.contains(bad), "{bad:?} on screen:\n{screen}");
        }
    }
    assert!(table.contains("Mal�lory"), "{table}");
}
