//! The parser behind `parse_zoned`: screens hostile text first, then tries each form.

use chrono::offset::LocalResult;
use chrono::{
    DateTime, Datelike, Days, FixedOffset, NaiveDate, NaiveTime, TimeDelta, Utc, Weekday,
};

use super::TimeError;
use super::zone::{Zone, shorten};

/// No form of the grammar is longer than this; longer input is refused before any parsing.
const MAX_LEN: usize = 64;

const GENERAL_HINT: &str =
    "try 2026-12-24 10:00, 2026-12-24, 10:00, tomorrow 09:30, mon 09:00, +2h, -7d or RFC 3339";

pub(super) fn parse(
    input: &str,
    zone: &Zone,
    now: DateTime<Utc>,
) -> Result<DateTime<FixedOffset>, TimeError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(TimeError::Empty);
    }
    let invalid = |hint: &str| TimeError::Invalid {
        input: shorten(trimmed),
        hint: hint.to_string(),
    };
    let len = trimmed.chars().count();
    if len > MAX_LEN {
        return Err(invalid(&format!(
            "too long ({len} characters; a time has at most {MAX_LEN})"
        )));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(invalid("it contains a control character"));
    }
    if !trimmed.is_ascii() {
        return Err(invalid(
            "it contains a character no time uses (only digits, letters, spaces and + - : .)",
        ));
    }
    // ASCII from here on: byte slicing is safe.
    if let Ok(t) = DateTime::parse_from_rfc3339(&trimmed.to_ascii_uppercase()) {
        return Ok(t);
    }
    let lower = trimmed.to_ascii_lowercase();
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    let ctx = Ctx {
        zone,
        now,
        input: trimmed,
    };
    match tokens.as_slice() {
        [one] => ctx.single(one),
        [day, clock] => ctx.day_with_time(day, clock),
        _ => Err(invalid(GENERAL_HINT)),
    }
}

struct Ctx<'a> {
    zone: &'a Zone,
    now: DateTime<Utc>,
    input: &'a str,
}

impl Ctx<'_> {
    fn invalid(&self, hint: &str) -> TimeError {
        TimeError::Invalid {
            input: shorten(self.input),
            hint: hint.to_string(),
        }
    }

    fn out_of_range(&self) -> TimeError {
        TimeError::OutOfRange {
            input: shorten(self.input),
        }
    }

    fn today(&self) -> NaiveDate {
        self.zone.from_utc(self.now).date_naive()
    }

    /// One token: a date, a dateTtime, a clock time, a keyword, a weekday or a relative offset.
    fn single(&self, tok: &str) -> Result<DateTime<FixedOffset>, TimeError> {
        if tok == "now" {
            return Ok(self.zone.from_utc(self.now));
        }
        if let Some(rel) = Relative::parse(tok) {
            return self.relative(&rel?, None);
        }
        if let Some((date, clock)) = tok.split_once('t')
            && looks_like_date(date)
        {
            return self.day_with_time(date, clock);
        }
        if let Some(time) = parse_clock(tok) {
            return self.zone.localize(self.today().and_time(time));
        }
        let day = self.day(tok)?;
        Ok(start_of_day(self.zone, day))
    }

    /// `<day> HH:MM` where day is a date, a keyword, a weekday or a calendar offset; after a
    /// date the time may carry an offset (`Z`, `+01:00`, `+0100`, `+01`).
    fn day_with_time(&self, tok: &str, clock: &str) -> Result<DateTime<FixedOffset>, TimeError> {
        let (clock, offset) = split_offset(clock)
            .ok_or_else(|| self.invalid(&format!("{clock:?} has a malformed offset")))?;
        let time = parse_clock(clock).ok_or_else(|| {
            self.invalid(&format!(
                "{clock:?} is not a clock time (HH:MM or HH:MM:SS)"
            ))
        })?;
        if let Some(offset) = offset {
            if !looks_like_date(tok) {
                return Err(self.invalid("an offset needs a date: 2026-12-24 10:00+01:00"));
            }
            let local = self.date(tok)?.and_time(time);
            return local
                .and_local_timezone(offset)
                .single()
                .ok_or_else(|| self.out_of_range());
        }
        if let Some(rel) = Relative::parse(tok) {
            return self.relative(&rel?, Some(time));
        }
        if tok == "now" {
            return Err(self.invalid("`now` takes no time; use `today 10:00`"));
        }
        let day = self.day(tok)?;
        self.zone.localize(day.and_time(time))
    }

    /// A calendar day named by a date, `today`/`tomorrow`/`yesterday` or a weekday.
    fn day(&self, tok: &str) -> Result<NaiveDate, TimeError> {
        let today = self.today();
        let step = |d: Option<NaiveDate>| d.ok_or_else(|| self.out_of_range());
        match tok {
            "today" => return Ok(today),
            "tomorrow" => return step(today.checked_add_days(Days::new(1))),
            "yesterday" => return step(today.checked_sub_days(Days::new(1))),
            _ => {}
        }
        if let Some(wd) = parse_weekday(tok) {
            let ahead =
                (7 + wd.num_days_from_monday() - today.weekday().num_days_from_monday()) % 7;
            let ahead = if ahead == 0 { 7 } else { ahead };
            return step(today.checked_add_days(Days::new(u64::from(ahead))));
        }
        if looks_like_date(tok) {
            return self.date(tok);
        }
        Err(self.invalid(GENERAL_HINT))
    }

    fn date(&self, s: &str) -> Result<NaiveDate, TimeError> {
        let parts: Vec<&str> = s.split('-').collect();
        let ok_shape = matches!(parts.as_slice(), [y, m, d]
            if y.len() == 4 && (1..=2).contains(&m.len()) && (1..=2).contains(&d.len())
                && s.bytes().all(|b| b.is_ascii_digit() || b == b'-'));
        if !ok_shape {
            return Err(self.invalid("dates are written YYYY-MM-DD"));
        }
        let num = |p: &str| p.parse::<u32>().ok();
        let (y, m, d) = (num(parts[0]), num(parts[1]), num(parts[2]));
        y.zip(m)
            .zip(d)
            .and_then(|((y, m), d)| NaiveDate::from_ymd_opt(y as i32, m, d))
            .ok_or_else(|| self.invalid(&format!("{s} is not a day of the calendar")))
    }

    fn relative(
        &self,
        rel: &Relative,
        time: Option<NaiveTime>,
    ) -> Result<DateTime<FixedOffset>, TimeError> {
        if time.is_some() && rel.exact != TimeDelta::zero() {
            return Err(self.invalid("only day and week offsets take a time: +1d 09:00"));
        }
        let here = self.zone.from_utc(self.now);
        let mut t = if rel.days == 0 && time.is_none() {
            here
        } else {
            // Days move the wall clock, so `+1d` keeps the clock time across a DST change.
            let local = here.naive_local();
            let moved = if rel.days >= 0 {
                local.checked_add_days(Days::new(rel.days.unsigned_abs()))
            } else {
                local.checked_sub_days(Days::new(rel.days.unsigned_abs()))
            }
            .ok_or_else(|| self.out_of_range())?;
            let moved = match time {
                Some(clock) => moved.date().and_time(clock),
                None => moved,
            };
            self.zone.localize(moved)?
        };
        if rel.exact != TimeDelta::zero() {
            t = t
                .checked_add_signed(rel.exact)
                .ok_or_else(|| self.out_of_range())?;
            t = self.zone.from_utc(t.with_timezone(&Utc));
        }
        Ok(t)
    }
}

