//! Timestamps as the sandbox writes them (RFC 3339, UTC, microseconds) and reads them
//! (filters and reschedule bodies accept RFC 3339, `YYYY-MM-DD HH:MM:SS` and a date alone).

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;

/// `2025-03-04T10:11:12.123456Z`.
pub fn format_ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// `2025-03-04`.
pub fn format_date(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// An instant from text. Text without an offset is wall-clock time in `zone`; a date alone is
/// midnight there.
pub fn parse_instant(s: &str, zone: Tz) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    let naive = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
    .or_else(|| {
        NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    })?;
    zone.from_local_datetime(&naive)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
}

/// Reads back a timestamp the sandbox wrote (or any RFC 3339 / date-only value).
pub fn parse_stored(s: &str) -> Option<DateTime<Utc>> {
    parse_instant(s, Tz::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_micros_and_reads_local_times() {
        let t = Utc.with_ymd_and_hms(2025, 3, 4, 10, 11, 12).unwrap();
        assert_eq!(format_ts(t), "2025-03-04T10:11:12.000000Z");
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        assert_eq!(
            parse_instant("2025-03-04 11:11:12", berlin),
            Some(t),
            "naive time is read in the given zone"
        );
        assert_eq!(parse_instant("2025-03-04T10:11:12Z", berlin), Some(t));
        assert!(parse_instant("yesterday", berlin).is_none());
    }
}
