//! One dialog under test, alone: keys, pastes, answers and ticks go straight to its `Dialog`
//! methods with a `DialogCx` of its own (key map, zone, clock, request ids), and the test
//! asserts on the `Outcome` it returns (its effects, its decision for the app) and on its
//! drawing in a `TestBackend`. No `App`, no other overlay, no runtime.
#![allow(dead_code)]

use std::collections::BTreeMap;

use chrono::{DateTime, TimeZone, Utc};
use crmdash::app::DisplayZone;
use crmdash::app::dialogs::{Dialog, DialogCx, Outcome};
use crmdash::app::keymap::KeyMap;
use crmdash::app::{Effect, Message};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

/// A fixed wall clock: 2026-11-22 10:00 UTC.
pub fn wall0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap()
}

/// The default key map with `[keys]` rebindings applied (`&[("submit", &["ctrl-g"])]`).
pub fn keymap(rebind: &[(&str, &[&str])]) -> KeyMap {
    let keys: BTreeMap<String, Vec<String>> = rebind
        .iter()
        .map(|(a, ks)| (a.to_string(), ks.iter().map(|k| k.to_string()).collect()))
        .collect();
    let (map, warnings) = KeyMap::from_settings(&keys);
    assert!(warnings.is_empty(), "{warnings:?}");
    map
}

pub struct DialogHarness<D: Dialog> {
    pub dialog: D,
    pub keymap: KeyMap,
    pub zone: DisplayZone,
    pub now: DateTime<Utc>,
    next_id: u64,
    /// The session's requests (empty: the request log has its own tests on the engine).
    requests: crmdash::app::dialogs::requests::RequestLog,
    /// Every effect the dialog asked for so far.
    pub effects: Vec<Effect>,
}

impl<D: Dialog> DialogHarness<D> {
    pub fn new(dialog: D) -> Self {
        DialogHarness::with_keys(dialog, KeyMap::default())
    }

    pub fn with_keys(dialog: D, keymap: KeyMap) -> Self {
        DialogHarness {
            dialog,
            keymap,
            zone: DisplayZone::Named(chrono_tz::Tz::UTC),
            now: wall0(),
            next_id: 0,
            requests: Default::default(),
            effects: Vec::new(),
        }
    }

    fn record(&mut self, out: Outcome) -> Outcome {
        if let Outcome::Effects(fx) = &out {
            self.effects.extend(fx.iter().cloned());
        }
        out
    }

    pub fn send_key(&mut self, key: KeyEvent) -> Outcome {
        let mut cx = DialogCx::new(
            &self.keymap,
            &self.zone,
            self.now,
            &mut self.next_id,
            &self.requests,
        );
        let out = self.dialog.on_key(&key, &mut cx);
        self.record(out)
    }

    pub fn key(&mut self, code: KeyCode) -> Outcome {
        self.send_key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    pub fn ctrl(&mut self, c: char) -> Outcome {
        self.send_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
    }

    /// Types text one key at a time; every key must be handled.
    pub fn type_str(&mut self, s: &str) {
        for c in s.chars() {
            let out = self.key(KeyCode::Char(c));
            assert!(matches!(out, Outcome::Handled), "{c:?} gave {out:?}");
        }
    }

    pub fn paste(&mut self, text: &str) -> Outcome {
        let out = self.dialog.on_paste(text);
        self.record(out)
    }

    /// An answer from the runtime (a request's result, export progress).
    pub fn send(&mut self, msg: &Message) -> Outcome {
        let mut cx = DialogCx::new(
            &self.keymap,
            &self.zone,
            self.now,
            &mut self.next_id,
            &self.requests,
        );
        let out = self.dialog.on_message(msg, &mut cx);
        self.record(out)
    }

    /// Moves the clock on and gives the dialog its tick.
    pub fn advance(&mut self, by: chrono::TimeDelta) -> Outcome {
        self.now += by;
        let mut cx = DialogCx::new(
            &self.keymap,
            &self.zone,
            self.now,
            &mut self.next_id,
            &self.requests,
        );
        let out = self.dialog.on_tick(&mut cx);
        self.record(out)
    }

    /// The screen after `draw` drew the dialog alone on a blank `w`x`h` terminal, as lines.
    pub fn render(
        &self,
        (w, h): (u16, u16),
        draw: impl Fn(&mut ratatui::Frame, Rect, &D, &KeyMap),
    ) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| {
            let area = f.area();
            draw(f, area, &self.dialog, &self.keymap)
        })
        .unwrap();
        let buf = t.backend().buffer();
        let mut out = String::new();
        for y in 0..buf.area.height {
            let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}
