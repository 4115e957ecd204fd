//! The Today screen (`:today`, `t`) and the palette's `:changes` list: lines under headings,
//! each opening its record (`Enter`). Today groups what moved since the last visit, counted;
//! `x` marks the selected line's group seen. `:changes` lists the newest changes and filters
//! them as one types.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::RequestId;
use crate::app::feed::{ChangeLine, FeedAnswer};
use crate::app::keymap::{Action, Hint};
use crate::app::message::Message;
use crate::app::mirror::{LinkKind, MirrorMessage, RecordRef};
use crate::insights::today::{GroupKind, TodayGroup, TodayLine, build, since_words};
use crate::timeparse::Zone;

/// Where the reading stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    Pending,
    /// No local mirror yet.
    NoMirror,
    Failed(String),
    Ready,
}

pub struct TodayView {
    /// `:changes` (one list, filtered by typing) rather than Today's groups.
    pub list_only: bool,
    pub pending: Option<RequestId>,
    pub reading: Reading,
    pub groups: Vec<TodayGroup>,
    /// `since Tue 16:40`.
    pub since: String,
    pub changes: Vec<ChangeLine>,
    /// `:changes`: what was typed.
    pub filter: String,
    /// Index into [`TodayView::items`].
    pub selected: usize,
}

/// One selectable line, in the order drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item<'a> {
    Today(GroupKind, &'a TodayLine),
    Change(&'a ChangeLine),
}

impl TodayView {
    pub fn today(id: RequestId) -> TodayView {
        TodayView {
            list_only: false,
            pending: Some(id),
            reading: Reading::Pending,
            groups: Vec::new(),
            since: String::new(),
            changes: Vec::new(),
            filter: String::new(),
            selected: 0,
        }
    }

    pub fn changes(id: RequestId) -> TodayView {
        TodayView {
            list_only: true,
            ..TodayView::today(id)
        }
    }

    /// Every line one can select, in the order drawn.
    pub fn items(&self) -> Vec<Item<'_>> {
        if self.list_only {
            let words: Vec<String> = self
                .filter
                .split_whitespace()
                .map(str::to_lowercase)
                .collect();
            return self
                .changes
                .iter()
                .filter(|c| {
                    let text = c.text.to_lowercase();
                    words.iter().all(|w| text.contains(w.as_str()))
                })
                .map(Item::Change)
                .collect();
        }
        self.groups
            .iter()
            .flat_map(|g| g.lines.iter().map(move |l| Item::Today(g.kind, l)))
            .collect()
    }

    fn open(&self) -> Option<RecordRef> {
        match self.items().get(self.selected)? {
            Item::Change(c) => c.record.clone(),
            Item::Today(_, l) => Some(RecordRef {
                kind: LinkKind::Record(l.resource?),
                id: l.id.clone(),
                label: l.label.clone(),
                detail: l.text.clone(),
                raw: l.raw.clone()?,
                note: None,
            }),
        }
    }

    /// `x`: the selected line's group is hidden (and remembered as seen up to its newest
    /// change); returns the group and that change.
    fn mark_seen(&mut self) -> Option<(GroupKind, i64)> {
        let Item::Today(kind, _) = *self.items().get(self.selected)? else {
            return None;
        };
        let group = self.groups.iter_mut().find(|g| g.kind == kind)?;
        let seq = group.lines.iter().map(|l| l.seq).max().unwrap_or(0);
        group.lines.clear();
        let n = self.items().len();
        self.selected = self.selected.min(n.saturating_sub(1));
        Some((kind, seq))
    }

    fn answered(&mut self, answer: &FeedAnswer, cx: &DialogCx) {
        match answer {
            FeedAnswer::Today(input) => {
                let zone = Zone::from(*cx.zone);
                let today = zone.from_utc(cx.now).date_naive();
                self.groups = build(input, today, cx.now, &zone);
                self.since = since_words(input.since.as_ref(), &zone);
            }
            FeedAnswer::Recent(lines) => self.changes = lines.clone(),
            FeedAnswer::History(_) | FeedAnswer::Marked => {}
        }
    }
}

impl Dialog for TodayView {
    fn hints(&self) -> &'static [Hint] {
        const TODAY: &[Hint] = &[
            Hint::new(&[Action::Down, Action::Up], "select", 0),
            Hint::new(&[Action::Detail], "open", 0),
            Hint::new(&[Action::MarkSeen], "mark group seen", 0),
            Hint::new(&[Action::Back], "close", 0),
            Hint::new(&[Action::Quit], "quit", 1),
        ];
        // Letters type into the filter: the arrows select.
        const CHANGES: &[Hint] = &[
            Hint::new(&[Action::HistoryNext, Action::HistoryPrev], "select", 0),
            Hint::new(&[Action::Detail], "open", 0),
            Hint::new(&[Action::Back], "close", 0),
        ];
        if self.list_only { CHANGES } else { TODAY }
    }

    fn captures_text(&self) -> bool {
        self.list_only
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let n = self.items().len();
        if self.list_only {
            let plain = key.modifiers - KeyModifiers::SHIFT == KeyModifiers::NONE;
            match key.code {
                KeyCode::Char(c) if plain => {
                    self.filter.push(c);
                    self.selected = 0;
                    return Outcome::Handled;
                }
                KeyCode::Backspace if plain => {
                    self.filter.pop();
                    self.selected = 0;
                    return Outcome::Handled;
                }
                KeyCode::Down => {
                    self.selected = (self.selected + 1).min(n.saturating_sub(1));
                    return Outcome::Handled;
                }
                KeyCode::Up => {
                    self.selected = self.selected.saturating_sub(1);
                    return Outcome::Handled;
                }
                _ => {}
            }
        }
        match cx.keymap.action(key) {
            Some(Action::Down) if n > 0 => self.selected = (self.selected + 1).min(n - 1),
            Some(Action::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Action::First) => self.selected = 0,
            Some(Action::Last) => self.selected = n.saturating_sub(1),
            Some(Action::Detail) => {
                if let Some(r) = self.open() {
                    return Outcome::Apply(DialogResult::OpenRecord(r));
                }
            }
            Some(Action::Back) => return Outcome::Close,
            _ if !self.list_only && cx.keymap.pick(key, &[Action::MarkSeen]).is_some() => {
                if let Some((group, seq)) = self.mark_seen() {
                    return Outcome::Apply(DialogResult::MarkSeen { group, seq });
                }
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    fn on_message(&mut self, msg: &Message, cx: &mut DialogCx) -> Outcome {
        match msg {
            Message::Mirror(MirrorMessage::Feed { id, result }) if self.pending == Some(*id) => {
                self.pending = None;
                self.selected = 0;
                self.reading = match result {
                    Ok(Some(answer)) => {
                        self.answered(answer, cx);
                        Reading::Ready
                    }
                    Ok(None) => Reading::NoMirror,
                    Err(e) => Reading::Failed(e.clone()),
                };
                Outcome::Handled
            }
            _ => Outcome::Ignored,
        }
    }

    fn busy(&self) -> bool {
        self.pending.is_some()
    }
}
