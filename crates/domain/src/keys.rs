//! The key map: actions, their default keys, rebinding from `settings.keys`
//! (`action = ["ctrl-s", "alt-up", "q"]`). Keys become actions here, once: the main screen
//! asks `action(key)`, a dialog asks `pick(key, what its stage understands)`. The hint line,
//! the help overlay and every dialog footer are generated from the active map, so a
//! rebinding shows up there.

mod actions;
mod key_spec;

use std::collections::{BTreeMap, HashSet};

use crossterm::event::KeyEvent;

pub use actions::Action;
pub use key_spec::KeySpec;
use key_spec::same_key;

/// The groups of actions one screen or dialog stage tells apart (what its `pick` lists, and
/// the keys the app keeps in every dialog): two of them on one key would make one of them
/// unreachable there, so a rebinding that does that is refused. The words finish "… is
/// already ACTION {context}".
fn contexts() -> Vec<(&'static str, Vec<Action>)> {
    use Action::*;
    let main: Vec<Action> = Action::ALL
        .iter()
        .copied()
        .filter(|a| !a.in_dialogs())
        .collect();
    vec![
        ("on the main screen", main),
        (
            "in the forms",
            vec![
                Submit,
                OpenDuplicate,
                Cancel,
                NextField,
                PrevField,
                Confirm,
                Later,
                Earlier,
                NextDay,
                PrevDay,
                Suspend,
                Redraw,
            ],
        ),
        (
            "in the filter bar",
            vec![
                Confirm, Cancel, NextField, PrevField, NextValue, PrevValue, Suspend, Redraw,
            ],
        ),
        (
            "in questions",
            vec![Yes, No, Confirm, Cancel, AddAnother, Suspend, Redraw],
        ),
        (
            "in the export dialog",
            vec![
                Confirm,
                Submit,
                Cancel,
                SwitchFormat,
                Yes,
                No,
                Suspend,
                Redraw,
            ],
        ),
        (
            "after a reschedule",
            vec![
                NextAppointment,
                Confirm,
                Cancel,
                Quit,
                PickFirst,
                PickSecond,
            ],
        ),
        (
            "in the includes picker",
            vec![Toggle, Confirm, Down, Up, Back, Suspend, Redraw],
        ),
        (
            "in the palette",
            vec![
                Complete,
                CompletePrev,
                HistoryPrev,
                HistoryNext,
                Confirm,
                Cancel,
                Suspend,
                Redraw,
            ],
        ),
        (
            "in the views picker",
            vec![
                DeleteItem, RenameItem, Confirm, Cancel, Down, Up, First, Last, Suspend, Redraw,
            ],
        ),
        (
            "in the columns picker",
            vec![
                Toggle,
                MoveItemUp,
                MoveItemDown,
                Confirm,
                Cancel,
                Down,
                Up,
                First,
                Last,
                Suspend,
                Redraw,
            ],
        ),
        (
            "in the detail pane",
            vec![
                DetailNext, DetailPrev, CopyJson, Related, Back, PrevRecord, Suspend, Redraw,
            ],
        ),
        (
            "in related records",
            vec![PrevRecord, Confirm, Cancel, Down, Up, Suspend, Redraw],
        ),
    ]
}

/// The active bindings.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<(Action, Vec<KeySpec>)>,
}

/// One entry of the hint line: the first key of each action (a pair as `Alt-↑↓` or
/// `Tab/Shift-Tab`) and a word. When the line is short of room, lower `rank`s stay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    pub actions: &'static [Action],
    pub word: &'static str,
    pub rank: u8,
}

impl Hint {
    pub const fn new(actions: &'static [Action], word: &'static str, rank: u8) -> Hint {
        Hint {
            actions,
            word,
            rank,
        }
    }
}

/// The table's hints, in order; `c` and `a` are dropped before sorting and paging.
pub const TABLE_HINTS: &[Hint] = &[
    Hint::new(&[Action::Quit], "quit", 0),
    Hint::new(&[Action::Help], "help", 0),
    Hint::new(&[Action::Filter], "filter", 1),
    Hint::new(&[Action::Search], "search", 5),
    Hint::new(&[Action::SortNext], "sort", 2),
    Hint::new(&[Action::SortFlip], "direction", 5),
    Hint::new(&[Action::NextPage], "next", 2),
    Hint::new(&[Action::PrevPage], "prev", 3),
    Hint::new(&[Action::Detail], "detail", 1),
    Hint::new(&[Action::NewContact], "new contact", 3),
    Hint::new(&[Action::Reschedule], "reschedule", 3),
    Hint::new(&[Action::Refresh], "refresh", 4),
    Hint::new(&[Action::Includes], "include", 6),
    Hint::new(&[Action::Export], "export", 5),
];

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap::from_settings(&BTreeMap::new()).0
    }
}

