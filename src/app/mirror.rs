//! The dashboard's side of the local mirror: the last known rows painted at start (marked
//! with their age), offline mode (the status bar says so, writes are refused, a probe every
//! [`PROBE_EVERY`] finds the service again), the background sync's schedule and progress, and
//! the requests of the search and related-records dialogs. Every disk access is an
//! `Effect::Mirror` the runtime runs on the blocking pool; answers come back as
//! `Message::Mirror`. The sync is a job (`JobSpec::Sync`): its reports (`Message::Job`)
//! drive the status line through [`App::sync_heard`].

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::time::Instant;

mod browse;

use super::App;
use crate::app::dialogs::Overlay;
use crate::app::effects::{Effect, RequestId};
use crate::app::jobs::{JobEvent, JobOutput, JobSpec};
use crate::app::table::record::{DisplayZone, FetchedPage};
use crate::app::table::spec::QuerySpec;
use crate::mirror::SearchResults;
use crate::resource::Resource;

/// While offline, how often the service is asked again.
pub const PROBE_EVERY: Duration = Duration::from_secs(15);
/// The first background sync waits this long after start: the tab's own first request goes
/// out first.
pub const FIRST_SYNC_AFTER: Duration = Duration::from_secs(2);

/// What a link points at: a record of a resource, or an account (accounts are not mirrored
/// records: they come included with contacts and deals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    Record(Resource),
    Account,
}

impl LinkKind {
    pub fn noun(self) -> &'static str {
        match self {
            LinkKind::Record(r) => r.singular(),
            LinkKind::Account => "account",
        }
    }

    /// Whether the mirror knows records related to this kind.
    pub fn has_related(self) -> bool {
        self != LinkKind::Record(Resource::Projects)
    }
}

/// A record one can open: what it is, and its JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordRef {
    pub kind: LinkKind,
    pub id: String,
    pub label: String,
    /// One line under the label in lists (status, email...).
    pub detail: String,
    pub raw: Arc<str>,
    /// From the mirror (or, for an account or an unmirrored contact, as included there).
    pub note: Option<&'static str>,
}

/// The records related to one, grouped under headings ("Account", "Contacts", "Deals").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RelatedRecords {
    pub groups: Vec<(&'static str, Vec<RecordRef>)>,
    /// The record itself is not in the mirror (created since the last sync).
    pub unknown: bool,
}

/// What the app asks of the mirror.
#[derive(Debug, Clone, PartialEq)]
pub enum MirrorEffect {
    /// Read these pages from the mirror; answer `MirrorMessage::Rows` for each.
    Rows(Vec<QuerySpec>),
    /// Search everything; answer `MirrorMessage::Search` with the id.
    Search { id: RequestId, text: String },
    /// The records related to `of`; answer `MirrorMessage::Related`.
    Related { id: RequestId, of: RecordRef },
    /// Find the near duplicate contacts; answer `MirrorMessage::Dupes`.
    Dupes {
        id: RequestId,
        finder: crate::insights::dupes::mirrored::Finder,
    },
    /// These contacts' records; answer `MirrorMessage::ContactRecords`.
    ContactRecords { id: RequestId, ids: Vec<String> },
    /// The contacts like the form's draft; answer `MirrorMessage::NearContacts`.
    NearContacts {
        id: RequestId,
        draft: crate::insights::dupes::Person,
        finder: crate::insights::dupes::mirrored::Finder,
    },
    /// Ask the service for `spec` (offline: is it back?); answer `MirrorMessage::Probed`.
    Probe(QuerySpec),
    /// Read (or mark) the change feed; answer `MirrorMessage::Feed` with the id.
    Feed {
        id: RequestId,
        ask: crate::app::feed::FeedAsk,
    },
}

