//! Screens drawn around the shared widgets: the filter bar and the too-small notice.

pub mod filter_bar;
pub mod pipeline;
pub mod timeline;

use ratatui::text::{Line, Span};

use crate::app::App;
use crate::app::keymap::Action;
use crate::ui::theme::Theme;

/// Where a chart view's reading of every page stands, when it has nothing to draw yet.
pub(crate) enum Reading<'a> {
    /// `so_far`: what was read (`120 deals`).
    Loading {
        pages: u32,
        last_page: Option<u64>,
        so_far: String,
    },
    Failed(&'a str),
    /// `instead`: what is shown instead of partial figures.
    Cancelled {
        pages: u32,
        instead: &'a str,
    },
}

/// The message of a chart view (pipeline, timeline) while it reads `noun` in pages of 100
/// (at most `max_pages`), after a failure, or after `Esc` stopped it.
pub(crate) fn reading_lines(
    app: &App,
    theme: &Theme,
    noun: &str,
    max_pages: u32,
    r: Reading,
) -> Vec<Line<'static>> {
    let retry = app.keymap.first_key(Action::Refresh);
    match r {
        Reading::Loading {
            pages,
            last_page,
            so_far,
        } => {
            let of = last_page
                .map(|l| format!(" of {}", l.min(u64::from(max_pages))))
                .unwrap_or_default();
            let esc = app.keymap.first_key(Action::Back);
            vec![
                Line::from(Span::styled(
                    format!("Reading {noun}: page {pages}{of}, {so_far} so far…"),
                    theme.spinner,
                )),
                Line::from(""),
                Line::from(format!(
                    "Pages of 100, at most {max_pages}. {esc} stops the reading."
                )),
            ]
        }
        Reading::Failed(e) => vec![
            Line::from(Span::styled(
                format!("Could not read the {noun}"),
                theme.error,
            )),
            Line::from(""),
            Line::from(e.to_string()),
            Line::from(""),
            Line::from(format!("{retry} tries again.")),
        ],
        Reading::Cancelled { pages, instead } => vec![
            Line::from(Span::styled("Reading stopped", theme.error)),
            Line::from(""),
            Line::from(format!("{}: {instead}.", stopped_after(pages))),
            Line::from(format!("{retry} reads again.")),
        ],
    }
}

/// How far a reading went before `Esc` stopped it: "Stopped after 1 page", never "1 pages"
/// nor "after 0 pages".
pub fn stopped_after(pages: u32) -> String {
    match pages {
        0 => "Stopped before the first page came".to_string(),
        1 => "Stopped after 1 page".to_string(),
        n => format!("Stopped after {n} pages"),
    }
}