impl KeyMap {
    /// The defaults with the config's rebindings applied; the second value lists the
    /// problems found (unknown action, bad key, a key another action of the same screen or
    /// dialog already has), to show instead of failing. A refused key is dropped; an action
    /// left without keys keeps its defaults.
    pub fn from_settings(keys: &BTreeMap<String, Vec<String>>) -> (KeyMap, Vec<String>) {
        let mut warnings = Vec::new();
        // The keys the config file gave, per action: only these can be refused.
        let mut rebound: HashSet<(Action, KeySpec)> = HashSet::new();
        let mut bindings: Vec<(Action, Vec<KeySpec>)> = Action::ALL
            .iter()
            .map(|a| {
                let keys = a
                    .default_keys()
                    .iter()
                    .filter_map(|k| KeySpec::parse(k).ok())
                    .collect();
                (*a, keys)
            })
            .collect();
        for (name, specs) in keys {
            let Some(slot) = bindings.iter_mut().find(|(a, _)| a.name() == name) else {
                warnings.push(format!("keys: unknown action '{name}'"));
                continue;
            };
            let mut parsed = Vec::new();
            for s in specs {
                match KeySpec::parse(s) {
                    Ok(k) => parsed.push(k),
                    Err(e) => warnings.push(format!("keys.{name}: {e}")),
                }
            }
            if !parsed.is_empty() {
                slot.1 = parsed.clone();
                rebound.extend(parsed.into_iter().map(|k| (slot.0, k)));
            }
        }
        let mut map = KeyMap { bindings };
        map.refuse_collisions(&mut rebound, &mut warnings);
        (map, warnings)
    }

    /// Drops rebound keys that another action of the same context already has (the one the
    /// config file gave), until none is left; an action left without keys gets its defaults
    /// back. Collisions between defaults are not the user's doing and are left alone.
    fn refuse_collisions(
        &mut self,
        rebound: &mut HashSet<(Action, KeySpec)>,
        warnings: &mut Vec<String>,
    ) {
        let mut tolerated: HashSet<(Action, Action, KeySpec)> = HashSet::new();
        while let Some((context, a, b, key)) = self.first_collision(&tolerated) {
            let loser = if rebound.contains(&(b, key)) {
                b
            } else if rebound.contains(&(a, key)) {
                a
            } else {
                tolerated.insert((a, b, key));
                continue;
            };
            let winner = if loser == a { b } else { a };
            let slot = self
                .bindings
                .iter_mut()
                .find(|(x, _)| *x == loser)
                .expect("every action has a slot");
            slot.1.retain(|k| !same_key(k, &key));
            rebound.remove(&(loser, key));
            if slot.1.is_empty() {
                slot.1 = loser
                    .default_keys()
                    .iter()
                    .filter_map(|k| KeySpec::parse(k).ok())
                    .collect();
            }
            let keeps = slot
                .1
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(" ");
            warnings.push(format!(
                "keys: {loser} = \"{key}\" refused: {key} is already {winner} {context}; {loser} keeps {keeps}",
                loser = loser.name(),
                winner = winner.name(),
            ));
        }
    }

    /// The first key two actions of one context share (not yet tolerated).
    fn first_collision(
        &self,
        tolerated: &HashSet<(Action, Action, KeySpec)>,
    ) -> Option<(&'static str, Action, Action, KeySpec)> {
        for (context, actions) in contexts() {
            for (i, a) in actions.iter().enumerate() {
                for b in &actions[i + 1..] {
                    for k in self.keys(*a) {
                        if self.keys(*b).iter().any(|o| same_key(o, k))
                            && !tolerated.contains(&(*a, *b, *k))
                        {
                            return Some((context, *a, *b, *k));
                        }
                    }
                }
            }
        }
        None
    }

    /// The main screen's action for a key (dialog actions are not looked at).
    pub fn action(&self, key: &KeyEvent) -> Option<Action> {
        self.bindings
            .iter()
            .filter(|(a, _)| !a.in_dialogs())
            .find(|(_, keys)| keys.iter().any(|k| k.matches(key)))
            .map(|(a, _)| *a)
    }

    /// The main screen's built-in action on `spec`, if any (user actions are checked
    /// against it).
    pub fn main_action_for(&self, spec: &KeySpec) -> Option<Action> {
        self.bindings
            .iter()
            .filter(|(a, _)| !a.in_dialogs())
            .find(|(_, keys)| keys.iter().any(|k| same_key(k, spec)))
            .map(|(a, _)| *a)
    }

