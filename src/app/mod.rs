//! The dashboard's brain: pure state and its transitions. `App::update(msg, now)` changes the
//! state and returns the `Effect`s for the runtime to run; drawing reads `App` and nothing else.

pub mod chrome;
mod dialog_stack;
pub mod dialogs;
pub mod effects;
pub mod feed;
pub mod hints;
pub mod import;
mod input;
mod input_select;
pub mod jobs;
mod jobs_update;
pub use crate::keys as keymap;
pub mod layout;
mod loading;
pub mod message;
pub mod mirror;
pub mod persist;
pub mod pipeline;
pub mod plan;
pub mod profiles;
pub mod resources;
pub mod selection;
pub mod table;
pub mod timeline;
mod timing;
mod user_actions;
pub mod views;
mod web;
pub mod widgets;
pub mod workspace;
mod write_gate;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use tokio::time::Instant;

pub use effects::{Effect, ExportFormat, RequestId};
pub use message::{ExportEvent, Message};
pub use resources::Resource;
pub use table::record::{DisplayZone, FetchedPage};
pub use table::spec::QuerySpec;
pub use write_gate::{
    QUIT_STOP_GRACE, QUIT_WAIT, SafetyConfig, UnsentDrafts, describe_unsent, found_message,
};

use dialogs::Overlay;
use keymap::KeyMap;
use layout::Areas;
use persist::{PersistedState, PersistedTab};
use resources::Descriptor;
use table::filter::DateParser;
use table::tab::TabState;

/// How long typed filter text waits before it is sent.
pub const FILTER_DEBOUNCE: Duration = Duration::from_millis(250);
/// How long a page seen before is reused without asking the server.
pub const CACHE_TTL: Duration = Duration::from_secs(30);
/// Spinner frame interval (only while a request is in flight).
pub const SPINNER_STEP: Duration = Duration::from_millis(100);

/// The two clocks `update` reads: monotonic for deadlines, wall for typed dates and names.
#[derive(Debug, Clone, Copy)]
pub struct Now {
    pub at: Instant,
    pub wall: DateTime<Utc>,
}

impl Now {
    pub fn current() -> Now {
        Now {
            at: Instant::now(),
            wall: Utc::now(),
        }
    }
}

/// Colours: full, the 16 ANSI colours, or none (`NO_COLOR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    Full,
    Ansi16,
    None,
}

/// What the app is given at start.
#[derive(Clone)]
pub struct AppConfig {
    pub profile: String,
    /// Host of the base URL, shown in the status bar.
    pub host: String,
    pub per_page: u32,
    /// Auto-refresh period; `None` is off.
    pub refresh: Option<Duration>,
    pub zone: DisplayZone,
    /// `[ui] currency`: shown with amounts whose record names no currency.
    pub currency: Option<String>,
    pub date_parser: DateParser,
    pub log_path: Option<PathBuf>,
    pub keymap: KeyMap,
    pub colors: ColorMode,
    /// Problems found in the settings, shown once in the status bar.
    pub warnings: Vec<String>,
}

impl AppConfig {
    /// How the table formats cells: dates in the zone, amounts with the default currency.
    pub fn cell_format(&self) -> table::record::CellFormat {
        table::record::CellFormat {
            zone: self.zone,
            currency: self.currency.clone(),
        }
    }
}

/// A request whose answer is awaited.
#[derive(Debug, Clone)]
struct InFlight {
    spec: QuerySpec,
    /// Only warms the cache (next page); no spinner, no error shown.
    prefetch: bool,
}

/// The status bar's facts.
#[derive(Debug, Clone, Default)]
pub struct StatusInfo {
    pub latency: Option<Duration>,
    /// The last failure, in plain words.
    pub error: Option<String>,
    /// "retrying (2/4): 503 Service Unavailable".
    pub retrying: Option<String>,
    /// A short-lived message ("Copied deal 7 as JSON").
    pub note: Option<(String, Instant)>,
    /// Until when `error` is new: it may then take the page position's room in the status
    /// line; afterwards the position comes back and the error has the rest.
    pub error_new_until: Option<Instant>,
    /// The token is being looked up (the OS keyring may be waiting on an unlock prompt).
    pub awaiting_token: bool,
    /// Why requests fail while the login dialog says it: held back, shown (status bar and
    /// table) when the dialog is skipped.
    pub behind_login: Option<String>,
    /// Every note and error shown, oldest first (the last [`HISTORY_LEN`]): the `?` overlay
    /// lists them whole, since the status bar may have to cut them.
    pub history: Vec<Said>,
}

