use chrono::{DateTime, FixedOffset, NaiveTime, TimeDelta, Utc};
use serde_json::{Map, Value, json};

use super::*;
use crate::config::RescheduleSettings;
use crate::timeparse::{TimeError, Zone};

fn berlin() -> Zone {
    "Europe/Berlin".parse().unwrap()
}

fn fixed(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

fn utc(s: &str) -> DateTime<Utc> {
    fixed(s).to_utc()
}

fn times(start: &str, end: Option<&str>) -> RescheduleTimes {
    RescheduleTimes {
        start: fixed(start),
        end: end.map(fixed),
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

#[test]
fn ids_from_links() {
    let cases = [
        ("abc-123", Some("abc-123")),
        ("  42 ", Some("42")),
        (
            "https://crm.example.com/public/v1/appointments/42/reschedule",
            Some("42"),
        ),
        (
            "https://crm.example.com/public/v1/appointments/42",
            Some("42"),
        ),
        (
            "https://crm.example.com/appointments/42/?tab=notes#top",
            Some("42"),
        ),
        (
            "https://crm.example.com/appointments/42/reschedule?x=1",
            Some("42"),
        ),
        (
            "/public/v1/appointments/a%20b%2Fc/reschedule",
            Some("a b/c"),
        ),
        ("https://app.example.com/#/appointments/77", Some("77")),
        ("crm.example.com/Appointments/%C3%A9t%C3%A9", Some("été")),
        ("https://crm.example.com/appointments/42/notes", None),
        ("https://crm.example.com/appointments/", None),
        ("https://crm.example.com/contacts/42", None),
        ("/appointments/reschedule", None),
        ("/appointments/%FF", None),
        ("/appointments/%0A", None),
        ("two words", None),
        ("", None),
        ("id\u{7}", None),
    ];
    for (input, want) in cases {
        assert_eq!(extract_appointment_id(input).as_deref(), want, "{input}");
    }
}

#[test]
fn durations() {
    for (s, mins) in [
        ("15m", 15),
        ("30m", 30),
        ("1h", 60),
        ("90m", 90),
        ("1h30m", 90),
        ("1h 30m", 90),
        ("2H", 120),
        ("1 hour", 60),
        ("1d", 1440),
    ] {
        assert_eq!(parse_duration(s), Ok(TimeDelta::minutes(mins)), "{s}");
    }
    for s in [
        "",
        "0m",
        "-5m",
        "1y",
        "h",
        "15 parsecs",
        "1:75",
        "15d",
        "⏰",
        // No unit: `45` is not a length, `1:30` is a clock time.
        "45",
        "1:30",
    ] {
        assert!(parse_duration(s).is_err(), "{s}");
    }
}

#[test]
fn lengths_take_the_time_grammar_s_units() {
    // The grammar's own reading of the same text (`parse_period`): one unit table.
    for s in ["90s", "45 sec", "2 mins", "1hr", "3 hours", "1 day", "1d2h"] {
        let grammar = crate::timeparse::parse_period(&s.replace(' ', "")).unwrap();
        assert_eq!(parse_duration(s), Ok(grammar), "{s}");
    }
    assert_eq!(parse_duration("90s"), Ok(TimeDelta::seconds(90)));
    assert_eq!(parse_duration("14d"), Ok(TimeDelta::days(14)));
    // Weeks are a shift's unit, not a length, even under 14 days; the message says so.
    for s in ["1w", "1wk", "2 weeks", "1d1w"] {
        let e = parse_duration(s).unwrap_err();
        assert!(
            e.contains("weeks are not an appointment's length"),
            "{s}: {e}"
        );
    }
    // Over 14 days, whatever the unit.
    for s in ["15d", "337h", "20161m"] {
        assert!(parse_duration(s).is_err(), "{s}");
    }
}

#[test]
fn ends_from_specs() {
    let start = fixed("2026-12-24T10:00:00+01:00");
    let t =
        RescheduleTimes::new(start, EndSpec::Duration(TimeDelta::minutes(90)), &berlin()).unwrap();
    assert_eq!(t.end, Some(fixed("2026-12-24T11:30:00+01:00")));
    assert_eq!(
        RescheduleTimes::new(start, EndSpec::None, &berlin())
            .unwrap()
            .end,
        None
    );
    let err = RescheduleTimes::new(start, EndSpec::At(start), &berlin()).unwrap_err();
    assert!(matches!(err, RescheduleError::EndNotAfterStart { .. }));
    assert!(err.to_string().contains("must be after the start"), "{err}");
    // A duration across the spring-forward gap: one hour after 01:30 CET is 03:30 CEST.
    let night = fixed("2026-03-29T01:30:00+01:00");
    let t = RescheduleTimes::new(night, EndSpec::Duration(TimeDelta::hours(1)), &berlin()).unwrap();
    assert_eq!(t.end.unwrap().to_rfc3339(), "2026-03-29T03:30:00+02:00");
}

#[test]
fn body_uses_the_configured_keys() {
    let s = RescheduleSettings::default();
    let t = times(
        "2026-12-24T10:00:00+01:00",
        Some("2026-12-24T11:00:00+01:00"),
    );
    let extra = obj(json!({"reason": "sick", "notify": true}));
    let body = build_body(&t, &s, &extra).unwrap();
    // Sent in UTC, by the dashboard and the CLI alike.
    assert_eq!(
        Value::Object(body),
        json!({"start_time": "2026-12-24T09:00:00Z", "end_time": "2026-12-24T10:00:00Z",
               "reason": "sick", "notify": true})
    );
    let custom = RescheduleSettings {
        start_field: "starts_at".into(),
        end_field: String::new(),
        ..RescheduleSettings::default()
    };
    let body = build_body(&t, &custom, &Map::new()).unwrap();
    assert_eq!(
        Value::Object(body),
        json!({"starts_at": "2026-12-24T09:00:00Z"})
    );
    // Fractions survive.
    let f = times("2026-12-24T09:00:00.5Z", None);
    let body = build_body(&f, &s, &Map::new()).unwrap();
    assert_eq!(body["start_time"], json!("2026-12-24T09:00:00.500Z"));
}

/// Issue 27: an End of `10:00` was read as a length of ten hours.
#[test]
fn a_clock_time_in_end_is_a_time_on_the_start_day() {
    let zone = berlin();
    let now = utc("2026-12-20T12:00:00Z");
    let start = fixed("2026-12-24T09:30:00+01:00");
    let end_of = |text: &str| {
        let spec = parse_end(text, &zone, now).unwrap();
        RescheduleTimes::new(start, spec, &zone).map(|t| t.end.unwrap().to_rfc3339())
    };
    assert_eq!(
        parse_end("10:00", &zone, now),
        Ok(EndSpec::Clock(NaiveTime::from_hms_opt(10, 0, 0).unwrap()))
    );
    assert_eq!(end_of("10:00"), Ok("2026-12-24T10:00:00+01:00".into()));
    assert_eq!(end_of("10:30"), Ok("2026-12-24T10:30:00+01:00".into()));
    assert_eq!(end_of("9:45"), Ok("2026-12-24T09:45:00+01:00".into()));
    // Before the start: the next day, and the summary says so first.
    assert_eq!(end_of("01:00"), Ok("2026-12-25T01:00:00+01:00".into()));
    let (_, s) = describe(start, parse_end("01:00", &zone, now).unwrap(), &zone, now).unwrap();
    assert_eq!(
        s.warnings[0],
        "ends the next day, Fri 25 Dec: 01:00 is before the start (09:30)"
    );
    assert!(
        !s.warnings.iter().any(|w| w == "spans more than one day"),
        "{s:?}"
    );
    // The start's own time is an end equal to the start: refused, not a day later.
    assert!(matches!(
        end_of("09:30"),
        Err(RescheduleError::EndNotAfterStart { .. })
    ));
    // Lengths keep their meaning; a full time is a time.
    for (text, end) in [
        ("30m", "2026-12-24T10:00:00+01:00"),
        ("1h", "2026-12-24T10:30:00+01:00"),
        ("+1h", "2026-12-24T10:30:00+01:00"),
        ("1h30m", "2026-12-24T11:00:00+01:00"),
        ("2026-12-24 12:00", "2026-12-24T12:00:00+01:00"),
        ("tomorrow 10:00", "2026-12-21T10:00:00+01:00"),
    ] {
        let spec = parse_end(text, &zone, now).unwrap();
        let t = RescheduleTimes::new(start, spec, &zone).map(|t| t.end.unwrap().to_rfc3339());
        if text.starts_with("tomorrow") {
            // Before the start: refused, never sent.
            assert!(t.is_err(), "{text}");
        } else {
            assert_eq!(t, Ok(end.to_string()), "{text}");
        }
    }
}

#[test]
fn a_negative_or_unitless_end_is_refused_with_a_message() {
    let zone = berlin();
    let now = utc("2026-12-20T12:00:00Z");
    let e = parse_end("-30m", &zone, now).unwrap_err();
    assert!(
        e.contains("\"-30m\" is not an end") && e.contains("forward from the start"),
        "{e}"
    );
    let e = parse_end("45", &zone, now).unwrap_err();
    assert!(e.contains("45m is 45 minutes"), "{e}");
    // Two weeks is no appointment's length (a shift's unit): refused, with the lengths meant.
    let e = parse_end("+2w", &zone, now).unwrap_err();
    assert!(
        e.contains("\"+2w\"") && e.contains("a length is like"),
        "{e}"
    );
    // Without the `+`, `2w` is read as that length too (never as a date), and refused.
    let e = parse_end("2w", &zone, now).unwrap_err();
    assert!(e.contains("weeks are not an appointment's length"), "{e}");
    assert_eq!(parse_end("  ", &zone, now), Ok(EndSpec::None));
}

#[test]
fn a_clock_end_in_the_dst_gap_is_refused() {
    let zone = berlin();
    let start = fixed("2026-03-29T01:30:00+01:00");
    let err = RescheduleTimes::new(
        start,
        EndSpec::Clock(NaiveTime::from_hms_opt(2, 30, 0).unwrap()),
        &zone,
    )
    .unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
    // 03:30 that night is one hour after 01:30 CET.
    let t = RescheduleTimes::new(
        start,
        EndSpec::Clock(NaiveTime::from_hms_opt(3, 30, 0).unwrap()),
        &zone,
    )
    .unwrap();
    assert_eq!(t.duration(), Some(TimeDelta::hours(1)));
}

#[test]
fn body_refusals() {
    let s = RescheduleSettings::default();
    let t = times(
        "2026-12-24T10:00:00+01:00",
        Some("2026-12-24T09:00:00+01:00"),
    );
    assert!(matches!(
        build_body(&t, &s, &Map::new()),
        Err(RescheduleError::EndNotAfterStart { .. })
    ));
    let ok = times("2026-12-24T10:00:00+01:00", None);
    let err = build_body(&ok, &s, &obj(json!({"end_time": "x"}))).unwrap_err();
    assert_eq!(
        err,
        RescheduleError::ExtraOverridesTime {
            key: "end_time".into()
        }
    );
    let none = RescheduleSettings {
        start_field: " ".into(),
        ..RescheduleSettings::default()
    };
    assert_eq!(
        build_body(&ok, &none, &Map::new()),
        Err(RescheduleError::NoStartField)
    );
    let same = RescheduleSettings {
        start_field: "at".into(),
        end_field: "at".into(),
        ..RescheduleSettings::default()
    };
    assert!(matches!(
        build_body(&ok, &same, &Map::new()),
        Err(RescheduleError::SameFields(_))
    ));
}

#[test]
fn extra_lines_reserve_the_time_keys() {
    let s = RescheduleSettings::default();
    let m = parse_extra("reason = moved by phone\nnotify = false", &s).unwrap();
    assert_eq!(
        Value::Object(m),
        json!({"reason": "moved by phone", "notify": false})
    );
    let e = parse_extra("reason = x\nstart_time = 2026-01-01", &s).unwrap_err();
    assert_eq!(e.line, 2);
    // Contact fields are not reserved here.
    assert!(parse_extra("email = a@b.co", &s).is_ok());
}

#[test]
fn server_fields_map_through_the_configured_keys() {
    let s = RescheduleSettings {
        start_field: "begins".into(),
        end_field: "ends".into(),
        ..RescheduleSettings::default()
    };
    assert_eq!(map_server_field("begins", &s), Some(DialogField::Start));
    assert_eq!(map_server_field("data.ends", &s), Some(DialogField::End));
    assert_eq!(
        map_server_field("begins.date", &s),
        Some(DialogField::Start)
    );
    assert_eq!(map_server_field("appointmentId", &s), Some(DialogField::Id));
    assert_eq!(map_server_field("start_time", &s), None);
    assert_eq!(map_server_field("reason", &s), None);
}

#[test]
fn summaries() {
    let now = utc("2026-12-01T08:00:00Z");
    let s = summary(
        &times(
            "2026-12-24T10:00:00+01:00",
            Some("2026-12-24T11:00:00+01:00"),
        ),
        &berlin(),
        now,
    );
    assert_eq!(s.text, "Thu 24 Dec 2026, 10:00-11:00 CET (09:00-10:00 UTC)");
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);

    // Typed in another offset, shown in the zone.
    let s = summary(&times("2026-12-24T09:00:00Z", None), &berlin(), now);
    assert_eq!(s.text, "Thu 24 Dec 2026, 10:00 CET (09:00 UTC)");

    let s = summary(
        &times(
            "2026-11-30T06:00:00+01:00",
            Some("2026-11-30T07:00:00+01:00"),
        ),
        &berlin(),
        now,
    );
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    assert!(s.warnings[0].contains("past"));
    assert!(s.warnings[1].contains("outside 07:00-20:00 in Europe/Berlin"));

    let s = summary(
        &times(
            "2026-12-24T23:30:00+01:00",
            Some("2026-12-25T00:30:00+01:00"),
        ),
        &berlin(),
        now,
    );
    assert_eq!(
        s.text,
        "Thu 24 Dec 2026, 23:30 CET - Fri 25 Dec 2026, 00:30 CET (22:30-23:30 UTC)"
    );
    assert!(s.warnings.iter().any(|w| w.contains("spans")));

    let s = summary(
        &times(
            "2026-12-24T19:00:00+01:00",
            Some("2026-12-24T20:00:00+01:00"),
        ),
        &berlin(),
        now,
    );
    assert!(
        s.warnings.is_empty(),
        "ending at 20:00 is inside: {:?}",
        s.warnings
    );

    // Across the autumn change the abbreviations differ.
    let s = summary(
        &times(
            "2026-10-25T01:30:00+02:00",
            Some("2026-10-25T02:30:00+01:00"),
        ),
        &berlin(),
        now,
    );
    assert_eq!(
        s.text,
        "Sun 25 Oct 2026, 01:30 CEST-02:30 CET (Sat 24 Oct 23:30 - Sun 25 Oct 01:30 UTC)"
    );

    let utc_zone: Zone = "UTC".parse().unwrap();
    let s = summary(&times("2026-12-24T09:00:00Z", None), &utc_zone, now);
    assert_eq!(s.text, "Thu 24 Dec 2026, 09:00 UTC");
}

#[test]
fn shifts_are_dst_aware() {
    let z = berlin();
    let t = times(
        "2026-03-29T01:45:00+01:00",
        Some("2026-03-29T02:45:00+02:00"),
    );
    let up = shift(&t, Shift::Minutes(15), &z).unwrap();
    assert_eq!(up.start.to_rfc3339(), "2026-03-29T03:00:00+02:00");
    assert_eq!(up.duration(), t.duration());

    // Saturday 10:00 CET + 1 day = Sunday 10:00 CEST (23 hours later).
    let sat = times(
        "2026-03-28T10:00:00+01:00",
        Some("2026-03-28T11:00:00+01:00"),
    );
    let sun = shift(&sat, Shift::Days(1), &z).unwrap();
    assert_eq!(sun.start.to_rfc3339(), "2026-03-29T10:00:00+02:00");
    assert_eq!(sun.end.unwrap().to_rfc3339(), "2026-03-29T11:00:00+02:00");
    let back = shift(&sun, Shift::Days(-1), &z).unwrap();
    assert_eq!(back, sat);

    let gap = times("2026-03-28T02:30:00+01:00", None);
    assert!(matches!(
        shift(&gap, Shift::Days(1), &z),
        Err(TimeError::Nonexistent { .. })
    ));
    let overlap = times("2026-10-24T02:30:00+02:00", None);
    assert!(matches!(
        shift(&overlap, Shift::Days(1), &z),
        Err(TimeError::Ambiguous { .. })
    ));
    assert!(shift(&sat, Shift::Minutes(i64::MAX), &z).is_err());
}

#[test]
fn quarter_hours() {
    let z = berlin();
    assert_eq!(
        next_quarter_hour(utc("2026-12-24T09:07:30.5Z"), &z).to_rfc3339(),
        "2026-12-24T10:15:00+01:00"
    );
    assert_eq!(
        next_quarter_hour(utc("2026-12-24T09:15:00Z"), &z).to_rfc3339(),
        "2026-12-24T10:30:00+01:00"
    );
}

#[test]
fn log_round_trip_and_tolerance() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("reschedules.jsonl");
    assert!(read_log(&path, 10).unwrap().is_empty());
    let entry = |id: &str| RescheduleLogEntry {
        id: id.into(),
        profile: "work".into(),
        host: "crm.example.com".into(),
        body: obj(json!({"start_time": "2026-12-24T10:00:00+01:00"})),
        updated_at: Some("2026-12-01T08:00:00Z".into()),
        at: utc("2026-12-01T08:00:01Z"),
    };
    append_log(&path, &entry("1")).unwrap();
    // A cut-off write and a junk line: skipped, and the next entry still lands on its own line.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"not json\n{\"id\": \"half"))
        .unwrap();
    append_log(&path, &entry("2")).unwrap();
    append_log(&path, &entry("3")).unwrap();
    let all = read_log(&path, 10).unwrap();
    assert_eq!(
        all.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["1", "2", "3"]
    );
    assert_eq!(all[0], entry("1"));
    let last = read_log(&path, 2).unwrap();
    assert_eq!(
        last.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["2", "3"]
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the log is private to its owner");
    }
}
