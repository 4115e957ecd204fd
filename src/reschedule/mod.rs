//! Rescheduling an appointment, apart from any screen: the id from a pasted link, the new
//! times, the exact body, its summary in words, and the local log of what was sent. Shared by
//! `crmdash appointments reschedule` and the dashboard's dialog so both send the same bytes.

mod body;
pub mod log;
mod summary;

#[cfg(test)]
mod tests;

use chrono::{DateTime, FixedOffset, TimeDelta, Utc};

use crate::timeparse::Zone;

pub use body::{
    DialogField, RescheduleError, build_body, format_time, map_server_field, parse_extra,
};
pub use log::{RescheduleLogEntry, append_log, read_log};
pub use summary::{Shift, Summary, next_quarter_hour, shift, summary};

/// The new time of an appointment. The end is optional: some services take a start only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RescheduleTimes {
    pub start: DateTime<FixedOffset>,
    pub end: Option<DateTime<FixedOffset>>,
}

/// How the end is given: not at all, as a time, or as a duration after the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndSpec {
    None,
    At(DateTime<FixedOffset>),
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

/// The End of a reschedule, as typed in the dialog's End field or `--end`: empty is no end;
/// a length (`30m`, `1h`, `90m`, `1h30m`, `1:30`, a bare number of minutes), with or without
/// a leading `+` (`+1h` is a length too, not "an hour from now"); else a time in the shared
/// grammar, read in `zone`.
pub fn parse_end(text: &str, zone: &Zone, now: DateTime<Utc>) -> Result<EndSpec, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(EndSpec::None);
    }
    let length = t.strip_prefix('+').unwrap_or(t);
    if let Ok(d) = parse_duration(length) {
        return Ok(EndSpec::Duration(d));
    }
    crate::timeparse::parse_zoned(t, zone, now)
        .map(EndSpec::At)
        .map_err(|e| format!("{e} (or a length like 30m, 1h, 90m)"))
}

/// The longest duration accepted (a multi-day appointment is possible; a year is a typo).
pub const MAX_DURATION_DAYS: i64 = 14;

/// `15m`, `30m`, `1h`, `90m`, `1h30m`, `1h 30m`, `2h`, `1:30` (hours:minutes) or a bare
/// number of minutes (`45`); also `min`, `hr`, `hours`, `d`. Positive, at most 14 days.
pub fn parse_duration(s: &str) -> Result<TimeDelta, String> {
    const HINT: &str = "a duration is like 15m, 30m, 1h, 90m or 1h30m";
    let t = s.trim().to_ascii_lowercase();
    if t.is_empty() {
        return Err("no duration given".into());
    }
    if !t.is_ascii() || t.len() > 32 {
        return Err(HINT.into());
    }
    let minutes: i64 = if let Some((h, m)) = t.split_once(':') {
        let num = |p: &str| {
            (!p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse::<i64>().ok())
                .flatten()
        };
        match (num(h), num(m)) {
            (Some(h), Some(m)) if m < 60 => h * 60 + m,
            _ => return Err(HINT.into()),
        }
    } else if t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse::<i64>().map_err(|_| HINT.to_string())?
    } else {
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
            let per = match &rest[..letters] {
                "m" | "min" | "mins" | "minute" | "minutes" => 1,
                "h" | "hr" | "hrs" | "hour" | "hours" => 60,
                "d" | "day" | "days" => 24 * 60,
                _ => return Err(HINT.into()),
            };
            rest = &rest[letters..];
            total += n * per;
        }
        total
    };
    if minutes <= 0 {
        return Err("a duration must be longer than zero".into());
    }
    if minutes > MAX_DURATION_DAYS * 24 * 60 {
        return Err(format!("a duration is at most {MAX_DURATION_DAYS} days"));
    }
    Ok(TimeDelta::minutes(minutes))
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
