//! The dialog's keys, as key-map actions: fields move with `next_field`/`prev_field`/
//! `confirm`, `submit` previews the body, `confirm` on the preview sends, `cancel` goes back
//! (keeping everything). `later`/`earlier` shift the time by 15 minutes, `next_day`/`prev_day`
//! by a day (by default on Alt, which never types text).

use chrono::{DateTime, FixedOffset, Timelike};
use crossterm::event::KeyEvent;

use super::{FIELDS, Field, RescheduleForm, Stage};
use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, Hint};
use crate::app::widgets::form_fields;
use crate::app::widgets::text_input::{InputOutcome, TextInput};
use crate::reschedule::{EndSpec, Shift, format_time, shift};
use crate::timeparse::TimeError;

impl RescheduleForm {
    /// The dialog filled in with a body confirmed before and not sent (a draft the journal
    /// kept), at its preview: Enter sends exactly that body, Esc goes back to edit it.
    pub(crate) fn fill_from(
        &mut self,
        appointment_id: &str,
        body: serde_json::Map<String, serde_json::Value>,
    ) {
        let time_of = |key: &str| {
            body.get(key)
                .and_then(serde_json::Value::as_str)
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        };
        self.inputs[0].set(appointment_id);
        let (start_key, end_key) = (
            self.config.settings.start_field.clone(),
            self.config.settings.end_field.clone(),
        );
        if let Some(start) = time_of(&start_key) {
            let text = self.time_text(&start);
            self.inputs[1].set(text);
        }
        match time_of(&end_key) {
            Some(end) => {
                let text = self.time_text(&end);
                self.inputs[2].set(text);
            }
            None => self.inputs[2].clear(),
        }
        self.extra = body
            .iter()
            .filter(|(k, _)| **k != start_key && **k != end_key)
            .map(|(k, v)| TextInput::new(format!("{k} = {}", form_fields::value_text(v))))
            .collect();
        self.extra.push(TextInput::default());
        self.revalidate();
        self.stage = Stage::Preview {
            appointment_id: appointment_id.to_string(),
            body,
        };
    }

    fn move_focus(&mut self, forward: bool) {
        self.focus = form_fields::cycle(self.focus, self.field_count(), forward);
        self.focused_input_mut().focus();
    }

    /// Writes a time back into a field: as `YYYY-MM-DD HH:MM` when that names it alone in the
    /// zone, else in RFC 3339 with its offset (one reading of a doubled hour).
    fn time_text(&self, t: &DateTime<FixedOffset>) -> String {
        let local = self.config.zone.from_utc(t.to_utc());
        match self.config.zone.localize(local.naive_local()) {
            Ok(one) if one == *t => local.format("%Y-%m-%d %H:%M").to_string(),
            _ => format_time(t),
        }
    }

    /// A quick shift of the start (the end follows; a duration stays a duration).
    fn quick(&mut self, by: Shift) {
        let live = match self.live() {
            Ok((times, _)) => times,
            Err(e) => {
                self.banner = Some(format!("cannot shift: {e}"));
                return;
            }
        };
        match shift(&live, by, &self.config.zone) {
            Ok(moved) => {
                let start = self.time_text(&moved.start);
                self.inputs[1].set(start);
                match (self.end_spec(), moved.end) {
                    (Ok(EndSpec::At(_)), Some(end)) => {
                        let end = self.time_text(&end);
                        self.inputs[2].set(end);
                    }
                    // A clock time stays a clock time: the moved end's, in the zone.
                    (Ok(EndSpec::Clock(_)), Some(end)) => {
                        let end = self.config.zone.from_utc(end.to_utc());
                        let shown = if end.second() == 0 {
                            "%H:%M"
                        } else {
                            "%H:%M:%S"
                        };
                        self.inputs[2].set(end.format(shown).to_string());
                    }
                    _ => {}
                }
                self.banner = None;
            }
            Err(TimeError::Ambiguous { earlier, later }) => {
                self.stage = Stage::AskWhich { earlier, later };
            }
            Err(e) => self.banner = Some(format!("cannot shift: {e}")),
        }
        self.revalidate();
    }