/// What the mirror (and the runtime around it) answers.
#[derive(Debug, Clone)]
pub enum MirrorMessage {
    /// A page from the mirror; `Ok(None)`: there is no mirror (yet).
    Rows {
        spec: QuerySpec,
        result: Result<Option<Arc<FetchedPage>>, String>,
        /// `MirrorState::generation` when the read was asked for: a read of the mirror of a
        /// profile switched away from is dropped.
        generation: u64,
    },
    Search {
        id: RequestId,
        result: Result<Option<SearchResults>, String>,
    },
    Related {
        id: RequestId,
        result: Result<Option<RelatedRecords>, String>,
    },
    Feed {
        id: RequestId,
        result: Result<Option<crate::app::feed::FeedAnswer>, String>,
    },
    Dupes {
        id: RequestId,
        result: Result<Option<Arc<crate::insights::dupes::mirrored::DupesReport>>, String>,
    },
    NearContacts {
        id: RequestId,
        result: Result<Option<Vec<crate::insights::dupes::mirrored::NearContact>>, String>,
    },
    /// One per id asked for (`None`: not in the mirror).
    ContactRecords {
        id: RequestId,
        result: Result<Option<Vec<Option<Arc<str>>>>, String>,
    },
    /// The service could not be reached (`Some(why)`), or answered again (`None`).
    Connectivity(Option<String>),
    Probed(Result<(), String>),
    /// Another sync of this mirror is running (in another process: its id when known); the
    /// sync job waits for it, and its end comes as the job's.
    SyncWaiting(Option<String>),
    /// A read found the mirror damaged (said once; the next sync rebuilds it).
    Damaged(String),
}

/// How far the running sync got, as the status line says it (`syncing contacts 12%`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncStep {
    /// The resource read now (`contacts`).
    pub resource: &'static str,
    /// Records read by its pass so far.
    pub fetched: u64,
    /// The server's count, when it sends one.
    pub total: Option<u64>,
}

/// What the app knows of the mirror and the connection.
#[derive(Debug, Clone, Default)]
pub struct MirrorState {
    /// `[cache] enabled`: false keeps nothing on disk and turns all of this off.
    pub enabled: bool,
    /// Whether a mirror exists (`None` until the first read says).
    pub exists: Option<bool>,
    /// The service is unreachable: since when, and why.
    pub offline: Option<(DateTime<Utc>, String)>,
    /// The newest sync time of the data shown from the mirror.
    pub data_from: Option<DateTime<Utc>>,
    /// `[cache] sync_every_minutes` (`None`: no background sync).
    pub sync_every: Option<Duration>,
    pub sync_due: Option<Instant>,
    /// A background sync is running: its last progress.
    pub syncing: Option<Option<SyncStep>>,
    /// The last background sync's summary or failure, for the help of a curious user.
    pub last_sync: Option<Result<String, String>>,
    probe_due: Option<Instant>,
    probing: bool,
    /// The running sync was asked for (`:sync`): its end is said in the status line.
    asked: bool,
    /// The running sync was asked to stop (`x` in `:jobs`); its report has not come yet.
    stopping: bool,
    /// `:sync` came while the running sync was being stopped: a new one starts when the
    /// stopped one has reported (the runtime lets it wait for the stopped one's last writes).
    again: bool,
    /// Bumped when the profile (and so the mirror) changes.
    pub generation: u64,
    /// A read found the mirror damaged and it was said (not again until a sync ends).
    pub damaged_said: bool,
}

impl MirrorState {
    pub fn new(enabled: bool, sync_every: Option<Duration>) -> MirrorState {
        MirrorState {
            enabled,
            sync_every: sync_every.filter(|_| enabled),
            ..MirrorState::default()
        }
    }
}

/// `12:03` today, else `2026-11-24 12:03`, in the display zone.
pub fn clock(t: DateTime<Utc>, now: DateTime<Utc>, zone: &DisplayZone) -> String {
    let full = zone.format_instant(t);
    let today = zone.format_instant(now);
    if full.get(..10) == today.get(..10) {
        full.get(11..).unwrap_or(&full).to_string()
    } else {
        full
    }
}