/// How long a message is new: a note is shown this long; an error may hide the page
/// position this long.
pub const MESSAGE_TIME: Duration = Duration::from_secs(5);

/// How many past messages the `?` overlay keeps.
pub const HISTORY_LEN: usize = 30;

/// One message the status bar showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub at: DateTime<Utc>,
    pub text: String,
    pub error: bool,
}

impl StatusInfo {
    /// Keeps a message for the `?` overlay (a repeat of the last one is not kept twice).
    pub fn remember(&mut self, at: DateTime<Utc>, text: &str, error: bool) {
        if self
            .history
            .last()
            .is_some_and(|s| s.text == text && s.error == error)
        {
            return;
        }
        if self.history.len() >= HISTORY_LEN {
            self.history.remove(0);
        }
        self.history.push(Said {
            at,
            text: text.to_string(),
            error,
        });
    }

    /// Shows an error in the status bar and keeps it (`at` on the wall clock, `now` on the
    /// app's).
    pub fn set_error(&mut self, at: DateTime<Utc>, now: Instant, text: String) {
        self.remember(at, &text, true);
        self.error = Some(text);
        self.error_new_until = Some(now + MESSAGE_TIME);
    }

    /// Clears the error and its "new" deadline together (a deadline left behind would wake
    /// the loop for a redraw with nothing changed). Whether there was one.
    pub fn clear_error(&mut self) -> bool {
        self.error_new_until = None;
        self.error.take().is_some()
    }
}

pub struct App {
    pub tabs: Vec<TabState>,
    pub active: Resource,
    /// Modal stack; input goes to the last one.
    pub overlays: Vec<Overlay>,
    pub keymap: KeyMap,
    pub config: AppConfig,
    pub status: StatusInfo,
    /// Terminal size.
    pub size: (u16, u16),
    /// The time of the message being handled (drawing reads ages from it).
    pub now: Instant,
    pub wall: DateTime<Utc>,
    pub spinner_frame: usize,
    spinner_due: Option<Instant>,
    cache: HashMap<QuerySpec, (Arc<FetchedPage>, Instant)>,
    in_flight: HashMap<RequestId, InFlight>,
    next_id: u64,
    refresh_due: Option<Instant>,
    quit_asked: bool,
    /// The age label last drawn; a tick redraws only when it changes.
    age_seen: Option<String>,
    /// Set when the state changed since the last draw.
    pub dirty: bool,
    pub quitting: bool,
    /// The write dialogs' settings and follow-ups.
    pub forms: dialogs::FormsState,
    /// The Deals tab's pipeline figures (kept while the table is shown, for a quick return).
    pub pipeline: Option<pipeline::PipelineView>,
    /// The Deals tab shows the pipeline instead of the table.
    pub pipeline_visible: bool,
    /// The currency of the pipeline bar drilled into: shown on the Deals tab's title, not
    /// sent (the API has no currency filter). Cleared when the tab's filters change.
    pub currency_chip: Option<String>,
    /// The Projects tab's timeline view, while shown instead of the table.
    pub timeline: Option<timeline::TimelineView>,
    /// Saved views, profiles and the palette's history (`app::workspace`).
    pub workspace: workspace::Workspace,
    /// Each other profile's tabs and cached pages, kept while another is active (`:profile`).
    parked: HashMap<String, profiles::Parked>,
    /// The local mirror and the connection (offline mode, background sync).
    pub mirror: mirror::MirrorState,
    /// Long work of this session, running and finished (`:jobs`).
    pub jobs: jobs::Jobs,
    /// Writes on their way: the profile's flags, the undo window, the journal.
    pub safety: write_gate::WriteGate,
    /// This session's requests (`W`).
    pub requests: dialogs::requests::RequestLog,
    /// `[actions.NAME]` of the config file.
    pub user_actions: Vec<crate::user_actions::UserAction>,
    /// Today's last visit, once read this session (`Some(None)`: there was none).
    pub today_since: Option<Option<crate::mirror::Cursor>>,
    /// `[ui] start = "today"`: Today opens at start.
    pub start_today: bool,
    /// The status and hint lines' keys and drawn rows (`app::chrome`).
    pub chrome: chrome::Chrome,
}

