//! The `:` palette through `App::update`: every command, completion, history (kept in the
//! state file), saved views and their picker, `:profile`, and `o` (the web UI address).

use crate::dashboard_support;

use std::collections::BTreeMap;
use std::time::Duration;

use crmdash::api::SortDirection;
use crmdash::app::dialogs::Overlay;
use crmdash::app::persist::PersistedState;
use crmdash::app::table::spec::FilterValue;
use crmdash::app::workspace::Workspace;
use crmdash::app::{App, Effect, ExportFormat, Message, Now, Resource};
use crmdash::config::views::{SavedView, ViewEdit};
use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness, test_config, wall0};

pub(crate) fn workspace() -> Workspace {
    let mut views = BTreeMap::new();
    views.insert(
        "open-big".to_string(),
        SavedView {
            resource: "deals".into(),
            filters: BTreeMap::from([("status".to_string(), "open".to_string())]),
            sort: Some("-value".into()),
            include: Some(vec!["account".into()]),
            per_page: Some(50),
            columns: None,
        },
    );
    Workspace {
        views,
        views_path: Some("/tmp/crmdash-test/views.toml".into()),
        profiles: BTreeMap::from([
            ("default".to_string(), None),
            (
                "work".to_string(),
                Some("https://crm.example.com/{resource}/{id}".to_string()),
            ),
        ]),
        profile: "default".into(),
        history: Vec::new(),
        problems: Vec::new(),
        touched: Default::default(),
    }
}

pub(crate) fn harness() -> Harness {
    let mut h = Harness::new((100, 30));
    h.app.set_workspace(workspace());
    h.answer_all();
    h
}

/// Types `:` and the line, then Enter; the effects of the Enter.
fn run(h: &mut Harness, line: &str) -> Vec<Effect> {
    h.ch(':');
    h.type_str(line);
    h.key(KeyCode::Enter)
}

pub(crate) fn palette(h: &Harness) -> &crmdash::app::dialogs::palette::PaletteDialog {
    match h.app.overlays.last() {
        Some(Overlay::Palette(p)) => p,
        _ => panic!("no palette open"),
    }
}

pub(crate) fn note(h: &Harness) -> String {
    crate::dashboard_support::note_of(&h.app)
}

fn last_fetch(fx: &[Effect]) -> &crmdash::app::QuerySpec {
    fx.iter()
        .rev()
        .find_map(|e| match e {
            Effect::Fetch { spec, .. } => Some(spec),
            _ => None,
        })
        .expect("a fetch")
}

#[test]
fn resource_commands_set_the_tab_query() {
    let mut h = harness();
    let fx = run(&mut h, "deals status=open sort=-value");
    assert!(h.app.overlays.is_empty());
    assert_eq!(h.app.active, Resource::Deals);
    let spec = last_fetch(&fx);
    assert_eq!(spec.filters, [("status", FilterValue::Text("open".into()))]);
    assert_eq!(
        (spec.sort_by, spec.direction),
        ("value", SortDirection::Desc)
    );
    // The filter bar shows what the command set.
    assert_eq!(h.app.tab().filter_bar.fields[1].input.value(), "open");

    let fx = run(&mut h, "contacts email=ada@");
    assert_eq!(h.app.active, Resource::Contacts);
    assert_eq!(
        last_fetch(&fx).filters,
        [("email", FilterValue::Text("ada@".into()))]
    );

    let fx = run(&mut h, "projects status=active");
    assert_eq!(h.app.active, Resource::Projects);
    assert_eq!(
        last_fetch(&fx).filters,
        [("status", FilterValue::Text("active".into()))]
    );
}

