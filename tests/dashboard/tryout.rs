//! Problems met trying the palette, views and `o` as a new user would (in tmux, at 60x16,
//! 80x24 and 160x45), each through `App::update`.

use crate::dashboard_support;

use std::collections::BTreeMap;

use crate::palette::{harness, note, palette, workspace};
use crmdash::app::dialogs::Overlay;
use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness, test_config};

/// Opens the palette (closing an open one first), types `line`, presses `key`; the line after.
fn typed(h: &mut Harness, line: &str, key: KeyCode) -> String {
    if !h.app.overlays.is_empty() {
        h.key(KeyCode::Esc);
    }
    h.ch(':');
    h.type_str(line);
    h.key(key);
    palette(h).input.value().to_string()
}

/// `:view` + Tab used to become `:views ` (the only longer command), so the view's name
/// could not follow; a whole command name + Tab now takes it as typed, with its space.
#[test]
fn tab_after_a_whole_command_name_keeps_it() {
    let mut h = harness();
    assert_eq!(typed(&mut h, "view", KeyCode::Tab), "view");
    assert_eq!(palette(&h).completions.items, ["view", "views"]);
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "views");
    // One command only: Tab adds the space, as after a prefix.
    assert_eq!(typed(&mut h, "include", KeyCode::Tab), "include ");
}

/// docs/dashboard.md: `:deals ... columns=name,value`; completion and the refusal list offered no
/// `columns=`.
#[test]
fn columns_is_offered_as_a_query_key() {
    let mut h = harness();
    assert_eq!(typed(&mut h, "deals col", KeyCode::Tab), "deals columns=");
    typed(&mut h, "deals bogus=1", KeyCode::Enter);
    assert_eq!(
        palette(&h).error.as_deref(),
        Some("deals have no filter 'bogus': use name, status, sort, include, per, page, columns")
    );
}

/// `:page 2` on a one-page list said "there are 1 pages of contacts".
#[test]
fn page_past_the_end_counts_in_good_english() {
    // 10 deals: one page of 25.
    let mut h = Harness::with((100, 30), FakeData::new(10), test_config());
    h.app.set_workspace(workspace());
    h.answer_all();
    h.ch(':');
    h.type_str("page 99");
    h.key(KeyCode::Enter);
    let n = note(&h);
    assert_eq!(n, "Page 99: the list has only 1 page of deals");
}

/// `o` without a `web_url`: the way to set one did not fit the status bar (cut at
/// `"https://crm.example` even at 160 columns, at "No " at 80); it is a notice now, with
/// the line to paste for `y`.
#[test]
fn o_without_web_url_explains_in_a_notice() {
    let mut h = harness();
    assert!(h.ch('o').is_empty());
    let Some(Overlay::Notice(n)) = h.app.overlays.last() else {
        panic!("no notice: {:?}", note(&h));
    };
    assert!(n.text.contains("[profiles.default]"), "{}", n.text);
    assert_eq!(
        n.copy.as_deref(),
        Some("web_url = \"https://crm.example.com/{resource}/{id}\"")
    );
    h.key(KeyCode::Esc);
    assert!(h.app.overlays.is_empty());
}

/// `Esc` at once on `P` (Deals) or `T` (Projects) said "Stopped after 0 pages"; after one
/// page, "1 pages".
#[test]
fn a_stopped_reading_counts_its_pages_in_words() {
    let mut h = Harness::new((80, 24));
    h.answer_all();
    for (tab, view) in [('2', 'P'), ('3', 'T')] {
        h.ch(tab);
        h.answer_all();
        h.ch(view);
        h.key(KeyCode::Esc);
        let screen = h.render();
        assert!(
            screen.contains("Stopped before the first page came") && !screen.contains(" 0 pages"),
            "{screen}"
        );
        h.key(KeyCode::Esc);
    }
}

