//! Issue 14, reading what is on screen: amounts with their currency, text cut with `…` and
//! readable whole in `?`, complex scripts under an open dialog, small terminals (60x16) with
//! columns dropped by priority and scrolled into view, help rows and the Contacts sort arrow.

use crate::dashboard_support;
use crate::display::assert_rows_fit;

use crmdash::api::{Contact, Created, Deal, decode_page, decode_single};
use crmdash::app::Message;
use crmdash::app::layout::shown_columns;
use crmdash::app::resources::{ColumnId, Descriptor, Resource};
use crmdash::app::table::record::{CellFormat, DisplayZone, build_page};
use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness, test_config};
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use serde_json::json;
use unicode_width::UnicodeWidthStr;

const SIZES: [(u16, u16); 3] = [(60, 16), (80, 24), (160, 45)];

fn snap(name: &str, size: (u16, u16), screen: String) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen);
}

/// Rows in Devanagari, Arabic and with emoji ZWJ sequences, in four currencies, first on
/// the page (the harness sorts nothing: the order is the data's).
fn scripts_data() -> FakeData {
    let mut data = FakeData::new(40);
    let rows = [
        ("वर्मा & Sons – Hardware refresh", "INR", "338858.3"),
        ("شركة الشمري للتجارة – Support renewal", "SAR", "1200"),
        (
            "👩‍👩‍👧 Family Bakery – 🏳️‍🌈 Pride 👍🏽 promo",
            "USD",
            "99999999999999999999.99",
        ),
        ("محمد العتيبي & वर्मा 👨‍💻", "EUR", "0.125"),
    ];
    for (i, d) in data.deals.iter_mut().enumerate() {
        d["currency"] = json!(rows[i % rows.len()].1);
    }
    for (i, (name, currency, value)) in rows.iter().enumerate() {
        data.deals[i]["name"] = json!(name);
        data.deals[i]["currency"] = json!(currency);
        data.deals[i]["value"] = json!(value);
        data.deals[i]["account"] = json!({"id": "a", "name": name});
        data.contacts[i]["first_name"] = json!(name);
    }
    data
}

fn loaded(size: (u16, u16), data: FakeData) -> Harness {
    let mut h = Harness::with(size, data, test_config());
    h.answer_all();
    h
}

fn value_cells(h: &Harness) -> Vec<String> {
    let cols = h.app.tab().resource.columns;
    let i = cols.iter().position(|c| c.id == ColumnId::Value).unwrap();
    h.app
        .tab()
        .records()
        .iter()
        .map(|r| r.cells[i].text.clone())
        .collect()
}

#[test]
fn amounts_show_their_currency_grouped_and_exact() {
    let h = loaded((160, 45), scripts_data());
    let v = value_cells(&h);
    assert_eq!(v[0], "338,858.30 INR");
    assert_eq!(v[1], "1,200.00 SAR");
    // Every digit, grouped: never through a float.
    assert_eq!(v[2], "99,999,999,999,999,999,999.99 USD");
    assert_eq!(v[3], "0.125 EUR");
    // The screen shows them right-aligned, whole at this width.
    let screen = h.render();
    assert!(screen.contains("338,858.30 INR"), "{screen}");
}

#[test]
fn a_configured_default_currency_fills_only_missing_ones() {
    let body = br#"{"data":[{"id":"1","name":"a","value":"1234567.5"},
        {"id":"2","name":"b","value":12,"currency":"jpy"},{"id":"3","name":"c"}]}"#;
    let cols: Vec<ColumnId> = Descriptor::of(Resource::Deals)
        .columns
        .iter()
        .map(|c| c.id)
        .collect();
    let i = cols.iter().position(|c| *c == ColumnId::Value).unwrap();
    let format = CellFormat {
        zone: DisplayZone::Named(chrono_tz::Tz::UTC),
        currency: Some("EUR".into()),
    };
    let page = build_page(decode_page::<Deal>(body).unwrap(), &cols, format);
    let texts: Vec<&str> = page
        .records
        .iter()
        .map(|r| r.cells[i].text.as_str())
        .collect();
    assert_eq!(texts, ["1,234,567.50 EUR", "12.00 JPY", "-"]);
    assert_eq!(page.currencies, ["EUR", "JPY"]);
    // Without a default, an amount without currency shows none.
    let page = build_page(
        decode_page::<Deal>(body).unwrap(),
        &cols,
        DisplayZone::Named(chrono_tz::Tz::UTC),
    );
    assert_eq!(page.records[0].cells[i].text, "1,234,567.50");
}

