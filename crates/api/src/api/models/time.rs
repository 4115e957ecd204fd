//! Server timestamps: every format the seed leaves open, parsed without ever shifting a date.

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// A point in time, or a calendar date, as the server sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum When {
    Instant(DateTime<Utc>),
    /// A date without a time: never shifted across days by time zones.
    Date(NaiveDate),
}

/// A timestamp field: the original text plus what it parsed to (if it parsed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Timestamp {
    raw: String,
    when: Option<When>,
}

impl Timestamp {
    /// Accepts RFC 3339 with or without fractions, `YYYY-MM-DD HH:MM:SS[.f]` and
    /// `YYYY-MM-DDTHH:MM:SS[.f]` without offset (read as UTC), a date alone, and Unix seconds.
    pub fn parse(raw: &str) -> Self {
        Timestamp {
            raw: raw.to_string(),
            when: parse_when(raw.trim()),
        }
    }

    pub fn raw(&self) -> &str {
        &self.raw
    }

    pub fn when(&self) -> Option<When> {
        self.when
    }

    /// The instant (a date alone counts as its midnight UTC), for ordering and ages.
    pub fn instant(&self) -> Option<DateTime<Utc>> {
        match self.when? {
            When::Instant(t) => Some(t),
            When::Date(d) => Some(Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?)),
        }
    }

    /// `2026-11-22 14:03` on the display clock (`crate::clock`); a date alone as
    /// `2026-11-22`; text that did not parse, as it came.
    pub fn shown(&self) -> String {
        crate::clock::get().format(self)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown())
    }
}

fn parse_when(s: &str) -> Option<When> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(When::Instant(t.with_timezone(&Utc)));
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
    ] {
        if let Ok(t) = DateTime::parse_from_str(s, fmt) {
            return Some(When::Instant(t.with_timezone(&Utc)));
        }
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(When::Instant(Utc.from_utc_datetime(&t)));
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Some(When::Date(d));
    }
    if !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit()) {
        let secs: i64 = s.parse().ok()?;
        return DateTime::from_timestamp(secs, 0).map(When::Instant);
    }
    None
}
