//! How the app keeps `:jobs` up to date: every effect that starts long work registers a job
//! (`jobs_track`, after each update, so no caller can forget it), `Message::Job` (and the
//! readings' own messages) move it along, and a finished job's result is put to use (marks,
//! the clipboard, the export dialog, the sync's status line).

use super::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::jobs::JobsView;
use crate::app::effects::{Effect, RequestId};
use crate::app::jobs::SelectionUse;
use crate::app::jobs::{JobEntry, JobEvent, JobKind, JobOutput, JobSpec, JobState, JobThen};
use crate::app::message::{CollectEvent, Message, SummaryEvent};
use crate::app::table::record::Record;

impl App {
    /// `J` / `:jobs`.
    pub(crate) fn open_jobs(&mut self) -> Vec<Effect> {
        self.overlays.push(Overlay::Jobs(JobsView::default()));
        self.follow_jobs_cursor();
        self.dirty = true;
        Vec::new()
    }

    pub(super) fn clamp_jobs_cursor(&mut self) {
        let n = self.jobs.list.len();
        if let Some(Overlay::Jobs(v)) = self.overlays.last_mut() {
            v.cursor = v.cursor.min(n.saturating_sub(1));
        }
        self.follow_jobs_cursor();
    }

    /// What `:jobs` offers for the job under its cursor: `x` only while it runs (and can
    /// be stopped), Enter only when it has a report.
    fn follow_jobs_cursor(&mut self) {
        let Some(Overlay::Jobs(v)) = self.overlays.last() else {
            return;
        };
        let order = self.jobs.in_order();
        let j = order.get(v.cursor.min(order.len().saturating_sub(1)));
        let stoppable = j.is_some_and(|j| j.running() && j.cancellable);
        let has_report = j.is_some_and(|j| j.report.is_some());
        if let Some(Overlay::Jobs(v)) = self.overlays.last_mut()
            && (v.stoppable, v.has_report) != (stoppable, has_report)
        {
            v.stoppable = stoppable;
            v.has_report = has_report;
            self.dirty = true;
        }
    }

    /// `x` in `:jobs`: stops the job at that place of the list, each kind its own way.
    pub(super) fn stop_job_at(&mut self, at: usize) -> Vec<Effect> {
        let Some(j) = self.jobs.in_order().get(at).map(|j| (*j).clone()) else {
            return Vec::new();
        };
        if !j.running() {
            self.note(format!("{} already ended: {}", j.title, j.outcome()));
            return Vec::new();
        }
        if !j.cancellable {
            self.note(format!(
                "A {} cannot be stopped; it ends by itself",
                j.kind.name()
            ));
            return Vec::new();
        }
        // Every job the runner runs: `CancelJob`; the readings stop as the pipeline and
        // timeline do.
        match j.kind {
            JobKind::Pipeline => self.cancel_pipeline_reading(),
            JobKind::Timeline => self.cancel_timeline_reading(),
            JobKind::Sync => self.stop_sync(j.id),
            _ => vec![Effect::CancelJob(j.id)],
        }
    }

    /// Registers the long work the effects start and notes the cancels that end some.
    pub(super) fn jobs_track(&mut self, fx: &[Effect]) {
        for e in fx {
            let (id, kind, title, sends) =
                match e {
                    Effect::StartJob { id, job } => {
                        if self.jobs.get(*id).is_some() {
                            continue;
                        }
                        let (kind, title) = match job {
                            JobSpec::SelectionRecords {
                                ids,
                                export: Some(to),
                                spec,
                            } => (
                                JobKind::Export,
                                format!(
                                    "{} selected {} to {}",
                                    ids.len(),
                                    spec.kind.noun(),
                                    to.path.display()
                                ),
                            ),
                            JobSpec::SelectionRecords { ids, spec, .. } => (
                                JobKind::Selection,
                                format!("{} selected {}", ids.len(), spec.kind.noun()),
                            ),
                            JobSpec::MatchingIds { spec } => (
                                JobKind::Select,
                                format!("{} {}", spec.kind.noun(), spec.filter_summary()),
                            ),
                            JobSpec::Export { spec, to } => (
                                JobKind::Export,
                                format!("{} to {}", view_words(spec), to.path.display()),
                            ),
                            JobSpec::Sync => (JobKind::Sync, "the local mirror".to_string()),
                            JobSpec::ImportPreview(job) => (JobKind::Import, job.title(true)),
                            JobSpec::Import(job) => (JobKind::Import, job.title(false)),
                            JobSpec::Plan(plan) => (
                                JobKind::Plan,
                                format!(
                                    "{} ({} {})",
                                    plan.path.display(),
                                    plan.rows.len(),
                                    if plan.rows.len() == 1 { "row" } else { "rows" }
                                ),
                            ),
                        };
                        let sends = matches!(job, JobSpec::Plan(_) | JobSpec::Import(_));
                        (*id, kind, title, sends)
                    }
                    Effect::Summarize { id, spec, .. } => {
                        (*id, JobKind::Pipeline, view_words(spec), false)
                    }
                    Effect::Collect { id, spec, .. } => {
                        (*id, JobKind::Timeline, view_words(spec), false)
                    }
                    Effect::Cancel(id) => {
                        // An aborted reading sends nothing more: it ends here.
                        if self.jobs.get(*id).is_some_and(|j| {
                            matches!(j.kind, JobKind::Pipeline | JobKind::Timeline)
                        }) {
                            self.jobs.finish(*id, JobState::Cancelled);
                        }
                        continue;
                    }
                    _ => continue,
                };
            self.jobs.add(JobEntry {
                id,
                kind,
                title,
                started: self.wall,
                progress: None,
                state: JobState::Running,
                then: JobThen::Report,
                cancellable: true,
                report: None,
                sends,
                counted: None,
            });
            self.dirty = true;
        }
        // A job under `:jobs`' cursor may have started or ended.
        self.follow_jobs_cursor();
    }