    /// `Ctrl-S`: the preview of the exact body, or the first problem focused.
    fn preview(&mut self) -> Outcome {
        if let Err(TimeError::Ambiguous { earlier, later }) = self.start() {
            self.stage = Stage::AskWhich { earlier, later };
            return Outcome::Handled;
        }
        match self.build() {
            Ok((appointment_id, body)) => {
                self.banner = None;
                self.stage = Stage::Preview {
                    appointment_id,
                    body,
                };
            }
            Err(e) => self.banner = Some(e),
        }
        Outcome::Handled
    }

    fn edit(&mut self, key: &KeyEvent) -> Outcome {
        let field = self.focused_field();
        if self.focused_input_mut().handle_key(key) == InputOutcome::Changed {
            self.edited(field);
        }
        Outcome::Handled
    }

    pub(super) fn edited(&mut self, field: Field) {
        if field == Field::Id {
            // A pasted link becomes its id at once.
            let raw = self.inputs[0].value().to_string();
            if raw.contains('/')
                && let Some(id) = crate::reschedule::extract_appointment_id(&raw)
            {
                self.inputs[0].set(id);
            }
        }
        if field == Field::Extra {
            form_fields::keep_blank_line(&mut self.extra);
        }
        self.revalidate();
    }

    fn after_done_key(&mut self, key: &KeyEvent, cx: &DialogCx) -> Outcome {
        let asked = [
            Action::NextAppointment,
            Action::Confirm,
            Action::Cancel,
            Action::Quit,
        ];
        match cx.keymap.pick(key, &asked) {
            // Another appointment: the id is cleared, the time and extras kept.
            Some(Action::NextAppointment) => {
                self.inputs[0].clear();
                self.focus = 0;
                self.stage = Stage::Editing;
                self.revalidate();
                Outcome::Handled
            }
            Some(_) => Outcome::Close,
            None => Outcome::Handled,
        }
    }
}