#[test]
fn sorted_by_value_the_title_says_the_page_mixes_currencies() {
    let mut h = loaded((160, 45), scripts_data());
    assert!(!h.render().contains("currencies"));
    // s s s: created, name, status... until value.
    while h.app.tab().sort_by != "value" {
        h.ch('s');
        h.answer_all();
    }
    let screen = h.render();
    assert!(
        screen.contains("sort value ↓ across 4 currencies"),
        "{screen}"
    );
}

#[test]
fn a_cut_status_message_ends_in_an_ellipsis_and_is_whole_in_help() {
    let mut h = loaded((60, 16), FakeData::new(40));
    let long =
        "Exported 12,345 deals to /home/someone/a/rather/deep/directory/deals-2026-11-25.csv";
    h.note(long);
    let screen = h.render();
    let status = screen.lines().nth(14).unwrap();
    assert!(status.contains('…'), "{status}");
    // The profile and host gave way to it.
    assert!(
        status.contains("/home/someone/a/rather/deep/dir… ?"),
        "{status}"
    );
    assert!(!status.contains("crm.example.com"), "{status}");
    assert!(!status.contains("deals-2026"), "{status}");
    // `?` lists it whole (wrapped), newest first.
    h.ch('?');
    let mut h80 = h;
    h80.send(Message::Resize(160, 45));
    let help = h80.render();
    assert!(help.contains("Recent messages"), "{help}");
    assert!(help.contains("deals-2026-11-25.csv"), "{help}");
}

#[test]
fn the_profile_and_host_are_cut_with_an_ellipsis_on_a_narrow_screen() {
    let mut config = test_config();
    config.host = "crm.a-rather-long-company-name.example.com:8443".into();
    let mut h = Harness::with((60, 16), FakeData::new(40), config);
    h.answer_all();
    let screen = h.render();
    let status = screen.lines().nth(14).unwrap();
    // The profile first, then the host as far as it goes, cut with `…`.
    assert!(status.contains("default @ crm.a"), "{status}");
    assert!(status.trim_end().ends_with('…'), "{status}");
}

#[test]
fn the_note_after_creating_a_contact_keeps_the_id_on_a_narrow_screen() {
    let mut h = loaded((60, 16), FakeData::new(40));
    h.ch('c');
    for c in "Maximiliane-Alexandrina Wolkenstein-Rodenegg".chars() {
        h.ch(c);
    }
    h.ctrl('s');
    let fx = h.key(KeyCode::Enter);
    let id = fx
        .iter()
        .find_map(|e| match e {
            crmdash::app::Effect::CreateContact { id, .. } => Some(*id),
            _ => None,
        })
        .expect("a create");
    let body = br#"{"data":{"id":"con_98765","first_name":"Maximiliane-Alexandrina","last_name":"Wolkenstein-Rodenegg von und zu Oberhaus"}}"#;
    let record: Contact = decode_single(body).unwrap().unwrap();
    h.send(Message::ContactCreated {
        id,
        result: Box::new(Ok(Created {
            status: 201,
            record: Some(record),
            replayed: false,
            undecoded: None,
        })),
    });
    let screen = h.render();
    let status = screen.lines().nth(14).unwrap();
    assert!(status.contains("con_98765"), "{status}");
    assert!(status.contains('…'), "{status}");
}

