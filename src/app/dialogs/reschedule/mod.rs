//! The reschedule dialog (`a`): appointment id (a pasted link works), start, end or duration
//! in the configured zone, extra `key = value` lines; a live summary in words; the exact JSON
//! previewed before `Enter` sends it; the local log of reschedules shown below.

mod keys;
mod known;
mod results;

pub use known::Completion;

use crate::app::dialogs::Overlay;
use crate::app::effects::Effect;
use chrono::{DateTime, FixedOffset, Utc};
use serde_json::{Map, Value};

use crate::app::effects::RequestId;
use crate::app::widgets::form_fields;
use crate::app::widgets::text_input::TextInput;
use crate::config::RescheduleSettings;
use crate::reschedule::{self, DialogField, EndSpec, RescheduleLogEntry, RescheduleTimes, Summary};
use crate::timeparse::{TimeError, Zone};

/// The fixed fields, in focus order; extra lines follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Id,
    Start,
    End,
    Extra,
}

pub const FIELDS: [Field; 3] = [Field::Id, Field::Start, Field::End];

#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    Editing,
    /// The typed start occurs twice (DST overlap): which one?
    AskWhich {
        earlier: DateTime<FixedOffset>,
        later: DateTime<FixedOffset>,
    },
    /// The exact body, before `Enter` sends it.
    Preview {
        appointment_id: String,
        body: Map<String, Value>,
    },
    Sending {
        id: RequestId,
        appointment_id: String,
        body: Map<String, Value>,
    },
    /// Accepted: the returned `updated_at` with the id.
    Done {
        entry: RescheduleLogEntry,
    },
    AskDiscard,
}

/// What the dialog needs from the configuration.
#[derive(Debug, Clone)]
pub struct RescheduleConfig {
    pub settings: RescheduleSettings,
    pub zone: Zone,
    pub profile: String,
    pub host: String,
    /// The JSON-lines log in the data dir; `None` when there is no data dir.
    pub log_path: Option<std::path::PathBuf>,
}

pub struct RescheduleForm {
    pub inputs: [TextInput; 3],
    pub extra: Vec<TextInput>,
    pub focus: usize,
    pub stage: Stage,
    pub config: RescheduleConfig,
    /// Errors on the fields (typed text or the server's 422).
    pub field_errors: Vec<(Field, String)>,
    /// A message for the whole dialog (server errors shown verbatim, the lock of a send).
    pub banner: Option<String>,
    /// The reschedules logged, oldest first (this and earlier sessions).
    pub log: Vec<RescheduleLogEntry>,
    pub log_error: Option<String>,
    /// The log is being written or read.
    pub log_pending: bool,
    /// The time the dialog last saw (for the summary's "in the past").
    pub now: DateTime<Utc>,
    /// The last Tab completion of the id (to go round the candidates).
    pub completion: Option<Completion>,
}

/// The summary, or why there is none yet.
pub type Live = Result<(RescheduleTimes, Summary), String>;

impl RescheduleForm {
    pub fn new(config: RescheduleConfig, now: DateTime<Utc>) -> RescheduleForm {
        let start = reschedule::next_quarter_hour(now, &config.zone);
        RescheduleForm {
            inputs: [
                TextInput::default().with_max(2048),
                TextInput::suggested(start.format("%Y-%m-%d %H:%M").to_string()).with_max(64),
                TextInput::suggested("1h").with_max(64),
            ],
            extra: vec![TextInput::default()],
            focus: 0,
            stage: Stage::Editing,
            config,
            field_errors: Vec::new(),
            banner: None,
            log: Vec::new(),
            log_error: None,
            log_pending: false,
            now,
            completion: None,
        }
    }

    pub fn field_count(&self) -> usize {
        FIELDS.len() + self.extra.len()
    }

    pub fn focused_field(&self) -> Field {
        FIELDS.get(self.focus).copied().unwrap_or(Field::Extra)
    }

    pub(crate) fn focused_input_mut(&mut self) -> &mut TextInput {
        form_fields::input_mut(&mut self.inputs, &mut self.extra, self.focus)
    }

    pub fn extra_text(&self) -> String {
        form_fields::extra_text(&self.extra)
    }

