//! Multi-select on the table: `space` marks a row, `V` a range, `*` every record matching the
//! tab's filters, `Esc` clears; `:select` / `:unselect` with filters. And what can be done
//! with the marked records: export, copy (ids, e-mails, JSON), open in the browser.
//!
//! [`App::selected_ids`] and [`App::selected_records`] are the selection's API for other
//! features (user actions): the ids at once, the records through a job.

use std::sync::Arc;

use super::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::confirm_action::{ConfirmOpen, OPEN_WITHOUT_ASKING};
use crate::app::effects::Effect;
use crate::app::jobs::{JobEntry, JobKind, JobSpec, JobState, JobThen, SelectionUse};
use crate::app::keymap::Action;
use crate::app::selection::{IdBatch, Selection};
use crate::resource::Resource;

/// Clearing more marks than this asks for a second `Esc`.
pub const CLEAR_WITHOUT_ASKING: usize = 50;

impl App {
    /// The records marked on `kind`'s tab.
    pub fn selection(&self, kind: Resource) -> &Selection {
        &self.tab_of(kind).selection
    }

    /// The ids marked on `kind`'s tab (empty when none): what a user action's `{ids}` gets.
    pub fn selected_ids(&self, kind: Resource) -> Vec<String> {
        self.selection(kind).ids().map(str::to_string).collect()
    }

    /// Reads the records marked on `kind`'s tab (a job: they may be on no page in memory)
    /// and then does `with` with them; nothing when none is marked.
    pub fn selected_records(&mut self, kind: Resource, with: SelectionUse) -> Vec<Effect> {
        let sel = self.selection(kind);
        if sel.is_empty() {
            self.note(format!(
                "No {} selected ({} selects one)",
                kind.noun(),
                self.mark_key()
            ));
            return Vec::new();
        }
        let n = sel.len();
        let job = JobSpec::SelectionRecords {
            spec: self.tab_of(kind).spec().at_page(1),
            ids: Arc::new(sel.clone()),
            export: None,
        };
        let what = match with {
            SelectionUse::CopyJson => "copy as JSON",
            SelectionUse::CopyEmails => "copy e-mails of",
            SelectionUse::CopyIds => "copy ids of",
            SelectionUse::Export => "export",
            SelectionUse::Action(_) => "run an action on",
        };
        let title = format!("{what} {n} selected {}", kind.noun());
        self.start_job(JobKind::Selection, job, title, JobThen::Use(with))
    }

    fn mark_key(&self) -> String {
        self.keymap.first_key(Action::ToggleMark)
    }

    /// The selection's keys on the main screen; `None` for other actions.
    pub(super) fn on_select_action(&mut self, action: Action) -> Option<Vec<Effect>> {
        let fx = match action {
            Action::Jobs => self.open_jobs(),
            Action::ToggleMark | Action::MarkRange | Action::MarkAll
                if self.pipeline_shown().is_some() || self.timeline_shown().is_some() =>
            {
                self.note("Marks are made in the table (P or T goes back to it)");
                Vec::new()
            }
            Action::ToggleMark => {
                let tab = self.tab_mut();
                let Some(id) = tab.selected_record().map(|r| r.id.clone()) else {
                    return Some(Vec::new());
                };
                tab.selection.toggle(&id);
                tab.selection.anchor = Some(id);
                // On to the next row, so holding the key marks a run.
                tab.move_selection(1);
                let rows = self.areas().table_rows();
                self.tab_mut().scroll_into_view(rows);
                self.dirty = true;
                Vec::new()
            }
            Action::MarkRange => {
                self.mark_range();
                Vec::new()
            }
            Action::MarkAll => self.mark_matching(Vec::new(), false),
            _ => return None,
        };
        Some(fx)
    }

