//! The time grammar people type: `--created-after`, `--start`, the dashboard's date filters and
//! the reschedule dialog all read times through [`parse_zoned`] / [`parse_instant`].
//!
//! Pure functions of (text, zone, now), so the dashboard, the CLI and the tests agree to the
//! second; nothing here reads the clock.

mod display;
mod grammar;
mod zone;

#[cfg(test)]
mod tests;

use chrono::{DateTime, FixedOffset, NaiveDateTime, Utc};

pub use display::DisplayZone;
pub use grammar::Unit;
pub use zone::{UnknownZone, Zone};

/// The exact grammar, for `--help` texts and the dialog's help (lines under 80 columns).
pub const GRAMMAR_HELP: &str = "\
Times (case-insensitive; a time without an offset is in the configured zone):
  2026-12-24T10:00:00+01:00  RFC 3339, any offset (Z, +05:30), fractions ok
  2026-12-24                 that day at 00:00
  2026-12-24 10:00           day and time; also 10:00:30, T for the space,
                             an offset after the time: 10:00Z, 10:00+01:00
  10:00                      today at that time (H:MM or HH:MM, optional :SS)
  now                        this instant
  today, tomorrow, yesterday 00:00 of that day, or with a time: tomorrow 09:30
  mon .. sun, monday ..      the next such day after today: mon 09:00
  +2h -30m +90s -7d +1w      from now; units s, m (minutes), h, d, w; +1h30m;
                             d and w step the calendar (the clock time stays
                             across a DST change) and take a time: +1d 09:00
A local time skipped by a DST change is refused; one that occurs twice is
refused with both readings (add the offset to choose, e.g. +02:00).";

/// Why a typed time was not accepted. `Display` is one line a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    #[error("no time given")]
    Empty,
    /// Not in the grammar; `input` is shortened to 60 characters.
    #[error("{input:?} is not a time: {hint}")]
    Invalid { input: String, hint: String },
    /// A wall-clock time the zone skips (DST gap).
    #[error(
        "{} does not exist in {}: the clocks skip it for daylight saving time",
        local.format("%Y-%m-%d %H:%M"),
        zone.describe()
    )]
    Nonexistent { local: NaiveDateTime, zone: Zone },
    /// A wall-clock time the zone passes twice (DST overlap): the caller asks which one.
    #[error(
        "{} occurs twice (daylight saving time ends): choose {} or {}",
        earlier.format("%Y-%m-%d %H:%M"),
        earlier.to_rfc3339(),
        later.to_rfc3339()
    )]
    Ambiguous {
        earlier: DateTime<FixedOffset>,
        later: DateTime<FixedOffset>,
    },
    /// The arithmetic left chrono's range (`+9999999w`).
    #[error("{input:?} is too far from now")]
    OutOfRange { input: String },
}

/// Reads `input` per [`GRAMMAR_HELP`], relative to `now`, in `zone`, keeping the offset: the
/// zone's offset at that time, or the offset typed in an RFC 3339 input.
pub fn parse_zoned(
    input: &str,
    zone: &Zone,
    now: DateTime<Utc>,
) -> Result<DateTime<FixedOffset>, TimeError> {
    grammar::parse(input, zone, now)
}

/// [`parse_zoned`], as an instant in UTC (what query parameters send).
pub fn parse_instant(
    input: &str,
    zone: &Zone,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, TimeError> {
    parse_zoned(input, zone, now).map(|t| t.with_timezone(&Utc))
}

/// A bare clock time as the grammar reads it (`9:30`, `09:30`, `09:30:15`, 24-hour), without a
/// day: the reschedule End field places it on the start's day.
pub fn parse_clock(input: &str) -> Option<chrono::NaiveTime> {
    grammar::parse_clock(input.trim())
}

/// RFC 3339 in UTC with a `Z`, whole seconds when there is no fraction: what the CLI sends.
pub fn to_utc_rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// A length of time as the offsets of [`GRAMMAR_HELP`] spell it, without the sign: `30s`,
/// `5m`, `1h30m`, `2d`, `1w` (a day is 24 hours here: a period, not a calendar step).
pub fn parse_period(input: &str) -> Result<chrono::TimeDelta, String> {
    let t = input.trim();
    let hint =
        || format!("{t:?} is not a length of time: a number and a unit (30s, 5m, 1h30m, 2d)");
    if !t.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(hint());
    }
    match grammar::parse_offset(&format!("+{}", t.to_ascii_lowercase())) {
        Some(Ok((days, exact))) => chrono::TimeDelta::try_days(days)
            .and_then(|d| d.checked_add(&exact))
            .ok_or_else(hint),
        Some(Err(e)) => Err(format!("{t:?}: {e}")),
        None => Err(hint()),
    }
}
