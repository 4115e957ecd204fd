//! The Today screen (`:today`, `t`) and the palette's `:changes` list: lines under headings,
//! each opening its record (`Enter`). Today groups what moved since the last visit, counted;
//! `x` marks the selected line's group seen. `:changes` lists the newest changes and filters
//! them as one types.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::dialogs::mirror_list::MirrorList;
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
    /// The read and the cursor (an index into [`TodayView::items`]).
    pub list: MirrorList,
    pub reading: Reading,
    pub groups: Vec<TodayGroup>,
    /// `since Tue 16:40`.
    pub since: String,
    changes: Vec<ChangeLine>,
    /// `changes`' texts lower-cased, once when they arrive (the filter reads them).
    folded: Vec<String>,
    /// `:changes`: what was typed.
    filter: String,
    /// `:changes`: the indices into `changes` the filter keeps, found again only when the
    /// list or the filter changes (not each frame).
    matching: Vec<usize>,
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
            list: MirrorList::new(id),
            reading: Reading::Pending,
            groups: Vec::new(),
            since: String::new(),
            changes: Vec::new(),
            folded: Vec::new(),
            filter: String::new(),
            matching: Vec::new(),
        }
    }

    pub fn changes(id: RequestId) -> TodayView {
        TodayView {
            list_only: true,
            ..TodayView::today(id)
        }
    }

    /// `:changes`: every change read (the filter aside).
    pub fn all_changes(&self) -> &[ChangeLine] {
        &self.changes
    }

    /// `:changes`: what was typed.
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// `:changes`: the indices into [`TodayView::all_changes`] the filter keeps.
    pub fn matching(&self) -> &[usize] {
        &self.matching
    }

    /// The filter typed (every word, in any case, is in a change kept), then the list found
    /// again and the cursor back on its first line.
    fn set_filter(&mut self, filter: String) {
        self.filter = filter;
        let words: Vec<String> = self
            .filter
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.matching = self
            .folded
            .iter()
            .enumerate()
            .filter(|(_, text)| words.iter().all(|w| text.contains(w.as_str())))
            .map(|(i, _)| i)
            .collect();
        self.list.selected = 0;
    }

    /// Every line one can select, in the order drawn.
    pub fn items(&self) -> Vec<Item<'_>> {
        if self.list_only {
            return self
                .matching
                .iter()
                .map(|&i| Item::Change(&self.changes[i]))
                .collect();
        }
        self.groups
            .iter()
            .flat_map(|g| g.lines.iter().map(move |l| Item::Today(g.kind, l)))
            .collect()
    }

    fn open(&self) -> Option<RecordRef> {
        match self.items().get(self.list.selected)? {
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
        let Item::Today(kind, _) = *self.items().get(self.list.selected)? else {
            return None;
        };
        let group = self.groups.iter_mut().find(|g| g.kind == kind)?;
        let seq = group.lines.iter().map(|l| l.seq).max().unwrap_or(0);
        group.lines.clear();
        let n = self.items().len();
        self.list.clamp(n);
        Some((kind, seq))
    }

    /// A key's action: the cursor, open, close, and on Today `x` (mark the group seen).
    fn on_action(&mut self, key: &KeyEvent, cx: &DialogCx, n: usize) -> Outcome {
        let action = cx.keymap.action(key);
        if self.list.moved(action, n) {
            return Outcome::Handled;
        }
        match action {
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

    fn answered(&mut self, answer: &FeedAnswer, cx: &DialogCx) {
        match answer {
            FeedAnswer::Today(input) => {
                let zone = Zone::from(*cx.zone);
                let today = zone.from_utc(cx.now).date_naive();
                self.groups = build(input, today, cx.now, &zone);
                self.since = since_words(input.since.as_ref(), &zone);
            }
            FeedAnswer::Recent(lines) => {
                self.changes = lines.clone();
                self.folded = lines.iter().map(|c| c.text.to_lowercase()).collect();
                let filter = std::mem::take(&mut self.filter);
                self.set_filter(filter);
            }
            FeedAnswer::History(_) | FeedAnswer::Marked => {}
        }
    }
}

impl Dialog for TodayView {
    fn hints(&self) -> &'static [Hint] {
        const TODAY: &[Hint] = &[
            Hint::new(&[Action::Down, Action::Up], "select", 1),
            Hint::new(&[Action::Detail], "open", 0),
            Hint::new(&[Action::MarkSeen], "mark group seen", 0),
            Hint::new(&[Action::Back, Action::Quit], "close", 0),
        ];
        // Letters type into the filter: the arrows select.
        const CHANGES: &[Hint] = &[
            Hint::new(&[], "type to filter", 1),
            Hint::new(&[Action::HistoryNext, Action::HistoryPrev], "select", 1),
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
            // Letters type into the filter: the arrows select.
            let plain = key.modifiers - KeyModifiers::SHIFT == KeyModifiers::NONE;
            match key.code {
                KeyCode::Char(c) if plain => {
                    let filter = format!("{}{c}", self.filter);
                    self.set_filter(filter);
                }
                KeyCode::Backspace if plain => {
                    let mut filter = self.filter.clone();
                    filter.pop();
                    self.set_filter(filter);
                }
                _ => match cx
                    .keymap
                    .pick(key, &[Action::HistoryNext, Action::HistoryPrev])
                {
                    Some(Action::HistoryNext) => _ = self.list.moved(Some(Action::Down), n),
                    Some(_) => _ = self.list.moved(Some(Action::Up), n),
                    None => return self.on_action(key, cx, n),
                },
            }
            return Outcome::Handled;
        }
        self.on_action(key, cx, n)
    }

    fn on_message(&mut self, msg: &Message, cx: &mut DialogCx) -> Outcome {
        let Message::Mirror(MirrorMessage::Feed { id, result }) = msg else {
            return Outcome::Ignored;
        };
        let Some(result) = self.list.answer(*id, result) else {
            return Outcome::Ignored;
        };
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

    fn busy(&self) -> bool {
        self.list.busy()
    }
}