#[test]
fn unknown_commands_and_fields_say_what_is_accepted() {
    let mut h = harness();
    let fx = run(&mut h, "dels");
    assert!(fx.is_empty());
    let e = palette(&h).error.clone().unwrap();
    assert!(
        e.starts_with("unknown command 'dels': use contacts, deals, projects, view"),
        "{e}"
    );
    // The line stays for fixing.
    assert_eq!(palette(&h).input.value(), "dels");
    h.key(KeyCode::Esc);
    assert!(h.app.overlays.is_empty());

    run(&mut h, "deals email=x");
    let e = palette(&h).error.clone().unwrap();
    assert_eq!(
        e,
        "deals have no filter 'email': use name, status, sort, include, per, page, columns"
    );
    h.key(KeyCode::Esc);
    run(&mut h, "deals sort=price");
    let e = palette(&h).error.clone().unwrap();
    assert!(
        e.contains("cannot sort by 'price': use created_at, updated_at, name, status, value"),
        "{e}"
    );
}

#[test]
fn page_per_and_include() {
    let mut h = harness();
    let fx = run(&mut h, "per 10");
    assert_eq!(last_fetch(&fx).per_page, 10);
    h.answer_all();
    let fx = run(&mut h, "page 5");
    assert_eq!(last_fetch(&fx).page, 5);
    h.answer_all();
    // 60 deals in pages of 10: there is no page 9.
    let fx = run(&mut h, "page 9");
    assert!(fx.iter().all(|e| !matches!(e, Effect::Fetch { .. })));
    assert_eq!(note(&h), "Page 9: the list has only 6 pages of deals");
    run(&mut h, "per 7");
    assert!(palette(&h).error.as_deref().unwrap().contains("10, 25, 50"));
    h.key(KeyCode::Esc);
    let fx = run(&mut h, "per 100");
    assert_eq!(last_fetch(&fx).per_page, 100);
    let fx = run(&mut h, "include account,contacts");
    assert_eq!(last_fetch(&fx).includes, ["account", "contacts"]);
    run(&mut h, "include owner");
    assert!(
        palette(&h)
            .error
            .as_deref()
            .unwrap()
            .contains("use account, contacts, assigned_user, assigned_users")
    );
}

#[test]
fn export_help_sync_and_quit() {
    let mut h = harness();
    run(&mut h, "export json");
    match h.app.overlays.last() {
        Some(Overlay::Export(d)) => {
            assert_eq!(d.format, ExportFormat::Json);
            assert!(d.path.value().ends_with(".json"), "{}", d.path.value());
        }
        _ => panic!("no export dialog"),
    }
    h.key(KeyCode::Esc);
    run(&mut h, "export csv");
    assert!(
        matches!(h.app.overlays.last(), Some(Overlay::Export(d)) if d.format == ExportFormat::Csv)
    );
    h.key(KeyCode::Esc);
    run(&mut h, "help");
    assert!(matches!(h.app.overlays.last(), Some(Overlay::Help(_))));
    h.key(KeyCode::Esc);
    // The harness has no mirror ([cache] off): `:sync` says so instead of starting one.
    assert_eq!(run(&mut h, "sync"), []);
    let note = crate::dashboard_support::note_of(&h.app);
    assert!(note.contains("mirror is off"), "{note}");
    h.app.set_mirror(true, None);
    let fx = run(&mut h, "sync");
    assert!(
        matches!(
            fx.as_slice(),
            [Effect::StartJob {
                job: crmdash::app::jobs::JobSpec::Sync,
                ..
            }]
        ),
        "{fx:?}"
    );
    // A second one while it runs is not started.
    assert_eq!(run(&mut h, "sync"), []);
    let fx = run(&mut h, "q");
    assert!(fx.contains(&Effect::Quit));
    assert!(h.app.quitting);
}