    /// The readings' own messages (their views own them), as job progress and outcomes.
    pub(super) fn jobs_heard(&mut self, msg: &Message) {
        let changed = match msg {
            Message::Summary { id, event } => match event {
                SummaryEvent::Progress {
                    pages, last_page, ..
                } => self
                    .jobs
                    .progress(*id, u64::from(*pages), *last_page, "pages"),
                SummaryEvent::Done(s) => self
                    .jobs
                    .finish(*id, JobState::Done(format!("{} deals", s.0.deals))),
                SummaryEvent::Failed(e) => self.jobs.finish(*id, JobState::Failed(e.clone())),
            },
            Message::Collected { id, event } => match event {
                CollectEvent::Progress {
                    pages, last_page, ..
                } => self
                    .jobs
                    .progress(*id, u64::from(*pages), *last_page, "pages"),
                CollectEvent::Done(rows) => self
                    .jobs
                    .finish(*id, JobState::Done(format!("{} projects", rows.0.len()))),
                CollectEvent::Failed(e) => self.jobs.finish(*id, JobState::Failed(e.clone())),
            },
            _ => false,
        };
        if changed && self.overlays.iter().any(|o| matches!(o, Overlay::Jobs(_))) {
            self.dirty = true;
        }
    }

    /// A job's report: the list follows; a finished job's result is used.
    pub(super) fn on_job(&mut self, id: RequestId, event: JobEvent) -> Vec<Effect> {
        // The export dialog follows its own job.
        let mut fx = self.dispatch_to_dialogs(&Message::Job {
            id,
            event: event.clone(),
        });
        // The sync's reports are the mirror's status line too (a stopped or switched-away
        // sync's late reports are not: it is no longer `jobs.sync`).
        if self.jobs.sync.is_some_and(|s| s == id) {
            fx.extend(self.sync_heard(&event));
        }
        let Some((then, kind)) = self.jobs.get(id).map(|j| (j.then.clone(), j.kind)) else {
            return fx;
        };
        if kind == JobKind::Export
            && matches!(event, JobEvent::Done(_))
            && let Some(from) = self.mirror_status().filter(|_| self.is_offline())
        {
            // Offline, the runtime read the pages from the local mirror.
            self.note(format!("{from}: the export was read from the local mirror"));
        }
        match event {
            JobEvent::Progress {
                done, total, unit, ..
            } => {
                // Progress shows in `:jobs` and in a dialog following its job (the export's);
                // the main screen shows only how many run, which progress does not change.
                if self.jobs.progress(id, done, total, unit) && !self.overlays.is_empty() {
                    self.dirty = true;
                }
            }
            JobEvent::Done(out) => {
                let summary = summary_of(&out);
                if let (JobOutput::Plan(report), Some(j)) = (&out, self.jobs.get_mut(id)) {
                    j.report = Some(crate::app::jobs::JobReport::Plan(report.clone()));
                }
                if !self.jobs.finish(id, JobState::Done(summary.clone())) {
                    return fx;
                }
                if matches!(out, JobOutput::Plan(_)) {
                    let key = self.keymap.first_key(crate::app::keymap::Action::Jobs);
                    self.note(format!("Plan run: {summary} · {key} for each row"));
                }
                fx.extend(self.import_job_done(id, &out));
                fx.extend(self.use_result(then, out));
                self.dirty = true;
            }
            JobEvent::Failed(e) => {
                let plan = self
                    .jobs
                    .get(id)
                    .is_some_and(|j| matches!(j.kind, JobKind::Plan | JobKind::Import));
                if self.jobs.finish(id, JobState::Failed(e.clone()))
                    && (then != JobThen::Report || plan)
                {
                    self.show_error(e);
                }
            }
            JobEvent::Cancelled => {
                if self.jobs.finish(id, JobState::Cancelled) && then != JobThen::Report {
                    self.note("Stopped; nothing was changed");
                }
            }
        }
        fx
    }