impl App {
    /// Turns the mirror on (`[cache] enabled`) with the background sync's period.
    pub fn set_mirror(&mut self, enabled: bool, sync_every: Option<Duration>) {
        self.mirror = MirrorState::new(enabled, sync_every);
    }

    /// `:sync`: a background sync now (the same as the periodic one), or why not.
    pub(crate) fn sync_now(&mut self) -> Vec<Effect> {
        if !self.mirror.enabled {
            self.note("The local mirror is off ([cache] enabled = false): nothing to sync");
            return Vec::new();
        }
        if self.mirror.offline.is_some() {
            self.note("Offline: the sync starts when the service answers again");
            return Vec::new();
        }
        if self.mirror.syncing.is_some() && self.mirror.stopping {
            self.mirror.again = true;
            self.note("Syncing the local mirror once the stopped sync has let go…");
            return Vec::new();
        }
        if self.mirror.syncing.is_some() {
            // Its end is said like that of a sync asked for.
            self.mirror.asked = true;
            self.note("A sync of the local mirror is running: its end will be said here");
            return Vec::new();
        }
        self.mirror.asked = true;
        self.mirror.sync_due = self.mirror.sync_every.map(|e| self.now + e);
        self.note("Syncing the local mirror…");
        vec![self.start_sync()]
    }

    /// A sync job of the active profile's mirror; its reports come to [`App::sync_heard`].
    fn start_sync(&mut self) -> Effect {
        let id = self.new_id();
        self.jobs.sync = Some(id);
        self.mirror.syncing = Some(None);
        self.dirty = true;
        Effect::StartJob {
            id,
            job: JobSpec::Sync,
        }
    }

    /// `x` on the sync in `:jobs`: the runner stops it; its report ends it here.
    pub(super) fn stop_sync(&mut self, id: RequestId) -> Vec<Effect> {
        if self.jobs.sync == Some(id) {
            self.mirror.stopping = true;
        }
        vec![Effect::CancelJob(id)]
    }

    /// The sync job's reports, translated for the status line and the mirror's state.
    pub(super) fn sync_heard(&mut self, event: &JobEvent) -> Vec<Effect> {
        if !matches!(event, JobEvent::Progress { .. }) {
            self.mirror.stopping = false;
        }
        match event {
            JobEvent::Progress {
                done, total, unit, ..
            } => {
                // A redraw only when the status line's words change (`syncing contacts 12%`).
                let before = self.mirror_status();
                self.mirror.syncing = Some(Some(SyncStep {
                    resource: unit,
                    fetched: *done,
                    total: *total,
                }));
                if self.mirror_status() != before {
                    self.dirty = true;
                }
                Vec::new()
            }
            JobEvent::Done(out) => {
                // It ended before the stop reached it: a `:sync` since is answered by it.
                self.mirror.again = false;
                self.jobs.sync = None;
                let summary = match out {
                    JobOutput::Synced(s) => s.clone(),
                    _ => String::new(),
                };
                self.sync_ended(Ok(summary))
            }
            JobEvent::Failed(e) => {
                self.mirror.again = false;
                self.jobs.sync = None;
                self.sync_ended(Err(e.clone()))
            }
            // `x` on the sync: what it wrote stays.
            JobEvent::Cancelled => {
                self.jobs.sync = None;
                self.dirty = true;
                self.mirror.syncing = None;
                self.mirror.asked = false;
                if std::mem::take(&mut self.mirror.again) {
                    self.mirror.asked = true;
                    self.note(
                        "Sync stopped; syncing the local mirror again from where it stopped…",
                    );
                    return vec![self.start_sync()];
                }
                self.note(
                    "Sync stopped: the local mirror keeps what it synced; :sync goes on from there",
                );
                Vec::new()
            }
        }
    }

