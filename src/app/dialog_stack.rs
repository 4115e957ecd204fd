//! The app's side of the dialog stack: input and answers offered to the dialogs top first,
//! what they decide carried out, their timers, and what a dialog's result does to the rest of
//! the screen (notes, the Contacts tab refreshed with a new contact selected, loading after a
//! login).

use std::time::Duration;

use tokio::time::Instant;

use crate::app::dialogs::detail::DetailView;
use crate::app::dialogs::{CreatedContact, DialogCx, DialogResult, FormsConfig, Outcome, Overlay};
use crate::app::effects::Effect;
use crate::app::keymap::Action;
use crate::app::layout::modal_inner;
use crate::app::message::{ExportEvent, Message};
use crate::app::table::record::Record;
use crate::app::{App, Resource};

impl App {
    pub fn set_forms_config(&mut self, config: FormsConfig) {
        self.forms.config = config;
    }

    /// Offers a message to the dialogs, top first. A dialog claims only the answers to the
    /// requests it started (it knows their ids) and returns `Ignored` for the rest, so the
    /// first one that does not ignore a message is its owner.
    pub(crate) fn dispatch_to_dialogs(&mut self, msg: &Message) -> Vec<Effect> {
        for i in (0..self.overlays.len()).rev() {
            let mut cx = DialogCx::new(
                &self.keymap,
                &self.config.zone,
                self.wall,
                &mut self.next_id,
                &self.requests,
            );
            let out = self.overlays[i].dialog_mut().on_message(msg, &mut cx);
            if !matches!(out, Outcome::Ignored) {
                return self.apply_outcome(i, out);
            }
        }
        // No dialog took it: the dialog that started the request was closed meanwhile (or the
        // answer is for no dialog at all). The outcome still matters to the user, so it is
        // said in the status bar instead of being dropped.
        match msg {
            Message::Export {
                event: ExportEvent::Done { records, path },
                ..
            } => self.note(format!("Exported {records} records to {}", path.display())),
            Message::ContactCreated { result, .. } => match result.as_ref() {
                Ok(created) => return self.contact_created(CreatedContact::of(created, None)),
                Err(e) => self.show_error(e.summary()),
            },
            Message::Rescheduled { result, .. } => match result.as_ref() {
                Ok(a) => self.note(format!("Appointment {} rescheduled", a.id)),
                Err(e) => self.show_error(e.summary()),
            },
            _ => {}
        }
        Vec::new()
    }

    /// Carries out what a dialog decided.
    pub(crate) fn apply_outcome(&mut self, index: usize, out: Outcome) -> Vec<Effect> {
        match out {
            Outcome::Ignored => return Vec::new(),
            Outcome::Handled => {}
            Outcome::Effects(fx) => {
                self.dirty = true;
                return fx;
            }
            Outcome::Close => {
                self.overlays.truncate(index);
            }
            Outcome::CloseWith(r) => {
                self.overlays.truncate(index);
                self.dirty = true;
                return self.on_dialog_result(r);
            }
            Outcome::Apply(r) => {
                self.dirty = true;
                return self.on_dialog_result(r);
            }
        }
        self.dirty = true;
        Vec::new()
    }