impl Dialog for RescheduleForm {
    fn hints(&self) -> &'static [Hint] {
        const EDITING: &[Hint] = &[
            Hint::new(&[Action::NextField, Action::PrevField], "field", 0),
            Hint::new(&[Action::Submit], "preview", 0),
            Hint::new(&[Action::Later, Action::Earlier], "±15 min", 1),
            Hint::new(&[Action::NextDay, Action::PrevDay], "±1 day", 1),
            Hint::new(&[Action::Cancel], "cancel", 0),
        ];
        const PREVIEW: &[Hint] = &[
            Hint::new(&[Action::Confirm], "send", 0),
            Hint::new(&[Action::Cancel], "back to editing", 0),
        ];
        const WHICH: &[Hint] = &[
            Hint::new(&[Action::PickFirst, Action::PickSecond], "pick", 0),
            Hint::new(&[Action::Cancel], "back", 0),
        ];
        const DONE: &[Hint] = &[
            Hint::new(&[Action::NextAppointment], "another appointment", 0),
            Hint::new(&[Action::Cancel], "close", 0),
        ];
        const ASK: &[Hint] = &[
            Hint::new(&[Action::Yes], "discard", 0),
            Hint::new(&[Action::No], "keep editing", 0),
        ];
        match self.stage {
            Stage::Editing | Stage::Sending { .. } => EDITING,
            Stage::Preview { .. } => PREVIEW,
            Stage::AskWhich { .. } => WHICH,
            Stage::Done { .. } => DONE,
            Stage::AskDiscard => ASK,
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        self.now = cx.now;
        let keys = cx.keymap;
        match self.stage.clone() {
            Stage::Sending { .. } => return Outcome::Handled,
            Stage::Done { .. } => return self.after_done_key(key, cx),
            Stage::AskDiscard => {
                let stage = &mut self.stage;
                return form_fields::discard_question(cx.keymap, key, || *stage = Stage::Editing);
            }
            Stage::AskWhich { earlier, later } => {
                let asked = [Action::PickFirst, Action::PickSecond, Action::Cancel];
                let pick = match keys.pick(key, &asked) {
                    Some(Action::PickFirst) => Some(earlier),
                    Some(Action::PickSecond) => Some(later),
                    Some(_) => {
                        self.stage = Stage::Editing;
                        return Outcome::Handled;
                    }
                    None => None,
                };
                if let Some(t) = pick {
                    self.inputs[1].set(format_time(&t));
                    self.stage = Stage::Editing;
                    self.revalidate();
                }
                return Outcome::Handled;
            }
            Stage::Preview {
                appointment_id,
                body,
            } => {
                return match keys.pick(key, &[Action::Confirm, Action::Cancel]) {
                    Some(Action::Confirm) => {
                        let id = cx.request_id();
                        self.stage = Stage::Sending {
                            id,
                            appointment_id: appointment_id.clone(),
                            body: body.clone(),
                        };
                        Outcome::Effects(vec![Effect::Reschedule {
                            id,
                            appointment_id,
                            body,
                        }])
                    }
                    Some(_) => {
                        self.stage = Stage::Editing;
                        Outcome::Handled
                    }
                    None => Outcome::Handled,
                };
            }
            Stage::Editing => {}
        }
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        let editing = [
            Action::Submit,
            Action::Later,
            Action::Earlier,
            Action::NextDay,
            Action::PrevDay,
            Action::Cancel,
            Action::NextField,
            Action::Confirm,
            Action::PrevField,
        ];
        match keys.pick(key, &editing) {
            Some(Action::Submit) => self.preview(),
            Some(Action::Later) => {
                self.quick(Shift::Minutes(15));
                Outcome::Handled
            }
            Some(Action::Earlier) => {
                self.quick(Shift::Minutes(-15));
                Outcome::Handled
            }
            Some(Action::NextDay) => {
                self.quick(Shift::Days(1));
                Outcome::Handled
            }
            Some(Action::PrevDay) => {
                self.quick(Shift::Days(-1));
                Outcome::Handled
            }
            Some(Action::Cancel) => {
                if self.is_dirty() {
                    self.stage = Stage::AskDiscard;
                    Outcome::Handled
                } else {
                    Outcome::Close
                }
            }
            // Tab in the id field completes a known id first.
            Some(Action::NextField)
                if self.focus == 0
                    && key.code == crossterm::event::KeyCode::Tab
                    && self.complete_id() =>
            {
                Outcome::Handled
            }
            // `confirm` in a form accepts the field and moves on.
            Some(Action::NextField | Action::Confirm) => {
                self.move_focus(true);
                Outcome::Handled
            }
            Some(Action::PrevField) => {
                self.move_focus(false);
                Outcome::Handled
            }
            _ => self.edit(key),
        }
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        if self.stage != Stage::Editing {
            return Outcome::Handled;
        }
        let field = self.focused_field();
        if field == Field::Extra {
            form_fields::paste_lines(FIELDS.len(), &mut self.extra, &mut self.focus, text);
        } else {
            self.focused_input_mut().insert_str(text.trim());
        }
        self.edited(field);
        Outcome::Handled
    }

    fn on_message(&mut self, msg: &crate::app::Message, cx: &mut DialogCx) -> Outcome {
        self.handle_message(msg, cx)
    }

    fn guards_quit(&self) -> bool {
        self.is_dirty() && !matches!(self.stage, Stage::Done { .. })
            || matches!(self.stage, Stage::Sending { .. })
    }

    fn busy(&self) -> bool {
        matches!(self.stage, Stage::Sending { .. }) || self.log_pending
    }

    fn captures_text(&self) -> bool {
        true
    }
}
