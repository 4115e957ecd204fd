//! Modal overlays: the detail pane, help, includes, export, the quit confirmation, login and
//! the two forms. Each dialog's state is one file (or folder) here and implements `Dialog`;
//! its drawing is the file of the same name in `ui/dialogs/`. The app keeps a stack of
//! `Overlay`s and sends input to the top one (`app::dialog_stack`).
//!
//! Adding a dialog `x`:
//! 1. `app/dialogs/x.rs`: the state, an `impl App` that opens it with everything it needs
//!    (the view, the settings), and `impl Dialog`, matching key-map actions
//!    (`cx.keymap.pick(key, &[Action::Confirm, Action::Cancel])`), never raw key codes;
//!    text fields as `TextInput`s (`captures_text` true, so single-key bindings do not fire
//!    while typing);
//! 2. `ui/dialogs/x.rs`: its drawing, the footer built from the key map;
//! 3. a variant of `Overlay` here and its arm in `ui::dialogs::draw`;
//! 4. the key that opens it: an action in `keymap.rs` (`actions!`) and its arm in
//!    `App::on_action` (`input.rs`).
//!
//! A dialog returns its own effects: `Outcome::Effects(vec![Effect::Export { id:
//! cx.request_id(), .. }])`; the answer comes back to `on_message` with that id. Only what
//! the rest of the screen must do goes back to the app as a `DialogResult`. `guards_quit`
//! makes quitting ask once; `busy` turns the spinner.

pub mod columns_picker;
pub mod confirm;
pub mod confirm_action;
pub mod contact_form;
pub mod detail;
pub mod dupes;
pub mod export;
pub mod help;
pub mod import;
pub mod includes;
pub mod jobs;
pub mod login;
pub mod mirror_list;
pub mod notice;
pub mod pager;
pub mod palette;
pub mod plan;
pub mod profiles_picker;
pub mod related;
pub mod requests;
pub mod reschedule;
pub mod rows;
pub mod search;
pub mod today;
pub mod views_picker;
pub mod write_guard;
pub mod write_log;

use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseEvent};

use self::columns_picker::ColumnsPicker;
use self::confirm::ConfirmQuit;
use self::contact_form::ContactForm;
use self::detail::DetailView;
use self::export::ExportDialog;
use self::includes::IncludesPicker;
use self::login::LoginDialog;
use self::notice::Notice;
use self::pager::Pager;
use self::palette::PaletteDialog;
use self::profiles_picker::ProfilesPicker;
use self::reschedule::RescheduleForm;
use self::views_picker::ViewsPicker;
use crate::app::effects::{Effect, RequestId};
use crate::app::keymap::{Action, Hint, KeyMap};
use crate::app::message::Message;
use crate::app::table::record::DisplayZone;
use crate::config::RescheduleSettings;
use crate::timeparse::Zone;

/// Settings the write dialogs need beyond `AppConfig`.
#[derive(Debug, Clone)]
pub struct FormsConfig {
    pub reschedule: RescheduleSettings,
    /// The zone reschedule times are typed in (`[reschedule] timezone`).
    pub zone: Zone,
    /// The reschedule log (JSON lines in the data dir).
    pub log_path: Option<PathBuf>,
    /// `[dupes]` and `[ui] region`: the near-duplicate finder of `:dupes` and the form.
    pub dupes: crate::insights::dupes::mirrored::Finder,
}

impl Default for FormsConfig {
    fn default() -> Self {
        FormsConfig {
            reschedule: RescheduleSettings::default(),
            zone: Zone::Local,
            // The runtime names the file in the data dir; tests choose their own.
            log_path: None,
            dupes: Default::default(),
        }
    }
}

/// The dialogs' state kept by the app.
#[derive(Debug, Clone, Default)]
pub struct FormsState {
    pub config: FormsConfig,
    /// Select this contact once the Contacts tab shows it (after a create).
    pub select_after_load: Option<String>,
}