impl App {
    pub fn new(config: AppConfig, remembered: &PersistedState, size: (u16, u16), now: Now) -> App {
        let tabs = Resource::ALL
            .iter()
            .map(|k| {
                let mut t = TabState::new(Descriptor::of(*k), config.per_page);
                if let Some(p) = remembered.tabs.get(k) {
                    p.apply(&mut t);
                }
                t
            })
            .collect();
        let profile_name = config.profile.trim_end_matches(" (demo)").to_string();
        let note = dialogs::help::warnings_note(&config.warnings, &config.keymap)
            .map(|n| (n, now.at + Duration::from_secs(15)));
        let mut history = Vec::new();
        for w in &config.warnings {
            history.push(Said {
                at: now.wall,
                text: w.clone(),
                error: true,
            });
        }
        let mut app = App {
            tabs,
            active: remembered.active_tab.unwrap_or(resources::FIRST_TAB),
            overlays: Vec::new(),
            keymap: config.keymap.clone(),
            status: StatusInfo {
                note,
                history,
                ..Default::default()
            },
            refresh_due: config.refresh.map(|d| now.at + d),
            config,
            size,
            now: now.at,
            wall: now.wall,
            spinner_frame: 0,
            spinner_due: None,
            cache: HashMap::new(),
            in_flight: HashMap::new(),
            next_id: 0,
            quit_asked: false,
            age_seen: None,
            dirty: true,
            quitting: false,
            forms: dialogs::FormsState::default(),
            pipeline: None,
            pipeline_visible: false,
            currency_chip: None,
            timeline: None,
            workspace: workspace::Workspace {
                history: remembered.palette_history.clone(),
                profile: profile_name,
                ..Default::default()
            },
            parked: HashMap::new(),
            mirror: mirror::MirrorState::default(),
            jobs: jobs::Jobs::default(),
            safety: write_gate::WriteGate::default(),
            requests: Default::default(),
            user_actions: Vec::new(),
            today_since: None,
            start_today: false,
            chrome: chrome::Chrome::default(),
        };
        app.refresh_chrome();
        app
    }

    /// The first effects: load the active tab.
    pub fn start(&mut self, now: Now) -> Vec<Effect> {
        self.set_now(now);
        // The mirror's rows first: read from disk, they are on screen before the service
        // answers.
        let mut fx = self.mirror_start();
        fx.extend(self.load(self.active, false));
        fx.extend(self.find_unsent());
        if self.start_today {
            fx.extend(self.open_today());
        }
        self.after_update(&mut fx);
        fx
    }

    fn set_now(&mut self, now: Now) {
        self.now = now.at;
        self.wall = now.wall;
    }

    pub fn tab(&self) -> &TabState {
        &self.tabs[self.active.index()]
    }

    pub fn tab_mut(&mut self) -> &mut TabState {
        &mut self.tabs[self.active.index()]
    }

    pub fn tab_of(&self, kind: Resource) -> &TabState {
        &self.tabs[kind.index()]
    }

    /// Requests (not prefetches) or an export are running: the spinner turns.
    pub fn busy(&self) -> bool {
        // A form whose write waits (its undo window, the protected profile's name) is not
        // sending: the countdown (once a second) is on the status line, no spinner turns.
        self.in_flight.values().any(|f| !f.prefetch)
            || (!self.write_waiting() && self.overlays.iter().any(|o| o.dialog().busy()))
            || self.pipeline.as_ref().is_some_and(|p| p.loading())
            || self.timeline.as_ref().is_some_and(|t| t.loading())
    }

