//! `Message`: everything that can change the app: input events, API results tagged with
//! their request id, export progress, and the timer.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyEvent, MouseEvent};

use crate::api::{ApiError, AppointmentRef, Contact, Created};
use crate::app::effects::RequestId;
use crate::app::table::record::FetchedPage;
use crate::insights::pipeline::{Coverage, PipelineSummary};

/// How an export is going.
#[derive(Debug, Clone)]
pub enum ExportEvent {
    Progress {
        records: usize,
        page: u32,
        last_page: Option<u32>,
    },
    Done {
        records: usize,
        path: PathBuf,
    },
    Failed(String),
    Cancelled,
}

/// How the pipeline view's reading of the deals is going.
#[derive(Debug, Clone)]
pub enum SummaryEvent {
    /// `pages` pages read of `last_page` (when the server says), `deals` deals so far.
    Progress {
        pages: u32,
        last_page: Option<u64>,
        deals: u64,
    },
    Done(Arc<(PipelineSummary, Coverage)>),
    Failed(String),
}

/// How the timeline view's reading of the projects is going.
#[derive(Debug, Clone)]
pub enum CollectEvent {
    /// `pages` pages read of `last_page` (when the server says), `records` rows so far.
    Progress {
        pages: u32,
        last_page: Option<u64>,
        records: u64,
    },
    Done(Arc<(Vec<crate::app::table::record::Record>, Coverage)>),
    Failed(String),
}

#[derive(Debug, Clone)]
pub enum Message {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// A deadline `App::next_deadline` asked for has passed (debounce, spinner, age, refresh).
    Tick,
    /// A page request finished. `error` is the one-line summary a user can act on.
    Fetched {
        id: RequestId,
        result: Result<Arc<FetchedPage>, String>,
        elapsed: Duration,
    },
    /// The client is retrying: "retrying (2/4): 503".
    Retrying {
        attempt: u32,
        max_attempts: u32,
        reason: String,
    },
    Export {
        id: RequestId,
        event: ExportEvent,
    },
    /// The pipeline view's summary, started by `Effect::Summarize` with the same id.
    /// The timeline view's projects, read by `Effect::Collect` with the same id.
    Collected {
        id: RequestId,
        event: CollectEvent,
    },
    Summary {
        id: RequestId,
        event: SummaryEvent,
    },
    /// A create started by a dialog finished (field errors in the `ApiError`). Boxed: large.
    ContactCreated {
        id: RequestId,
        result: Box<Result<Created<Contact>, ApiError>>,
    },
    /// A reschedule started by a dialog finished.
    Rescheduled {
        id: RequestId,
        result: Box<Result<AppointmentRef, ApiError>>,
    },
    /// The login dialog's token was checked (and stored, or why not).
    LoggedIn {
        id: RequestId,
        result: Box<Result<crate::app::dialogs::login::LoginOk, String>>,
    },
    /// The token lookup started after the first frame finished (the runtime has already
    /// installed a found token's client).
    TokenLookup(Box<crate::app::dialogs::login::TokenLookup>),
    /// The reschedule log, read back (after an append).
    RescheduleLog {
        result: Result<Vec<crate::reschedule::RescheduleLogEntry>, String>,
    },
    /// The write journal's latest entries, oldest first (`Effect::ReadJournal`).
    JournalRead {
        result: Result<Vec<crate::journal::WriteRecord>, String>,
    },
    /// The write gate let write `id` through: its intent is journaled under `ticket`, and its
    /// answer will be too.
    WriteAdmitted {
        id: RequestId,
        ticket: String,
    },
    /// A write's journal entry was appended (`Effect::RecordWrite`), or why not.
    WriteRecorded {
        error: Option<String>,
    },
    /// The writes an earlier dashboard did not send (`Effect::FindUnsent`), or why the
    /// journal could not be read.
    UnsentFound(Result<Vec<crate::journal::WriteRecord>, String>),
    /// The process is asked to end (SIGTERM, SIGHUP): quit without asking.
    Terminate,
    /// What the runtime did with an effect that has no answer of its own (a views file
    /// write, opening a URL, a sync), for the status bar.
    Notice {
        text: String,
        error: bool,
    },
    /// The views file could not take a `:save`, rename or delete (a broken line, a
    /// permission): the change holds for this session only, and a dialog says so whole.
    ViewsNotSaved(String),
    /// The views file as read now (`Effect::ReadViews`).
    ViewsRead(Box<crate::config::views::ViewsFile>),
    /// `o` could not start a browser: show the address in full.
    UrlNotOpened {
        url: String,
        reason: String,
    },
    /// The profile `:profile` asked for: a client bound to its base URL, or why not.
    ProfileSwitched {
        profile: String,
        result: Box<Result<crate::app::effects::NewClient, String>>,
    },
    /// A request to the service ended (the request log, `W`).
    RequestLogged(Box<crate::app::dialogs::requests::LoggedRequest>),
    /// The local mirror's answers and the connection's state: `app::mirror`.
    Mirror(crate::app::mirror::MirrorMessage),
    /// A job's progress or end (`Effect::StartJob` with the same id).
    Job {
        id: RequestId,
        event: crate::app::jobs::JobEvent,
    },
    /// A plan read for `:plan` (`Effect::ReadPlan`), or why it could not be.
    PlanRead {
        id: RequestId,
        result: Result<Box<crate::app::plan::PlanLoaded>, String>,
    },
}
