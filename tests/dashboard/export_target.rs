//! Where an export writes: `~` expanded, names made absolute and the folder shown under the
//! field, an existing file never replaced without asking (overwrite / a free name / back to
//! the name), the success message with the absolute path. The dialog alone, then the real
//! engine writing files against the embedded sandbox.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::TimeZone;
use crmdash::app::dialogs::Outcome;
use crmdash::app::dialogs::export::{ExportDialog, ExportStage, Places, free_name};
use crmdash::app::jobs::{ExportTo, JobEvent, JobSpec};
use crmdash::app::keymap::KeyMap;
use crmdash::app::resources::Descriptor;
use crmdash::app::table::tab::TabState;
use crmdash::app::{ColorMode, Effect, Message, Resource};
use crmdash::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::dialog_support::DialogHarness;

fn dialog(kind: Resource, cwd: &Path) -> ExportDialog {
    let local = chrono::Local
        .with_ymd_and_hms(2026, 11, 22, 14, 30, 0)
        .unwrap();
    let spec = TabState::new(Descriptor::of(kind), 25).spec();
    ExportDialog::new(spec, "sorted by updated_at desc".into(), local).in_places(Places {
        cwd: cwd.to_path_buf(),
        home: Some(PathBuf::from("/home/ada")),
    })
}

fn draw(f: &mut ratatui::Frame, area: ratatui::layout::Rect, d: &ExportDialog, k: &KeyMap) {
    crmdash::ui::dialogs::export::draw(f, area, d, k, &Theme::new(ColorMode::None));
}

/// Replaces the suggested name with `name` (typing replaces a selected suggestion).
fn type_name(h: &mut DialogHarness<ExportDialog>, name: &str) {
    h.type_str(name);
    assert_eq!(h.dialog.path.value(), name);
}

fn export_effect(out: &Outcome) -> (PathBuf, bool) {
    let Outcome::Effects(fx) = out else {
        panic!("no export started: {out:?}")
    };
    let [
        Effect::StartJob {
            job: JobSpec::Export { to, .. },
            ..
        },
    ] = fx.as_slice()
    else {
        panic!("{fx:?}")
    };
    (to.path.clone(), to.overwrite)
}

#[test]
fn tilde_is_expanded_and_the_folder_is_shown_under_the_name() {
    let places = Places {
        cwd: PathBuf::from("/work/reports"),
        home: Some(PathBuf::from("/home/ada")),
    };
    let r = |t: &str| places.resolve(t, "deals-1.csv");
    assert_eq!(r("~/x.csv").unwrap(), PathBuf::from("/home/ada/x.csv"));
    assert_eq!(r("~").unwrap(), PathBuf::from("/home/ada/deals-1.csv"));
    assert_eq!(r("~/").unwrap(), PathBuf::from("/home/ada/deals-1.csv"));
    assert_eq!(
        r("./a/./b.csv").unwrap(),
        PathBuf::from("/work/reports/a/b.csv")
    );
    assert_eq!(r("/tmp/z.json").unwrap(), PathBuf::from("/tmp/z.json"));
    assert!(r("~bob/x.csv").unwrap_err().contains("Only ~ and ~/"));
    assert!(r("  ").is_err());

    let mut h = DialogHarness::new(dialog(Resource::Deals, Path::new("/work/reports")));
    let screen = h.render((100, 30), draw);
    assert!(screen.contains("in /work/reports"), "{screen}");
    type_name(&mut h, "~/exports/deals.csv");
    let screen = h.render((100, 30), draw);
    assert!(screen.contains("in /home/ada/exports"), "{screen}");

    // Started: the home of a real user, whose exports folder exists.
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("exports")).unwrap();
    h.dialog.places.home = Some(home.path().to_path_buf());
    let (path, overwrite) = export_effect(&h.key(KeyCode::Enter));
    assert_eq!(path, home.path().join("exports/deals.csv"));
    assert!(!overwrite);
}