/// A signed offset's calendar days and exact time (`+1d2h`), as [`Relative::parse`] reads it.
pub(super) fn parse_offset(tok: &str) -> Option<Result<(i64, TimeDelta), TimeError>> {
    Relative::parse(tok).map(|r| r.map(|r| (r.days, r.exact)))
}

/// A unit of time as offsets and lengths spell it (`+2h`, `-7d`, `1h30m`, `90 mins`),
/// lower-case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    Minutes,
    Hours,
    /// An offset steps the calendar by days (the clock time stays across a DST change).
    Days,
    Weeks,
}

impl Unit {
    /// The unit a word names: `s`, `sec`, `m`, `min`, `minutes`, `h`, `hr`, `d`, `w`, `wk`, ...
    pub fn parse(word: &str) -> Option<Unit> {
        Some(match word {
            "s" | "sec" | "secs" | "second" | "seconds" => Unit::Seconds,
            "m" | "min" | "mins" | "minute" | "minutes" => Unit::Minutes,
            "h" | "hr" | "hrs" | "hour" | "hours" => Unit::Hours,
            "d" | "day" | "days" => Unit::Days,
            "w" | "wk" | "week" | "weeks" => Unit::Weeks,
            _ => return None,
        })
    }

    /// Seconds in one, a day counted as 24 hours (a length, not a calendar step).
    pub fn seconds(self) -> i64 {
        match self {
            Unit::Seconds => 1,
            Unit::Minutes => 60,
            Unit::Hours => 3600,
            Unit::Days => 86_400,
            Unit::Weeks => 7 * 86_400,
        }
    }
}

/// A signed offset from now: whole calendar days, plus exact time.
struct Relative {
    days: i64,
    exact: TimeDelta,
}

