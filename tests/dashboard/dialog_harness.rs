//! Dialogs driven alone (`dialog_support::DialogHarness`): what each returns for keys and
//! answers, with the default key map and with `[keys]` rebindings, and the footers it draws
//! from the key map. One test goes through `App::update` to show a rebinding reaches a form
//! opened from the main screen.

use crate::dashboard_support;
use crate::dialog_support;

use std::path::PathBuf;

use chrono::TimeZone;
use crmdash::api::{Contact, Created};
use crmdash::app::dialogs::confirm::ConfirmQuit;
use crmdash::app::dialogs::contact_form::{ContactForm, Stage, Target};
use crmdash::app::dialogs::export::{ExportDialog, ExportStage, Places};
use crmdash::app::dialogs::includes::IncludesPicker;
use crmdash::app::dialogs::{CreatedContact, DialogResult, Outcome, Overlay};
use crmdash::app::jobs::{JobEvent, JobOutput, JobSpec};
use crmdash::app::keymap::KeyMap;
use crmdash::app::resources::Descriptor;
use crmdash::app::table::tab::TabState;
use crmdash::app::{ColorMode, Effect, ExportFormat, Message, QuerySpec, Resource};
use crmdash::ui::theme::Theme;
use crossterm::event::KeyCode;
use dialog_support::{DialogHarness, keymap};

fn contact_form() -> ContactForm {
    ContactForm::new(Target {
        profile: "default".into(),
        host: "crm.example.com".into(),
    })
}

fn draw_contact_form(
    f: &mut ratatui::Frame,
    area: ratatui::layout::Rect,
    d: &ContactForm,
    k: &KeyMap,
) {
    crmdash::ui::dialogs::contact_form::draw(
        f,
        area,
        d,
        "◐",
        None,
        k,
        &Theme::new(ColorMode::None),
    );
}

fn draw_export(f: &mut ratatui::Frame, area: ratatui::layout::Rect, d: &ExportDialog, k: &KeyMap) {
    crmdash::ui::dialogs::export::draw(f, area, d, k, &Theme::new(ColorMode::None));
}

/// Fills first name, last name and email.
fn fill_ada(h: &mut DialogHarness<ContactForm>) {
    h.type_str("Ada");
    assert_eq!(h.key(KeyCode::Tab), Outcome::Handled);
    h.type_str("Lovelace");
    h.key(KeyCode::Tab);
    h.type_str("ada@example.com");
}

fn created_without_record() -> Created<Contact> {
    Created {
        status: 201,
        record: None,
        replayed: false,
        undecoded: None,
    }
}