    /// Whether `key` is bound to `action`.
    pub fn is(&self, key: &KeyEvent, action: Action) -> bool {
        self.keys(action).iter().any(|k| k.matches(key))
    }

    /// The first of `actions` the key is bound to: a dialog lists what its current stage
    /// understands, in order, since one key may serve several dialog actions (`Enter`
    /// confirms a question and moves to the next field of a form).
    pub fn pick(&self, key: &KeyEvent, actions: &[Action]) -> Option<Action> {
        actions.iter().copied().find(|a| self.is(key, *a))
    }

    /// Two actions' first keys for one hint: `Alt-↑↓` when they share their modifiers,
    /// else `Tab/Enter`.
    pub fn pair(&self, a: Action, b: Action) -> String {
        let (x, y) = (self.first_key(a), self.first_key(b));
        for prefix in ["Ctrl-Alt-", "Ctrl-", "Alt-"] {
            if let (Some(rx), Some(ry)) = (x.strip_prefix(prefix), y.strip_prefix(prefix))
                && rx.chars().count() == 1
                && ry.chars().count() == 1
            {
                return format!("{prefix}{rx}{ry}");
            }
        }
        format!("{x}/{y}")
    }

    pub fn keys(&self, action: Action) -> &[KeySpec] {
        self.bindings
            .iter()
            .find(|(a, _)| *a == action)
            .map(|(_, k)| k.as_slice())
            .unwrap_or(&[])
    }

    /// `r` or `Ctrl-R`: the first key of an action, for messages like "press r to retry".
    pub fn first_key(&self, action: Action) -> String {
        self.keys(action)
            .first()
            .map(|k| k.to_string())
            .unwrap_or_else(|| action.name().to_string())
    }

