//! `:log` (`L`): the write journal, newest first: every create, reschedule, import row and
//! bulk write sent from this machine, by the CLI or the dashboard, with the service's answer.

use crossterm::event::{KeyEvent, MouseEvent};

use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::widgets::scroll::{Entry, ScrollText, Tone};
use crate::journal::WriteRecord;

/// How many of the latest writes the view lists.
pub const SHOWN: usize = 200;

pub struct WriteLogView {
    pub text: ScrollText,
}

fn line(value: String, tone: Tone, indent: usize) -> Entry {
    Entry {
        indent,
        key: None,
        value,
        tone,
        hang: Some(indent + 2),
    }
}

impl WriteLogView {
    /// The view of `entries` (oldest first, as read), or of why the journal was not read.
    pub fn new(read: Result<Vec<WriteRecord>, String>, width: u16, height: u16) -> WriteLogView {
        let mut e = Vec::new();
        match read {
            Err(why) => e.push(line(why, Tone::Value, 0)),
            Ok(list) if list.is_empty() => e.push(line(
                "No writes yet: creates, reschedules and imports sent from this machine are listed here."
                    .into(),
                Tone::Dim,
                0,
            )),
            Ok(list) => {
                for w in list.iter().rev() {
                    let target = w.target.as_deref().map(|t| format!(" {t}")).unwrap_or_default();
                    e.push(line(
                        format!(
                            "{} UTC  {}{target}  {}",
                            w.at.format("%Y-%m-%d %H:%M:%S"),
                            w.kind.name(),
                            w.answer.summary()
                        ),
                        if w.answer.ok { Tone::Value } else { Tone::Key },
                        0,
                    ));
                    let key = w.key.as_deref().map(|k| format!(" · key {k}")).unwrap_or_default();
                    e.push(line(
                        format!("{} @ {} · {}{key}", w.profile, w.host, w.who.name()),
                        Tone::Dim,
                        2,
                    ));
                }
            }
        }
        let mut text = ScrollText::new(e, 10, 1);
        text.reflow_modal(width, height);
        WriteLogView { text }
    }
}

impl Dialog for WriteLogView {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Down, Action::Up], "scroll", 1),
            Hint::new(&[Action::Back, Action::Quit], "close", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if self.text.on_key(key, cx.keymap) {
            return Outcome::Handled;
        }
        match cx.keymap.action(key) {
            Some(Action::Back | Action::Quit | Action::WriteLog) => Outcome::Close,
            _ => Outcome::Ignored,
        }
    }

    fn on_mouse(&mut self, mouse: &MouseEvent) -> Outcome {
        match self.text.on_mouse(mouse) {
            true => Outcome::Handled,
            false => Outcome::Ignored,
        }
    }

    fn on_resize(&mut self, width: u16, height: u16) {
        self.text.reflow_modal(width, height);
    }
}
