//! Rescheduling an appointment, apart from any screen: the id from a pasted link, the new
//! times, the exact body, its summary in words, and the local log of what was sent. Shared by
//! `crmdash appointments reschedule` and the dashboard's dialog so both send the same bytes.

mod body;
pub mod log;
pub mod plan;
mod summary;

#[cfg(test)]
mod tests;

use chrono::{DateTime, Days, FixedOffset, NaiveTime, TimeDelta, Utc};

use crate::timeparse::{Unit, Zone};

pub use body::{
    DialogField, RescheduleError, build_body, format_time, map_server_field, parse_extra, send_time,
};
pub use log::{RescheduleLogEntry, append_log, read_log};
pub use summary::{Shift, Summary, next_quarter_hour, shift, summary};

use summary::SPANS_DAYS;

/// The new time of an appointment. The end is optional: some services take a start only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RescheduleTimes {
    pub start: DateTime<FixedOffset>,
    pub end: Option<DateTime<FixedOffset>>,
}

/// How the end is given: not at all, as a time, as a clock time on the start's day, or as a
/// length after the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndSpec {
    None,
    At(DateTime<FixedOffset>),
    /// `10:00`: that time on the start's day, or on the next day when it is before the start.
    Clock(NaiveTime),
    Duration(TimeDelta),
}

impl RescheduleTimes {
    /// The start and the end the spec names, both shown with `zone`'s offset at their
    /// instant (a duration across a DST change ends at the right instant with the right
    /// offset). Refuses an end at or before the start.
    pub fn new(
        start: DateTime<FixedOffset>,
        end: EndSpec,
        zone: &Zone,
    ) -> Result<Self, RescheduleError> {
        let end = match end {
            EndSpec::None => None,
            EndSpec::At(t) => Some(t),
            EndSpec::Clock(clock) => Some(end_at_clock(start, clock, zone)?),
            EndSpec::Duration(d) => Some(
                start
                    .checked_add_signed(d)
                    .map(|t| zone.from_utc(t.to_utc()))
                    .ok_or(RescheduleError::OutOfRange)?,
            ),
        };
        let times = RescheduleTimes { start, end };
        times.check()?;
        Ok(times)
    }

    /// The end must come after the start.
    pub fn check(&self) -> Result<(), RescheduleError> {
        match self.end {
            Some(end) if end <= self.start => Err(RescheduleError::EndNotAfterStart {
                start: self.start,
                end,
            }),
            _ => Ok(()),
        }
    }

    pub fn duration(&self) -> Option<TimeDelta> {
        self.end.map(|e| e - self.start)
    }
}

/// A clock time as an end: on the start's day in `zone`, or the next day when it is before
/// the start there; the start's own time is an end equal to the start (refused by `check`).
fn end_at_clock(
    start: DateTime<FixedOffset>,
    clock: NaiveTime,
    zone: &Zone,
) -> Result<DateTime<FixedOffset>, RescheduleError> {
    let local = zone.from_utc(start.to_utc()).naive_local();
    let day = if clock < local.time() {
        local
            .date()
            .checked_add_days(Days::new(1))
            .ok_or(RescheduleError::OutOfRange)?
    } else {
        local.date()
    };
    if day == local.date() && clock == local.time() {
        return Ok(start);
    }
    zone.localize(day.and_time(clock))
        .map_err(RescheduleError::EndTime)
}

/// The new times from a start and an End as typed, with their summary; a clock time that
/// lands on the day after the start says so first among the warnings (instead of the
/// general "spans more than one day"). The dialog's preview and the CLI both read this.
pub fn describe(
    start: DateTime<FixedOffset>,
    end: EndSpec,
    zone: &Zone,
    now: DateTime<Utc>,
) -> Result<(RescheduleTimes, Summary), RescheduleError> {
    let times = RescheduleTimes::new(start, end, zone)?;
    let mut s = summary(&times, zone, now);
    if let Some(note) = ends_next_day(&times, end, zone) {
        s.warnings.retain(|w| w != SPANS_DAYS);
        s.warnings.insert(0, note);
    }
    Ok((times, s))
}

/// "ends the next day, Fri 25 Dec: 01:00 is before the start (23:00)" when a clock-time End
/// was placed on the day after the start's.
pub fn ends_next_day(times: &RescheduleTimes, end: EndSpec, zone: &Zone) -> Option<String> {
    let (EndSpec::Clock(clock), Some(end)) = (end, times.end) else {
        return None;
    };
    let start_l = zone.from_utc(times.start.to_utc());
    let end_l = zone.from_utc(end.to_utc());
    (end_l.date_naive() != start_l.date_naive()).then(|| {
        format!(
            "ends the next day, {}: {} is before the start ({})",
            end_l.format("%a %-d %b"),
            clock.format("%H:%M"),
            start_l.format("%H:%M")
        )
    })
}