/// What a dialog may use while it handles input.
pub struct DialogCx<'a> {
    pub keymap: &'a KeyMap,
    pub zone: &'a DisplayZone,
    pub now: chrono::DateTime<chrono::Utc>,
    next_id: &'a mut u64,
    /// The session's requests (the request log reads them).
    pub requests: &'a requests::RequestLog,
}

impl<'a> DialogCx<'a> {
    pub fn new(
        keymap: &'a KeyMap,
        zone: &'a DisplayZone,
        now: chrono::DateTime<chrono::Utc>,
        next_id: &'a mut u64,
        requests: &'a requests::RequestLog,
    ) -> Self {
        DialogCx {
            keymap,
            zone,
            now,
            next_id,
            requests,
        }
    }

    /// A key the app keeps whatever the dialog: `Ctrl-C` (quit, asking once), the
    /// suspend and redraw bindings. Dialogs with text fields return `Ignored` for it instead of typing it.
    pub fn app_key(&self, key: &KeyEvent) -> bool {
        let ctrl_c = key.code == crossterm::event::KeyCode::Char('c')
            && key
                .modifiers
                .contains(crossterm::event::KeyModifiers::CONTROL);
        ctrl_c
            || matches!(
                self.keymap.action(key),
                Some(Action::Suspend | Action::Redraw)
            )
    }

    /// A fresh id for a request the dialog starts.
    pub fn request_id(&mut self) -> RequestId {
        *self.next_id += 1;
        RequestId(*self.next_id)
    }
}

/// A decision a dialog hands back to the app (things only the app can do).
#[derive(Debug, Clone, PartialEq)]
pub enum DialogResult {
    SetIncludes(Vec<&'static str>),
    /// Open this unsent write as a draft in its dialog.
    OpenDraft(Box<crate::journal::WriteRecord>),
    /// Put `json` on the clipboard and say so, as `y` on the table does.
    CopyJson {
        json: String,
        label: String,
    },
    Quit,
    /// Stop these runs (a plan, an import: the rows under way finish and are recorded), then
    /// quit once they have ended.
    StopRunsAndQuit(Vec<crate::app::effects::RequestId>),
    /// A contact was created: note it, refresh Contacts and select it.
    ContactCreated(CreatedContact),
    /// Show this contact (the duplicate the form found) above the form.
    OpenContact(ContactRef),
    /// The login dialog was answered and the token accepted: load the data (from `host`,
    /// when the dialog asked for the base URL).
    LoggedIn {
        note: String,
        client: crate::app::effects::NewClient,
        host: Option<String>,
    },
    /// The login dialog was closed without logging in: the status bar says why requests
    /// fail (the dialog said it while it was open).
    LoginSkipped,
    /// The palette accepted a command (`line` as typed, for the history).
    Palette {
        line: String,
        command: palette::grammar::Command,
    },
    /// Open this saved view (the `:views` picker).
    OpenView(String),
    /// A saved view was deleted or renamed in the picker.
    EditView(crate::config::views::ViewEdit),
    /// Show these columns of the active tab, in this order.
    SetColumns(Vec<crate::app::resources::ColumnId>),
    /// Switch to this profile (the profiles picker).
    SwitchProfile(String),
    /// Open this record's detail above the dialog (search, related records).
    OpenRecord(crate::app::mirror::RecordRef),
    /// List the records related to this one (from the mirror) above the dialog.
    Related(crate::app::mirror::RecordRef),
    /// Export these near duplicate clusters (`e` in `:dupes`).
    ExportDupes(std::sync::Arc<crate::insights::dupes::mirrored::DupesReport>),
    /// The detail pane steps to the next (`1`) or previous (`-1`) row's record.
    StepRecord(isize),
    /// `:jobs` moved its cursor (the app clamps it to the list).
    JobsCursor,
    /// `:jobs`: stop the job at this position of `Jobs::in_order`.
    StopJob(usize),
    /// `:jobs`: open the report of the job at this position (a plan run's rows).
    OpenJob(usize),
    /// Open each of these addresses (asked first: more than a few).
    OpenUrls(Vec<String>),
    /// The protected profile's name was typed (`true`) or the write declined.
    ProfileNameTyped(bool),
    /// Quit while writes wait: send them now (quit once answered), or drop them.
    QuitWithWrites {
        send: bool,
    },
    /// Copy this request of the request log as a curl command line.
    CopyRequest(usize),
    /// Run this (a confirmed user action).
    Run(Box<Effect>),
    /// Today's `x`: remember this group as seen up to this change.
    MarkSeen {
        group: crate::insights::today::GroupKind,
        seq: i64,
    },
}

/// A contact a dialog points at.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactRef {
    pub id: String,
    pub label: String,
    pub raw: std::sync::Arc<str>,
}

