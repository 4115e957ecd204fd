//! The filter bar of one tab: a text field per filter of the descriptor, inline errors for
//! dates that do not parse, and the status values seen so far offered for completion.

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::app::resources::{FilterField, FilterKind};
use crate::app::table::spec::FilterValue;
use crate::app::widgets::text_input::TextInput;

/// Reads a typed date filter (the CLI's time grammar, in the configured zone) relative to `now`.
pub type DateParser =
    Arc<dyn Fn(&str, DateTime<Utc>) -> Result<DateTime<Utc>, String> + Send + Sync>;

#[derive(Debug, Clone)]
pub struct FilterInput {
    pub field: FilterField,
    pub input: TextInput,
    /// Why the text is not used (a date that does not parse).
    pub error: Option<String>,
}

#[derive(Debug, Clone)]
pub struct FilterBar {
    pub fields: Vec<FilterInput>,
    pub focused: usize,
    /// Status values seen in results so far, offered by `Ctrl-N` / `Ctrl-P`.
    pub seen_statuses: BTreeSet<String>,
}

/// Width of the filter bar's label column.
pub const LABEL_WIDTH: u16 = 15;

/// Most rows the errors too long for their line take under the fields.
const MAX_NOTE_ROWS: usize = 3;

/// The filter bar's input and note columns in a bar `inner` columns wide.
pub fn input_and_note_width(inner: u16) -> (u16, u16) {
    let rest = inner.saturating_sub(LABEL_WIDTH + 2);
    let input = (rest / 2).clamp(10.min(rest), 40);
    (input, rest.saturating_sub(input + 1))
}

impl FilterBar {
    /// The errors too long for the note beside their field, each whole (`Created after:
    /// "last week" is not a time: try …`), wrapped to the bar's `inner` width: the bar
    /// shows them under its fields, so nothing a user must read is cut.
    pub fn long_errors(&self, inner: u16) -> Vec<String> {
        let (_, note) = input_and_note_width(inner);
        let width = usize::from(inner.saturating_sub(2)).max(10);
        let mut rows: Vec<String> = self
            .fields
            .iter()
            .filter_map(|f| Some((f.field.label, f.error.as_deref()?)))
            .filter(|(_, e)| crate::output::display_width(e) > usize::from(note))
            .flat_map(|(label, e)| {
                crate::app::widgets::scroll::wrap(&format!("{label}: {e}"), width, width)
            })
            .collect();
        if rows.len() > MAX_NOTE_ROWS {
            rows.truncate(MAX_NOTE_ROWS);
            let last = &mut rows[MAX_NOTE_ROWS - 1];
            *last = crate::output::truncate_to_width(&format!("{last} …"), width);
        }
        rows
    }

    pub fn new(fields: &'static [FilterField]) -> Self {
        FilterBar {
            fields: fields
                .iter()
                .map(|f| FilterInput {
                    field: *f,
                    input: TextInput::default().with_max(200),
                    error: None,
                })
                .collect(),
            focused: 0,
            seen_statuses: BTreeSet::new(),
        }
    }

    pub fn focused_mut(&mut self) -> &mut FilterInput {
        let i = self.focused.min(self.fields.len().saturating_sub(1));
        &mut self.fields[i]
    }

    pub fn focused(&self) -> &FilterInput {
        &self.fields[self.focused.min(self.fields.len().saturating_sub(1))]
    }

    pub fn focus_next(&mut self) {
        self.focused = (self.focused + 1) % self.fields.len().max(1);
    }

    pub fn focus_prev(&mut self) {
        let n = self.fields.len().max(1);
        self.focused = (self.focused + n - 1) % n;
    }

    /// The first field whose value was refused (a date that does not parse).
    pub fn first_error(&self) -> Option<usize> {
        self.fields.iter().position(|f| f.error.is_some())
    }

    /// Fills the status field with the next (or previous) seen value after the typed one.
    pub fn cycle_status(&mut self, forward: bool) -> bool {
        let seen: Vec<String> = self.seen_statuses.iter().cloned().collect();
        let f = self.focused_mut();
        if f.field.kind != FilterKind::Status || seen.is_empty() {
            return false;
        }
        let current = f.input.value().to_string();
        let pos = seen.iter().position(|s| *s == current);
        let next = match (pos, forward) {
            (Some(i), true) => (i + 1) % seen.len(),
            (Some(i), false) => (i + seen.len() - 1) % seen.len(),
            (None, true) => seen
                .iter()
                .position(|s| s.starts_with(current.as_str()))
                .unwrap_or(0),
            (None, false) => seen.len() - 1,
        };
        f.input.set(seen[next].clone());
        true
    }

    /// Seen statuses that start with what the status field holds (all when empty).
    pub fn status_suggestions(&self) -> Vec<&str> {
        let typed = self
            .fields
            .iter()
            .find(|f| f.field.kind == FilterKind::Status)
            .map(|f| f.input.value())
            .unwrap_or("");
        self.seen_statuses
            .iter()
            .filter(|s| s.starts_with(typed) && s.as_str() != typed)
            .map(String::as_str)
            .collect()
    }

    /// The filters to send: non-empty fields, trimmed; dates parsed (errors recorded on the
    /// field, which is then left out).
    pub fn evaluate(
        &mut self,
        parse_date: &DateParser,
        now: DateTime<Utc>,
    ) -> Vec<(&'static str, FilterValue)> {
        let mut out = Vec::new();
        for f in &mut self.fields {
            let text = f.input.value().trim();
            f.error = None;
            if text.is_empty() {
                continue;
            }
            match f.field.kind {
                FilterKind::Text | FilterKind::WholeText | FilterKind::Status => {
                    out.push((f.field.key, FilterValue::Text(text.to_string())));
                }
                FilterKind::Date => match parse_date(text, now) {
                    Ok(t) => out.push((f.field.key, FilterValue::Instant(t))),
                    Err(e) => f.error = Some(e),
                },
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::resources::{Descriptor, Resource};

    fn iso() -> DateParser {
        Arc::new(|s: &str, _now| {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(0, 0, 0).unwrap().and_utc())
                .map_err(|_| format!("{s:?} is not a time"))
        })
    }

    #[test]
    fn bad_dates_are_flagged_and_left_out() {
        let mut bar = FilterBar::new(Descriptor::of(Resource::Contacts).filters);
        bar.fields[0].input.set("  Ada ");
        bar.fields[2].input.set("yesterdayish");
        bar.fields[3].input.set("2026-01-02");
        let got = bar.evaluate(&iso(), Utc::now());
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], ("full_name", FilterValue::Text("Ada".into())));
        assert_eq!(got[1].0, "updated_after");
        assert!(
            bar.fields[2]
                .error
                .as_deref()
                .unwrap()
                .contains("not a time")
        );
    }

    #[test]
    fn status_completion_cycles_seen_values() {
        let mut bar = FilterBar::new(Descriptor::of(Resource::Projects).filters);
        bar.seen_statuses
            .extend(["lost", "open", "won"].map(String::from));
        bar.focus_next();
        bar.focused_mut().input.set("w");
        assert_eq!(bar.status_suggestions(), ["won"]);
        assert!(bar.cycle_status(true));
        assert_eq!(bar.focused().input.value(), "won");
        assert!(bar.cycle_status(true));
        assert_eq!(bar.focused().input.value(), "lost");
    }
}
