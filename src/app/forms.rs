//! The app's side of the write dialogs (new contact, reschedule, login): opening them, their
//! timers, and what their results do to the rest of the screen (notes, the Contacts tab
//! refreshed with the new contact selected, the detail of a duplicate, loading after login).

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use super::App;
use super::contact_form::{ContactForm, Target};
use super::detail::DetailView;
use super::effects::Effect;
use super::layout::modal_inner;
use super::login::LoginDialog;
use super::overlay::{DialogCx, DialogResult, Overlay};
use super::record::Record;
use super::reschedule_form::{RescheduleConfig, RescheduleForm};
use super::resource::TabKind;
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
}

impl Default for FormsConfig {
    fn default() -> Self {
        FormsConfig {
            reschedule: RescheduleSettings::default(),
            zone: Zone::Local,
            // The runtime names the file in the data dir; tests choose their own.
            log_path: None,
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

impl App {
    pub fn set_forms_config(&mut self, config: FormsConfig) {
        self.forms.config = config;
    }

    fn target(&self) -> Target {
        Target {
            profile: self.config.profile.clone(),
            host: self.config.host.clone(),
        }
    }

    /// `c`: the new-contact pane.
    pub(super) fn open_contact_form(&mut self) -> Vec<Effect> {
        let form = ContactForm::new(self.target());
        self.overlays.push(Overlay::ContactForm(Box::new(form)));
        self.dirty = true;
        Vec::new()
    }

    /// `a`: the reschedule dialog, reading the log of earlier reschedules.
    pub(super) fn open_reschedule(&mut self) -> Vec<Effect> {
        let cfg = RescheduleConfig {
            settings: self.forms.config.reschedule.clone(),
            zone: self.forms.config.zone,
            profile: self.config.profile.clone(),
            host: self.config.host.clone(),
            log_path: self.forms.config.log_path.clone(),
        };
        let mut form = RescheduleForm::new(cfg, self.wall);
        let fx: Vec<Effect> = form.log_effect(None).into_iter().collect();
        self.overlays.push(Overlay::Reschedule(Box::new(form)));
        self.dirty = true;
        fx
    }

    /// The login dialog (the dashboard started without a token).
    pub fn open_login(&mut self) {
        self.open_login_with(None);
    }

    /// The login dialog with the reason it opened (a keyring that could not be read), unless
    /// one is open already.
    pub fn open_login_with(&mut self, notice: Option<String>) {
        if self.overlays.iter().any(|o| matches!(o, Overlay::Login(_))) {
            return;
        }
        let mut d = LoginDialog::new(self.config.profile.clone(), self.config.host.clone());
        d.notice = notice;
        self.overlays.push(Overlay::Login(d));
        self.dirty = true;
    }

    pub(super) fn on_forms_result(&mut self, r: DialogResult) -> Vec<Effect> {
        match r {
            DialogResult::ContactCreated(c) => {
                let id = c.id.clone().unwrap_or_else(|| "?".into());
                let again = if c.replayed {
                    " (already created earlier)"
                } else {
                    ""
                };
                self.note(format!("Created contact {} (id {id}){again}", c.name));
                self.forms.select_after_load = c.id;
                let mut fx = Vec::new();
                if self.active != TabKind::Contacts {
                    self.active = TabKind::Contacts;
                }
                fx.extend(self.load(TabKind::Contacts, true));
                fx
            }
            DialogResult::OpenContact(c) => {
                let (w, h) = modal_inner(self.size.0, self.size.1);
                let record = Record {
                    id: c.id,
                    label: c.label,
                    cells: Vec::new(),
                    status: None,
                    raw: c.raw,
                };
                let v = DetailView::new(TabKind::Contacts, &record, &self.config.zone, w, h);
                self.overlays.push(Overlay::Detail(v));
                Vec::new()
            }
            DialogResult::LoggedIn { note } => {
                self.note(note);
                self.status.error = None;
                self.load(self.active, true)
            }
            _ => Vec::new(),
        }
    }

    /// After the Contacts tab shows a page: select the contact just created, if it is there.
    pub(super) fn select_created(&mut self, kind: TabKind) {
        if kind != TabKind::Contacts {
            return;
        }
        let Some(id) = self.forms.select_after_load.take() else {
            return;
        };
        let tab = &mut self.tabs[kind.index()];
        if let Some(i) = tab.records().iter().position(|r| r.id == id) {
            tab.select(i);
        }
    }

    /// The earliest deadline a dialog asked for, on the monotonic clock.
    pub(super) fn dialog_deadline(&self) -> Option<Instant> {
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
    pub(super) fn dialogs_tick(&mut self) -> Vec<Effect> {
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
            );
            let out = self.overlays[i].dialog_mut().on_tick(&mut cx);
            fx.extend(self.apply_outcome(i, out));
        }
        fx
    }
}