/// What the new-contact pane created.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedContact {
    /// `None` when the answer carried no record.
    pub id: Option<String>,
    pub name: String,
    /// The service replayed an earlier answer to the same key.
    pub replayed: bool,
}

/// What handling an input did.
#[derive(Debug, Default, PartialEq)]
pub enum Outcome {
    /// Not for this dialog (the app may use it, e.g. Ctrl-C).
    Ignored,
    /// Consumed; redraw.
    #[default]
    Handled,
    /// Consumed; run these effects.
    Effects(Vec<Effect>),
    /// Close the dialog.
    Close,
    /// Close and hand a decision to the app.
    CloseWith(DialogResult),
    /// Stay open and hand a decision to the app.
    Apply(DialogResult),
}

pub trait Dialog {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome;

    fn on_paste(&mut self, _text: &str) -> Outcome {
        Outcome::Ignored
    }

    fn on_mouse(&mut self, _mouse: &MouseEvent) -> Outcome {
        Outcome::Ignored
    }

    /// Messages for the dialog (results of the requests it started). Return `Ignored` for
    /// messages that are not its own, so the app handles them.
    fn on_message(&mut self, _msg: &Message, _cx: &mut DialogCx) -> Outcome {
        Outcome::Ignored
    }

    /// A draft would be lost or a write is in flight: quitting asks once first.
    fn guards_quit(&self) -> bool {
        false
    }

    /// A request of the dialog is running (the spinner turns).
    fn busy(&self) -> bool {
        false
    }

    /// A text field has focus: single-key bindings must not fire.
    fn captures_text(&self) -> bool {
        false
    }

    /// The keys the hint line shows while this dialog is on top.
    fn hints(&self) -> &'static [Hint] {
        if self.captures_text() {
            crate::app::hints::FORM_HINTS
        } else {
            crate::app::hints::VIEW_HINTS
        }
    }

    /// The terminal was resized (re-wrap text).
    fn on_resize(&mut self, _width: u16, _height: u16) {}

    /// When the dialog wants a `on_tick` (wall clock; e.g. a debounced lookup).
    fn deadline(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        None
    }

    /// The app's timer fired; `cx.now` is the time.
    fn on_tick(&mut self, _cx: &mut DialogCx) -> Outcome {
        Outcome::Ignored
    }
}