    fn use_result(&mut self, then: JobThen, out: JobOutput) -> Vec<Effect> {
        match (then, out) {
            (JobThen::Mark { kind, unmark }, JobOutput::Ids(batch)) => {
                let batch = std::sync::Arc::try_unwrap(batch).unwrap_or_else(|b| (*b).clone());
                self.apply_marks(kind, batch, unmark);
                Vec::new()
            }
            (JobThen::Use(SelectionUse::Action(i)), JobOutput::Records { records, missing }) => {
                self.run_action_on_records(i, &records, missing)
            }
            (JobThen::Use(u), JobOutput::Records { records, missing }) => {
                self.copy_records(u, &records, missing)
            }
            _ => Vec::new(),
        }
    }

    fn copy_records(&mut self, u: SelectionUse, records: &[Record], missing: usize) -> Vec<Effect> {
        let n = records.len();
        let (text, what) = match u {
            SelectionUse::Action(_) => return Vec::new(),
            SelectionUse::CopyIds | SelectionUse::Export => {
                let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
                (ids.join("\n"), "ids")
            }
            SelectionUse::CopyEmails => {
                let emails: Vec<String> = records.iter().filter_map(email_of).collect();
                let none = n - emails.len();
                let without = if none > 0 {
                    format!(", {none} without one")
                } else {
                    String::new()
                };
                let noun = self.active.noun();
                let gone = gone(missing);
                self.note(format!(
                    "Copied {} e-mails of {n} {noun}{without}{gone}",
                    emails.len()
                ));
                return vec![Effect::Copy(emails.join("\n"))];
            }
            SelectionUse::CopyJson => {
                let mut s = String::from("[");
                for (i, r) in records.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    s.push_str(&r.raw);
                }
                s.push(']');
                (s, "JSON")
            }
        };
        self.copied(text, n, what, missing)
    }

    fn copied(&mut self, text: String, n: usize, what: &str, missing: usize) -> Vec<Effect> {
        let noun = self.active.noun();
        let gone = gone(missing);
        self.note(format!("Copied {n} {noun} as {what}{gone}"));
        vec![Effect::Copy(text)]
    }
}

/// `; 2 selected no longer found`, when some were not.
fn gone(missing: usize) -> String {
    if missing > 0 {
        format!("; {missing} selected no longer found")
    } else {
        String::new()
    }
}

/// A record's e-mail address, from its JSON.
fn email_of(r: &Record) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(&r.raw).ok()?;
    let e = v.get("email")?.as_str()?.trim();
    (!e.is_empty()).then(|| e.to_string())
}

/// `deals status=open`.
fn view_words(spec: &crate::app::QuerySpec) -> String {
    let f = spec.filter_summary();
    if f.is_empty() {
        format!("all {}", spec.kind.noun())
    } else {
        format!("{} {f}", spec.kind.noun())
    }
}

fn summary_of(out: &JobOutput) -> String {
    match out {
        JobOutput::Ids(b) => format!("{} found", b.len()),
        JobOutput::Records { records, missing } if *missing > 0 => {
            format!("{} read, {missing} not found", records.len())
        }
        JobOutput::Records { records, .. } => format!("{} read", records.len()),
        JobOutput::Exported {
            records,
            missing,
            path,
        } => {
            let gone = if *missing > 0 {
                format!(" ({missing} not found)")
            } else {
                String::new()
            };
            format!("wrote {records} to {}{gone}", path.display())
        }
        JobOutput::Plan(report) => report.summary(),
        JobOutput::Synced(summary) => summary.clone(),
        JobOutput::ImportPreview(p) => crate::app::dialogs::import::preview_sentence(p),
        JobOutput::Import(report) => report.summary(),
    }
}