#[test]
fn an_existing_file_is_asked_about_overwrite_new_name_or_back() {
    let dir = tempfile::tempdir().unwrap();
    let taken = dir.path().join("contacts.csv");
    std::fs::write(&taken, "mine").unwrap();
    std::fs::write(dir.path().join("contacts-2.csv"), "mine too").unwrap();

    let mut h = DialogHarness::new(dialog(Resource::Contacts, dir.path()));
    type_name(&mut h, "contacts.csv");
    assert_eq!(
        h.key(KeyCode::Enter),
        Outcome::Handled,
        "nothing written yet"
    );
    assert!(h.effects.is_empty());
    let free = dir.path().join("contacts-3.csv");
    assert_eq!(
        h.dialog.stage,
        ExportStage::Exists {
            path: taken.clone(),
            free: free.clone()
        }
    );
    let screen = h.render((100, 30), draw);
    assert!(screen.contains("contacts.csv exists."), "{screen}");
    assert!(
        screen.contains("Overwrite it, write contacts-3.csv instead, or change the name?"),
        "{screen}"
    );
    assert!(
        screen.contains("y overwrite · n new name · Esc change the name"),
        "{screen}"
    );
    // Other keys answer nothing (the app keeps only Ctrl-C, suspend and redraw for them).
    assert_eq!(h.key(KeyCode::Char('x')), Outcome::Ignored);
    assert!(h.effects.is_empty());

    // Esc: back to the name, still there for editing.
    assert_eq!(h.key(KeyCode::Esc), Outcome::Handled);
    assert_eq!(h.dialog.stage, ExportStage::Asking);
    assert_eq!(h.dialog.path.value(), "contacts.csv");

    // n: the free name, never the taken one.
    h.key(KeyCode::Enter);
    let (path, overwrite) = export_effect(&h.key(KeyCode::Char('n')));
    assert_eq!((path, overwrite), (free, false));
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "mine");

    // y: overwrite, said explicitly in the effect.
    let mut h = DialogHarness::new(dialog(Resource::Contacts, dir.path()));
    type_name(&mut h, "contacts.csv");
    h.key(KeyCode::Enter);
    let (path, overwrite) = export_effect(&h.key(KeyCode::Char('y')));
    assert_eq!((path, overwrite), (taken, true));
}

#[test]
fn a_folder_gets_the_default_name_and_free_names_count_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = DialogHarness::new(dialog(Resource::Deals, Path::new("/")));
    type_name(&mut h, &dir.path().display().to_string());
    let (path, _) = export_effect(&h.key(KeyCode::Enter));
    assert_eq!(path, dir.path().join("deals-20261122-143000.csv"));

    let taken = |p: &Path| p.ends_with("a.csv") || p.ends_with("a-2.csv");
    assert_eq!(
        free_name(Path::new("/x/a.csv"), taken),
        PathBuf::from("/x/a-3.csv")
    );
    assert_eq!(free_name(Path::new("/x/b"), taken), PathBuf::from("/x/b-2"));
}

const QUIET: Duration = Duration::from_millis(400);

/// `e`, the name typed over the suggestion, Enter.
fn export_to(e: &mut crmdash::runtime::Engine, path: &Path) {
    let key = |c| Message::Key(KeyEvent::new(c, KeyModifiers::NONE));
    e.handle(key(KeyCode::Char('e')));
    e.handle(Message::Paste(path.display().to_string()));
    e.handle(key(KeyCode::Enter));
}

fn finished(e: &crmdash::runtime::Engine) -> String {
    match e.app.overlays.last() {
        Some(crmdash::app::dialogs::Overlay::Export(d)) => match &d.stage {
            ExportStage::Finished(m) => m.clone(),
            other => panic!("{other:?}"),
        },
        _ => panic!("no export dialog"),
    }
}