    /// `hints` in `width` columns: the lowest ranks (the most important) first, each kept
    /// when it fits in the room the ones before it left, shown in their order; unbound
    /// actions are left out, a hint without actions is its word alone (`type to filter`).
    /// A long hint that does not fit leaves its room to shorter ones after it, less important
    /// ones too: every hint shown is true, and a key the user can learn from the footer beats
    /// an empty footer (the help overlay lists them all).
    pub fn hint_text(&self, hints: &[Hint], width: u16) -> String {
        use unicode_width::UnicodeWidthStr;
        let items: Vec<(u8, String)> = hints
            .iter()
            .filter(|h| h.actions.iter().all(|a| !self.keys(*a).is_empty()))
            .map(|h| {
                let keys = match h.actions {
                    [] => return (h.rank, h.word.to_string()),
                    [a, b] => self.pair(*a, *b),
                    many => many
                        .iter()
                        .map(|a| self.first_key(*a))
                        .collect::<Vec<_>>()
                        .join("/"),
                };
                (h.rank, format!("{keys} {}", h.word))
            })
            .collect();
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|i| items[*i].0);
        let mut keep = vec![false; items.len()];
        let mut used = 0usize;
        for i in order {
            let w = items[i].1.width() + if used == 0 { 0 } else { 3 };
            if used + w <= width as usize {
                used += w;
                keep[i] = true;
            }
        }
        items
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|((_, s), _)| s)
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Every main-screen action with all its keys, for the help overlay.
    pub fn help_rows(&self) -> Vec<(String, &'static str)> {
        self.help_entries(false)
            .into_iter()
            .map(|(keys, _, description)| (keys, description))
            .collect()
    }

    /// The main screen's actions (or, with `dialogs`, the dialogs' and the filter bar's):
    /// all keys of each, the name the config file's `[keys]` uses, and what it does.
    pub fn help_entries(&self, dialogs: bool) -> Vec<(String, &'static str, &'static str)> {
        self.bindings
            .iter()
            .filter(|(a, _)| a.in_dialogs() == dialogs)
            .map(|(a, keys)| {
                let k = keys
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                (k, a.name(), a.description())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn parses_and_matches_keys() {
        let k = KeySpec::parse("ctrl-s").unwrap();
        assert!(k.matches(&KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)));
        assert!(!k.matches(&KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE)));
        let g = KeySpec::parse("G").unwrap();
        assert!(g.matches(&KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT)));
        assert_eq!(KeySpec::parse("-").unwrap().code, KeyCode::Char('-'));
        let back = KeySpec::parse("shift-tab").unwrap();
        assert_eq!(back.code, KeyCode::BackTab);
        assert!(back.matches(&KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)));
        assert_eq!(KeySpec::parse("alt-up").unwrap().to_string(), "Alt-↑");
        assert!(KeySpec::parse("hyper-x").is_err());
    }

    #[test]
    fn the_defaults_collide_nowhere() {
        let (_, warnings) = KeyMap::from_settings(&BTreeMap::new());
        assert!(warnings.is_empty(), "{warnings:?}");
        let map = KeyMap::default();
        assert!(map.first_collision(&HashSet::new()).is_none());
    }

    fn rebind(pairs: &[(&str, &[&str])]) -> (KeyMap, Vec<String>) {
        let keys = pairs
            .iter()
            .map(|(a, ks)| (a.to_string(), ks.iter().map(|k| k.to_string()).collect()))
            .collect();
        KeyMap::from_settings(&keys)
    }

    #[test]
    fn a_key_another_action_has_is_refused_naming_both() {
        let (map, warnings) = rebind(&[("filter", &["r"])]);
        assert_eq!(
            warnings,
            [
                "keys: filter = \"r\" refused: r is already refresh on the main screen; filter keeps /"
            ]
        );
        let r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE);
        assert_eq!(map.action(&r), Some(Action::Refresh));
        assert_eq!(map.first_key(Action::Filter), "/");

        // Other keys of the same rebinding stay; only the colliding one goes.
        let (map, warnings) = rebind(&[("filter", &["r", "ctrl-t"])]);
        assert_eq!(warnings.len(), 1);
        assert_eq!(map.first_key(Action::Filter), "Ctrl-T");

        // Dialog contexts: `submit` on Tab would make the forms' next field unreachable.
        let (map, warnings) = rebind(&[("submit", &["tab"])]);
        assert!(
            warnings[0]
                .contains("submit = \"Tab\" refused: Tab is already next_field in the forms"),
            "{warnings:?}"
        );
        assert_eq!(map.first_key(Action::Submit), "Ctrl-S");
    }

    #[test]
    fn swapping_two_keys_is_no_collision_and_keys_apart_are_fine() {
        let (map, warnings) = rebind(&[("filter", &["r"]), ("refresh", &["/"])]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let slash = KeyEvent::new(KeyCode::Char('/'), KeyModifiers::NONE);
        assert_eq!(map.action(&slash), Some(Action::Refresh));
        // `y` is copy_json on the main screen and yes in questions: different contexts.
        let (_, warnings) = rebind(&[("yes", &["ctrl-y"]), ("copy_json", &["ctrl-y"])]);
        assert!(warnings.is_empty(), "{warnings:?}");
        // Two rebindings onto one key: the later name is refused, the first keeps it.
        let (map, warnings) = rebind(&[("filter", &["x"]), ("refresh", &["x"])]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("keys: refresh = \"x\" refused: x is already filter"));
        assert_eq!(map.first_key(Action::Refresh), "r");
    }

    #[test]
    fn a_hint_left_out_leaves_its_room_to_shorter_ones_after_it() {
        let map = KeyMap::default();
        let hints = [
            Hint::new(&[Action::Detail], "open the selected record", 0),
            Hint::new(&[Action::Refresh], "again", 2),
            Hint::new(&[Action::Help], "help and keys", 1),
            Hint::new(&[Action::Back], "close", 0),
            Hint::new(&[], "type to filter", 0),
        ];
        assert_eq!(
            map.hint_text(&hints, 100),
            "Enter open the selected record · r again · ? help and keys · Esc close · type to filter"
        );
        // Rank 0 first: `Enter …` (30) fits, `Esc close` and `type to filter` do not; the
        // rank-1 help does not either, and the rank-2 `r again` fills the room exactly.
        assert_eq!(
            map.hint_text(&hints, 40),
            "Enter open the selected record · r again"
        );
        // Every rank-0 hint fits; help (rank 1) does not, `r again` after it still does.
        assert_eq!(
            map.hint_text(&hints, 70),
            "Enter open the selected record · r again · Esc close · type to filter"
        );
        // Too narrow for the first: the shorter ones of its rank come first.
        assert_eq!(map.hint_text(&hints, 28), "Esc close · type to filter");
    }

    #[test]
    fn rebinding_shows_in_hint_and_help() {
        let mut keys = BTreeMap::new();
        keys.insert("filter".to_string(), vec!["ctrl-t".to_string()]);
        keys.insert("nope".to_string(), vec!["x".to_string()]);
        let (map, warnings) = KeyMap::from_settings(&keys);
        assert_eq!(warnings, ["keys: unknown action 'nope'"]);
        assert!(
            map.hint_text(TABLE_HINTS, u16::MAX)
                .contains("Ctrl-T filter")
        );
        assert_eq!(
            map.action(&KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL)),
            Some(Action::Filter)
        );
        assert_eq!(
            map.action(&KeyEvent::new(KeyCode::Char('/'), KeyModifiers::NONE)),
            None
        );
    }
}
