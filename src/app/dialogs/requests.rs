//! The request log (`W`, `:requests`): the last [`KEPT`] requests of this session, newest at
//! the bottom, with method, URL, status, time, size and which view asked. `Enter` shows one
//! whole (headers with the token masked, both bodies); `y` copies it as a `curl` command
//! line that reads the token from `$CRMDASH_TOKEN`.

use std::collections::VecDeque;
use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::api::exchange::Exchange;
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};

/// Requests kept per session.
pub const KEPT: usize = 500;

/// One logged request and the view that asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedRequest {
    pub exchange: Arc<Exchange>,
    /// `Contacts`, `export`, `new contact`...
    pub origin: &'static str,
    /// The URL's path and query, as the log's row shows it (read once, not every frame).
    pub path: String,
}

impl LoggedRequest {
    pub fn new(exchange: Arc<Exchange>, origin: &'static str) -> LoggedRequest {
        let path = url::Url::parse(&exchange.url)
            .map(|u| match u.query() {
                Some(q) => format!("{}?{q}", u.path()),
                None => u.path().to_string(),
            })
            .unwrap_or_else(|_| exchange.url.clone());
        LoggedRequest {
            exchange,
            origin,
            path,
        }
    }
}

/// The session's requests, oldest first.
#[derive(Debug, Clone, Default)]
pub struct RequestLog {
    pub entries: VecDeque<LoggedRequest>,
}

impl RequestLog {
    /// Adds one; the oldest goes past [`KEPT`]. Returns whether one was dropped.
    pub fn push(&mut self, r: LoggedRequest) -> bool {
        self.entries.push_back(r);
        if self.entries.len() > KEPT {
            self.entries.pop_front();
            return true;
        }
        false
    }
}

/// The dialog's own state: which request is selected and whether it is shown whole.
#[derive(Debug, Clone, Default)]
pub struct RequestLogView {
    /// Index into the log (oldest first).
    pub selected: usize,
    /// The selected request shown whole.
    pub detail: Option<Detail>,
}

/// A request shown whole: its lines, built once when it is opened, and the scroll.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detail {
    pub scroll: u16,
    pub lines: Vec<String>,
    /// `lines` wrapped to the width last drawn at, kept until the width changes (a long
    /// answer is wrapped once, not on every frame).
    pub wrapped: std::cell::RefCell<Option<(usize, std::rc::Rc<Vec<String>>)>>,
}

impl Detail {
    /// The lines wrapped to `width` columns (a URL broken at the edge), from the cache when
    /// it was made for that width.
    pub fn wrapped_to(
        &self,
        width: usize,
        wrap: impl Fn(&str, usize) -> Vec<String>,
    ) -> std::rc::Rc<Vec<String>> {
        let mut cache = self.wrapped.borrow_mut();
        if let Some((w, lines)) = cache.as_ref()
            && *w == width
        {
            return lines.clone();
        }
        let lines: Vec<String> = self
            .lines
            .iter()
            .flat_map(|l| {
                let w = wrap(l, width);
                if w.is_empty() { vec![String::new()] } else { w }
            })
            .collect();
        let lines = std::rc::Rc::new(lines);
        *cache = Some((width, lines.clone()));
        lines
    }
}

impl RequestLogView {
    /// Opened on the newest request.
    pub fn new(len: usize) -> RequestLogView {
        RequestLogView {
            selected: len.saturating_sub(1),
            detail: None,
        }
    }

    /// The log grew from `before` requests to `after` (`dropped`: its oldest went): the
    /// selection stays on its request, or follows the newest when it was on the newest.
    pub fn grew(&mut self, before: usize, after: usize, dropped: bool) {
        let on_newest = self.selected + 1 >= before;
        if dropped && !on_newest {
            self.selected = self.selected.saturating_sub(1);
        }
        if on_newest && self.detail.is_none() {
            self.selected = after.saturating_sub(1);
        }
    }
}

const LIST_HINTS: &[Hint] = &[
    Hint::new(&[Action::Down, Action::Up], "select", 0),
    Hint::new(&[Action::Detail], "show", 0),
    Hint::new(&[Action::CopyJson], "copy as curl", 0),
    Hint::new(&[Action::Back], "close", 0),
];

const DETAIL_HINTS: &[Hint] = &[
    Hint::new(&[Action::Down, Action::Up], "scroll", 0),
    Hint::new(&[Action::CopyJson], "copy as curl", 0),
    Hint::new(&[Action::Back], "back", 0),
];