    pub fn error_for(&self, field: Field) -> Option<&str> {
        self.field_errors
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, m)| m.as_str())
    }

    /// The id as it will be sent (a pasted link reduced to its id).
    pub fn appointment_id(&self) -> Result<String, String> {
        let raw = self.inputs[0].value();
        if raw.trim().is_empty() {
            return Err("enter the appointment id (or paste its link)".into());
        }
        let t = raw.trim();
        // A bare id is taken as typed (a link's id was decoded when pasted); the client
        // percent-encodes it.
        if !t.contains('/') && t.chars().count() <= 200 && !t.chars().any(char::is_control) {
            return Ok(t.to_string());
        }
        reschedule::extract_appointment_id(raw)
            .ok_or_else(|| "not an appointment id or a link ending in /appointments/<id>".into())
    }

    /// The start as typed, in the zone.
    pub fn start(&self) -> Result<DateTime<FixedOffset>, TimeError> {
        crate::timeparse::parse_zoned(self.inputs[1].value(), &self.config.zone, self.now)
    }

    /// The end field: a length (`1h`, `+1h`, `90m`), a clock time on the start's day
    /// (`10:00`), a time, or empty (no end); the CLI's `--end` reads the same grammar.
    pub fn end_spec(&self) -> Result<EndSpec, String> {
        reschedule::parse_end(self.inputs[2].value(), &self.config.zone, self.now)
    }

    /// The new times and their summary in words (an end on the next day said first).
    pub fn live(&self) -> Live {
        let start = self.start().map_err(|e| e.to_string())?;
        let end = self.end_spec()?;
        reschedule::describe(start, end, &self.config.zone, self.now).map_err(|e| e.to_string())
    }

    /// Re-checks the typed fields (called after each edit); server errors go with it.
    pub(super) fn revalidate(&mut self) {
        let mut errors = Vec::new();
        if !self.inputs[0].value().trim().is_empty()
            && let Err(e) = self.appointment_id()
        {
            errors.push((Field::Id, e));
        }
        match self.start() {
            Err(e) => errors.push((Field::Start, e.to_string())),
            Ok(start) => match self.end_spec() {
                Err(e) => errors.push((Field::End, e)),
                Ok(end) => {
                    if let Err(e) = RescheduleTimes::new(start, end, &self.config.zone) {
                        errors.push((Field::End, e.to_string()));
                    }
                }
            },
        }
        if let Err(e) = reschedule::parse_extra(&self.extra_text(), &self.config.settings) {
            errors.push((Field::Extra, e.to_string()));
        }
        self.field_errors = errors;
    }

    /// The body to send, or the first problem (its field focused).
    pub fn build(&mut self) -> Result<(String, Map<String, Value>), String> {
        self.revalidate();
        let id = self.appointment_id();
        if let Err(e) = &id {
            self.field_errors.insert(0, (Field::Id, e.clone()));
        }
        if let Some((field, msg)) = self.field_errors.first().cloned() {
            self.focus_field(field);
            return Err(msg);
        }
        let (times, _) = self.live()?;
        let extra = reschedule::parse_extra(&self.extra_text(), &self.config.settings)
            .map_err(|e| e.to_string())?;
        let body = reschedule::build_body(&times, &self.config.settings, &extra)
            .map_err(|e| e.to_string())?;
        Ok((id?, body))
    }

    pub(super) fn focus_field(&mut self, field: Field) {
        self.focus = match field {
            Field::Id => 0,
            Field::Start => 1,
            Field::End => 2,
            Field::Extra => FIELDS.len(),
        };
        self.focused_input_mut().focus();
    }

    /// The server's field for a dialog field.
    pub fn dialog_field(f: DialogField) -> Field {
        match f {
            DialogField::Id => Field::Id,
            DialogField::Start => Field::Start,
            DialogField::End => Field::End,
        }
    }

    pub fn is_dirty(&self) -> bool {
        !self.inputs[0].value().trim().is_empty()
            || self.extra.iter().any(|l| !l.value().trim().is_empty())
    }
}

impl crate::app::App {
    /// `a`: the reschedule dialog, reading the log of earlier reschedules.
    pub(crate) fn open_reschedule(&mut self) -> Vec<Effect> {
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
}
