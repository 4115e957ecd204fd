//! One key with its modifiers, as the config writes it (`ctrl-s`, `shift-tab`, `G`) and as
//! footers and help show it (`Ctrl-S`, `Shift-Tab`).

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Whether two specs are one key press (shift is part of a character).
pub(super) fn same_key(a: &KeySpec, b: &KeySpec) -> bool {
    let relevant = |k: &KeySpec| match k.code {
        KeyCode::Char(_) | KeyCode::BackTab => {
            k.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT)
        }
        _ => k.modifiers,
    };
    a.code == b.code && relevant(a) == relevant(b)
}

/// One key with its modifiers, as written in the config (`ctrl-s`, `shift-tab`, `G`, `f5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeySpec {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl KeySpec {
    /// The config's key grammar (`config::KeySpec`, so the file is validated by the same
    /// rules), with `shift-tab` read as the `BackTab` terminals send.
    pub fn parse(spec: &str) -> Result<KeySpec, String> {
        let k = crate::config::KeySpec::parse(spec).map_err(|e| e.to_string())?;
        let mut modifiers = k.modifiers;
        let code = match k.code {
            KeyCode::Tab if modifiers.contains(KeyModifiers::SHIFT) => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            KeyCode::Char(c) if modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            other => other,
        };
        Ok(KeySpec { code, modifiers })
    }

    /// Whether a key event is this key. Shift is implied by the character itself
    /// (`G`, `?`, `+`), so it is ignored for characters.
    pub fn matches(&self, key: &KeyEvent) -> bool {
        if key.code != self.code {
            return false;
        }
        let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
        match self.code {
            // Shift is part of the character, and of BackTab (crossterm reports it with SHIFT).
            KeyCode::Char(_) | KeyCode::BackTab => {
                key.modifiers & relevant == self.modifiers & relevant
            }
            _ => key.modifiers & (relevant | KeyModifiers::SHIFT) == self.modifiers,
        }
    }
}

impl fmt::Display for KeySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("Ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("Alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) if self.modifiers.contains(KeyModifiers::CONTROL) => {
                write!(f, "{}", c.to_ascii_uppercase())
            }
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}
