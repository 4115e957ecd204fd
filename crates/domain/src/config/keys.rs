//! Key specs of the `[keys]` table (`"ctrl-s"`, `"alt-up"`, `"G"`, `"f5"`), parsed into
//! crossterm key codes so the dashboard can match events against rebindings.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key with its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeySpec {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

/// Why a key spec did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{spec}' is not a key: {reason}")]
pub struct KeySpecError {
    pub spec: String,
    pub reason: String,
}

impl KeySpec {
    /// Parses `[ctrl-|alt-|shift-]*KEY`, KEY being one character or a name (`enter`, `esc`,
    /// `tab`, `backtab`, `backspace`, `delete`, `insert`, `home`, `end`, `pageup`, `pagedown`,
    /// `up`, `down`, `left`, `right`, `space`, `f1`..`f12`). Names and modifiers ignore case;
    /// a single character keeps it (`G` is shift-g as terminals report it).
    pub fn parse(spec: &str) -> Result<KeySpec, KeySpecError> {
        let err = |reason: &str| KeySpecError {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = spec.trim();
        if rest.is_empty() {
            return Err(err("empty"));
        }
        // A lone character (including `-` and `+`) is the key itself.
        while rest.chars().count() > 1 {
            let Some((head, tail)) = rest.split_once('-') else {
                break;
            };
            let m = match head.to_ascii_lowercase().as_str() {
                "ctrl" | "control" | "c" => KeyModifiers::CONTROL,
                "alt" | "meta" | "m" => KeyModifiers::ALT,
                "shift" | "s" => KeyModifiers::SHIFT,
                _ => break,
            };
            if tail.is_empty() {
                return Err(err("a modifier needs a key after it"));
            }
            modifiers |= m;
            rest = tail;
        }
        let code = key_code(rest).ok_or_else(|| {
            err("use one character or a key name such as enter, esc, tab, up, pagedown, f5")
        })?;
        Ok(KeySpec { code, modifiers })
    }

    /// Whether a terminal key event is this key. Shift on a character is already in the
    /// character (`G`), so it is not compared for characters.
    pub fn matches(&self, event: &KeyEvent) -> bool {
        let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT;
        match (self.code, event.code) {
            (KeyCode::Char(a), KeyCode::Char(b)) => {
                let ignore_shift = relevant - KeyModifiers::SHIFT;
                let same_char = if self.modifiers.contains(KeyModifiers::CONTROL) {
                    a.eq_ignore_ascii_case(&b)
                } else {
                    a == b
                };
                same_char && (self.modifiers & ignore_shift) == (event.modifiers & ignore_shift)
            }
            (a, b) => a == b && (self.modifiers & relevant) == (event.modifiers & relevant),
        }
    }
}

fn key_code(name: &str) -> Option<KeyCode> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(KeyCode::Char(c));
    }
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "backspace" | "bs" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" | "pgdown" => KeyCode::PageDown,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "space" => KeyCode::Char(' '),
        "minus" => KeyCode::Char('-'),
        "plus" => KeyCode::Char('+'),
        f if f.starts_with('f') => match f[1..].parse::<u8>() {
            Ok(n @ 1..=12) => KeyCode::F(n),
            _ => return None,
        },
        _ => return None,
    };
    Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modifiers_names_and_characters() {
        let k = KeySpec::parse("ctrl-s").unwrap();
        assert_eq!(k.code, KeyCode::Char('s'));
        assert_eq!(k.modifiers, KeyModifiers::CONTROL);
        let k = KeySpec::parse("Alt-Up").unwrap();
        assert_eq!((k.code, k.modifiers), (KeyCode::Up, KeyModifiers::ALT));
        assert_eq!(KeySpec::parse("G").unwrap().code, KeyCode::Char('G'));
        assert_eq!(KeySpec::parse("-").unwrap().code, KeyCode::Char('-'));
        assert_eq!(KeySpec::parse("ctrl--").unwrap().code, KeyCode::Char('-'));
        assert_eq!(KeySpec::parse("f5").unwrap().code, KeyCode::F(5));
        assert_eq!(KeySpec::parse("pgdn").unwrap().code, KeyCode::PageDown);
    }

    #[test]
    fn refuses_unknown_keys() {
        for bad in ["", "ctrl-", "hyper-x", "f13", "enterr", "ctrl-foo"] {
            assert!(KeySpec::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn matches_events() {
        let k = KeySpec::parse("ctrl-s").unwrap();
        assert!(k.matches(&KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)));
        assert!(!k.matches(&KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE)));
        let g = KeySpec::parse("G").unwrap();
        assert!(g.matches(&KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT)));
        assert!(!g.matches(&KeyEvent::new(KeyCode::Char('g'), KeyModifiers::NONE)));
    }
}