impl Dialog for RequestLogView {
    fn hints(&self) -> &'static [Hint] {
        if self.detail.is_some() {
            DETAIL_HINTS
        } else {
            LIST_HINTS
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let log = &cx.requests.entries;
        let last = log.len().saturating_sub(1);
        if let Some(Detail { scroll, .. }) = &mut self.detail {
            match cx.keymap.action(key) {
                Some(Action::Down) => *scroll = scroll.saturating_add(1),
                Some(Action::Up) => *scroll = scroll.saturating_sub(1),
                Some(Action::NextPage) => *scroll = scroll.saturating_add(10),
                Some(Action::PrevPage) => *scroll = scroll.saturating_sub(10),
                Some(Action::First) => *scroll = 0,
                Some(Action::CopyJson) => {
                    return Outcome::Apply(DialogResult::CopyRequest(self.selected));
                }
                Some(Action::Back) => self.detail = None,
                _ => return Outcome::Ignored,
            }
            return Outcome::Handled;
        }
        match cx.keymap.action(key) {
            Some(Action::Down) => self.selected = (self.selected + 1).min(last),
            Some(Action::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Action::NextPage) => self.selected = (self.selected + 10).min(last),
            Some(Action::PrevPage) => self.selected = self.selected.saturating_sub(10),
            Some(Action::First) => self.selected = 0,
            Some(Action::Last) => self.selected = last,
            Some(Action::Detail) if !log.is_empty() => {
                self.detail = log.get(self.selected).map(|r| Detail {
                    scroll: 0,
                    lines: detail_lines(r),
                    wrapped: Default::default(),
                });
            }
            Some(Action::CopyJson) if !log.is_empty() => {
                return Outcome::Apply(DialogResult::CopyRequest(self.selected));
            }
            Some(Action::Back | Action::RequestLog) => return Outcome::Close,
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }
}

/// `1.2 KB`, `830 B`.
pub fn human_bytes(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    } else if n >= 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// The whole request as text lines: request line, headers sent, body sent, then the answer.
pub fn detail_lines(r: &LoggedRequest) -> Vec<String> {
    let x = &r.exchange;
    let mut out = vec![
        format!("{} {}", x.method, x.url),
        format!(
            "asked by {} at {} · {} ms",
            r.origin,
            crmdash_api::clock::get().format_labelled(x.at),
            x.elapsed.as_millis()
        ),
        String::new(),
    ];
    out.extend(x.request_headers.iter().map(|(n, v)| format!("> {n}: {v}")));
    if let Some(body) = &x.request_body {
        out.push(String::new());
        out.extend(pretty(body).lines().map(str::to_string));
    }
    out.push(String::new());
    match (x.status, &x.error) {
        (Some(s), None) => out.push(format!("< {s} · {}", human_bytes(x.size))),
        (Some(s), Some(e)) => out.push(format!("< {s} · {e}")),
        (None, Some(e)) => out.push(format!("no answer: {e}")),
        (None, None) => out.push("no answer".into()),
    }
    out.extend(
        x.response_headers
            .iter()
            .map(|(n, v)| format!("< {n}: {v}")),
    );
    if !x.response_body.is_empty() {
        // Indented when it was logged, before its cut (`exchange::kept_body`).
        out.push(String::new());
        out.extend(x.response_body.lines().map(str::to_string));
        if x.response_cut {
            out.push(format!(
                "… ({} shown of {})",
                human_bytes(x.response_body.len()),
                human_bytes(x.size)
            ));
        }
    }
    out
}

/// JSON indented for reading; anything else as it is.
fn pretty(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| body.to_string())
}

impl crate::app::App {
    /// A request ended: kept in the log; an open log follows it (redrawn only then).
    pub(crate) fn request_logged(&mut self, r: LoggedRequest) -> Vec<crate::app::Effect> {
        let before = self.requests.entries.len();
        let dropped = self.requests.push(r);
        let after = self.requests.entries.len();
        for o in &mut self.overlays {
            if let crate::app::dialogs::Overlay::Requests(v) = o {
                v.grew(before, after, dropped);
                self.dirty = true;
            }
        }
        Vec::new()
    }

    /// `W`, `:requests`.
    pub(crate) fn open_request_log(&mut self) -> Vec<crate::app::Effect> {
        let v = RequestLogView::new(self.requests.entries.len());
        self.overlays
            .push(crate::app::dialogs::Overlay::Requests(v));
        self.dirty = true;
        Vec::new()
    }

    /// `y` in the log: the request as a curl command line (never the token).
    pub(crate) fn copy_request(&mut self, index: usize) -> Vec<crate::app::Effect> {
        let Some(r) = self.requests.entries.get(index) else {
            return Vec::new();
        };
        let line = r.exchange.curl();
        self.note("Copied the request as curl (the token comes from $CRMDASH_TOKEN)");
        vec![crate::app::Effect::Copy(line)]
    }
}