    /// After a profile switch: the new profile's mirror (the runtime swapped it in) paints
    /// its rows and gets its own sync schedule; nothing of the old one's state is kept.
    pub(crate) fn mirror_switched(&mut self) -> Vec<Effect> {
        // The old profile's sync stops (it goes on from there next time): its job ends here,
        // and its late reports are dropped (it is no longer `jobs.sync`).
        let mut fx = Vec::new();
        if let Some(id) = self.jobs.sync.take() {
            self.jobs.finish(id, super::jobs::JobState::Cancelled);
            fx.push(Effect::CancelJob(id));
        }
        let generation = self.mirror.generation + 1;
        self.mirror = MirrorState {
            generation,
            ..MirrorState::new(self.mirror.enabled, self.mirror.sync_every)
        };
        fx.extend(self.mirror_start());
        fx
    }

    pub fn is_offline(&self) -> bool {
        self.mirror.offline.is_some()
    }

    /// At start: every tab's current page from the mirror (shown until the service answers)
    /// and the first background sync scheduled.
    pub(super) fn mirror_start(&mut self) -> Vec<Effect> {
        if !self.mirror.enabled {
            return Vec::new();
        }
        if self.mirror.sync_every.is_some() {
            self.mirror.sync_due = Some(self.now + FIRST_SYNC_AFTER);
        }
        let specs = self
            .tabs
            .iter()
            .filter(|t| t.shown.is_none())
            .map(|t| t.spec())
            .collect::<Vec<_>>();
        if specs.is_empty() {
            return Vec::new();
        }
        vec![Effect::Mirror(MirrorEffect::Rows(specs))]
    }

