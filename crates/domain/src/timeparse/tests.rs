use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};
use proptest::prelude::*;

use super::*;

fn berlin() -> Zone {
    "Europe/Berlin".parse().unwrap()
}

fn new_york() -> Zone {
    "america/new_york".parse().unwrap()
}

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn fixed(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

/// Thursday 2026-12-10 15:20:05 UTC = 16:20:05 in Berlin.
fn now() -> DateTime<Utc> {
    utc("2026-12-10T15:20:05Z")
}

fn z(input: &str) -> Result<DateTime<FixedOffset>, TimeError> {
    parse_zoned(input, &berlin(), now())
}

#[test]
fn zone_names() {
    assert_eq!("local".parse::<Zone>().unwrap(), Zone::Local);
    assert_eq!("LOCAL".parse::<Zone>().unwrap(), Zone::Local);
    assert_eq!(berlin().to_string(), "Europe/Berlin");
    assert_eq!("europe/berlin".parse::<Zone>().unwrap(), berlin());
    assert_eq!("UTC".parse::<Zone>().unwrap().to_string(), "UTC");
    let err = "Mars/Olympus".parse::<Zone>().unwrap_err();
    assert!(err.to_string().contains("Mars/Olympus"), "{err}");
}

#[test]
fn rfc3339_keeps_its_offset() {
    assert_eq!(
        z("2026-12-24T10:00:00+05:30").unwrap(),
        fixed("2026-12-24T10:00:00+05:30")
    );
    assert_eq!(
        z("2026-12-24t10:00:00.250z").unwrap(),
        fixed("2026-12-24T10:00:00.250Z")
    );
    assert_eq!(
        parse_instant(" 2026-12-24T10:00:00-05:00 ", &berlin(), now()).unwrap(),
        utc("2026-12-24T15:00:00Z")
    );
}

#[test]
fn dates_and_date_times_are_in_the_zone() {
    assert_eq!(z("2026-12-24").unwrap(), fixed("2026-12-24T00:00:00+01:00"));
    assert_eq!(z("2026-07-01").unwrap(), fixed("2026-07-01T00:00:00+02:00"));
    assert_eq!(
        z("2026-12-24 10:00").unwrap(),
        fixed("2026-12-24T10:00:00+01:00")
    );
    assert_eq!(
        z("2026-12-24T10:00:30").unwrap(),
        fixed("2026-12-24T10:00:30+01:00")
    );
    assert_eq!(
        z("2026-12-24   9:05").unwrap(),
        fixed("2026-12-24T09:05:00+01:00")
    );
    let ny = parse_zoned("2026-12-24 10:00", &new_york(), now()).unwrap();
    assert_eq!(ny, fixed("2026-12-24T10:00:00-05:00"));
}

#[test]
fn keywords_and_clock_times() {
    assert_eq!(z("now").unwrap(), fixed("2026-12-10T16:20:05+01:00"));
    assert_eq!(z("NOW").unwrap().with_timezone(&Utc), now());
    assert_eq!(z("today").unwrap(), fixed("2026-12-10T00:00:00+01:00"));
    assert_eq!(
        z("Tomorrow 09:30").unwrap(),
        fixed("2026-12-11T09:30:00+01:00")
    );
    assert_eq!(z("yesterday").unwrap(), fixed("2026-12-09T00:00:00+01:00"));
    assert_eq!(z("14:30").unwrap(), fixed("2026-12-10T14:30:00+01:00"));
    // In New York it is still the 10th at 10:20; "today" follows the zone's calendar.
    let late = utc("2026-12-11T02:00:00Z");
    assert_eq!(
        parse_zoned("today", &new_york(), late).unwrap(),
        fixed("2026-12-10T00:00:00-05:00")
    );
}

#[test]
fn weekdays_mean_the_next_one_after_today() {
    // now() is a Thursday.
    assert_eq!(z("mon 09:00").unwrap(), fixed("2026-12-14T09:00:00+01:00"));
    assert_eq!(z("friday").unwrap(), fixed("2026-12-11T00:00:00+01:00"));
    assert_eq!(z("thu").unwrap(), fixed("2026-12-17T00:00:00+01:00"));
}

#[test]
fn relative_offsets() {
    assert_eq!(z("+2h").unwrap(), fixed("2026-12-10T18:20:05+01:00"));
    assert_eq!(z("-30m").unwrap(), fixed("2026-12-10T15:50:05+01:00"));
    assert_eq!(z("+90s").unwrap(), fixed("2026-12-10T16:21:35+01:00"));
    assert_eq!(z("-7d").unwrap(), fixed("2026-12-03T16:20:05+01:00"));
    assert_eq!(z("+1w").unwrap(), fixed("2026-12-17T16:20:05+01:00"));
    assert_eq!(z("+1h30m").unwrap(), fixed("2026-12-10T17:50:05+01:00"));
    assert_eq!(z("+1d 09:00").unwrap(), fixed("2026-12-11T09:00:00+01:00"));
    assert_eq!(z("+2days").unwrap(), fixed("2026-12-12T16:20:05+01:00"));
    assert!(matches!(z("+2h 09:00"), Err(TimeError::Invalid { .. })));
    assert!(matches!(z("2h"), Err(TimeError::Invalid { .. })));
    assert!(matches!(z("+2y"), Err(TimeError::Invalid { .. })));
    assert!(matches!(
        z("+9999999w9999999w"),
        Err(TimeError::OutOfRange { .. })
    ));
    assert!(matches!(z("+99999999h"), Err(TimeError::Invalid { .. })));
}

#[test]
fn relative_days_keep_the_wall_clock_across_dst() {
    // Saturday before Berlin springs forward (2026-03-29 02:00 -> 03:00).
    let sat = utc("2026-03-28T09:00:00Z"); // 10:00 CET
    assert_eq!(
        parse_zoned("+1d", &berlin(), sat).unwrap(),
        fixed("2026-03-29T10:00:00+02:00")
    );
    // Only 23 hours passed; `+24h` is exact time instead.
    assert_eq!(
        parse_zoned("+24h", &berlin(), sat).unwrap(),
        fixed("2026-03-29T11:00:00+02:00")
    );
    // New York falls back on 2026-11-01.
    let before = utc("2026-10-31T13:00:00Z"); // 09:00 EDT
    assert_eq!(
        parse_zoned("+1d", &new_york(), before).unwrap(),
        fixed("2026-11-01T09:00:00-05:00")
    );
}

#[test]
fn dst_gap_is_refused() {
    let err = z("2026-03-29 02:30").unwrap_err();
    let local = NaiveDate::from_ymd_opt(2026, 3, 29)
        .unwrap()
        .and_hms_opt(2, 30, 0)
        .unwrap();
    assert_eq!(
        err,
        TimeError::Nonexistent {
            local,
            zone: berlin()
        }
    );
    assert!(
        err.to_string().contains("does not exist in Europe/Berlin"),
        "{err}"
    );
    let ny = parse_zoned("2026-03-08 02:15", &new_york(), now()).unwrap_err();
    assert!(matches!(ny, TimeError::Nonexistent { .. }));
    // Just outside the gap is fine.
    assert_eq!(
        z("2026-03-29 03:00").unwrap(),
        fixed("2026-03-29T03:00:00+02:00")
    );
}

#[test]
fn dst_overlap_offers_both_readings() {
    let err = z("2026-10-25 02:30").unwrap_err();
    assert_eq!(
        err,
        TimeError::Ambiguous {
            earlier: fixed("2026-10-25T02:30:00+02:00"),
            later: fixed("2026-10-25T02:30:00+01:00"),
        }
    );
    assert!(err.to_string().contains("+02:00"), "{err}");
    let ny = parse_zoned("2026-11-01 01:30", &new_york(), now()).unwrap_err();
    assert_eq!(
        ny,
        TimeError::Ambiguous {
            earlier: fixed("2026-11-01T01:30:00-04:00"),
            later: fixed("2026-11-01T01:30:00-05:00"),
        }
    );
    // Typing the offset chooses.
    assert_eq!(
        z("2026-10-25T02:30:00+01:00").unwrap(),
        fixed("2026-10-25T02:30:00+01:00")
    );
}

#[test]
fn a_day_whose_midnight_is_skipped_starts_when_the_clock_resumes() {
    // Santiago springs forward at 00:00 -> 01:00 (2026-09-06).
    let santiago: Zone = "America/Santiago".parse().unwrap();
    let t = parse_zoned("2026-09-06", &santiago, now()).unwrap();
    assert_eq!(t, fixed("2026-09-06T01:00:00-03:00"));
}

#[test]
fn hostile_input_gives_clear_errors() {
    assert_eq!(z("   "), Err(TimeError::Empty));
    let long = "9".repeat(10_000);
    let e = z(&long).unwrap_err().to_string();
    assert!(e.contains("too long (10000 characters"), "{e}");
    assert!(e.len() < 200, "message stays one short line: {e}");
    let e = z("2026-12-24\u{0007}").unwrap_err().to_string();
    assert!(
        e.contains("control character") && e.contains("\\u{7}"),
        "{e}"
    );
    assert!(
        z("tomorrow 🎉")
            .unwrap_err()
            .to_string()
            .contains("no time uses")
    );
    assert!(z("\u{202e}2026-12-24").is_err());
    assert!(z("غدا").is_err());
    let e = z("2026-02-30").unwrap_err().to_string();
    assert!(e.contains("not a day of the calendar"), "{e}");
    assert!(
        z("2026-12-24 25:00")
            .unwrap_err()
            .to_string()
            .contains("clock time")
    );
    assert!(
        z("24/12/2026")
            .unwrap_err()
            .to_string()
            .contains("try 2026-12-24")
    );
    assert!(matches!(z("now 10:00"), Err(TimeError::Invalid { .. })));
    assert!(matches!(
        z("next monday please"),
        Err(TimeError::Invalid { .. })
    ));
}

#[test]
fn grammar_help_names_every_form() {
    for form in [
        "RFC 3339",
        "2026-12-24 10:00",
        "tomorrow 09:30",
        "mon 09:00",
        "+1w",
        "-7d",
    ] {
        assert!(GRAMMAR_HELP.contains(form), "{form}");
    }
    assert!(GRAMMAR_HELP.lines().all(|l| l.chars().count() <= 78));
}

#[test]
fn abbreviations() {
    assert_eq!(berlin().abbreviation(utc("2026-12-24T09:00:00Z")), "CET");
    assert_eq!(berlin().abbreviation(utc("2026-07-24T09:00:00Z")), "CEST");
    assert_eq!(new_york().abbreviation(utc("2026-07-24T09:00:00Z")), "EDT");
    let kolkata: Zone = "Asia/Kolkata".parse().unwrap();
    assert_eq!(kolkata.abbreviation(now()), "IST");
    let dubai: Zone = "Asia/Dubai".parse().unwrap();
    assert_eq!(dubai.abbreviation(now()), "UTC+04:00");
}

#[test]
fn utc_output() {
    assert_eq!(
        to_utc_rfc3339(utc("2026-12-24T09:00:00+00:00")),
        "2026-12-24T09:00:00Z"
    );
}

fn zones() -> impl Strategy<Value = Zone> {
    prop_oneof![
        Just(berlin()),
        Just(new_york()),
        Just("UTC".parse().unwrap()),
        Just("Australia/Lord_Howe".parse().unwrap()),
        Just("Asia/Kathmandu".parse().unwrap()),
    ]
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC*", zone in zones()) {
        let _ = parse_zoned(&s, &zone, now());
    }

    #[test]
    fn never_panics_on_grammar_like_text(s in "[-+0-9a-zA-Z: .tT]{0,30}", zone in zones()) {
        let _ = parse_zoned(&s, &zone, now());
    }

    #[test]
    fn rfc3339_round_trips(secs in -2_000_000_000i64..4_000_000_000, off in -50_400i32..50_400,
                           zone in zones()) {
        let offset = FixedOffset::east_opt(off - off % 60).unwrap();
        let t = offset.timestamp_opt(secs, 0).unwrap();
        prop_assert_eq!(parse_zoned(&t.to_rfc3339(), &zone, now()).unwrap(), t);
    }

    #[test]
    fn local_date_time_round_trips(mins in 0i64..(60 * 24 * 365 * 30), zone in zones()) {
        let naive = NaiveDate::from_ymd_opt(2010, 1, 1).unwrap().and_hms_opt(0, 0, 0).unwrap()
            + chrono::TimeDelta::minutes(mins);
        let text = naive.format("%Y-%m-%d %H:%M").to_string();
        match zone.resolve(naive) {
            chrono::offset::LocalResult::Single(t) => {
                prop_assert_eq!(parse_zoned(&text, &zone, now()).unwrap(), t);
            }
            _ => prop_assert!(parse_zoned(&text, &zone, now()).is_err()),
        }
    }
}

