//! `:log` (`L`): the write journal, newest first: every create, reschedule, import row and
//! bulk write sent from this machine, by the CLI or the dashboard, with the service's answer.

use crate::app::dialogs::pager::Pager;
use crate::app::keymap::Action;
use crate::app::widgets::scroll::{Entry, ScrollText, Tone};
use crate::journal::WriteRecord;

/// How many of the latest writes the view lists.
pub const SHOWN: usize = 200;

fn line(value: String, tone: Tone, indent: usize) -> Entry {
    Entry {
        indent,
        key: None,
        value,
        tone,
        hang: Some(indent + 2),
    }
}

/// The write journal is a [`Pager`] (closed by `L` too).
impl Pager {
    /// The view of `entries` (oldest first, as read), or of why the journal was not read.
    pub fn write_log(
        read: Result<Vec<WriteRecord>, String>,
        zone: &crate::timeparse::DisplayZone,
        width: u16,
        height: u16,
    ) -> Pager {
        let empty = matches!(&read, Ok(list) if list.is_empty());
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
                e.push(line(format!("Times in {}.", zone.label()), Tone::Dim, 0));
                for w in list.iter().rev() {
                    let target = w.target.as_deref().map(|t| format!(" {t}")).unwrap_or_default();
                    e.push(line(
                        format!(
                            "{}  {}{target}  {}",
                            zone.format_seconds(w.at),
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
        Pager {
            empty,
            ..Pager::of(text, Action::WriteLog)
        }
    }
}
