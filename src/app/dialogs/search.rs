//! The global search (`Ctrl-F`): one text field; every pause in typing searches the local
//! mirror (off the UI thread, `Effect::Mirror(Search)`), results grouped by resource with
//! their counts; `Enter` opens the selected record's detail above the dialog (`Esc` there
//! comes back to the results). Without a mirror it says how to get one.

use chrono::{DateTime, Duration as ChronoDuration, Utc};
use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::{Effect, RequestId};
use crate::app::keymap::{Action, Hint};
use crate::app::message::Message;
use crate::app::mirror::{LinkKind, MirrorEffect, MirrorMessage, RecordRef};
use crate::app::widgets::text_input::{InputOutcome, TextInput};
use crate::mirror::{SearchHit, SearchResults};

/// How long typing pauses before a search runs (a search takes a few ms; this only saves
/// work while keys come in a burst).
pub const SEARCH_DEBOUNCE_MS: i64 = 80;

pub struct SearchDialog {
    pub input: TextInput,
    /// `[cache] enabled`.
    pub enabled: bool,
    /// Whether a mirror exists (`None`: not known yet).
    pub exists: Option<bool>,
    pub results: Option<SearchResults>,
    /// The text `results` answer.
    pub searched: String,
    pub error: Option<String>,
    pub pending: Option<RequestId>,
    debounce: Option<DateTime<Utc>>,
    /// Index into [`SearchDialog::hits`].
    pub selected: usize,
}

impl SearchDialog {
    pub fn new(enabled: bool, exists: Option<bool>) -> SearchDialog {
        let mut input = TextInput::new("").with_max(200);
        input.focus();
        SearchDialog {
            input,
            enabled,
            exists,
            results: None,
            searched: String::new(),
            error: None,
            pending: None,
            debounce: None,
            selected: 0,
        }
    }

    /// A sync finished (the mirror may exist now, or hold more): what is typed is searched
    /// again at the next tick.
    pub fn mirror_changed(&mut self, now: DateTime<Utc>) {
        self.exists = None;
        if !self.input.value().trim().is_empty() {
            self.debounce = Some(now);
        }
    }

    /// Every hit, in the order drawn (contacts, deals, projects).
    pub fn hits(&self) -> Vec<&SearchHit> {
        self.results
            .iter()
            .flat_map(|r| r.groups.iter())
            .flat_map(|g| g.hits.iter())
            .collect()
    }

    /// Still waiting for the answer to what is typed.
    pub fn searching(&self) -> bool {
        self.pending.is_some() || self.debounce.is_some()
    }

    fn search(&mut self, cx: &mut DialogCx) -> Outcome {
        self.debounce = None;
        let text = self.input.value().trim().to_string();
        if text.is_empty() || !self.enabled {
            self.pending = None;
            self.results = None;
            self.searched.clear();
            self.selected = 0;
            return Outcome::Handled;
        }
        let id = cx.request_id();
        self.pending = Some(id);
        Outcome::Effects(vec![Effect::Mirror(MirrorEffect::Search { id, text })])
    }

    /// What the last search could not see, in words: the resources whose first sync stopped
    /// before their search entries were built (`Mirror::index_pending`).
    pub fn not_searchable(&self) -> Option<String> {
        let r = self.results.as_ref()?;
        let (first, rest) = r.unsearchable.split_first()?;
        let mut list = first.title().to_string();
        if let Some((last, middle)) = rest.split_last() {
            for m in middle {
                list.push_str(&format!(", {m}"));
            }
            list.push_str(&format!(" and {last}"));
        }
        Some(format!(
            "{list} are not searchable yet: their first sync stopped before it indexed them; the next sync (in the background, or `crmdash sync`) finishes it."
        ))
    }

    fn open_selected(&self) -> Outcome {
        let hits = self.hits();
        let Some(hit) = hits.get(self.selected) else {
            return Outcome::Handled;
        };
        Outcome::Apply(DialogResult::OpenRecord(record_of(hit)))
    }
}

/// A hit as a record to open.
pub fn record_of(hit: &SearchHit) -> RecordRef {
    RecordRef {
        kind: LinkKind::Record(hit.resource),
        id: hit.id.clone(),
        label: hit.label.clone(),
        detail: hit.detail.clone(),
        raw: hit.raw.as_str().into(),
        note: Some("from the local mirror"),
    }
}

impl Dialog for SearchDialog {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[], "type to search", 1),
            Hint::new(&[Action::NextField, Action::PrevField], "select", 0),
            Hint::new(&[Action::Confirm], "open", 0),
            Hint::new(&[Action::Cancel], "close", 0),
        ];
        H
    }

    fn captures_text(&self) -> bool {
        true
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        let asked = [
            Action::Cancel,
            Action::Confirm,
            Action::NextField,
            Action::PrevField,
        ];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Cancel) => return Outcome::Close,
            Some(Action::Confirm) => {
                // Enter before the pause ends searches at once; the answer is then opened
                // with a second Enter.
                if self.debounce.is_some() {
                    return self.search(cx);
                }
                return self.open_selected();
            }
            Some(Action::NextField) => {
                let n = self.hits().len();
                if n > 0 {
                    self.selected = (self.selected + 1) % n;
                }
                return Outcome::Handled;
            }
            Some(Action::PrevField) => {
                let n = self.hits().len();
                if n > 0 {
                    self.selected = (self.selected + n - 1) % n;
                }
                return Outcome::Handled;
            }
            _ => {}
        }
        match self.input.handle_key(key) {
            InputOutcome::Changed => {
                self.debounce = Some(cx.now + ChronoDuration::milliseconds(SEARCH_DEBOUNCE_MS));
                Outcome::Handled
            }
            InputOutcome::Moved => Outcome::Handled,
            InputOutcome::Ignored => Outcome::Handled,
        }
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        if self.input.insert_str(text) == InputOutcome::Changed {
            self.debounce = Some(Utc::now() + ChronoDuration::milliseconds(SEARCH_DEBOUNCE_MS));
        }
        Outcome::Handled
    }

    fn deadline(&self) -> Option<DateTime<Utc>> {
        self.debounce
    }

    fn on_tick(&mut self, cx: &mut DialogCx) -> Outcome {
        match self.debounce {
            Some(d) if d <= cx.now => self.search(cx),
            _ => Outcome::Ignored,
        }
    }

    fn on_message(&mut self, msg: &Message, _cx: &mut DialogCx) -> Outcome {
        let Message::Mirror(MirrorMessage::Search { id, result }) = msg else {
            return Outcome::Ignored;
        };
        if self.pending != Some(*id) {
            // An older keystroke's answer: ours if we sent it, dropped all the same.
            return if self.pending.is_some_and(|p| p.0 > id.0) {
                Outcome::Handled
            } else {
                Outcome::Ignored
            };
        }
        self.pending = None;
        match result {
            Ok(Some(r)) => {
                self.exists = Some(true);
                self.error = None;
                self.results = Some(r.clone());
                self.searched = self.input.value().trim().to_string();
                self.selected = 0;
            }
            Ok(None) => {
                self.exists = Some(false);
                self.results = None;
            }
            Err(e) => self.error = Some(e.clone()),
        }
        Outcome::Handled
    }

    fn busy(&self) -> bool {
        self.pending.is_some()
    }
}