#[test]
fn the_local_zone_parses_like_chrono_local() {
    use chrono::{Local, TimeZone};
    let t = parse_zoned("2026-06-15 12:00", &Zone::Local, now()).unwrap();
    let want = Local
        .with_ymd_and_hms(2026, 6, 15, 12, 0, 0)
        .single()
        .unwrap()
        .fixed_offset();
    assert_eq!(t, want);
    assert!(!Zone::Local.abbreviation(now()).is_empty());
    let gap = TimeError::Nonexistent {
        local: t.naive_local(),
        zone: Zone::Local,
    };
    assert!(gap.to_string().contains("in the local time zone"), "{gap}");
}

#[test]
fn date_times_may_carry_an_offset() {
    assert_eq!(
        z("2026-12-24T10:00Z").unwrap(),
        fixed("2026-12-24T10:00:00Z")
    );
    assert_eq!(
        z("2026-12-24 10:00+05:30").unwrap(),
        fixed("2026-12-24T10:00:00+05:30")
    );
    assert_eq!(
        z("2026-12-24T10:00:00-0400").unwrap(),
        fixed("2026-12-24T10:00:00-04:00")
    );
    assert_eq!(
        z("2026-10-25 02:30+01").unwrap(),
        fixed("2026-10-25T02:30:00+01:00")
    );
    assert_eq!(
        z("2026-12-24 10:00:00+01:00").unwrap(),
        fixed("2026-12-24T10:00:00+01:00")
    );
    assert!(z("2026-12-24 10:00+25:00").is_err());
    assert!(
        z("tomorrow 10:00+01:00")
            .unwrap_err()
            .to_string()
            .contains("offset")
    );
    assert!(z("10:00z").is_err());
}
