//! The hint line follows the focus: the top dialog's keys while one is open, the filter
//! bar's while it is open (never `q quit` while `q` types a letter), the pipeline view's while
//! it is shown, else the table's.

use super::App;
use crate::app::keymap::{Action, Hint, TABLE_HINTS};

/// The filter bar's keys; the last (status values) only where the tab has a status filter.
pub const FILTER_HINTS: &[Hint] = &[
    Hint::new(&[Action::NextField, Action::PrevField], "field", 0),
    Hint::new(&[Action::Confirm], "apply", 0),
    Hint::new(&[Action::Cancel], "close", 0),
    Hint::new(&[Action::NextValue, Action::PrevValue], "status values", 2),
];

/// Scrolling to the columns a narrow screen leaves out.
pub const COLUMNS_HINT: Hint = Hint::new(&[Action::ScrollLeft, Action::ScrollRight], "columns", 1);

/// A form's keys (a dialog with text fields that does not say more).
pub const FORM_HINTS: &[Hint] = &[
    Hint::new(&[Action::NextField, Action::PrevField], "field", 0),
    Hint::new(&[Action::Submit], "submit", 0),
    Hint::new(&[Action::Cancel], "cancel", 0),
];

/// A read-only overlay's keys.
pub const VIEW_HINTS: &[Hint] = &[
    Hint::new(&[Action::Down, Action::Up], "scroll", 1),
    Hint::new(&[Action::Back], "close", 0),
    Hint::new(&[Action::Quit], "quit", 0),
];

/// The pipeline view's keys.
pub const PIPELINE_HINTS: &[Hint] = &[
    Hint::new(&[Action::Pipeline], "table", 0),
    Hint::new(&[Action::Up, Action::Down], "select", 1),
    Hint::new(&[Action::Detail], "deals of that status", 1),
    Hint::new(&[Action::Refresh], "re-read", 2),
    Hint::new(&[Action::Export], "export", 3),
    Hint::new(&[Action::Back], "stop/close", 0),
    Hint::new(&[Action::Help], "help", 2),
];

/// The timeline view's keys.
pub const TIMELINE_HINTS: &[Hint] = &[
    Hint::new(&[Action::Timeline], "table", 0),
    Hint::new(&[Action::Up, Action::Down], "select", 1),
    Hint::new(&[Action::ScrollLeft, Action::ScrollRight], "screen", 1),
    Hint::new(&[Action::ShowSelected], "to selected", 1),
    Hint::new(&[Action::Scale], "scale", 1),
    Hint::new(&[Action::Detail], "detail", 1),
    Hint::new(&[Action::Back], "close", 0),
    Hint::new(&[Action::Help], "help", 2),
];

impl App {
    /// The hint line for the focus, fitted to `width` columns.
    pub fn hint_line(&self, width: u16) -> String {
        if let Some(top) = self.overlays.last() {
            return self.keymap.hint_text(top.dialog().hints(), width);
        }
        if self.pipeline_shown().is_some() {
            return self.keymap.hint_text(PIPELINE_HINTS, width);
        }
        if self.timeline_shown().is_some() {
            return self.keymap.hint_text(TIMELINE_HINTS, width);
        }
        let tab = self.tab();
        if tab.filter_open {
            // Status values exist only where the tab filters by status (not on Contacts).
            let has_status = tab
                .filter_bar
                .fields
                .iter()
                .any(|f| f.field.kind == crate::app::resources::FilterKind::Status);
            let hints = if has_status {
                FILTER_HINTS
            } else {
                &FILTER_HINTS[..FILTER_HINTS.len() - 1]
            };
            return self.keymap.hint_text(hints, width);
        }
        let mut hints = TABLE_HINTS.to_vec();
        if tab.has_filters() {
            let at = hints
                .iter()
                .position(|h| h.actions == [Action::Filter])
                .map_or(0, |i| i + 1);
            hints.insert(at, Hint::new(&[Action::Back], "clear filters", 1));
        }
        // A narrow screen left columns out: say how to scroll to them.
        let inner = self.areas().table_inner().width;
        if tab.columns_shown(inner).hidden > 0 {
            let at = hints
                .iter()
                .position(|h| h.actions == [Action::Detail])
                .map_or(hints.len(), |i| i + 1);
            hints.insert(at, COLUMNS_HINT);
        }
        self.keymap.hint_text(&hints, width)
    }
}
