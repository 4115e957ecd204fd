//! The dashboard's side of the change feed: a record's history in its detail pane, the
//! palette's `:changes` list and the Today screen (`:today`, `t`). Everything is read from
//! the local mirror by one effect (`MirrorEffect::Feed`) on the blocking pool and answered
//! by `MirrorMessage::Feed`; works offline.

use crate::app::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::today::TodayView;
use crate::app::effects::{Effect, RequestId};
use crate::app::mirror::{LinkKind, MirrorEffect, RecordRef};
use crate::insights::today::{GroupKind, TodayInput};
use crate::mirror::Cursor;
use crate::resource::Resource;

/// At most this many changes in a history or the `:changes` list.
pub const HISTORY_SHOWN: usize = 200;
pub const CHANGES_SHOWN: usize = 1000;

/// What the app asks of the feed.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedAsk {
    /// A record's changes, newest first.
    History { kind: Resource, id: String },
    /// The newest changes, for `:changes`.
    Recent,
    /// Today's input; `since` is the last visit already known this session (else it is
    /// read, and this visit is remembered for the next).
    Today {
        since: Option<Option<Cursor>>,
        reschedules: Option<RescheduleSource>,
    },
    /// A Today group was marked seen (`x`) up to this change.
    MarkSeen { group: GroupKind, seq: i64 },
}

/// Where Today reads the reschedules made from this machine, and how it shows their times.
#[derive(Debug, Clone, PartialEq)]
pub struct RescheduleSource {
    pub log: std::path::PathBuf,
    pub settings: crate::config::RescheduleSettings,
    pub zone: crate::timeparse::Zone,
}

/// One line of a list of changes: its text and the record it opens.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeLine {
    /// `2026-11-24 10:02  deal Rollout  status open → won`
    pub text: String,
    pub record: Option<RecordRef>,
}

/// What the feed answers.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedAnswer {
    /// History lines, newest first (`2026-11-24 10:02  status open → won`).
    History(Vec<String>),
    Recent(Vec<ChangeLine>),
    Today(Box<TodayInput>),
    Marked,
}

impl App {
    /// A detail pane just opened asks for its record's history (from the mirror).
    pub(crate) fn history_wanted(&mut self) -> Vec<Effect> {
        if !self.mirror.enabled {
            return Vec::new();
        }
        let id = RequestId(self.next_id + 1);
        let Some(Overlay::Detail(d)) = self.overlays.last_mut() else {
            return Vec::new();
        };
        let Some(link) = &d.link else {
            return Vec::new();
        };
        let LinkKind::Record(kind) = link.kind else {
            return Vec::new();
        };
        if d.history.is_some() {
            return Vec::new();
        }
        d.history = Some(id);
        let record = link.id.clone();
        self.next_id += 1;
        vec![Effect::Mirror(MirrorEffect::Feed {
            id,
            ask: FeedAsk::History { kind, id: record },
        })]
    }

    /// `:today` or `t`: the Today screen.
    pub(crate) fn open_today(&mut self) -> Vec<Effect> {
        if let Some(i) = self
            .overlays
            .iter()
            .position(|o| matches!(o, Overlay::Today(v) if !v.list_only))
        {
            // Already open below: brought back to the top.
            let v = self.overlays.remove(i);
            self.overlays.push(v);
            self.dirty = true;
            return Vec::new();
        }
        if !self.mirror.enabled {
            self.note("Today is read from the local mirror, which is turned off ([cache] enabled = false)");
            return Vec::new();
        }
        let id = self.new_feed_id();
        self.overlays
            .push(Overlay::Today(Box::new(TodayView::today(id))));
        self.dirty = true;
        vec![Effect::Mirror(MirrorEffect::Feed {
            id,
            ask: FeedAsk::Today {
                since: self.today_since,
                reschedules: self
                    .forms
                    .config
                    .log_path
                    .clone()
                    .map(|log| RescheduleSource {
                        log,
                        settings: self.forms.config.reschedule.clone(),
                        zone: self.forms.config.zone,
                    }),
            },
        })]
    }

    /// `:changes`: the newest changes, filtered as one types.
    pub(crate) fn open_changes(&mut self) -> Vec<Effect> {
        if !self.mirror.enabled {
            self.note("Changes are read from the local mirror, which is turned off ([cache] enabled = false)");
            return Vec::new();
        }
        let id = self.new_feed_id();
        self.overlays
            .push(Overlay::Today(Box::new(TodayView::changes(id))));
        self.dirty = true;
        vec![Effect::Mirror(MirrorEffect::Feed {
            id,
            ask: FeedAsk::Recent,
        })]
    }

    fn new_feed_id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId(self.next_id)
    }

    /// The Today screen's `x`: the group is remembered as seen (in the mirror).
    pub(crate) fn mark_seen(&mut self, group: GroupKind, seq: i64) -> Vec<Effect> {
        let id = self.new_feed_id();
        vec![Effect::Mirror(MirrorEffect::Feed {
            id,
            ask: FeedAsk::MarkSeen { group, seq },
        })]
    }

    /// Today's answer also tells the last visit, kept for this session's later visits.
    pub(crate) fn feed_answered(&mut self, answer: &FeedAnswer) {
        if let FeedAnswer::Today(input) = answer
            && self.today_since.is_none()
        {
            self.today_since = Some(input.since);
        }
    }
}

/// Appends a record's history to its detail pane's text: a heading, then one change a line,
/// newest first.
pub fn add_history(
    text: &mut crate::app::widgets::scroll::ScrollText,
    result: &Result<Option<FeedAnswer>, String>,
) {
    use crate::app::widgets::scroll::{Entry, Tone};
    let line = |value: String, tone: Tone| Entry {
        indent: 0,
        key: None,
        value,
        tone,
        hang: Some(2),
    };
    let mut add = vec![line(String::new(), Tone::Dim)];
    match result {
        Ok(Some(FeedAnswer::History(lines))) => {
            add.push(line(format!("History ({})", lines.len()), Tone::Heading));
            if lines.is_empty() {
                add.push(line(
                    "No change seen since the local mirror's first sync.".into(),
                    Tone::Dim,
                ));
            }
            add.extend(lines.iter().map(|l| line(l.clone(), Tone::Value)));
        }
        Ok(_) => return,
        Err(e) => {
            add.push(line("History".into(), Tone::Heading));
            add.push(line(format!("not read: {e}"), Tone::Dim));
        }
    }
    text.entries.extend(add);
    let (w, h) = (text.width, text.height);
    text.reflow(w, h);
}