    /// `V`: every row from the last one marked by hand to the cursor (on this page); without
    /// such a row here, the cursor's row, which becomes the range's start.
    fn mark_range(&mut self) {
        let tab = self.tab_mut();
        let records = tab.records();
        let Some(here) = records.get(tab.selected).map(|r| r.id.clone()) else {
            return;
        };
        let from = tab
            .selection
            .anchor
            .as_ref()
            .and_then(|a| records.iter().position(|r| &r.id == a));
        let (lo, hi) = match from {
            Some(a) => (a.min(tab.selected), a.max(tab.selected)),
            None => (tab.selected, tab.selected),
        };
        let ids: Vec<String> = records[lo..=hi].iter().map(|r| r.id.clone()).collect();
        let mut added = 0;
        for id in &ids {
            added += usize::from(tab.selection.insert(id));
        }
        tab.selection.anchor = Some(here);
        let total = tab.selection.len();
        self.note(format!("Selected {added} more ({total} selected)"));
    }

    /// `Esc` with marks: clears them (true), before the filters. More than
    /// [`CLEAR_WITHOUT_ASKING`] take a second `Esc` in a row (a `*` of thousands is not lost
    /// to a stray key).
    pub(super) fn clear_marks(&mut self) -> bool {
        let n = self.tab().selection.len();
        if n == 0 {
            return false;
        }
        let noun = self.active.noun();
        if n > CLEAR_WITHOUT_ASKING && !self.tab().selection.clear_asked {
            self.tab_mut().selection.clear_asked = true;
            let key = self.keymap.first_key(Action::Back);
            self.note(format!("{n} {noun} selected: {key} again clears them"));
            return true;
        }
        self.tab_mut().selection.clear();
        self.note(format!("Selection cleared ({n} {noun})"));
        true
    }

