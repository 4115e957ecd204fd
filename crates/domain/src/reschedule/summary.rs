//! The new time in words, with warnings, and the dialog's quick shifts (DST-aware).

use chrono::{DateTime, Days, FixedOffset, NaiveTime, TimeDelta, Timelike, Utc};

use super::RescheduleTimes;
use crate::timeparse::{TimeError, Zone};

/// The working day the warnings assume.
const DAY_START: NaiveTime = NaiveTime::from_hms_opt(7, 0, 0).unwrap();
const DAY_END: NaiveTime = NaiveTime::from_hms_opt(20, 0, 0).unwrap();

/// The warning of an end on a later day than the start.
pub(super) const SPANS_DAYS: &str = "spans more than one day";

/// "Thu 24 Dec 2026, 10:00-11:00 CET (09:00-10:00 UTC)" and what deserves a second look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub text: String,
    /// "in the past", "outside 07:00-20:00", "spans more than one day".
    pub warnings: Vec<String>,
}

/// Describes `times` in `zone` (UTC in brackets, left out when the zone is at UTC).
pub fn summary(times: &RescheduleTimes, zone: &Zone, now: DateTime<Utc>) -> Summary {
    let start_utc = times.start.to_utc();
    let start = zone.from_utc(start_utc);
    let start_abbr = zone.abbreviation(start_utc);
    let day = |t: &DateTime<FixedOffset>| t.format("%a %-d %b %Y").to_string();
    let hm = |t: &DateTime<FixedOffset>| t.format("%H:%M").to_string();
    let utc_hm = |t: DateTime<Utc>| t.format("%H:%M").to_string();
    let utc_day_hm = |t: DateTime<Utc>| t.format("%a %-d %b %H:%M").to_string();

    let mut warnings = Vec::new();
    if start_utc < now {
        warnings.push("the new time is in the past".to_string());
    }
    let (local, utc, spans_days, outside) = match times.end {
        None => {
            let local = format!("{}, {} {start_abbr}", day(&start), hm(&start));
            let utc = if start_utc.date_naive() == start.date_naive() {
                utc_hm(start_utc)
            } else {
                utc_day_hm(start_utc)
            };
            let t = start.time();
            (local, utc, false, t < DAY_START || t >= DAY_END)
        }
        Some(end) => {
            let end_utc = end.to_utc();
            let end_l = zone.from_utc(end_utc);
            let end_abbr = zone.abbreviation(end_utc);
            // An end at midnight closes the start's day rather than opening the next.
            let ends_at_midnight = end_l.time() == NaiveTime::MIN
                && start.date_naive().checked_add_days(Days::new(1)) == Some(end_l.date_naive());
            let same_day = end_l.date_naive() == start.date_naive() || ends_at_midnight;
            let local = if same_day && start_abbr == end_abbr {
                format!(
                    "{}, {}-{} {start_abbr}",
                    day(&start),
                    hm(&start),
                    hm(&end_l)
                )
            } else if same_day {
                format!(
                    "{}, {} {start_abbr}-{} {end_abbr}",
                    day(&start),
                    hm(&start),
                    hm(&end_l)
                )
            } else {
                format!(
                    "{}, {} {start_abbr} - {}, {} {end_abbr}",
                    day(&start),
                    hm(&start),
                    day(&end_l),
                    hm(&end_l)
                )
            };
            let utc_same = start_utc.date_naive() == start.date_naive()
                && (end_utc.date_naive() == start_utc.date_naive()
                    || (end_utc.time() == NaiveTime::MIN && same_day));
            let utc = if utc_same {
                format!("{}-{}", utc_hm(start_utc), utc_hm(end_utc))
            } else {
                format!("{} - {}", utc_day_hm(start_utc), utc_day_hm(end_utc))
            };
            let end_t = end_l.time();
            let outside = start.time() < DAY_START
                || start.time() >= DAY_END
                || !same_day
                || ends_at_midnight
                || end_t > DAY_END;
            (local, utc, !same_day, outside)
        }
    };
    if outside {
        warnings.push(format!(
            "outside {}-{} in {}",
            DAY_START.format("%H:%M"),
            DAY_END.format("%H:%M"),
            zone.describe()
        ));
    }
    if spans_days {
        warnings.push(SPANS_DAYS.to_string());
    }
    let at_utc = start.offset().local_minus_utc() == 0
        && times
            .end
            .is_none_or(|e| zone.from_utc(e.to_utc()).offset().local_minus_utc() == 0);
    let text = if at_utc {
        local
    } else {
        format!("{local} ({utc} UTC)")
    };
    Summary { text, warnings }
}

/// A quick key's move: exact minutes (`Alt-Up`/`Alt-Down`), or calendar days that keep the
/// wall-clock time in the zone (`Alt-Left`/`Alt-Right`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shift {
    Minutes(i64),
    Days(i64),
}

/// Moves the start by `by` and keeps the duration. Minutes are exact time (15 minutes after
/// 01:45 on a spring-forward night is 03:00); days keep the clock time, so a day's shift onto
/// a skipped or doubled local time is refused with timeparse's `Nonexistent` / `Ambiguous`.
/// Results carry the zone's offset at their instant.
pub fn shift(
    times: &RescheduleTimes,
    by: Shift,
    zone: &Zone,
) -> Result<RescheduleTimes, TimeError> {
    let out_of_range = || TimeError::OutOfRange {
        input: format!("{by:?}"),
    };
    let duration = times.duration();
    let start = match by {
        Shift::Minutes(m) => {
            let d = TimeDelta::try_minutes(m).ok_or_else(out_of_range)?;
            let t = times.start.checked_add_signed(d).ok_or_else(out_of_range)?;
            zone.from_utc(t.to_utc())
        }
        Shift::Days(n) => {
            let local = zone.from_utc(times.start.to_utc()).naive_local();
            let moved = if n >= 0 {
                local.checked_add_days(Days::new(n.unsigned_abs()))
            } else {
                local.checked_sub_days(Days::new(n.unsigned_abs()))
            }
            .ok_or_else(out_of_range)?;
            zone.localize(moved)?
        }
    };
    let end = match duration {
        Some(d) => {
            let e = start.checked_add_signed(d).ok_or_else(out_of_range)?;
            Some(zone.from_utc(e.to_utc()))
        }
        None => None,
    };
    Ok(RescheduleTimes { start, end })
}

/// Rounds a start to the next quarter hour, for a dialog's first suggestion.
pub fn next_quarter_hour(now: DateTime<Utc>, zone: &Zone) -> DateTime<FixedOffset> {
    let local = zone.from_utc(now);
    let past = i64::from(local.minute() % 15) * 60 + i64::from(local.second());
    let step =
        TimeDelta::seconds(15 * 60 - past) - TimeDelta::nanoseconds(i64::from(local.nanosecond()));
    zone.from_utc(now + step)
}