#[test]
fn tab_completes_commands_keys_and_seen_statuses() {
    let mut h = harness();
    h.ch(':');
    h.type_str("de");
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "deals ");
    h.type_str("st");
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "deals status=");
    // The statuses seen on the Deals tab, in order; each Tab the next one.
    assert_eq!(
        palette(&h).completions.items,
        [
            "status=lost",
            "status=negotiation",
            "status=open",
            "status=won"
        ]
    );
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "deals status=lost");
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "deals status=negotiation");
    h.key(KeyCode::BackTab);
    assert_eq!(palette(&h).input.value(), "deals status=lost");
    h.type_str(" sort=-v");
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "deals status=lost sort=-value ");
    let fx = h.key(KeyCode::Enter);
    assert_eq!(last_fetch(&fx).sort_by, "value");

    // View and profile names.
    h.ch(':');
    h.type_str("view o");
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "view open-big ");
    h.key(KeyCode::Esc);
    h.ch(':');
    h.type_str("profile w");
    h.key(KeyCode::Tab);
    assert_eq!(palette(&h).input.value(), "profile work ");
}

#[test]
fn history_is_recalled_and_kept_in_the_state_file() {
    let mut h = harness();
    run(&mut h, "per 50");
    run(&mut h, "deals status=won");
    h.ch(':');
    h.type_str("dra");
    h.key(KeyCode::Up);
    assert_eq!(palette(&h).input.value(), "deals status=won");
    h.key(KeyCode::Up);
    assert_eq!(palette(&h).input.value(), "per 50");
    h.key(KeyCode::Up);
    assert_eq!(palette(&h).input.value(), "per 50");
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    assert_eq!(palette(&h).input.value(), "dra");
    h.key(KeyCode::Esc);

    let state: PersistedState = h.app.remembered();
    assert_eq!(state.palette_history, ["per 50", "deals status=won"]);
    let json = serde_json::to_string(&state).unwrap();
    let back: PersistedState = serde_json::from_str(&json).unwrap();
    let now = Now {
        at: tokio::time::Instant::now(),
        wall: wall0(),
    };
    let mut app = App::new(test_config(), &back, (100, 30), now);
    app.set_workspace(workspace());
    assert_eq!(app.workspace.history, ["per 50", "deals status=won"]);
    // A state file from before the palette still reads.
    let old: PersistedState = serde_json::from_str(r#"{"active_tab":"deals"}"#).unwrap();
    assert!(old.palette_history.is_empty());
}

#[test]
fn save_view_and_open_it() {
    let mut h = harness();
    run(&mut h, "deals status=won sort=name");
    h.answer_all();
    let fx = run(&mut h, "save won-by-name");
    let Some(Effect::EditViews {
        path,
        edit: ViewEdit::Save { name, view },
    }) = fx.first()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(path.to_str(), Some("/tmp/crmdash-test/views.toml"));
    assert_eq!(name, "won-by-name");
    assert_eq!(view.resource, "deals");
    assert_eq!(view.filters["status"], "won");
    assert_eq!(view.sort.as_deref(), Some("name"));
    assert!(
        note(&h).starts_with("Saved view won-by-name"),
        "{}",
        note(&h)
    );

    // Elsewhere, `:view` brings the whole query back, clearing other filters.
    run(&mut h, "contacts");
    let fx = run(&mut h, "view open-big");
    assert_eq!(h.app.active, Resource::Deals);
    let spec = last_fetch(&fx);
    assert_eq!(spec.filters, [("status", FilterValue::Text("open".into()))]);
    assert_eq!(
        (spec.sort_by, spec.direction),
        ("value", SortDirection::Desc)
    );
    assert_eq!(
        (spec.per_page, spec.includes.as_slice()),
        (50, &["account"][..])
    );
    assert!(
        note(&h).starts_with("View open-big: deals status=open"),
        "{}",
        note(&h)
    );
    // Shown at once from the cache: the same query was loaded moments ago.
    let fx = run(&mut h, "view won-by-name");
    assert!(
        fx.iter().all(|e| !matches!(e, Effect::Fetch { .. })),
        "{fx:?}"
    );
    let shown = &h.app.tab().shown.as_ref().unwrap().spec;
    assert_eq!(shown.filters, [("status", FilterValue::Text("won".into()))]);
    assert_eq!(shown.sort_by, "name");
}

#[test]
fn a_view_naming_an_unknown_field_says_so() {
    let mut h = harness();
    let mut ws = workspace();
    ws.views.insert(
        "broken".into(),
        SavedView {
            resource: "deals".into(),
            sort: Some("-amount".into()),
            ..SavedView::default()
        },
    );
    h.app.set_workspace(ws);
    // The palette says so, keeping the line.
    let fx = run(&mut h, "view broken");
    assert!(fx.is_empty());
    assert_eq!(
        palette(&h).error.as_deref(),
        Some(
            "view 'broken': deals cannot sort by 'amount': use created_at, updated_at, name, status, value ('-' in front sorts descending, e.g. -value)"
        )
    );
    h.key(KeyCode::Esc);
    // So does the picker, staying open.
    run(&mut h, "views");
    let fx = h.key(KeyCode::Enter);
    assert!(fx.is_empty());
    match h.app.overlays.last() {
        Some(Overlay::Views(v)) => assert!(
            v.error
                .as_deref()
                .unwrap()
                .ends_with("e.g. -value) (fix it in views.toml)")
        ),
        _ => panic!("the picker stays open"),
    }
    insta::assert_snapshot!("views_picker_broken_view_100x30", h.render());
}

#[test]
fn views_picker_opens_renames_and_deletes() {
    let mut h = harness();
    run(&mut h, "save second");
    run(&mut h, "views");
    let names = |h: &Harness| match h.app.overlays.last() {
        Some(Overlay::Views(v)) => v.names.clone(),
        _ => panic!("no picker"),
    };
    assert_eq!(names(&h), ["open-big", "second"]);
    // Rename the first to "big".
    h.ch('r');
    h.ctrl('u');
    h.type_str("big");
    let fx = h.key(KeyCode::Enter);
    assert_eq!(
        fx,
        [Effect::EditViews {
            path: "/tmp/crmdash-test/views.toml".into(),
            edit: ViewEdit::Rename {
                from: "open-big".into(),
                to: "big".into()
            }
        }]
    );
    assert_eq!(names(&h), ["big", "second"]);
    assert!(h.app.workspace.views.contains_key("big"));
    // `d` once asks, twice deletes.
    h.key(KeyCode::Down);
    assert!(h.ch('d').is_empty());
    let fx = h.ch('d');
    assert!(
        matches!(&fx[..], [Effect::EditViews { edit: ViewEdit::Delete { name }, .. }] if name == "second")
    );
    assert_eq!(names(&h), ["big"]);
    // Enter opens the view under the cursor.
    let fx = h.key(KeyCode::Enter);
    assert!(h.app.overlays.is_empty());
    assert_eq!(last_fetch(&fx).per_page, 50);
}

#[test]
fn profile_switch_is_asked_of_the_runtime() {
    let mut h = harness();
    assert_eq!(
        run(&mut h, "profile work"),
        [Effect::SwitchProfile {
            name: "work".into()
        }]
    );
    run(&mut h, "profile home");
    assert_eq!(
        palette(&h).error.as_deref(),
        Some(
            "no profile 'home': use default, work (profiles are [profiles.NAME] in the config file)"
        )
    );
    h.key(KeyCode::Esc);
    assert!(run(&mut h, "profile default").is_empty());
    assert_eq!(note(&h), "Already on profile default");
}

#[test]
fn o_opens_the_selected_record_address() {
    let mut h = harness();
    // The default profile has no template: a notice says how to set one
    // (`tryout::o_without_web_url_explains_in_a_notice`).
    assert!(h.ch('o').is_empty());
    assert!(matches!(h.app.overlays.last(), Some(Overlay::Notice(_))));
    h.key(KeyCode::Esc);
    let mut ws = workspace();
    ws.profile = "work".into();
    h.app.set_workspace(ws);
    h.key(KeyCode::Down);
    let id = h.app.tab().selected_record().unwrap().id.clone();
    assert_eq!(
        h.ch('o'),
        [Effect::OpenUrl {
            url: format!("https://crm.example.com/deals/{id}")
        }]
    );
}

#[test]
fn backspace_on_an_empty_prompt_closes_it() {
    let mut h = harness();
    h.ch(':');
    h.key(KeyCode::Backspace);
    assert!(h.app.overlays.is_empty());
    // `q` typed in the prompt is a letter, not quit.
    h.ch(':');
    h.ch('q');
    assert!(!h.app.quitting);
    assert_eq!(palette(&h).input.value(), "q");
    h.advance(Duration::from_secs(1));
}

#[test]
fn snapshots_of_the_palette_at_80x24() {
    let mut h = Harness::with((80, 24), FakeData::new(60), test_config());
    h.app.set_workspace(workspace());
    h.answer_all();
    h.ch(':');
    insta::assert_snapshot!("palette_commands_80x24", h.render());
    h.type_str("deals status=");
    insta::assert_snapshot!("palette_statuses_80x24", h.render());
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    insta::assert_snapshot!("palette_chosen_80x24", h.render());
    h.ctrl('u');
    h.type_str("dels");
    h.key(KeyCode::Enter);
    insta::assert_snapshot!("palette_error_80x24", h.render());
    h.key(KeyCode::Esc);
    // The address `o` could not open (an SSH session), whole.
    h.send(crmdash::app::Message::UrlNotOpened {
        url: "https://crm.example.com/deals/1000".into(),
        reason: "No browser can be started here (no DISPLAY or WAYLAND_DISPLAY: an SSH session?); it was copied to the clipboard.".into(),
    });
    insta::assert_snapshot!("url_notice_80x24", h.render());
}

fn header(h: &Harness) -> String {
    h.render().lines().nth(2).unwrap_or_default().to_string()
}

#[test]
fn columns_are_chosen_ordered_saved_and_remembered() {
    use crmdash::app::resources::ColumnId;
    let mut h = harness();
    assert!(header(&h).starts_with("│Name"), "{}", header(&h));
    // Direct: `:columns value,name,status`.
    let fx = run(&mut h, "columns value,name,status");
    assert!(
        fx.is_empty(),
        "the cached page is re-picked, nothing fetched: {fx:?}"
    );
    let head = header(&h);
    assert!(
        head.trim_start_matches('│')
            .trim_start()
            .starts_with("Value"),
        "{head}"
    );
    let (v, n, s) = (
        head.find("Value").unwrap(),
        head.find("Name").unwrap(),
        head.find("Status").unwrap(),
    );
    assert!(v < n && n < s && !head.contains("Account"), "{head}");
    let row = h.render().lines().nth(3).unwrap().to_string();
    assert!(
        row.contains("500.00") && row.contains("Acme renewal #1"),
        "{row}"
    );
    run(&mut h, "columns nope");
    assert!(
        palette(&h)
            .error
            .as_deref()
            .unwrap()
            .contains("use name, status, value, account")
    );
    h.key(KeyCode::Esc);

    // The picker: Space hides, Shift-Down / J moves, Enter applies.
    run(&mut h, "columns");
    let items = |h: &Harness| match h.app.overlays.last() {
        Some(Overlay::Columns(c)) => c.items.iter().map(|i| (i.1, i.2)).collect::<Vec<_>>(),
        _ => panic!("no picker"),
    };
    assert_eq!(
        &items(&h)[..4],
        [
            ("Value", true),
            ("Name", true),
            ("Status", true),
            ("Account", false)
        ]
    );
    h.ch('J');
    assert_eq!(&items(&h)[..2], [("Name", true), ("Value", true)]);
    // Hide Status, show Account.
    h.key(KeyCode::Down);
    h.ch(' ');
    h.key(KeyCode::Down);
    h.ch(' ');
    h.key(KeyCode::Enter);
    assert!(h.app.overlays.is_empty());
    assert_eq!(
        h.app.tab().resource.column_ids(),
        [ColumnId::Name, ColumnId::Value, ColumnId::Account]
    );
    // Saved with a view, and remembered for the next run.
    let fx = run(&mut h, "save picked");
    let Some(Effect::EditViews {
        edit: ViewEdit::Save { view, .. },
        ..
    }) = fx.first()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(
        view.columns.as_deref(),
        Some(&["name".to_string(), "value".into(), "account".into()][..])
    );
    let state = h.app.remembered();
    let now = Now {
        at: tokio::time::Instant::now(),
        wall: wall0(),
    };
    let app = App::new(test_config(), &state, (100, 30), now);
    assert_eq!(
        app.tab_of(Resource::Deals).resource.column_ids(),
        [ColumnId::Name, ColumnId::Value, ColumnId::Account]
    );
    // A view without columns brings the resource's own back.
    run(&mut h, "view open-big");
    assert!(h.app.tab().resource.default_columns());
    run(&mut h, "view picked");
    assert_eq!(h.app.tab().resource.columns.len(), 3);
}

#[test]
fn bare_profile_opens_a_picker() {
    let mut h = harness();
    assert!(run(&mut h, "profile").is_empty());
    assert!(
        matches!(h.app.overlays.last(), Some(Overlay::Profiles(p)) if p.profiles == ["default", "work"] && p.cursor == 0)
    );
    h.key(KeyCode::Down);
    assert_eq!(
        h.key(KeyCode::Enter),
        [Effect::SwitchProfile {
            name: "work".into()
        }]
    );
    assert!(h.app.overlays.is_empty());
}

#[test]
fn snapshots_of_the_pickers_at_80x24() {
    let mut h = Harness::with((80, 24), FakeData::new(60), test_config());
    h.app.set_workspace(workspace());
    h.answer_all();
    run(&mut h, "views");
    insta::assert_snapshot!("views_picker_80x24", h.render());
    h.ch('r');
    h.type_str("-2");
    insta::assert_snapshot!("views_picker_renaming_80x24", h.render());
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    run(&mut h, "columns");
    h.ch(' ');
    h.key(KeyCode::Down);
    h.ch('J');
    insta::assert_snapshot!("columns_picker_80x24", h.render());
    h.key(KeyCode::Esc);
    run(&mut h, "profile");
    insta::assert_snapshot!("profiles_picker_80x24", h.render());
}

#[test]
fn views_written_into_the_file_by_hand_are_seen_when_the_palette_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("views.toml");
    let mut h = harness();
    h.app.workspace.views_path = Some(path.clone());
    // Opening the palette reads the file again.
    let fx = h.ch(':');
    assert_eq!(fx, [Effect::ReadViews { path: path.clone() }]);
    h.key(KeyCode::Esc);
    // A view written by hand, and one saved here meanwhile whose write may still be on its
    // way (the file's older text must not undo it).
    std::fs::write(
        &path,
        "[views.by-hand]\nresource = \"deals\"\nsort = \"-value\"\n\n[views.mine]\nresource = \"deals\"\nsort = \"name\"\n",
    )
    .unwrap();
    run(&mut h, "save mine");
    let mine = h.app.workspace.views["mine"].clone();
    h.ch(':');
    let file = crmdash::config::views::load_views(&path);
    h.send(Message::ViewsRead(Box::new(file)));
    assert!(h.app.workspace.views.contains_key("by-hand"));
    assert_eq!(
        h.app.workspace.views["mine"], mine,
        "this session's save stands"
    );
    // The open palette completes the new name.
    h.type_str("view by");
    h.key(KeyCode::Tab);
    assert!(
        palette(&h).input.value().contains("by-hand"),
        "{}",
        palette(&h).input.value()
    );
    h.key(KeyCode::Enter);
    assert_eq!(h.app.tab().spec().sort_by, "value");
}