pub enum Overlay {
    Detail(DetailView),
    Help(Pager),
    Includes(IncludesPicker),
    Export(ExportDialog),
    ConfirmQuit(ConfirmQuit),
    ContactForm(Box<ContactForm>),
    Reschedule(Box<RescheduleForm>),
    Login(LoginDialog),
    Palette(Box<PaletteDialog>),
    Views(Box<ViewsPicker>),
    Columns(Box<ColumnsPicker>),
    Profiles(Box<ProfilesPicker>),
    Notice(Notice),
    Search(Box<search::SearchDialog>),
    Related(related::RelatedView),
    Jobs(jobs::JobsView),
    ConfirmOpen(confirm_action::ConfirmOpen),
    /// A protected profile's name, typed before a write goes out.
    TypeName(write_guard::TypeProfileName),
    /// Quitting while a write waits in its undo window.
    PendingQuit(write_guard::PendingWriteQuit),
    /// `:log`: the write journal.
    WriteLog(Box<Pager>),
    Requests(requests::RequestLogView),
    ConfirmAction(confirm_action::ConfirmAction),
    /// Today (`:today`, `t`) or the `:changes` list.
    Today(Box<today::TodayView>),
    Dupes(Box<dupes::DupesView>),
    /// `:plan`'s preview, or a plan run's report (from `:jobs`).
    Plan(Box<plan::PlanView>),
    /// `:import`'s preview, or an import run's report (from `:jobs`).
    Import(Box<import::ImportView>),
    /// At the start: writes an earlier dashboard dropped in their undo window, as drafts.
    Unsent(Box<crate::app::write_gate::UnsentDrafts>),
}

impl Overlay {
    pub fn dialog_mut(&mut self) -> &mut dyn Dialog {
        match self {
            Overlay::Detail(d) => d,
            Overlay::Help(d) => d,
            Overlay::Includes(d) => d,
            Overlay::Export(d) => d,
            Overlay::ConfirmQuit(d) => d,
            Overlay::ContactForm(d) => d.as_mut(),
            Overlay::Reschedule(d) => d.as_mut(),
            Overlay::Login(d) => d,
            Overlay::Palette(d) => d.as_mut(),
            Overlay::Views(d) => d.as_mut(),
            Overlay::Columns(d) => d.as_mut(),
            Overlay::Profiles(d) => d.as_mut(),
            Overlay::Notice(d) => d,
            Overlay::Search(d) => d.as_mut(),
            Overlay::Related(d) => d,
            Overlay::Jobs(d) => d,
            Overlay::ConfirmOpen(d) => d,
            Overlay::TypeName(d) => d,
            Overlay::PendingQuit(d) => d,
            Overlay::WriteLog(d) => d.as_mut(),
            Overlay::Requests(d) => d,
            Overlay::ConfirmAction(d) => d,
            Overlay::Today(d) => d.as_mut(),
            Overlay::Dupes(d) => d.as_mut(),
            Overlay::Plan(d) => d.as_mut(),
            Overlay::Import(d) => d.as_mut(),
            Overlay::Unsent(d) => d.as_mut(),
        }
    }

    pub fn dialog(&self) -> &dyn Dialog {
        match self {
            Overlay::Detail(d) => d,
            Overlay::Help(d) => d,
            Overlay::Includes(d) => d,
            Overlay::Export(d) => d,
            Overlay::ConfirmQuit(d) => d,
            Overlay::ContactForm(d) => d.as_ref(),
            Overlay::Reschedule(d) => d.as_ref(),
            Overlay::Login(d) => d,
            Overlay::Palette(d) => d.as_ref(),
            Overlay::Views(d) => d.as_ref(),
            Overlay::Columns(d) => d.as_ref(),
            Overlay::Profiles(d) => d.as_ref(),
            Overlay::Notice(d) => d,
            Overlay::Search(d) => d.as_ref(),
            Overlay::Related(d) => d,
            Overlay::Jobs(d) => d,
            Overlay::ConfirmOpen(d) => d,
            Overlay::TypeName(d) => d,
            Overlay::PendingQuit(d) => d,
            Overlay::WriteLog(d) => d.as_ref(),
            Overlay::Requests(d) => d,
            Overlay::ConfirmAction(d) => d,
            Overlay::Today(d) => d.as_ref(),
            Overlay::Dupes(d) => d.as_ref(),
            Overlay::Plan(d) => d.as_ref(),
            Overlay::Import(d) => d.as_ref(),
            Overlay::Unsent(d) => d.as_ref(),
        }
    }
}
