//! The display clock: the one zone every time shown to a person is read in (`[ui] timezone`,
//! `local` by default), set once at start ([`set`]) and read everywhere ([`get`]): dashboard
//! tables and dialogs, CLI tables, `log`, `appointments log`, `changes`, Today, the timeline.
//! Machine formats (JSON, JSON Lines, CSV) never use it: they keep RFC 3339 UTC. Each place a
//! person reads times also says the zone ([`DisplayZone::label`]). A wall time that occurs twice
//! in the zone (the hour a DST change repeats) is shown with its offset, so it names one instant.

use std::sync::OnceLock;

use chrono::{DateTime, Local, LocalResult, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;

use crate::api::{Timestamp, When};

/// The zone dates are shown in: the machine's, or a named one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DisplayZone {
    #[default]
    Local,
    Named(Tz),
}

static CLOCK: OnceLock<DisplayZone> = OnceLock::new();

/// Sets this process's display clock (at start, from the settings). Later calls keep the first.
pub fn set(zone: DisplayZone) {
    let _ = CLOCK.set(zone);
}

/// This process's display clock (the machine's zone until [`set`]).
pub fn get() -> DisplayZone {
    CLOCK.get().copied().unwrap_or_default()
}

const MINUTES: &str = "%Y-%m-%d %H:%M";
const SECONDS: &str = "%Y-%m-%d %H:%M:%S";

impl DisplayZone {
    /// `2026-11-22 14:03` in this zone; a date alone as `2026-11-22`; unparsed text as sent.
    pub fn format(&self, ts: &Timestamp) -> String {
        match ts.when() {
            Some(When::Instant(t)) => self.format_instant(t),
            Some(When::Date(d)) => d.format("%Y-%m-%d").to_string(),
            None => ts.raw().to_string(),
        }
    }

    /// `2026-11-22 14:03`; `2026-10-25 02:30 +02:00` when that wall time occurs twice here.
    pub fn format_instant(&self, t: DateTime<Utc>) -> String {
        self.with(t, MINUTES)
    }

    /// [`DisplayZone::format_instant`] with the zone said: `2026-11-22 14:03 Europe/Berlin`.
    pub fn format_labelled(&self, t: DateTime<Utc>) -> String {
        format!("{} {}", self.format_instant(t), self.label())
    }

    /// [`DisplayZone::format_instant`] to the second (the write journal).
    pub fn format_seconds(&self, t: DateTime<Utc>) -> String {
        self.with(t, SECONDS)
    }

    fn with(&self, t: DateTime<Utc>, fmt: &str) -> String {
        let (local, offset, twice) = match self {
            DisplayZone::Local => {
                let l = t.with_timezone(&Local);
                let twice = doubled(Local.from_local_datetime(&l.naive_local()));
                (l.naive_local(), l.offset().fix(), twice)
            }
            DisplayZone::Named(tz) => {
                let l = t.with_timezone(tz);
                let twice = doubled(tz.from_local_datetime(&l.naive_local()));
                (l.naive_local(), l.offset().fix(), twice)
            }
        };
        let text = local.format(fmt).to_string();
        if twice {
            format!("{text} {offset}")
        } else {
            text
        }
    }

    /// The zone's name as a person reads it beside times: `Europe/Berlin`, `UTC`; the local
    /// zone by its name when the system says it (`TZ`, else the system's setting), else `local`.
    pub fn label(&self) -> String {
        match self {
            DisplayZone::Named(tz) => tz.name().to_string(),
            DisplayZone::Local => local_name().unwrap_or_else(|| "local".to_string()),
        }
    }

    /// The offset in force here at `t`.
    pub fn offset_at(&self, t: DateTime<Utc>) -> chrono::FixedOffset {
        match self {
            DisplayZone::Local => Local.offset_from_utc_datetime(&t.naive_utc()).fix(),
            DisplayZone::Named(tz) => tz.offset_from_utc_datetime(&t.naive_utc()).fix(),
        }
    }

    /// The wall time `local` here, if it names one instant.
    pub fn localize(&self, local: NaiveDateTime) -> Option<DateTime<Utc>> {
        match self {
            DisplayZone::Local => Local
                .from_local_datetime(&local)
                .single()
                .map(|t| t.to_utc()),
            DisplayZone::Named(tz) => tz.from_local_datetime(&local).single().map(|t| t.to_utc()),
        }
    }
}

fn doubled<T: TimeZone>(r: LocalResult<DateTime<T>>) -> bool {
    matches!(r, LocalResult::Ambiguous(..))
}

/// The local zone's IANA name: `TZ` when it names one (chrono's `Local` follows it), else the
/// zone `/etc/localtime` points at.
fn local_name() -> Option<String> {
    if let Ok(tz) = std::env::var("TZ") {
        let name = tz.trim_start_matches(':');
        return name.parse::<Tz>().ok().map(|z| z.name().to_string());
    }
    let target = std::fs::read_link("/etc/localtime").ok()?;
    let text = target.to_string_lossy();
    let name = text.split("zoneinfo/").nth(1)?;
    name.parse::<Tz>().ok().map(|z| z.name().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_wall_time_that_occurs_twice_carries_its_offset() {
        let berlin = DisplayZone::Named(chrono_tz::Europe::Berlin);
        // 2026-10-25: clocks go back from 03:00 CEST to 02:00 CET; 02:30 happens twice.
        assert_eq!(
            berlin.format_instant(at("2026-10-25T00:30:00Z")),
            "2026-10-25 02:30 +02:00"
        );
        assert_eq!(
            berlin.format_instant(at("2026-10-25T01:30:00Z")),
            "2026-10-25 02:30 +01:00"
        );
        assert_eq!(
            berlin.format_instant(at("2026-10-25T03:30:00Z")),
            "2026-10-25 04:30"
        );
        assert_eq!(
            berlin.format_seconds(at("2026-07-01T10:00:05Z")),
            "2026-07-01 12:00:05"
        );
        assert_eq!(berlin.label(), "Europe/Berlin");
    }
}