/// `:save` with a views file that has a broken line: the refusal (which names the line) was a
/// status message cut even at 160 columns, while the view list showed the unsaved view. The
/// runtime now answers `ViewsNotSaved`, shown whole in a dialog saying the change is not kept.
#[tokio::test]
async fn a_views_file_that_cannot_be_written_says_so_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("views.toml");
    std::fs::write(&path, "[views.broken\nresource = \n").unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let view = crmdash::config::views::SavedView {
        resource: "deals".into(),
        filters: BTreeMap::new(),
        sort: None,
        include: None,
        per_page: None,
        columns: None,
    };
    crmdash::runtime::workspace::edit_views_file(
        tx,
        path.clone(),
        crmdash::config::views::ViewEdit::Save {
            name: "third".into(),
            view,
        },
    );
    let msg = rx.recv().await.expect("an answer");
    // The file is left as it was.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "[views.broken\nresource = \n"
    );
    let crmdash::app::Message::ViewsNotSaved(e) = &msg else {
        panic!("not ViewsNotSaved: {msg:?}");
    };
    assert!(e.contains("line 1"), "{e}");

    let mut h = harness();
    h.send(msg);
    let Some(Overlay::Notice(n)) = h.app.overlays.last() else {
        panic!("no notice");
    };
    assert!(n.text.contains("line 1"), "{}", n.text);
    assert!(n.text.contains("this session only"), "{}", n.text);
}

/// `e` on an unfiltered tab said "All pages of: sorted by updated_at desc" (of what?).
#[test]
fn export_dialog_says_what_it_exports() {
    let mut h = harness();
    h.ch('e');
    let screen = h.render();
    assert!(
        screen.contains("Every page of all deals, sorted by updated_at desc"),
        "{screen}"
    );
    h.key(KeyCode::Esc);
    h.ch('/');
    h.type_str("Acme");
    h.key(KeyCode::Enter);
    h.answer_all();
    h.ch('e');
    let screen = h.render();
    assert!(
        screen.contains("Every page of the deals with name=Acme; sorted by"),
        "{screen}"
    );
}

/// `:profile work` for a profile with no keyring token said "…, or set CRMDASH_TOKEN" — but
/// in the dashboard CRMDASH_TOKEN belongs to the profile it started with and is never sent to
/// another profile's host, so that advice could not work.
#[tokio::test]
async fn a_profile_switch_without_a_token_gives_advice_that_works() {
    use crmdash::config::{Profile, Settings};
    use std::sync::Arc;
    let mut settings = Settings::default();
    settings.profiles.insert(
        "work".into(),
        Profile {
            base_url: Some("http://127.0.0.1:9".into()),
            web_url: None,
            ..Profile::default()
        },
    );
    let cx = crmdash::runtime::workspace::WorkspaceContext {
        settings,
        keyring: crmdash::credentials::Keyring::with_store(Arc::new(
            crate::keyring_support::TestStore::default(),
        )),
        opener: crmdash::runtime::opener::Opener {
            command: vec!["/nonexistent/opener".into()],
            configured: false,
            display: false,
        },
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    crmdash::runtime::workspace::switch_profile(tx, cx, "work".into());
    let msg = rx.recv().await.expect("an answer");
    let crmdash::app::Message::ProfileSwitched { result, .. } = msg else {
        panic!("not ProfileSwitched");
    };
    let Err(e) = *result else {
        panic!("switched without a token")
    };
    assert!(e.contains("crmdash login --profile work"), "{e}");
    assert!(!e.contains("or set CRMDASH_TOKEN"), "{e}");
    assert!(e.contains("crmdash --profile work"), "{e}");
}

/// The URL dialog over SSH said "…; it was copied to the clipboard" before showing the
/// address: "it" named nothing yet.
#[test]
fn the_url_dialog_says_what_was_copied() {
    let opener = crmdash::runtime::opener::Opener {
        command: vec!["xdg-open".into()],
        configured: false,
        display: false,
    };
    let reason = opener.open("https://crm.example.com/deals/1").unwrap_err();
    assert!(
        reason.contains("so the address below was copied to the clipboard"),
        "{reason}"
    );
}

/// The timeline marked the selected row with `▶`, the glyph its legend gives to "open end".
#[test]
fn the_timeline_selection_is_not_an_open_end() {
    let mut h = Harness::new((80, 24));
    h.answer_all();
    h.ch('3');
    h.answer_all();
    h.ch('T');
    h.answer_collects();
    let screen = h.render();
    assert!(screen.contains("▶ open end"), "{screen}");
    let rows: Vec<&str> = screen.lines().filter(|l| l.starts_with("│▶")).collect();
    assert!(rows.is_empty(), "{rows:?}");
    assert!(screen.lines().any(|l| l.starts_with("│› ")), "{screen}");
}
