//! `[keys]` and the config file's warnings as a user meets them: `?` lists every binding with
//! the action name the config file uses (main screen and dialogs), a rebinding onto a key
//! another action of the same screen has is refused with a message naming both (the default
//! stays and works), every warning can be read in `?` and the status bar says how many.
//! Also: the page size's origin in `?`, and a changed `[ui] per_page` winning over the size
//! remembered from the last run, across real runs of the engine against the sandbox.

use std::collections::BTreeMap;
use std::time::Duration;

use crmdash::api::Client;
use crmdash::app::keymap::KeyMap;
use crmdash::app::{Message, Resource};
use crmdash::config::Settings;
use crmdash::runtime::{DashboardOptions, Engine, build_engine};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use secrecy::SecretString;

use crate::dashboard_support::{FakeData, Harness, test_config};

fn harness_with(rebind: &[(&str, &[&str])], file_warnings: &[&str]) -> Harness {
    let keys: BTreeMap<String, Vec<String>> = rebind
        .iter()
        .map(|(a, ks)| (a.to_string(), ks.iter().map(|k| k.to_string()).collect()))
        .collect();
    let (keymap, key_warnings) = KeyMap::from_settings(&keys);
    let mut config = test_config();
    config.warnings = file_warnings.iter().map(|w| w.to_string()).collect();
    config.warnings.extend(key_warnings);
    config.keymap = keymap;
    let mut h = Harness::with((120, 40), FakeData::new(30), config);
    h.answer_all();
    h
}

/// The help overlay's whole text (scrolled through).
fn help_text(h: &mut Harness) -> String {
    h.ch('?');
    let mut seen = String::new();
    for _ in 0..12 {
        seen.push_str(&h.render());
        for _ in 0..30 {
            h.key(KeyCode::Down);
        }
    }
    h.key(KeyCode::Esc);
    seen
}

#[test]
fn help_names_the_action_of_every_binding_dialogs_included() {
    let mut h = harness_with(&[("filter", &["ctrl-t"])], &[]);
    let help = help_text(&mut h);
    for line in [
        "Keys (in parentheses: the action's name for [keys] in the config file)",
        "Ctrl-T                  filter (filter)",
        "j ↓                     move down (down)",
        "P                       Deals: pipeline view",
        "In dialogs and the filter bar",
        "Ctrl-S                  submit the form (create, preview) (submit)",
        "Tab Shift-Tab           export as CSV / JSON (switch_format)",
        "Ctrl-N                  filter bar: next status value seen (next_value)",
    ] {
        assert!(help.contains(line), "missing {line:?} in:\n{help}");
    }
    assert!(help.contains("(pipeline)"), "{help}");
}

#[test]
fn a_colliding_rebinding_is_refused_and_the_default_still_works() {
    let mut h = harness_with(&[("filter", &["r"])], &[]);
    let note = h.app.status.note.clone().unwrap().0;
    assert!(note.starts_with("Config warning (? shows it): keys: filter = \"r\" refused: r is already refresh on the main screen"), "{note}");
    // `r` still refreshes; `/` still filters.
    let before = h.fetches().len();
    h.ch('r');
    assert_eq!(h.fetches().len(), before + 1, "r refreshed");
    assert!(!h.app.tab().filter_open);
    h.ch('/');
    assert!(h.app.tab().filter_open);
}

#[test]
fn every_warning_is_readable_in_help_and_counted_in_the_status_bar() {
    let file = [
        "config file /c.toml: unknown key 'colour' ignored",
        "config file /c.toml: [ui] per_page = 30 is not one of 10, 25, 50, 100; using 25",
        "config file /c.toml: [ui] theme = \"neon\" is not one of default, 16, none; using default",
    ];
    let mut h = harness_with(&[("filter", &["r"])], &file);
    let screen = h.render();
    assert!(
        screen.contains("4 config warnings (? lists them): config fil"),
        "{screen}"
    );
    let help = help_text(&mut h);
    assert!(help.contains("Config file: 4 warnings"), "{help}");
    for w in file {
        // Wrapped in the help: look for its start.
        assert!(help.contains(&w[..40]), "missing {w:?} in:\n{help}");
    }
    assert!(help.contains("keys: filter = \"r\" refused"), "{help}");
}

#[test]
fn help_says_where_the_page_size_comes_from() {
    let mut h = Harness::new((120, 40));
    h.answer_all();
    let help = help_text(&mut h);
    assert!(
        help.contains("Page size: Deals: 25 per page (the default; [ui] per_page in the config"),
        "{help}"
    );
    h.ch('+');
    let help = help_text(&mut h);
    assert!(
        help.contains("Deals: 50 per page (changed here; remembered for the next run)"),
        "{help}"
    );
}

const QUIET: Duration = Duration::from_millis(400);

/// One run of the dashboard on the sandbox with `[ui] per_page` (when given) and a state file.
async fn run(sb: &SandboxHandle, per_page: Option<u32>, state: &std::path::Path) -> Engine {
    let text = per_page
        .map(|p| format!("[ui]\nper_page = {p}\n"))
        .unwrap_or_default();
    let file = state.with_file_name("config.toml");
    std::fs::write(&file, text).unwrap();
    let settings: Settings = crmdash::config::load(Some(&file)).settings;
    let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).unwrap();
    let opts = DashboardOptions {
        profile: "test".into(),
        base_url: sb.base_url(),
        client: Some(client),
        settings,
        state_file: Some(state.to_path_buf()),
        log_path: None,
        demo: true,
    };
    let mut e = build_engine(&opts, (120, 35));
    e.start();
    e.settle(QUIET).await;
    e
}

fn quit(e: &mut Engine) {
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('q'),
        KeyModifiers::NONE,
    )));
}

fn shown_per_page(e: &Engine) -> u32 {
    e.app.tab().shown.as_ref().unwrap().spec.per_page
}

#[tokio::test]
async fn a_changed_config_per_page_wins_over_an_older_remembered_one() {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("dashboard.json");

    // Run 1: the file says 50; `+` makes it 100, remembered at quit.
    let mut e = run(&sb, Some(50), &state).await;
    assert_eq!(e.app.active, Resource::Deals);
    assert_eq!(shown_per_page(&e), 50);
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('+'),
        KeyModifiers::NONE,
    )));
    e.settle(QUIET).await;
    assert_eq!(shown_per_page(&e), 100);
    quit(&mut e);

    // Run 2: the file still says 50: the remembered 100 wins.
    let mut e = run(&sb, Some(50), &state).await;
    assert_eq!(shown_per_page(&e), 100);
    assert!(
        e.app
            .help_facts()
            .page_size
            .unwrap()
            .contains("remembered from the last run")
    );
    quit(&mut e);

    // Run 3: the file now says 10: the change wins over the older remembered size.
    let mut e = run(&sb, Some(10), &state).await;
    assert_eq!(shown_per_page(&e), 10);
    assert!(
        e.app
            .help_facts()
            .page_size
            .unwrap()
            .contains("from the config file")
    );
    quit(&mut e);

    // Run 4: the line removed: what the last run left.
    let e = run(&sb, None, &state).await;
    assert_eq!(shown_per_page(&e), 10);
    sb.shutdown().await;
}
