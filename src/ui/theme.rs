//! Colours and text styles: a full theme, a 16-colour fallback, and none at all (`NO_COLOR`,
//! where bold, reverse and dim carry the meaning instead).

use ratatui::style::{Color, Modifier, Style};

use crate::app::ColorMode;
use crate::app::table::record::{CellStyle, StatusTone};
use crate::app::widgets::scroll::Tone;

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub tab_active: Style,
    pub tab_inactive: Style,
    pub border: Style,
    pub border_focus: Style,
    pub title: Style,
    pub header: Style,
    pub sorted_header: Style,
    pub selected: Style,
    pub missing: Style,
    pub good: Style,
    pub bad: Style,
    pub pending: Style,
    pub error: Style,
    pub note: Style,
    pub dim: Style,
    pub key: Style,
    pub heading: Style,
    pub input: Style,
    pub spinner: Style,
}

impl Theme {
    pub fn new(mode: ColorMode) -> Theme {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let dim = Style::new().add_modifier(Modifier::DIM);
        match mode {
            ColorMode::None => Theme {
                tab_active: bold.add_modifier(Modifier::REVERSED),
                tab_inactive: Style::new(),
                border: Style::new(),
                border_focus: bold,
                title: bold,
                header: bold,
                sorted_header: bold.add_modifier(Modifier::UNDERLINED),
                selected: Style::new().add_modifier(Modifier::REVERSED),
                missing: dim,
                good: bold,
                bad: Style::new().add_modifier(Modifier::UNDERLINED),
                pending: Style::new(),
                error: bold,
                note: Style::new(),
                dim,
                key: bold,
                heading: bold,
                input: Style::new().add_modifier(Modifier::UNDERLINED),
                spinner: bold,
            },
            ColorMode::Ansi16 | ColorMode::Full => {
                let (accent, subtle, sel_bg) = if mode == ColorMode::Full {
                    (Color::Indexed(75), Color::Indexed(244), Color::Indexed(237))
                } else {
                    (Color::Cyan, Color::DarkGray, Color::Blue)
                };
                Theme {
                    tab_active: bold.fg(Color::Black).bg(accent),
                    tab_inactive: Style::new().fg(subtle),
                    border: Style::new().fg(subtle),
                    border_focus: Style::new().fg(accent),
                    title: bold.fg(accent),
                    header: bold,
                    sorted_header: bold.fg(accent),
                    selected: Style::new().bg(sel_bg).add_modifier(Modifier::BOLD),
                    missing: Style::new().fg(subtle),
                    good: Style::new().fg(Color::Green),
                    bad: Style::new().fg(Color::Red),
                    pending: Style::new().fg(Color::Yellow),
                    error: bold.fg(Color::Red),
                    note: Style::new().fg(Color::Green),
                    dim: Style::new().fg(subtle),
                    key: bold.fg(accent),
                    heading: bold,
                    input: Style::new().bg(if mode == ColorMode::Full {
                        Color::Indexed(236)
                    } else {
                        Color::Black
                    }),
                    spinner: Style::new().fg(accent),
                }
            }
        }
    }

    pub fn cell(&self, style: CellStyle) -> Style {
        match style {
            CellStyle::Plain => Style::new(),
            CellStyle::Missing => self.missing,
            CellStyle::Status(StatusTone::Good) => self.good,
            CellStyle::Status(StatusTone::Bad) => self.bad,
            CellStyle::Status(StatusTone::Pending) => self.pending,
            CellStyle::Status(StatusTone::Neutral) => Style::new(),
        }
    }

    pub fn tone(&self, tone: Tone) -> Style {
        match tone {
            Tone::Heading => self.heading,
            Tone::Key => self.key,
            Tone::Value => Style::new(),
            Tone::Dim => self.dim,
        }
    }
}

/// The colour mode settings and the environment ask for: `NO_COLOR` (any non-empty value)
/// wins; then `ui.theme` = `none`, `16`, or anything else for the full theme.
pub fn color_mode(theme: &str, no_color: Option<&str>) -> ColorMode {
    if no_color.is_some_and(|v| !v.is_empty()) {
        return ColorMode::None;
    }
    match theme.trim().to_ascii_lowercase().as_str() {
        "none" | "no" | "off" | "mono" => ColorMode::None,
        "16" | "ansi" | "ansi16" | "basic" => ColorMode::Ansi16,
        _ => ColorMode::Full,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_wins_over_the_theme() {
        assert_eq!(color_mode("default", Some("1")), ColorMode::None);
        assert_eq!(color_mode("default", Some("")), ColorMode::Full);
        assert_eq!(color_mode("16", None), ColorMode::Ansi16);
        assert_eq!(color_mode("none", None), ColorMode::None);
        // Without colour, the selection and statuses still stand out.
        let t = Theme::new(ColorMode::None);
        assert!(t.selected.add_modifier.contains(Modifier::REVERSED));
        assert_eq!(t.good.fg, None);
    }
}