#[test]
fn narrow_screens_drop_columns_by_priority_and_scroll_to_them() {
    let mut h = loaded((60, 16), scripts_data());
    assert!(!h.app.too_small());
    let screen = h.render();
    let deals = h.app.tab().resource.columns;
    let shown = shown_columns(deals, 58, 0);
    assert!(shown.hidden > 0);
    let marker = format!("+{} columns › h/l", shown.hidden);
    assert!(screen.lines().nth(1).unwrap().contains(&marker), "{screen}");
    // The pinned name column stays; `l` brings the dropped ones in, one by one.
    let mut seen: Vec<&str> = shown.fitted.iter().map(|(i, _)| deals[*i].title).collect();
    for _ in 0..deals.len() {
        h.ch('l');
        let s = shown_columns(deals, 58, h.app.tab().col_scroll);
        assert_eq!(deals[s.fitted[0].0].title, "Name");
        seen.extend(s.fitted.iter().map(|(i, _)| deals[*i].title));
    }
    for c in deals {
        assert!(seen.contains(&c.title), "{} never shown: {seen:?}", c.title);
    }
    let scrolled = h.render();
    assert!(
        scrolled.lines().nth(1).unwrap().contains("‹ +"),
        "{scrolled}"
    );
    for _ in 0..deals.len() {
        h.ch('h');
    }
    assert_eq!(h.app.tab().col_scroll, 0);
    // The hint line says how, in its short form.
    assert!(h.render().lines().nth(15).unwrap().contains("h/l columns"));
    // Wide enough for all: nothing dropped, no marker, `l` does nothing.
    let mut wide = loaded((160, 45), scripts_data());
    assert!(!wide.render().contains("columns ›"));
    wide.ch('l');
    assert_eq!(wide.app.tab().col_scroll, 0);
}

/// A terminal: ratatui's real output bytes (diffs, cursor moves) fed to the vt100 emulator.
pub(crate) struct Vt {
    term: Terminal<CrosstermBackend<Shared>>,
    out: Shared,
    parser: vt100::Parser,
}