    /// What a dialog's decision does to the rest of the screen.
    fn on_dialog_result(&mut self, r: DialogResult) -> Vec<Effect> {
        match r {
            DialogResult::SetIncludes(includes) => {
                let tab = self.tab_mut();
                if tab.includes == includes {
                    return Vec::new();
                }
                tab.includes = includes;
                self.load(self.active, false)
            }
            DialogResult::Quit => self.quit(),
            DialogResult::StopRunsAndQuit(ids) => self.stop_runs_and_quit(ids),
            DialogResult::CopyJson { json, label } => self.copy_json(json, &label),
            DialogResult::CopyRequest(i) => self.copy_request(i),
            DialogResult::Run(effect) => vec![*effect],
            DialogResult::ContactCreated(c) => self.contact_created(c),
            DialogResult::OpenContact(c) => {
                let (w, h) = modal_inner(self.size.0, self.size.1);
                let record = Record {
                    id: c.id,
                    label: c.label,
                    cells: Vec::new(),
                    status: None,
                    raw: c.raw,
                };
                let v = DetailView::new(
                    Resource::Contacts,
                    &record,
                    &self.config.cell_format(),
                    w,
                    h,
                );
                self.overlays.push(Overlay::Detail(v));
                Vec::new()
            }
            DialogResult::OpenRecord(r) => self.open_record(r),
            DialogResult::OpenDraft(w) => self.open_draft(*w),
            DialogResult::ExportDupes(r) => self.export_dupes(r),
            DialogResult::Related(r) => self.open_related(r),
            DialogResult::LoginSkipped => {
                if let Some(e) = self.status.behind_login.take() {
                    let tab = self.tab_mut();
                    if tab.shown.is_none() && tab.pending.is_none() {
                        tab.error = Some(e.clone());
                    }
                    self.status.set_error(self.wall, self.now, e);
                }
                Vec::new()
            }
            DialogResult::LoggedIn { note, client, host } => {
                self.note(note);
                self.status.clear_error();
                self.status.behind_login = None;
                if let Some(host) = host {
                    self.config.host = host;
                }
                // The client first: the page requests below go out with its token.
                let mut fx = vec![Effect::UseClient(client)];
                fx.extend(self.load(self.active, true));
                fx
            }
            DialogResult::Palette { line, command } => self.run_command(&line, command),
            DialogResult::OpenView(name) => self.open_view(&name),
            DialogResult::EditView(edit) => self.edit_view(edit),
            DialogResult::SetColumns(ids) => self.set_columns(self.active, &ids),
            DialogResult::SwitchProfile(name) => self.switch_profile(&name),
            DialogResult::StepRecord(delta) => self.step_detail(delta),
            DialogResult::JobsCursor => {
                self.clamp_jobs_cursor();
                Vec::new()
            }
            DialogResult::StopJob(at) => self.stop_job_at(at),
            DialogResult::OpenJob(at) => self.open_job_report(at),
            DialogResult::OpenUrls(urls) => urls
                .into_iter()
                .map(|url| Effect::OpenUrl { url })
                .collect(),
            DialogResult::ProfileNameTyped(ok) => self.profile_name_typed(ok),
            DialogResult::QuitWithWrites { send } => self.quit_with_writes(send),
            DialogResult::MarkSeen { group, seq } => self.mark_seen(group, seq),
        }
    }

    /// The detail pane shows the next or previous row's record and the table's selection
    /// follows it. It stops at the page's ends and says so (the next page is `n` away, on
    /// the table): a page turn would replace the rows under the pane while it is read.
    fn step_detail(&mut self, delta: isize) -> Vec<Effect> {
        let rows = self.areas().table_rows();
        let (w, h) = modal_inner(self.size.0, self.size.1);
        let kind = self.active;
        let tab = self.tab_mut();
        let before = tab.selected;
        tab.move_selection(delta);
        if tab.selected == before {
            let paged = tab.server_pages();
            let (end, key, more) = if delta > 0 {
                let more = paged && tab.last_page().is_none_or(|l| tab.page < l);
                ("last", Action::NextPage, more)
            } else {
                ("first", Action::PrevPage, paged && tab.page > 1)
            };
            let whole = if more { " on this page" } else { "" };
            let turn = if more {
                format!(
                    " ({} on the table turns the page)",
                    self.keymap.first_key(key)
                )
            } else {
                String::new()
            };
            self.note(format!("The {end} record{whole}{turn}"));
            return Vec::new();
        }
        tab.scroll_into_view(rows);
        let format = self.config.cell_format();
        let Some(record) = self.tab().selected_record() else {
            return Vec::new();
        };
        let v = DetailView::new(kind, record, &format, w, h).browsing();
        if let Some(top @ Overlay::Detail(_)) = self.overlays.last_mut() {
            *top = Overlay::Detail(v);
        }
        Vec::new()
    }

    /// The earliest deadline a dialog asked for, on the monotonic clock.
    pub(crate) fn dialog_deadline(&self) -> Option<Instant> {
        self.overlays
            .iter()
            .filter_map(|o| o.dialog().deadline())
            .min()
            .map(|wall| {
                let ahead = (wall - self.wall).to_std().unwrap_or(Duration::ZERO);
                self.now + ahead
            })
    }

    /// Gives every dialog whose deadline passed its tick.
    pub(crate) fn dialogs_tick(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        for i in (0..self.overlays.len()).rev() {
            if self.overlays[i]
                .dialog()
                .deadline()
                .is_none_or(|d| d > self.wall)
            {
                continue;
            }
            let mut cx = DialogCx::new(
                &self.keymap,
                &self.config.zone,
                self.wall,
                &mut self.next_id,
                &self.requests,
            );
            let out = self.overlays[i].dialog_mut().on_tick(&mut cx);
            fx.extend(self.apply_outcome(i, out));
        }
        fx
    }
}
