use chrono::{DateTime, Utc};
use serde_json::json;

use super::*;
use crate::config::RescheduleSettings;

fn berlin() -> Zone {
    "Europe/Berlin".parse().unwrap()
}

/// Wed 2 Dec 2026, 08:00 UTC (09:00 in Berlin).
fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-02T08:00:00Z")
        .unwrap()
        .to_utc()
}

fn parse(text: &str, opts: &PlanOptions) -> Plan {
    Plan::parse(text, opts, &RescheduleSettings::default(), &berlin(), now()).unwrap()
}

#[test]
fn rows_read_in_the_zone_with_clock_ends_on_the_start_day_and_lengths() {
    let plan = parse(
        "id,start,end\napt_1,2026-12-07 09:00,10:00\napt_2,mon 11:00,45m\napt_3,2026-12-07 23:30,00:30\n",
        &PlanOptions::default(),
    );
    assert!(plan.bad.is_empty(), "{:?}", plan.bad);
    let bodies: Vec<_> = plan.rows.iter().map(|r| json!(r.body)).collect();
    assert_eq!(
        bodies,
        vec![
            json!({"start_time": "2026-12-07T08:00:00Z", "end_time": "2026-12-07T09:00:00Z"}),
            json!({"start_time": "2026-12-07T10:00:00Z", "end_time": "2026-12-07T10:45:00Z"}),
            json!({"start_time": "2026-12-07T22:30:00Z", "end_time": "2026-12-07T23:30:00Z"}),
        ]
    );
    assert!(plan.rows[2].note.as_deref().unwrap().contains("next day"));
    assert_eq!(plan.rows[1].line, 3);
}

#[test]
fn shift_moves_starts_and_absolute_ends_and_the_default_end_fills_in() {
    let opts = PlanOptions {
        shift: Some("+1d".into()),
        default_end: Some("30m".into()),
        ..PlanOptions::default()
    };
    // 2027-03-27 -> 28 crosses the DST change: the clock time stays 09:00.
    let plan = parse(
        "apt_1,2027-03-27 09:00\napt_2,2026-12-07 09:00,2026-12-07 10:00\n",
        &opts,
    );
    assert!(plan.bad.is_empty(), "{:?}", plan.bad);
    assert_eq!(
        json!(plan.rows[0].body),
        json!({"start_time": "2027-03-28T07:00:00Z", "end_time": "2027-03-28T07:30:00Z"})
    );
    assert_eq!(
        json!(plan.rows[1].body),
        json!({"start_time": "2026-12-08T08:00:00Z", "end_time": "2026-12-08T09:00:00Z"})
    );
}

#[test]
fn every_bad_row_is_named_with_its_line_and_the_good_ones_are_kept() {
    let plan = parse(
        "apt_1,2026-12-07 09:00\n,2026-12-07 09:00\napt_3,next blue moon\napt_4,2026-12-07 09:00,45\napt_1,2026-12-08 09:00\napt_6,2026-12-07 09:00,08:00:00+99\napt_7,2026-12-07 10:00,2026-12-07 09:00\n",
        &PlanOptions::default(),
    );
    let lines: Vec<u64> = plan.bad.iter().map(|b| b.line).collect();
    assert_eq!(lines, vec![2, 3, 4, 5, 6, 7], "{:?}", plan.bad);
    assert_eq!(plan.rows.len(), 1);
    assert!(plan.bad[0].message.contains("no id"));
    assert!(
        plan.bad[1].message.starts_with("start:"),
        "{}",
        plan.bad[1].message
    );
    assert!(
        plan.bad[2].message.contains("45m is 45 minutes"),
        "{}",
        plan.bad[2].message
    );
    assert!(
        plan.bad[3].message.contains("line 1"),
        "{}",
        plan.bad[3].message
    );
    assert!(
        plan.bad[5].message.contains("after"),
        "{}",
        plan.bad[5].message
    );
}

#[test]
fn a_shift_is_an_offset_and_an_empty_plan_is_refused() {
    let settings = RescheduleSettings::default();
    let opts = PlanOptions {
        shift: Some("tomorrow".into()),
        ..PlanOptions::default()
    };
    let e = Plan::parse("apt_1,09:00\n", &opts, &settings, &berlin(), now()).unwrap_err();
    assert!(e.contains("signed offset"), "{e}");
    let e = Plan::parse(
        "# nothing\n\n",
        &PlanOptions::default(),
        &settings,
        &berlin(),
        now(),
    )
    .unwrap_err();
    assert!(e.contains("no rows"), "{e}");
}

#[test]
fn a_row_key_is_stable_per_id_and_body_whatever_the_key_order() {
    let a = json!({"start_time": "x", "end_time": "y"});
    let b: Map<String, Value> =
        serde_json::from_str(r#"{"end_time":"y","start_time":"x"}"#).unwrap();
    let a: Map<String, Value> = serde_json::from_value(a).unwrap();
    assert_eq!(row_key("apt_1", &a), row_key("apt_1", &b));
    assert_ne!(row_key("apt_1", &a), row_key("apt_2", &a));
}

#[test]
fn the_journal_settles_done_rows_holds_back_in_doubt_ones_and_refuses_a_claim_taken_since() {
    use super::journal::{Claim, Journal, RowState};
    use super::run::{Outcome, decide};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(journal::FILE_NAME);
    let plan = parse(
        "apt_1,2026-12-07 09:00\napt_2,2026-12-07 10:00\napt_3,2026-12-07 11:00\n",
        &PlanOptions::default(),
    );
    let (r1, r2, r3) = (&plan.rows[0], &plan.rows[1], &plan.rows[2]);
    {
        let first = Journal::open(&path, "h:1").unwrap();
        assert_eq!(first.claim(&r1.key, &r1.id).unwrap(), Claim::Go);
        first.answered(&r1.key, &r1.id, RowState::Done).unwrap();
        assert_eq!(first.claim(&r2.key, &r2.id).unwrap(), Claim::Go);
        // killed here: r2 has no answer
    }
    let second = Journal::open(&path, "h:1").unwrap();
    assert_eq!(
        decide(&second, r1, false).unwrap().outcome,
        Outcome::AlreadyDone
    );
    assert_eq!(
        decide(&second, r2, false).unwrap().outcome,
        Outcome::InDoubt
    );
    assert!(decide(&second, r2, true).is_none(), "resend when asked");
    assert!(decide(&second, r3, false).is_none());
    // Another run claims r3 after `second` read the journal: `second` may not send it.
    let third = Journal::open(&path, "h:1").unwrap();
    assert_eq!(third.claim(&r3.key, &r3.id).unwrap(), Claim::Go);
    assert!(matches!(
        second.claim(&r3.key, &r3.id).unwrap(),
        Claim::Taken(_)
    ));
    // The in-doubt row known at the start may be claimed again (--resend-in-doubt).
    assert_eq!(second.claim(&r2.key, &r2.id).unwrap(), Claim::Go);
    // Another service's journal is another matter.
    let other = Journal::open(&path, "h:2").unwrap();
    assert!(decide(&other, r1, false).is_none());
}