/// The bytes ratatui writes, kept for the emulator.
#[derive(Clone, Default)]
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Vt {
    pub(crate) fn new((w, h): (u16, u16)) -> Vt {
        let out = Shared::default();
        let backend = CrosstermBackend::new(out.clone());
        let term = Terminal::with_options(
            backend,
            TerminalOptions {
                viewport: Viewport::Fixed(Rect::new(0, 0, w, h)),
            },
        )
        .unwrap();
        let nz = |n: u16| std::num::NonZero::new(n).unwrap();
        Vt {
            term,
            out,
            parser: vt100::Parser::new(nz(h), nz(w), 0),
        }
    }

    /// The bytes ratatui sends for the next frame (also fed to the emulator).
    pub(crate) fn draw_bytes(&mut self, app: &crmdash::app::App) -> Vec<u8> {
        self.term.draw(|f| crmdash::ui::render(app, f)).unwrap();
        let bytes = std::mem::take(&mut *self.out.0.borrow_mut());
        self.parser.process(&bytes);
        bytes
    }

    pub(crate) fn draw(&mut self, app: &crmdash::app::App) -> String {
        self.draw_bytes(app);
        // Blanks written over old text and never-written cells look the same.
        let text = self.parser.screen().contents();
        text.lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// What a terminal shows for the screen drawn at once, on a fresh terminal.
pub(crate) fn fresh(app: &crmdash::app::App) -> String {
    Vt::new(app.size).draw(app)
}

#[test]
fn complex_scripts_under_the_detail_pane_stay_in_their_cells() {
    for size in SIZES {
        for (tab, key) in [("deals", '2'), ("contacts", '1')] {
            let mut h = loaded(size, scripts_data());
            h.ch(key);
            h.answer_all();
            let what = format!("{tab} at {size:?}");
            let mut t = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
            t.draw(|f| crmdash::ui::render(&h.app, f)).unwrap();
            assert_rows_fit(&t, &what);
            snap(
                &format!("scripts_{tab}"),
                size,
                dashboard_support::buffer_text(t.backend()),
            );
            // In a terminal, frame after frame (only the changes are sent): the detail pane
            // over each complex row in turn, closed again, then another tab. What it shows is
            // what the same screen drawn at once shows: no stray glyph, nothing shifted.
            let mut vt = Vt::new(size);
            vt.draw(&h.app);
            for row in 0..4 {
                h.key(KeyCode::Enter);
                let shown = vt.draw(&h.app);
                assert_eq!(shown, fresh(&h.app), "{what}, detail of row {row}");
                if row == 0 {
                    let mut t = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
                    t.draw(|f| crmdash::ui::render(&h.app, f)).unwrap();
                    assert_rows_fit(&t, &format!("{what}, detail"));
                    snap(
                        &format!("scripts_{tab}_detail"),
                        size,
                        dashboard_support::buffer_text(t.backend()),
                    );
                }
                h.key(KeyCode::Esc);
                h.key(KeyCode::Down);
                let shown = vt.draw(&h.app);
                assert_eq!(shown, fresh(&h.app), "{what}, after closing row {row}");
            }
            h.ch('3');
            h.answer_all();
            let shown = vt.draw(&h.app);
            assert_eq!(shown, fresh(&h.app), "{what}, then projects");
            // Every table row has its right border where the terminal put it.
            let width = usize::from(size.0);
            for (y, line) in shown
                .lines()
                .enumerate()
                .skip(2)
                .take(usize::from(size.1) - 5)
            {
                let cols = unicode_width::UnicodeWidthStr::width(line);
                assert!(cols <= width, "{what}: row {y} is {cols} wide: {line}");
            }
        }
    }
}

#[test]
fn help_descriptions_wrap_after_the_key_column() {
    let mut h = loaded((60, 16), FakeData::new(40));
    h.ch('?');
    // Tall enough for the whole help, narrow enough to wrap.
    h.send(Message::Resize(60, 120));
    let screen = h.render();
    // The Pipeline row's description is longer than the room: its continuation starts in
    // the description column (26 columns in, inside the box), not under the keys.
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("Deals: pipeline view"))
        .expect("the pipeline row");
    let first = lines[at];
    let next = lines[at + 1];
    let col = |line: &str, byte: usize| line[..byte].width();
    let desc_col = col(first, first.find("Deals:").unwrap());
    // The continuation's first letter, right of the box's left border.
    let border = next
        .char_indices()
        .filter(|(_, c)| *c == '│')
        .nth(1)
        .unwrap()
        .0;
    let text_at = next[border + '│'.len_utf8()..]
        .find(|c: char| c != ' ')
        .unwrap()
        + border
        + '│'.len_utf8();
    let cont = col(next, text_at);
    assert_eq!(cont, desc_col, "\n{first}\n{next}");
}

#[test]
fn on_contacts_the_header_arrow_and_the_title_agree_after_s() {
    let mut h = loaded((160, 45), FakeData::new(40));
    h.ch('1');
    h.answer_all();
    for _ in 0..5 {
        h.ch('s');
        h.answer_all();
        let key = h.app.tab().sort_by;
        let screen = h.render();
        let title = screen.lines().nth(1).unwrap();
        let header = screen.lines().nth(2).unwrap();
        assert!(title.contains(&format!("sort {key} ↓")), "{title}");
        assert_eq!(header.matches('↓').count(), 1, "{key}: {header}");
        let arrowed = match key {
            "first_name" => "Name (first_name) ↓",
            "last_name" => "Name ↓",
            "email" => "Email ↓",
            "created_at" => "Created ↓",
            "updated_at" => "Updated ↓",
            other => panic!("unexpected sort key {other}"),
        };
        assert!(header.contains(arrowed), "{key}: {header}");
    }
}
