//! Appointments crmdash has seen: the API cannot list appointments, so the id field
//! completes (Tab) from the reschedule log, ids moved at this host, most recent first, and
//! says what is known of the typed id: its last known times, or that it is new.

use super::RescheduleForm;
use crate::reschedule::RescheduleLogEntry;

/// Where a Tab completion is: the prefix typed and the candidate shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    prefix: String,
    index: usize,
}

impl RescheduleForm {
    /// Ids moved at this host, most recently moved first, each once.
    pub fn known_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        for e in self.log.iter().rev().filter(|e| e.host == self.config.host) {
            if !ids.contains(&e.id.as_str()) {
                ids.push(&e.id);
            }
        }
        ids
    }

    /// The last log entry of `id` at this host.
    pub fn last_move(&self, id: &str) -> Option<&RescheduleLogEntry> {
        self.log
            .iter()
            .rev()
            .find(|e| e.host == self.config.host && e.id == id)
    }

    /// Tab in the id field: the typed text extended to the known ids starting with it (their
    /// common part, else the next one of them, round). False when none starts with it or the
    /// field is empty: Tab then moves on.
    pub(super) fn complete_id(&mut self) -> bool {
        let typed = self.inputs[0].value().trim().to_string();
        if typed.is_empty() {
            return false;
        }
        let prefix = match &self.completion {
            Some(c) if self.known_ids().get(c.index).is_some_and(|id| *id == typed) => {
                c.prefix.clone()
            }
            _ => typed.clone(),
        };
        let matching: Vec<String> = self
            .known_ids()
            .into_iter()
            .filter(|id| id.starts_with(&prefix))
            .map(str::to_string)
            .collect();
        let Some(first) = matching.first() else {
            return false;
        };
        let common = matching.iter().fold(first.clone(), |acc, id| {
            acc.chars()
                .zip(id.chars())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect()
        });
        let next = if common.len() > typed.len() {
            common
        } else {
            // Round the candidates: the one after the shown one.
            let at = matching
                .iter()
                .position(|id| *id == typed)
                .map_or(0, |i| i + 1);
            matching[at % matching.len()].clone()
        };
        let index = self
            .known_ids()
            .iter()
            .position(|id| *id == next)
            .unwrap_or(0);
        self.completion = Some(Completion { prefix, index });
        self.inputs[0].set(next);
        self.revalidate();
        true
    }

    /// What is known of the typed id, for the line under the field: its last known times
    /// (`last moved to 2026-12-07 09:00–10:00 on 2026-11-20`), that it is new, or how many
    /// known ids Tab completes.
    pub fn id_note(&self) -> Option<String> {
        let typed = self.inputs[0].value().trim();
        let known = self.known_ids();
        if typed.is_empty() {
            return (!known.is_empty()).then(|| {
                format!(
                    "{} moved from here before: type the start of an id, Tab completes",
                    known.len()
                )
            });
        }
        let id = self.appointment_id().ok()?;
        Some(match self.last_move(&id) {
            Some(e) => {
                let (start, end) = e.times_in(&self.config.settings, &self.config.zone);
                let when = self.config.zone.from_utc(e.at).format("%Y-%m-%d");
                let to = if end.is_empty() {
                    start
                } else {
                    format!("{start}–{end}")
                };
                format!("seen: last moved to {to} on {when} (the reschedule log)")
            }
            None => {
                let more = known.iter().filter(|k| k.starts_with(&id)).count();
                if more > 0 {
                    format!("Tab completes: {more} known id(s) start with {id}")
                } else {
                    format!("new: crmdash has not moved {id} before")
                }
            }
        })
    }
}