impl Relative {
    /// `None` when `tok` is not shaped like an offset (no leading sign); `Some(Err)` when it
    /// is but is wrong.
    fn parse(tok: &str) -> Option<Result<Relative, TimeError>> {
        let (neg, body) = match tok.as_bytes().first()? {
            b'+' => (false, &tok[1..]),
            b'-' => (true, &tok[1..]),
            _ => return None,
        };
        let bad = |hint: &str| {
            Some(Err(TimeError::Invalid {
                input: shorten(tok),
                hint: hint.to_string(),
            }))
        };
        const UNITS: &str = "an offset is a sign, a number and a unit (s, m, h, d, w): +2h, -7d";
        if body.is_empty() {
            return bad(UNITS);
        }
        let mut days: i64 = 0;
        let mut exact = TimeDelta::zero();
        let mut rest = body;
        while !rest.is_empty() {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 7 {
                return bad(if digits > 7 {
                    "that number is too large"
                } else {
                    UNITS
                });
            }
            let n: i64 = rest[..digits].parse().ok()?;
            rest = &rest[digits..];
            let letters = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
            let unit = &rest[..letters];
            rest = &rest[letters..];
            let n = if neg { -n } else { n };
            let add = match Unit::parse(unit) {
                Some(Unit::Seconds) => TimeDelta::try_seconds(n),
                Some(Unit::Minutes) => TimeDelta::try_minutes(n),
                Some(Unit::Hours) => TimeDelta::try_hours(n),
                Some(Unit::Days) => {
                    days += n;
                    continue;
                }
                Some(Unit::Weeks) => {
                    days += n * 7;
                    continue;
                }
                None => return bad(UNITS),
            };
            match add.and_then(|a| exact.checked_add(&a)) {
                Some(e) => exact = e,
                None => return bad("that offset is too large"),
            }
        }
        Some(Ok(Relative { days, exact }))
    }
}

/// The first instant of `day`: midnight, or where the day really starts when a DST change
/// skips midnight (a few zones switch at 00:00); the earlier reading of a doubled midnight.
fn start_of_day(zone: &Zone, day: NaiveDate) -> DateTime<FixedOffset> {
    let mut local = day.and_time(NaiveTime::MIN);
    // A gap is at most a few hours; step in minutes until the clock exists again.
    for _ in 0..(24 * 60) {
        match zone.resolve(local) {
            LocalResult::Single(t) => return t,
            LocalResult::Ambiguous(a, b) => return a.min(b),
            LocalResult::None => local += TimeDelta::minutes(1),
        }
    }
    // Only a date-line jump (Samoa, 2011-12-30) skips a whole day: it starts when the next does.
    match zone.resolve(local) {
        LocalResult::Single(t) => t,
        LocalResult::Ambiguous(a, b) => a.min(b),
        LocalResult::None => zone.from_utc(local.and_utc()),
    }
}

/// A clock time and the offset after it, if any: `10:00z`, `10:00+01:00`, `10:00-0430`,
/// `10:00+01`. `None` when an offset is there but malformed or 24 hours or more.
fn split_offset(s: &str) -> Option<(&str, Option<FixedOffset>)> {
    if let Some(clock) = s.strip_suffix('z') {
        return Some((clock, FixedOffset::east_opt(0)));
    }
    let Some(at) = s.rfind(['+', '-']).filter(|at| *at > 0) else {
        return Some((s, None));
    };
    let (clock, off) = s.split_at(at);
    let sign = if off.starts_with('-') { -1 } else { 1 };
    let digits: String = off[1..].chars().filter(|c| *c != ':').collect();
    let ok_shape = off[1..].bytes().all(|b| b.is_ascii_digit() || b == b':')
        && matches!(digits.len(), 2 | 4)
        && (off[1..].len() == digits.len() || off[1..].find(':') == Some(2));
    if !ok_shape {
        return None;
    }
    let h: i32 = digits[..2].parse().ok()?;
    let m: i32 = match &digits[2..] {
        "" => 0,
        m => m.parse().ok()?,
    };
    if h > 23 || m > 59 {
        return None;
    }
    Some((clock, FixedOffset::east_opt(sign * (h * 3600 + m * 60))))
}

fn looks_like_date(s: &str) -> bool {
    s.len() >= 8 && s.as_bytes()[..4].iter().all(u8::is_ascii_digit) && s.as_bytes()[4] == b'-'
}

/// `H:MM`, `HH:MM`, `HH:MM:SS`, 24-hour clock.
pub(super) fn parse_clock(s: &str) -> Option<NaiveTime> {
    let parts: Vec<&str> = s.split(':').collect();
    let field = |p: &str, min: usize| {
        ((min..=2).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    match parts.as_slice() {
        [h, m] => NaiveTime::from_hms_opt(field(h, 1)?, field(m, 2)?, 0),
        [h, m, sec] => NaiveTime::from_hms_opt(field(h, 1)?, field(m, 2)?, field(sec, 2)?),
        _ => None,
    }
}

fn parse_weekday(s: &str) -> Option<Weekday> {
    Some(match s {
        "mon" | "monday" => Weekday::Mon,
        "tue" | "tues" | "tuesday" => Weekday::Tue,
        "wed" | "wednesday" => Weekday::Wed,
        "thu" | "thur" | "thurs" | "thursday" => Weekday::Thu,
        "fri" | "friday" => Weekday::Fri,
        "sat" | "saturday" => Weekday::Sat,
        "sun" | "sunday" => Weekday::Sun,
        _ => return None,
    })
}