#[tokio::test]
async fn the_real_export_keeps_an_existing_file_unless_told_to_overwrite_it() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("deals.csv");
    std::fs::write(&target, "precious").unwrap();
    let (sb, mut e) = crate::dashboard_support::sandbox_engine(None, (120, 35), None).await;

    export_to(&mut e, &target);
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('n'),
        KeyModifiers::NONE,
    )));
    e.settle(QUIET).await;
    let second = dir.path().join("deals-2.csv");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    assert!(std::fs::read_to_string(&second).unwrap().starts_with("id,"));
    let msg = finished(&e);
    assert!(msg.contains(&format!("to {}", second.display())), "{msg}");
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Esc,
        KeyModifiers::NONE,
    )));

    export_to(&mut e, &target);
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    e.settle(QUIET).await;
    assert!(std::fs::read_to_string(&target).unwrap().starts_with("id,"));
    assert!(finished(&e).contains(&format!("to {}", target.display())));
    // Nothing but the two exports and the original's replacement: no staging files left.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    sb.shutdown().await;
}

#[tokio::test]
async fn a_file_that_appears_while_exporting_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("deals.json");
    let (sb, mut e) =
        crate::dashboard_support::sandbox_engine(Some(Duration::from_millis(150)), (120, 35), None)
            .await;
    export_to(&mut e, &target);
    // The name was free when asked; someone takes it before the export ends.
    std::fs::write(&target, "someone else's").unwrap();
    e.settle(QUIET).await;
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "someone else's");
    let written = dir.path().join("deals-2.json");
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert!(!v.is_empty());
    let msg = finished(&e);
    assert!(msg.contains(&written.display().to_string()), "{msg}");
    assert!(msg.contains("appeared while exporting"), "{msg}");
    sb.shutdown().await;
}

#[test]
fn a_folder_that_does_not_exist_is_said_under_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = DialogHarness::new(dialog(Resource::Deals, dir.path()));
    type_name(&mut h, "nope/deals.csv");
    assert_eq!(h.key(KeyCode::Enter), Outcome::Handled);
    assert!(h.effects.is_empty());
    let missing = dir.path().join("nope");
    assert_eq!(
        h.dialog.error.as_deref(),
        Some(format!("There is no folder {}", missing.display()).as_str())
    );
    let screen = h.render((100, 30), draw);
    assert!(screen.contains("There is no folder"), "{screen}");
    // Editing the name clears it.
    h.key(KeyCode::Backspace);
    assert!(h.dialog.error.is_none());
}

#[tokio::test]
async fn a_failed_export_names_the_file_asked_for_not_its_staging_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("gone").join("deals.csv");
    let (sb, mut e) = crate::dashboard_support::sandbox_engine(None, (120, 35), None).await;
    let spec = e.app.tab().spec();
    e.run(vec![Effect::StartJob {
        id: crmdash::app::RequestId(9_999),
        job: JobSpec::Export {
            spec,
            to: ExportTo {
                path: target.clone(),
                format: crmdash::app::ExportFormat::Csv,
                overwrite: false,
            },
        },
    }]);
    let failure = loop {
        if let Message::Job {
            event: JobEvent::Failed(f),
            ..
        } = e.next_message().await
        {
            break f;
        }
    };
    assert!(failure.contains(&target.display().to_string()), "{failure}");
    assert!(!failure.contains(".crmdash-export-"), "{failure}");
    sb.shutdown().await;
}

#[test]
fn while_asking_about_a_taken_name_q_does_not_quit_and_ctrl_c_still_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("deals.csv"), "mine").unwrap();
    let mut h = crate::dashboard_support::Harness::new((100, 30));
    h.answer_all();
    h.ch('e');
    h.send(Message::Paste(
        dir.path().join("deals.csv").display().to_string(),
    ));
    h.key(KeyCode::Enter);
    let Some(crmdash::app::dialogs::Overlay::Export(d)) = h.app.overlays.last() else {
        panic!("the export dialog")
    };
    assert!(
        matches!(d.stage, ExportStage::Exists { .. }),
        "{:?}",
        d.stage
    );
    h.ch('q');
    assert!(!h.app.quitting);
    h.ctrl('c');
    assert!(h.app.quitting);
}