/// The End of a reschedule, as typed in the dialog's End field or `--end`: empty is no end;
/// a length after the start, with a unit (`30m`, `1h`, `+1h`, `1h30m`, `1h 30m`, `2d`); a
/// clock time (`10:00`) on the start's day (the next day when it is before the start); else
/// a time in the shared grammar (`tomorrow 10:00`, `2026-12-24 10:00`), read in `zone`.
/// Refused: a negative length (`-30m` would count back from now) and a bare number.
pub fn parse_end(text: &str, zone: &Zone, now: DateTime<Utc>) -> Result<EndSpec, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(EndSpec::None);
    }
    if t.starts_with('-') {
        return Err(format!(
            "{t:?} is not an end: a length counts forward from the start (30m, 1h, 1h30m); \
             for a time, type it (10:00, tomorrow 10:00)"
        ));
    }
    if let Some(length) = t.strip_prefix('+') {
        return parse_duration(length)
            .map(EndSpec::Duration)
            .map_err(|e| format!("{t:?}: {e}"));
    }
    match parse_duration(t) {
        Ok(d) => return Ok(EndSpec::Duration(d)),
        // `2w` reads as a length with the wrong unit, not as a time: say so.
        Err(e) if e.starts_with("weeks") => return Err(format!("{t:?}: {e}")),
        Err(_) => {}
    }
    if let Some(clock) = crate::timeparse::parse_clock(t) {
        return Ok(EndSpec::Clock(clock));
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{t:?} is neither a time nor a length: {t}m is {t} minutes, and a time is written \
             with a colon (10:00)"
        ));
    }
    crate::timeparse::parse_zoned(t, zone, now)
        .map(EndSpec::At)
        .map_err(|e| format!("{e} (or a length like 30m, 1h, 1h30m)"))
}

/// The longest duration accepted (a multi-day appointment is possible; a year is a typo).
pub const MAX_DURATION_DAYS: i64 = 14;

/// A length with units: `15m`, `30m`, `1h`, `90m`, `1h30m`, `1h 30m`, `2h`; the units of the
/// time grammar's offsets ([`Unit`]: `s`, `min`, `hr`, `hours`, `d`, ...), a day 24 hours.
/// Positive, at most 14 days. Refused here: weeks (`2w` is a shift's unit, not an
/// appointment's length: a typo far likelier than a meeting that long; `14d` says it when
/// meant), `1:30` (a clock time, not a length) and a bare number (no unit).
pub fn parse_duration(s: &str) -> Result<TimeDelta, String> {
    const HINT: &str = "a length is like 15m, 30m, 1h, 90m or 1h30m";
    let t = s.trim().to_ascii_lowercase();
    if t.is_empty() {
        return Err("no length given".into());
    }
    if !t.is_ascii() || t.len() > 32 {
        return Err(HINT.into());
    }
    let compact: String = t.split_whitespace().collect();
    let mut rest = compact.as_str();
    let mut total: i64 = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 6 {
            return Err(HINT.into());
        }
        let n: i64 = rest[..digits].parse().map_err(|_| HINT.to_string())?;
        rest = &rest[digits..];
        let letters = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let unit = match Unit::parse(&rest[..letters]) {
            Some(Unit::Weeks) => {
                return Err(format!(
                    "weeks are not an appointment's length: {HINT} (days at most: 14d)"
                ));
            }
            Some(unit) => unit,
            None => return Err(HINT.into()),
        };
        rest = &rest[letters..];
        total += n * unit.seconds();
    }
    if total <= 0 {
        return Err("a length must be longer than zero".into());
    }
    if total > MAX_DURATION_DAYS * Unit::Days.seconds() {
        return Err(format!("a length is at most {MAX_DURATION_DAYS} days"));
    }
    Ok(TimeDelta::seconds(total))
}

/// The appointment id in what was typed or pasted: a bare id, or a link (absolute or a path)
/// whose path, or `#/...` fragment route, ends in `/appointments/<id>` or
/// `/appointments/<id>/reschedule`, with any query or fragment. A link's id is
/// percent-decoded (the client encodes it again when sending). `None` when there is no id.
pub fn extract_appointment_id(input: &str) -> Option<String> {
    let t = input.trim();
    if t.is_empty() || t.chars().count() > 2048 || t.chars().any(char::is_control) {
        return None;
    }
    if !t.contains('/') {
        let bare_ok = t.chars().count() <= 200
            && !t
                .chars()
                .any(|c| c.is_whitespace() || matches!(c, '?' | '#'));
        return bare_ok.then(|| t.to_string());
    }
    let (before_fragment, fragment) = match t.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (t, None),
    };
    let path = before_fragment.split('?').next().unwrap_or_default();
    id_in_path(path).or_else(|| {
        // Single-page apps route in the fragment: `https://app/#/appointments/42`.
        let f = fragment?;
        id_in_path(f.split('?').next().unwrap_or_default())
    })
}

fn id_in_path(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').collect();
    let at = segments
        .iter()
        .rposition(|s| s.eq_ignore_ascii_case("appointments"))?;
    let tail = &segments[at + 1..];
    let raw = match tail {
        [id] | [id, ""] => *id,
        [id, r] | [id, r, ""] if r.eq_ignore_ascii_case("reschedule") => *id,
        _ => return None,
    };
    let id = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()?
        .into_owned();
    let ok = !id.trim().is_empty()
        && !id.eq_ignore_ascii_case("reschedule")
        && id.chars().count() <= 200
        && !id.chars().any(char::is_control);
    ok.then_some(id)
}