#[test]
fn contact_form_alone_creates_and_hands_the_app_its_result() {
    let mut h = DialogHarness::new(contact_form());
    fill_ada(&mut h);
    assert_eq!(h.ctrl('s'), Outcome::Handled);
    assert!(
        matches!(h.dialog.stage, Stage::Confirm { .. }),
        "{:?}",
        h.dialog.stage
    );
    let Outcome::Effects(fx) = h.key(KeyCode::Enter) else {
        panic!("confirming sends")
    };
    let [Effect::CreateContact { id, contact, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert_eq!(contact.email.as_deref(), Some("ada@example.com"));
    assert!(matches!(h.dialog.stage, Stage::Sending { .. }));
    // An answer for another request is not the form's.
    let other = Message::ContactCreated {
        id: crmdash::app::RequestId(id.0 + 100),
        result: Box::new(Ok(created_without_record())),
    };
    assert_eq!(h.send(&other), Outcome::Ignored);
    let out = h.send(&Message::ContactCreated {
        id: *id,
        result: Box::new(Ok(created_without_record())),
    });
    assert_eq!(
        out,
        Outcome::CloseWith(DialogResult::ContactCreated(CreatedContact {
            id: None,
            name: "Ada Lovelace".into(),
            replayed: false,
        }))
    );
}

#[test]
fn rebound_submit_drives_the_form_and_shows_in_its_footer() {
    let keys = keymap(&[("submit", &["ctrl-g"])]);
    let mut h = DialogHarness::with_keys(contact_form(), keys);
    let screen = h.render((100, 30), draw_contact_form);
    assert!(screen.contains("Ctrl-G create"), "{screen}");
    assert!(!screen.contains("Ctrl-S"), "{screen}");
    fill_ada(&mut h);
    // The old key no longer submits.
    h.ctrl('s');
    assert_eq!(h.dialog.stage, Stage::Editing);
    assert_eq!(h.ctrl('g'), Outcome::Handled);
    assert!(matches!(h.dialog.stage, Stage::Confirm { .. }));
}

#[test]
fn rebound_dialog_keys_reach_the_question_and_the_discard() {
    let keys = keymap(&[
        ("confirm", &["ctrl-y"]),
        ("cancel", &["ctrl-q"]),
        ("yes", &["j"]),
    ]);
    let mut h = DialogHarness::with_keys(contact_form(), keys);
    h.type_str("Ada");
    // `cancel` asks before discarding a draft; `yes` answers.
    assert_eq!(h.ctrl('q'), Outcome::Handled);
    assert_eq!(h.dialog.stage, Stage::AskDiscard);
    assert_eq!(
        h.key(KeyCode::Char('y')),
        Outcome::Handled,
        "y is no longer yes"
    );
    assert_eq!(h.key(KeyCode::Char('j')), Outcome::Close);
}

#[test]
fn a_rebinding_reaches_a_form_opened_from_the_main_screen() {
    let mut config = dashboard_support::test_config();
    config.keymap = keymap(&[("submit", &["ctrl-g"])]);
    let mut h =
        dashboard_support::Harness::with((120, 40), dashboard_support::FakeData::new(20), config);
    h.answer_all();
    h.ch('c');
    for (i, text) in ["Ada", "Lovelace", "ada@example.com"].iter().enumerate() {
        if i > 0 {
            h.key(KeyCode::Tab);
        }
        h.type_str(text);
    }
    let screen = h.render();
    assert!(screen.contains("Ctrl-G create · Esc discard"), "{screen}");
    h.ctrl('g');
    let Some(Overlay::ContactForm(form)) = h.app.overlays.last() else {
        panic!("the form is open")
    };
    assert!(
        matches!(form.stage, Stage::Confirm { .. }),
        "{:?}",
        form.stage
    );
    let fx = h.key(KeyCode::Enter);
    assert!(
        fx.iter().any(|e| matches!(e, Effect::CreateContact { .. })),
        "{fx:?}"
    );
    // The reschedule form takes the same rebinding.
    let mut h = dashboard_support::Harness::with((120, 40), dashboard_support::FakeData::new(5), {
        let mut c = dashboard_support::test_config();
        c.keymap = keymap(&[("submit", &["ctrl-g"])]);
        c
    });
    h.answer_all();
    h.ch('a');
    let screen = h.render();
    assert!(screen.contains("Ctrl-G preview"), "{screen}");
}

fn deals_spec(page: u32) -> QuerySpec {
    let mut spec = TabState::new(Descriptor::of(Resource::Deals), 25).spec();
    spec.page = page;
    spec
}

fn export_dialog() -> ExportDialog {
    let local = chrono::Local
        .with_ymd_and_hms(2026, 11, 22, 14, 30, 0)
        .unwrap();
    ExportDialog::new(deals_spec(3), "sorted by updated_at desc".into(), local).in_places(Places {
        cwd: std::env::temp_dir(),
        home: Some(PathBuf::from("/home/ada")),
    })
}

#[test]
fn export_alone_starts_its_own_export_of_the_view_it_opened_on() {
    let mut h = DialogHarness::new(export_dialog());
    assert_eq!(h.dialog.path.value(), "deals-20261122-143000.csv");
    assert_eq!(h.key(KeyCode::Tab), Outcome::Handled);
    assert_eq!(h.dialog.path.value(), "deals-20261122-143000.json");
    let Outcome::Effects(fx) = h.key(KeyCode::Enter) else {
        panic!("Enter starts the export")
    };
    let [
        Effect::StartJob {
            id,
            job: JobSpec::Export { spec, to },
        },
    ] = fx.as_slice()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(*spec, deals_spec(1), "every page, from the first");
    assert_eq!(
        to.path,
        std::env::temp_dir().join("deals-20261122-143000.json"),
        "made absolute from the working directory"
    );
    assert_eq!(to.format, ExportFormat::Json);
    assert!(!to.overwrite);
    let id = *id;
    let progress = Message::Job {
        id,
        event: JobEvent::Progress {
            done: 1,
            total: Some(2),
            unit: "pages",
            records: Some(100),
        },
    };
    assert_eq!(h.send(&progress), Outcome::Handled);
    let screen = h.render((100, 30), draw_export);
    assert!(
        screen.contains("Exporting… page 1/2 · 100 records"),
        "{screen}"
    );
    assert!(screen.contains("Esc cancel"), "{screen}");
    // Esc while running asks the runtime to cancel (the stop of every job, as `x` in
    // `:jobs`); the dialog stays until it hears back.
    assert_eq!(
        h.key(KeyCode::Esc),
        Outcome::Effects(vec![Effect::CancelJob(id)])
    );
    let done = Message::Job {
        id,
        event: JobEvent::Done(JobOutput::Exported {
            records: 150,
            missing: 0,
            path: std::env::temp_dir().join("deals-20261122-143000.json"),
        }),
    };
    assert_eq!(h.send(&done), Outcome::Handled);
    assert_eq!(
        h.dialog.stage,
        ExportStage::Finished(format!(
            "Wrote 150 deals to {}",
            std::env::temp_dir()
                .join("deals-20261122-143000.json")
                .display()
        ))
    );
    assert_eq!(h.key(KeyCode::Enter), Outcome::Close);
}

#[test]
fn export_footer_and_keys_follow_the_key_map() {
    let keys = keymap(&[("switch_format", &["f2"]), ("confirm", &["ctrl-e"])]);
    let mut h = DialogHarness::with_keys(export_dialog(), keys);
    let screen = h.render((100, 30), draw_export);
    assert!(
        screen.contains("Ctrl-E export · F2 CSV/JSON · Esc cancel"),
        "{screen}"
    );
    h.key(KeyCode::F(2));
    assert_eq!(h.dialog.format, ExportFormat::Json);
    // Enter is no longer `confirm` here: nothing starts.
    assert_eq!(h.key(KeyCode::Enter), Outcome::Ignored);
    assert!(h.effects.is_empty());
    assert!(matches!(h.ctrl('e'), Outcome::Effects(_)));
    assert!(matches!(h.dialog.stage, ExportStage::Running { .. }));
}

#[test]
fn includes_picker_alone_toggles_and_applies() {
    let picker = IncludesPicker::new(&["account", "assigned_user", "contacts"], &["account"]);
    let mut h = DialogHarness::new(picker);
    assert_eq!(h.key(KeyCode::Char(' ')), Outcome::Handled);
    assert_eq!(h.key(KeyCode::Down), Outcome::Handled);
    assert_eq!(h.key(KeyCode::Down), Outcome::Handled);
    h.key(KeyCode::Char(' '));
    assert_eq!(
        h.key(KeyCode::Enter),
        Outcome::CloseWith(DialogResult::SetIncludes(vec!["contacts"]))
    );
}

#[test]
fn quit_confirmation_alone() {
    let ask = || ConfirmQuit::anyway("A draft would be lost.");
    let mut h = DialogHarness::new(ask());
    assert_eq!(h.key(KeyCode::Char('x')), Outcome::Handled);
    assert_eq!(h.key(KeyCode::Char('n')), Outcome::Close);
    let mut h = DialogHarness::new(ask());
    assert_eq!(
        h.ctrl('c'),
        Outcome::CloseWith(DialogResult::Quit),
        "a second Ctrl-C means it"
    );
    let mut h = DialogHarness::with_keys(ask(), keymap(&[("yes", &["o"])]));
    assert_eq!(h.key(KeyCode::Char('y')), Outcome::Handled);
    assert_eq!(
        h.key(KeyCode::Char('o')),
        Outcome::CloseWith(DialogResult::Quit)
    );
}

#[test]
fn the_filter_bar_follows_the_key_map_too() {
    let mut config = dashboard_support::test_config();
    config.keymap = keymap(&[("next_field", &["ctrl-j"]), ("confirm", &["ctrl-y"])]);
    let mut h =
        dashboard_support::Harness::with((120, 40), dashboard_support::FakeData::new(20), config);
    h.answer_all();
    h.ch('/');
    let screen = h.render();
    assert!(
        screen.contains("Ctrl-J next field · Ctrl-Y apply"),
        "{screen}"
    );
    assert_eq!(h.app.tab().filter_bar.focused, 0);
    h.ctrl('j');
    assert_eq!(h.app.tab().filter_bar.focused, 1);
    h.key(KeyCode::Tab);
    assert_eq!(
        h.app.tab().filter_bar.focused,
        1,
        "Tab is no longer next_field"
    );
    h.ctrl('y');
    assert!(
        !h.app.tab().filter_open,
        "confirm applies and closes the bar"
    );
}

#[test]
fn columns_picker_g_and_shift_g_go_to_the_first_and_last_column() {
    use crmdash::app::dialogs::columns_picker::ColumnsPicker;
    let picker = ColumnsPicker::new(&Descriptor::of(Resource::Deals));
    let last = picker.items.len() - 1;
    assert!(last > 2);
    let mut h = DialogHarness::new(picker);
    assert_eq!(h.key(KeyCode::Char('G')), Outcome::Handled);
    assert_eq!(h.dialog.cursor, last);
    h.key(KeyCode::Char('g'));
    assert_eq!(h.dialog.cursor, 0);
    h.key(KeyCode::End);
    assert_eq!(h.dialog.cursor, last);
    h.key(KeyCode::Home);
    assert_eq!(h.dialog.cursor, 0);
    // A rebinding of `first` reaches the picker too.
    let keys = keymap(&[("first", &["ctrl-a"])]);
    let mut h =
        DialogHarness::with_keys(ColumnsPicker::new(&Descriptor::of(Resource::Deals)), keys);
    h.key(KeyCode::Char('G'));
    h.ctrl('a');
    assert_eq!(h.dialog.cursor, 0);
}

#[test]
fn export_label_and_file_name_are_apart_in_both_formats() {
    let mut h = DialogHarness::new(export_dialog());
    let screen = h.render((80, 24), draw_export);
    assert!(
        screen.contains("File (CSV):  deals-20261122-143000.csv"),
        "{screen}"
    );
    h.key(KeyCode::Tab);
    let screen = h.render((80, 24), draw_export);
    assert!(
        screen.contains("File (JSON): deals-20261122-143000.json"),
        "{screen}"
    );
}