    /// How many requests of any kind are running (tests, the status bar).
    pub fn requests_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn remembered(&self) -> PersistedState {
        PersistedState {
            active_tab: Some(self.active),
            tabs: self
                .tabs
                .iter()
                .map(|t| (t.resource.kind, PersistedTab::of(t)))
                .collect(),
            // The runtime, which knows the config file, fills it in when saving.
            config_per_page: None,
            palette_history: self.workspace.history.clone(),
        }
    }

    /// The screen's areas for the current size and filter bar: what mouse hit-testing and
    /// paging use; drawing gets the same from `Areas::of_screen` with the frame's area.
    pub fn areas(&self) -> Areas {
        let screen = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        Areas::of_screen(screen, self.tab())
    }

    /// Tab titles as drawn, numbered, with the filters: `1 Contacts [email=ada]`.
    pub fn tab_titles(&self) -> Vec<String> {
        self.tabs
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut s = format!("{} {}", i + 1, t.resource.kind.title());
                let f = t.filter_summary();
                if !f.is_empty() {
                    let short: String = f.chars().take(24).collect();
                    let more = if short.len() < f.len() { "…" } else { "" };
                    s.push_str(&format!(" [{short}{more}]"));
                }
                if t.resource.kind == Resource::Deals
                    && let Some(c) = &self.currency_chip
                {
                    // Marked with `~`: shown, not filtered (the API cannot).
                    s.push_str(&format!(" ~{c}"));
                }
                s
            })
            .collect()
    }

    /// Handles one message. Returns what the runtime must do.
    pub fn update(&mut self, msg: Message, now: Now) -> Vec<Effect> {
        self.set_now(now);
        self.jobs_heard(&msg);
        if let Message::Key(key) = &msg
            && !matches!(self.overlays.last(), Some(Overlay::PendingQuit(_)))
            && let Some(mut fx) = self.held_key(key)
        {
            self.after_update(&mut fx);
            return fx;
        }
        let answered = self.write_answered(&msg);
        let mut fx = match msg {
            Message::Key(key) => self.on_key(key),
            Message::Mouse(m) => self.on_mouse(m),
            Message::Paste(text) => self.on_paste(&text),
            Message::Resize(w, h) => {
                self.size = (w, h);
                for o in &mut self.overlays {
                    o.dialog_mut().on_resize(w, h);
                }
                let rows = self.areas().table_rows();
                for t in &mut self.tabs {
                    t.scroll_into_view(rows);
                }
                self.charts_follow_resize();
                self.dirty = true;
                Vec::new()
            }
            Message::Tick => self.on_tick(),
            Message::Fetched {
                id,
                result,
                elapsed,
            } => self.on_fetched(id, result, elapsed),
            Message::Retrying {
                attempt,
                max_attempts,
                reason,
            } => {
                self.status.retrying =
                    Some(format!("retrying ({attempt}/{max_attempts}): {reason}"));
                self.dirty = true;
                // A form that is sending shows it too.
                self.dispatch_to_dialogs(&Message::Retrying {
                    attempt,
                    max_attempts,
                    reason,
                })
            }
            // Answers to what a dialog started. A created contact (its note, the Contacts tab
            // reloaded) is the contact form's to handle: `App::contact_created`.
            msg @ Message::Export { .. } => self.dispatch_to_dialogs(&msg),
            msg @ (Message::LoggedIn { .. }
            | Message::RescheduleLog { .. }
            | Message::Rescheduled { .. }
            | Message::ContactCreated { .. }) => self.dispatch_to_dialogs(&msg),
            Message::Summary { id, event } => self.on_summary(id, event),
            Message::Collected { id, event } => self.on_collected(id, event),
            Message::TokenLookup(lookup) => self.on_token_lookup(*lookup),
            Message::Terminate => self.quit(),
            Message::RequestLogged(r) => self.request_logged(*r),
            Message::Notice { text, error } => {
                if error {
                    self.show_error(text);
                } else {
                    self.note(text);
                }
                Vec::new()
            }
            Message::ProfileSwitched { profile, result } => self.profile_switched(profile, *result),
            Message::ViewsRead(file) => self.views_read(*file),
            Message::ViewsNotSaved(e) => {
                // Whole, in a dialog: the status bar cut the reason (the file's line) even at
                // 160 columns, and the view list no longer matches the file.
                self.overlays.push(Overlay::Notice(dialogs::notice::Notice {
                    title: "Views file not changed".into(),
                    text: format!(
                        "{e}. The change holds in this session only: fix the file, then save again."
                    ),
                    copy: None,
                }));
                self.dirty = true;
                Vec::new()
            }
            Message::UrlNotOpened { url, reason } => {
                self.overlays.push(Overlay::Notice(dialogs::notice::Notice {
                    title: "Open in the browser".into(),
                    text: reason,
                    copy: Some(url),
                }));
                self.dirty = true;
                Vec::new()
            }
            Message::Mirror(m) => self.on_mirror(m),
            Message::Job { id, event } => self.on_job(id, event),
            Message::PlanRead { result, .. } => self.plan_read(result),
            Message::JournalRead { result } => self.journal_read(result),
            Message::WriteAdmitted { id, ticket } => {
                self.write_admitted(id, ticket);
                Vec::new()
            }
            Message::UnsentFound(found) => self.unsent_found(found),
            Message::WriteRecorded { error } => {
                if let Some(e) = error {
                    self.show_error(e);
                }
                Vec::new()
            }
        };
        self.gate_writes(&mut fx);
        fx.extend(self.release_due());
        fx.extend(answered);
        fx.extend(self.history_wanted());
        self.after_update(&mut fx);
        fx
    }

    /// Quits, unless a dialog guards a draft or a write: then asks once.
    pub fn request_quit(&mut self) -> Vec<Effect> {
        if let Some(fx) = self.quit_with_held() {
            return fx;
        }
        if let Some(fx) = self.quit_with_runs() {
            return fx;
        }
        let guarded = self.overlays.iter().any(|o| o.dialog().guards_quit());
        if guarded && !self.quit_asked {
            self.quit_asked = true;
            self.overlays
                .push(Overlay::ConfirmQuit(dialogs::confirm::ConfirmQuit::anyway(
                    "A draft or a running job would be lost.",
                )));
            self.dirty = true;
            return Vec::new();
        }
        self.quit()
    }

    pub(crate) fn quit(&mut self) -> Vec<Effect> {
        self.quitting = true;
        let mut fx = vec![Effect::SaveState(self.remembered())];
        // Writes still in their undo window are dropped: the journal says so, with their body,
        // and the next start offers them as drafts.
        fx.extend(self.drop_held_at_exit());
        fx.push(Effect::Quit);
        fx
    }

    fn show_error(&mut self, text: String) {
        self.status.set_error(self.wall, self.now, text);
        self.dirty = true;
    }

    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        self.status.remember(self.wall, &text, false);
        self.status.note = Some((text, self.now + MESSAGE_TIME));
        self.dirty = true;
    }

    fn new_id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId(self.next_id)
    }

    fn after_update(&mut self, fx: &mut Vec<Effect>) {
        self.jobs_track(fx);
        if !self.quitting
            && let Some(e) = self.maybe_prefetch()
        {
            fx.push(e);
        }
        if self.busy() && self.spinner_due.is_none() {
            self.spinner_due = Some(self.now + SPINNER_STEP);
        }
        if !self.busy() {
            self.spinner_due = None;
        }
        self.refresh_chrome();
    }

    /// Switches tab; a tab never loaded starts loading.
    fn switch_to(&mut self, kind: Resource) -> Vec<Effect> {
        if self.active == kind {
            return Vec::new();
        }
        self.active = kind;
        self.dirty = true;
        let t = self.tab();
        // Rows from the mirror are shown while the service is asked.
        let stale = t.shown.as_ref().is_none_or(|s| s.page.mirrored.is_some());
        if stale && t.pending.is_none() && t.error.is_none() {
            return self.load(kind, false);
        }
        Vec::new()
    }
}