    /// The status bar's words for the connection and the sync: `offline · data from 12:03`,
    /// `syncing contacts 12%` (records read of the server's count; without a count, how many).
    pub fn mirror_status(&self) -> Option<String> {
        let m = &self.mirror;
        let mut parts = Vec::new();
        if m.offline.is_some() {
            match self.shown_mirror_time().or(m.data_from) {
                Some(t) => parts.push(format!(
                    "offline · data from {}",
                    clock(t, self.wall, &self.config.zone)
                )),
                None if m.exists == Some(false) => {
                    parts.push("offline · no local mirror yet".to_string())
                }
                None => parts.push("offline".to_string()),
            }
        }
        if let Some(p) = &m.syncing {
            parts.push(match p {
                // A share rather than `1200/100000`: short enough for the status line of
                // an 80-column screen beside `page 1/4000 · 100000 total`.
                Some(p) => match p.total.filter(|t| *t > 0) {
                    Some(t) => format!(
                        "syncing {} {}%",
                        p.resource,
                        (p.fetched.saturating_mul(100) / t).min(100)
                    ),
                    None => format!("syncing {} {}", p.resource, p.fetched),
                },
                None => "syncing".to_string(),
            });
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    /// When the rows on screen were synced, if they come from the mirror.
    fn shown_mirror_time(&self) -> Option<DateTime<Utc>> {
        let shown = self.tab().shown.as_ref()?;
        shown.page.mirrored?.synced_at
    }

    /// The age label of mirrored rows: `from mirror · 12:03` (`None` for the service's).
    pub fn mirror_age_label(&self) -> Option<String> {
        // Offline, the status line's `offline · data from 12:03` says it already.
        if self.is_offline() {
            return None;
        }
        let shown = self.tab().shown.as_ref()?;
        let m = shown.page.mirrored?;
        Some(match m.synced_at {
            Some(t) => format!("from mirror · {}", clock(t, self.wall, &self.config.zone)),
            None => "from mirror".to_string(),
        })
    }

    /// The mirror's deadlines (probe, sync) for `next_deadline`.
    pub(super) fn mirror_deadline(&self) -> Option<Instant> {
        let probe = self.mirror.probe_due.filter(|_| !self.mirror.probing);
        let sync = self
            .mirror
            .sync_due
            .filter(|_| self.mirror.syncing.is_none());
        match (probe, sync) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs what is due: a probe while offline, the periodic sync while online.
    pub(super) fn mirror_tick(&mut self) -> Vec<Effect> {
        let now = self.now;
        let mut fx = Vec::new();
        if self.mirror.offline.is_some()
            && !self.mirror.probing
            && self.mirror.probe_due.is_some_and(|d| d <= now)
        {
            fx.extend(self.probe_now());
        }
        if let Some(due) = self.mirror.sync_due
            && due <= now
            && self.mirror.syncing.is_none()
        {
            self.mirror.sync_due = self.mirror.sync_every.map(|e| now + e);
            // Offline, the sync waits for the next period (or the service's return).
            if self.mirror.offline.is_none() {
                fx.push(self.start_sync());
            }
        }
        fx
    }

    /// Offline: asks the service again now (`r`, or the probe's period).
    pub(super) fn probe_now(&mut self) -> Vec<Effect> {
        if self.mirror.offline.is_none() || self.mirror.probing {
            return Vec::new();
        }
        self.mirror.probing = true;
        self.mirror.probe_due = None;
        vec![Effect::Mirror(MirrorEffect::Probe(self.tab().spec()))]
    }

    pub(super) fn on_mirror(&mut self, msg: MirrorMessage) -> Vec<Effect> {
        // Dropped, so no redraw: rows read from the mirror of a profile switched away from.
        if let MirrorMessage::Rows { generation, .. } = &msg
            && *generation != self.mirror.generation
        {
            return Vec::new();
        }
        self.dirty = true;
        match msg {
            MirrorMessage::Rows { spec, result, .. } => {
                match result {
                    Ok(Some(page)) => {
                        self.mirror.exists = Some(true);
                        if let Some(t) = page.mirrored.and_then(|m| m.synced_at) {
                            self.mirror.data_from =
                                Some(self.mirror.data_from.map_or(t, |d| d.max(t)));
                        }
                        let i = spec.kind.index();
                        let tab = &self.tabs[i];
                        // Only where nothing fresher is shown: the service's answer wins.
                        let stale = tab.shown.as_ref().is_none_or(|s| s.page.mirrored.is_some());
                        if tab.spec() == spec && stale {
                            let now = self.now;
                            self.tabs[i].show(spec, page, now);
                            let rows = self.areas().table_rows();
                            self.tabs[i].scroll_into_view(rows);
                        }
                    }
                    Ok(None) => self.mirror.exists = Some(false),
                    Err(e) => tracing::warn!(error = %e, "mirror read failed"),
                }
                Vec::new()
            }
            MirrorMessage::Connectivity(Some(why)) => {
                self.go_offline(why);
                Vec::new()
            }
            MirrorMessage::Connectivity(None) | MirrorMessage::Probed(Ok(())) => {
                self.mirror.probing = false;
                // The probe's retries are over: "retrying (4/4)" would stay forever.
                self.status.retrying = None;
                self.go_online()
            }
            MirrorMessage::Probed(Err(why)) => {
                self.mirror.probing = false;
                self.status.retrying = None;
                if self.mirror.offline.is_some() {
                    self.mirror.probe_due = Some(self.now + PROBE_EVERY);
                    if let Some(o) = &mut self.mirror.offline {
                        o.1 = why;
                    }
                }
                Vec::new()
            }
            MirrorMessage::SyncWaiting(holder) => {
                if self.mirror.asked {
                    let who = holder
                        .map(|p| format!(" (process {p})"))
                        .unwrap_or_default();
                    self.note(format!(
                        "Another sync of the local mirror is running{who}: its end will be said here"
                    ));
                }
                Vec::new()
            }
            MirrorMessage::Damaged(why) => {
                if !std::mem::replace(&mut self.mirror.damaged_said, true) {
                    tracing::warn!(error = %why, "local mirror damaged");
                    self.note(
                        "The local mirror is damaged: working from the service; the next sync (:sync) moves it aside and rebuilds it",
                    );
                }
                Vec::new()
            }
            msg @ (MirrorMessage::Search { .. }
            | MirrorMessage::Related { .. }
            | MirrorMessage::Dupes { .. }
            | MirrorMessage::NearContacts { .. }
            | MirrorMessage::ContactRecords { .. }
            | MirrorMessage::Feed { .. }) => {
                if let MirrorMessage::Feed {
                    result: Ok(Some(answer)),
                    ..
                } = &msg
                {
                    self.feed_answered(answer);
                }
                self.dispatch_to_dialogs(&super::Message::Mirror(msg))
            }
        }
    }

    /// A sync's end: a one-line summary, or why it failed.
    fn sync_ended(&mut self, result: Result<String, String>) -> Vec<Effect> {
        self.dirty = true;
        self.mirror.syncing = None;
        let asked = std::mem::take(&mut self.mirror.asked);
        if result.is_ok() {
            self.mirror.exists = Some(true);
            self.mirror.damaged_said = false;
        }
        match &result {
            Err(e) => self.note(format!("background sync: {e}")),
            // `:sync` is answered; the periodic sync stays quiet when it goes well.
            Ok(summary) if asked => self.note(format!("Local mirror synced: {summary}")),
            Ok(_) => {}
        }
        self.mirror.last_sync = Some(result);
        let wall = self.wall;
        for o in &mut self.overlays {
            if let Overlay::Search(d) = o {
                d.mirror_changed(wall);
            }
        }
        // Rows on screen from the mirror are read again (the sync changed them).
        let specs: Vec<QuerySpec> = self
            .tabs
            .iter()
            .filter(|t| t.shown.as_ref().is_some_and(|s| s.page.mirrored.is_some()))
            .map(|t| t.spec())
            .collect();
        if specs.is_empty() {
            Vec::new()
        } else {
            vec![Effect::Mirror(MirrorEffect::Rows(specs))]
        }
    }

    fn go_offline(&mut self, why: String) {
        if self.mirror.offline.is_none() {
            tracing::info!(reason = %why, "offline");
            self.mirror.offline = Some((self.wall, why));
            self.mirror.probe_due = Some(self.now + PROBE_EVERY);
            // The tab's error says no more than the status bar does.
            self.status.clear_error();
        }
    }

    fn go_online(&mut self) -> Vec<Effect> {
        if self.mirror.offline.take().is_none() {
            return Vec::new();
        }
        tracing::info!("online again");
        self.mirror.probe_due = None;
        // The syncs skipped while offline: one soon.
        if self.mirror.sync_every.is_some() && self.mirror.syncing.is_none() {
            self.mirror.sync_due = Some(self.now + FIRST_SYNC_AFTER);
        }
        self.note(format!("Online again: {}", self.config.host));
        // Mirrored rows on screen are replaced by the service's.
        let mut fx = Vec::new();
        for kind in Resource::ALL {
            let mirrored = self.tabs[kind.index()]
                .shown
                .as_ref()
                .is_some_and(|s| s.page.mirrored.is_some());
            // Anew (`bypass`): a request sent while offline is answered from the mirror,
            // so one still pending must not stand in for the service's answer.
            if mirrored && (kind == self.active) {
                fx.extend(self.load(kind, true));
            }
        }
        fx
    }

    /// Why a write is refused now (offline), in words for the form.
    pub fn offline_refusal(&self) -> Option<String> {
        let (since, _) = self.mirror.offline.as_ref()?;
        Some(format!(
            "offline since {}: {} cannot be reached, so nothing was sent or queued. \
             Send it again once back online (r on the table checks now).",
            clock(*since, self.wall, &self.config.zone),
            self.config.host
        ))
    }
}