    /// `*` (no `extra`) and `:select` / `:unselect KEY=VALUE…`: every record matching the
    /// tab's filters with `extra` put over them. A list wholly on screen is marked at once;
    /// otherwise a job reads the ids (the mirror's complete copy, else every page).
    pub(crate) fn mark_matching(
        &mut self,
        extra: Vec<(&'static str, String)>,
        unmark: bool,
    ) -> Vec<Effect> {
        let kind = self.active;
        let parser = self.config.date_parser.clone();
        let wall = self.wall;
        let tab = self.tab();
        let mut spec = tab.spec().at_page(1);
        if !extra.is_empty() {
            let mut bar = tab.filter_bar.clone();
            for f in &mut bar.fields {
                if let Some((_, v)) = extra.iter().find(|(k, _)| *k == f.field.key) {
                    f.input.set(v.as_str());
                }
            }
            let filters = bar.evaluate(&parser, wall);
            if let Some(i) = bar.first_error() {
                let f = &bar.fields[i];
                let e = format!(
                    "{} {}: {}",
                    if unmark { ":unselect" } else { ":select" },
                    f.field.label,
                    f.error.as_deref().unwrap_or_default()
                );
                self.show_error(e);
                return Vec::new();
            }
            spec.filters = filters;
        }
        // The whole answer is the page on screen: nothing to read.
        let whole = tab.shown.as_ref().is_some_and(|s| {
            s.spec.filters == spec.filters
                && s.spec.page == 1
                && s.page.meta.is_none_or(|m| {
                    m.total.is_some_and(|t| t as usize <= s.page.records.len())
                        || m.last_page.is_some_and(|l| l <= 1)
                })
        });
        if whole {
            let batch: IdBatch = tab.records().iter().map(|r| r.id.as_str()).collect();
            self.apply_marks(kind, batch, unmark);
            return Vec::new();
        }
        let f = spec.filter_summary();
        let what = if unmark { "unmark " } else { "" };
        let title = if f.is_empty() {
            format!("{what}all {}", kind.noun())
        } else {
            format!("{what}{} {f}", kind.noun())
        };
        let job = JobSpec::MatchingIds { spec };
        self.start_job(JobKind::Select, job, title, JobThen::Mark { kind, unmark })
    }

    /// Marks (or unmarks) a batch of ids on `kind`'s tab and says how many.
    pub(super) fn apply_marks(&mut self, kind: Resource, batch: IdBatch, unmark: bool) {
        let found = batch.len();
        let sel = &mut self.tabs[kind.index()].selection;
        let changed = if unmark {
            sel.remove_batch(&batch)
        } else {
            sel.add_batch(batch)
        };
        let total = sel.len();
        let noun = kind.noun();
        // How many this changed, of how many matched: `Added 495 of 500 matching deals`.
        let (verb, to) = if unmark {
            ("Removed", "from")
        } else {
            ("Added", "to")
        };
        self.note(format!(
            "{verb} {changed} of {found} matching {noun} {to} the selection ({total} selected)"
        ));
    }

    /// Registers a job the app starts and returns its effect.
    pub(super) fn start_job(
        &mut self,
        kind: JobKind,
        job: JobSpec,
        title: String,
        then: JobThen,
    ) -> Vec<Effect> {
        let id = self.new_id();
        self.jobs.add(JobEntry {
            id,
            kind,
            title,
            started: self.wall,
            progress: None,
            state: JobState::Running,
            then,
            cancellable: true,
            report: None,
            sends: false,
            counted: None,
        });
        self.dirty = true;
        vec![Effect::StartJob { id, job }]
    }

    /// `o` with marks: each marked record's page, asking first above a few.
    pub(super) fn open_marked(&mut self) -> Option<Vec<Effect>> {
        let kind = self.active;
        let ids = self.selected_ids(kind);
        if ids.is_empty() {
            return None;
        }
        let template = self.workspace.web_url()?.to_string();
        let mut urls = Vec::with_capacity(ids.len());
        for id in &ids {
            match crate::app::web::record_url(&template, kind, id) {
                Ok(u) => urls.push(u),
                // The single-record path says it in a dialog.
                Err(_) => return None,
            }
        }
        if urls.len() > OPEN_WITHOUT_ASKING {
            self.overlays.push(Overlay::ConfirmOpen(ConfirmOpen {
                urls,
                noun: kind.noun(),
            }));
            self.dirty = true;
            return Some(Vec::new());
        }
        self.note(format!("Opening {} {}", urls.len(), kind.noun()));
        Some(
            urls.into_iter()
                .map(|url| Effect::OpenUrl { url })
                .collect(),
        )
    }

    /// `y` with marks: the marked records as one JSON array.
    pub(super) fn copy_marked(&mut self) -> Option<Vec<Effect>> {
        if self.tab().selection.is_empty() {
            return None;
        }
        Some(self.selected_records(self.active, SelectionUse::CopyJson))
    }

    /// `:copy ids|emails|json`: the marked records, else the row under the cursor.
    pub(crate) fn copy_command(&mut self, what: SelectionUse) -> Vec<Effect> {
        let kind = self.active;
        if !self.tab().selection.is_empty() {
            if what == SelectionUse::CopyIds {
                // The ids are the selection itself: nothing to read.
                let ids = self.selected_ids(kind);
                self.note(format!("Copied {} {} ids", ids.len(), kind.singular()));
                return vec![Effect::Copy(ids.join("\n"))];
            }
            return self.selected_records(kind, what);
        }
        let Some(r) = self.tab().selected_record() else {
            self.note(format!("No {} selected", kind.singular()));
            return Vec::new();
        };
        let (text, label) = (r.raw.to_string(), r.label.clone());
        match what {
            SelectionUse::CopyIds => {
                let id = r.id.clone();
                self.note(format!("Copied the id of {label}"));
                vec![Effect::Copy(id)]
            }
            SelectionUse::CopyEmails => {
                let v: Option<serde_json::Value> = serde_json::from_str(&text).ok();
                match v
                    .as_ref()
                    .and_then(|v| v.get("email")?.as_str().map(str::to_string))
                {
                    Some(e) if !e.trim().is_empty() => {
                        self.note(format!("Copied the e-mail of {label}"));
                        vec![Effect::Copy(e)]
                    }
                    _ => {
                        self.note(format!("{label} has no e-mail"));
                        Vec::new()
                    }
                }
            }
            SelectionUse::CopyJson | SelectionUse::Export => self.copy_json(text, &label),
            SelectionUse::Action(_) => Vec::new(),
        }
    }
}
