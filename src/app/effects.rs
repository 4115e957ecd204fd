//! `Effect`: what `update` asks the runtime to do. The app never performs I/O itself.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::api::{IdempotencyKey, NewContact};
use crate::app::persist::PersistedState;
use crate::app::table::spec::QuerySpec;

/// Tags a request so its answer can be matched to the query that asked (stale ones dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// A client for the runtime to send requests with. Compares by base URL (tests); its `Debug`
/// never shows the token.
#[derive(Debug, Clone)]
pub struct NewClient(pub crate::api::Client);

impl PartialEq for NewClient {
    fn eq(&self, other: &Self) -> bool {
        self.0.base_url() == other.0.base_url()
    }
}

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Csv,
    Json,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        }
    }

    /// From a path's extension; CSV unless it ends in `.json`.
    pub fn from_path(path: &str) -> ExportFormat {
        if path.trim().to_ascii_lowercase().ends_with(".json") {
            ExportFormat::Json
        } else {
            ExportFormat::Csv
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Load one page; answer with `Message::Fetched` carrying the same id.
    Fetch {
        id: RequestId,
        spec: QuerySpec,
    },
    /// The answer is no longer wanted: abort the request if it is still running.
    Cancel(RequestId),
    /// Long work run by the runtime's job runner (`runtime::jobs`); answers `Message::Job`.
    StartJob {
        id: RequestId,
        job: crate::app::jobs::JobSpec,
    },
    /// Stops a job started by `StartJob` (it answers `JobEvent::Cancelled`, or a job that
    /// writes its report of what it did); one held for the token lookup is dropped.
    CancelJob(RequestId),
    /// `:plan PATH`: read and check the plan file (the CLI's parser), its preview in the
    /// configured zone; answer with `Message::PlanRead`.
    ReadPlan {
        id: RequestId,
        path: PathBuf,
        words: crate::app::plan::PlanWords,
    },
    /// Write near duplicate clusters (`:dupes`) to `path` as `contacts dupes` writes them;
    /// report with `Message::Export` (`Done` counts the contacts written). Without
    /// `overwrite` an existing file is never replaced (the next free name is taken).
    ExportDupes {
        id: RequestId,
        report: std::sync::Arc<crate::insights::dupes::mirrored::DupesReport>,
        path: PathBuf,
        format: ExportFormat,
        overwrite: bool,
    },
    /// Read every page of a deals query (`per_page` 100, at most `max_pages`) into a pipeline
    /// summary; report progress and the result with `Message::Summary`. `Cancel(id)` stops it.
    Summarize {
        id: RequestId,
        spec: QuerySpec,
        opts: crate::insights::pipeline::SummaryOptions,
        max_pages: u32,
        /// Ask the service even when the local mirror holds a complete copy (`r`).
        from_service: bool,
    },
    /// Read every page of a query (`per_page` 100, at most `max_pages`) as rows; report
    /// progress and the result with `Message::Collected`. `Cancel(id)` stops it.
    Collect {
        id: RequestId,
        spec: QuerySpec,
        max_pages: u32,
        /// Ask the service even when the local mirror holds a complete copy (`r`).
        from_service: bool,
    },
    /// `POST /contacts` with this key (kept across retries); answer with
    /// `Message::ContactCreated` carrying the same id.
    CreateContact {
        id: RequestId,
        contact: NewContact,
        key: IdempotencyKey,
    },
    /// `POST /appointments/{appointment_id}/reschedule`; answer with `Message::Rescheduled`.
    Reschedule {
        id: RequestId,
        appointment_id: String,
        body: Map<String, Value>,
    },
    /// Check the token against the service, keep it in the keyring, and use it from now on;
    /// answer with `Message::LoggedIn`.
    Login {
        id: RequestId,
        token: crate::app::dialogs::login::SecretToken,
        /// The base URL typed in the dialog (the profile had none): used, and saved in the
        /// profile once the token is accepted.
        base_url: Option<String>,
    },
    /// Append `append` (when given) to the reschedule log at `path`, then read its last
    /// `last` entries; answer with `Message::RescheduleLog`.
    RescheduleLog {
        path: PathBuf,
        append: Option<crate::reschedule::RescheduleLogEntry>,
        last: usize,
    },
    /// Append one write to the write journal at `path` (`crate::journal::record`), off the
    /// loop; a failure comes back as a `Message::Notice`.
    RecordWrite {
        path: PathBuf,
        entry: Box<crate::journal::WriteRecord>,
    },
    /// Append these entries to the write journal at once, before the process exits: the writes
    /// dropped in their undo window as the dashboard ends.
    RecordAtExit {
        path: PathBuf,
        entries: Vec<crate::journal::WriteRecord>,
    },
    /// Read the writes an earlier dashboard did not send (`crate::journal::unsent`); answer
    /// with `Message::UnsentFound`.
    FindUnsent {
        path: PathBuf,
        stale: chrono::DateTime<chrono::Utc>,
    },
    /// Read the write journal's latest entries; answer with `Message::JournalRead`.
    ReadJournal {
        path: PathBuf,
    },
    /// From now on requests go out with this client (a login, the token lookup). Effects held
    /// while the token was looked up go out right after it.
    UseClient(NewClient),
    /// There is no usable token: requests fail with `reason` (held effects too).
    NoClient {
        reason: String,
    },
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Remember tabs, sorts, page sizes and includes for the next run.
    SaveState(PersistedState),
    /// Stop the process (Ctrl-Z), restoring the terminal first.
    Suspend,
    /// Clear the terminal and draw the whole screen again (Ctrl-L): repairs whatever another
    /// program or a misrendered glyph left behind.
    Redraw,
    /// Local mirror work (reads, search, sync, the offline probe): `app::mirror`.
    Mirror(crate::app::mirror::MirrorEffect),
    Quit,
    /// Change the saved views file (`:save`, the `:views` picker); a failure comes back as
    /// `Message::ViewsNotSaved`.
    EditViews {
        path: PathBuf,
        edit: crate::config::views::ViewEdit,
    },
    /// Read the views file again (the user may have edited it by hand); answer with
    /// `Message::ViewsRead`.
    ReadViews {
        path: PathBuf,
    },
    /// Open a record's web page with the configured opener, or say the URL when no browser
    /// can be started; the outcome comes back as `Message::Notice`.
    OpenUrl {
        url: String,
    },
    /// Run a user action's programs (`[actions.NAME]`), one argv each, in order; the end
    /// comes back as `Message::Notice`.
    RunUserAction {
        name: String,
        argvs: Vec<Vec<String>>,
        mode: crate::user_actions::Mode,
    },
    /// `:profile NAME`: find that profile's base URL and token and make a client bound to
    /// them; answer with `Message::ProfileSwitched`.
    SwitchProfile {
        name: String,
    },
}
