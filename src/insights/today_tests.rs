use super::*;
use crate::mirror::FieldChange;
use serde_json::json;

pub fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn change(
    seq: i64,
    r: Resource,
    id: &str,
    kind: ChangeKind,
    fields: &[(&str, Value, Value)],
) -> RecordChange {
    RecordChange {
        seq,
        at: at("2026-11-25T09:00:00Z"),
        resource: r,
        id: id.into(),
        kind,
        fields: fields
            .iter()
            .map(|(f, o, n)| FieldChange {
                field: f.to_string(),
                old: o.clone(),
                new: n.clone(),
            })
            .collect(),
    }
}

/// A known history: two deals won, one lost, one moved, a value up, two new contacts, a
/// project starting and one overdue, two quiet deals and a reschedule.
pub fn known() -> TodayInput {
    use ChangeKind::*;
    use Resource::*;
    let st = |o: &str, n: &str| ("status", json!(o), json!(n));
    let mut facts = HashMap::new();
    for (id, label, cur) in [
        ("d1", "Rollout", Some("EUR")),
        ("d2", "Renewal", Some("USD")),
        ("d3", "Pilot", None),
        ("d4", "Licence", Some("EUR")),
    ] {
        facts.insert(
            (Deals, id.to_string()),
            Facts {
                label: label.into(),
                currency: cur.map(str::to_string),
                raw: None,
            },
        );
    }
    facts.insert(
        (Contacts, "c1".into()),
        Facts {
            label: "Ada Lovelace".into(),
            currency: None,
            raw: None,
        },
    );
    TodayInput {
        since: Some(Cursor {
            seq: 10,
            at: at("2026-11-24T16:40:00Z"),
        }),
        changes: vec![
            change(
                11,
                Deals,
                "d1",
                Updated,
                &[
                    st("open", "won"),
                    ("value", json!("12000.00"), json!("13500.00")),
                ],
            ),
            change(12, Deals, "d2", Updated, &[st("open", "won")]),
            change(13, Deals, "d3", Updated, &[st("open", "lost")]),
            change(14, Deals, "d4", Updated, &[st("open", "on_hold")]),
            change(15, Contacts, "c1", Created, &[]),
            change(16, Contacts, "c2", Created, &[]),
            change(
                17,
                Contacts,
                "c1",
                Updated,
                &[("phone", json!("1"), json!("2"))],
            ),
            change(18, Projects, "p9", Gone, &[]),
        ],
        facts,
        open_deals: vec![
            OpenDeal {
                id: "q1".into(),
                label: "Small".into(),
                value: Some(Decimal::from(100)),
                currency: Some("EUR".into()),
                raw: None,
                last_change: Some(at("2026-10-01T00:00:00Z")),
            },
            OpenDeal {
                id: "q2".into(),
                label: "Big".into(),
                value: Some(Decimal::from(90_000)),
                currency: Some("EUR".into()),
                raw: None,
                last_change: Some(at("2026-11-01T00:00:00Z")),
            },
            OpenDeal {
                id: "q3".into(),
                label: "Busy".into(),
                value: Some(Decimal::from(1_000_000)),
                currency: None,
                raw: None,
                last_change: Some(at("2026-11-20T00:00:00Z")),
            },
        ],
        projects: vec![
            ProjectDates {
                id: "p1".into(),
                label: "Launch".into(),
                status: Some("planned".into()),
                start: NaiveDate::from_ymd_opt(2026, 11, 27),
                end: None, raw: None
            },
            ProjectDates {
                id: "p2".into(),
                label: "Migration".into(),
                status: Some("active".into()),
                start: NaiveDate::from_ymd_opt(2026, 9, 1),
                end: NaiveDate::from_ymd_opt(2026, 11, 20), raw: None
            },
            ProjectDates {
                id: "p3".into(),
                label: "Done".into(),
                status: Some("completed".into()),
                start: None,
                end: NaiveDate::from_ymd_opt(2026, 11, 1), raw: None
            },
            ProjectDates {
                id: "p4".into(),
                label: "Later".into(),
                status: Some("planned".into()),
                start: NaiveDate::from_ymd_opt(2027, 1, 4),
                end: None, raw: None
            },
        ],
        reschedules: vec![Reschedule {
            id: "8412".into(),
            at: at("2026-11-25T08:00:00Z"),
            when: "2026-12-01 10:00 – 10:30".into(),
        }],
        seen: HashMap::new(),
    }
}

pub const TODAY: &str = "2026-11-25";
pub const NOW: &str = "2026-11-25T12:00:00Z";

fn groups(input: &TodayInput) -> Vec<(GroupKind, Vec<(String, String)>)> {
    build(
        input,
        TODAY.parse().unwrap(),
        at(NOW),
        &crate::timeparse::Zone::Named(chrono_tz::Tz::UTC),
    )
    .into_iter()
    .map(|g| {
        (
            g.kind,
            g.lines.into_iter().map(|l| (l.id, l.text)).collect(),
        )
    })
    .collect()
}

#[test]
fn groups_and_counts_from_a_known_history() {
    let g = groups(&known());
    let get = |k: GroupKind| g.iter().find(|(kind, _)| *kind == k).unwrap().1.clone();
    let p = |id: &str, t: &str| (id.to_string(), t.to_string());
    // Newest first.
    assert_eq!(
        get(GroupKind::Won),
        vec![p("d2", "open → won"), p("d1", "open → won")]
    );
    assert_eq!(get(GroupKind::Lost), vec![p("d3", "open → lost")]);
    assert_eq!(get(GroupKind::Moved), vec![p("d4", "open → on_hold")]);
    assert_eq!(
        get(GroupKind::Values),
        vec![p("d1", "12,000.00 → 13,500.00  +1,500.00 EUR")]
    );
    assert_eq!(get(GroupKind::NewContacts), vec![p("c2", ""), p("c1", "")]);
    assert_eq!(
        get(GroupKind::ProjectsWeek),
        vec![
            p("p1", "starts Fri 27 Nov"),
            p("p2", "overdue since Fri 20 Nov (5 days)")
        ]
    );
    // Largest value × days quiet first; a deal changed 5 days ago is not quiet.
    assert_eq!(
        get(GroupKind::Quiet),
        vec![
            p("q2", "90,000.00 EUR · quiet 24 days"),
            p("q1", "100.00 EUR · quiet 55 days")
        ]
    );
    assert_eq!(
        get(GroupKind::Reschedules),
        vec![p("8412", "→ 2026-12-01 10:00 – 10:30")]
    );
    assert_eq!(
        since_words(
            known().since.as_ref(),
            &crate::timeparse::Zone::Named(chrono_tz::Tz::UTC)
        ),
        "since Tue 16:40"
    );
}

#[test]
fn a_group_marked_seen_shows_only_what_came_after() {
    let mut input = known();
    input.seen.insert(
        GroupKind::Won,
        Cursor {
            seq: 11,
            at: at("2026-11-25T10:00:00Z"),
        },
    );
    input.seen.insert(
        GroupKind::Quiet,
        Cursor {
            seq: 0,
            at: at("2026-11-25T10:00:00Z"),
        },
    );
    input.seen.insert(
        GroupKind::ProjectsWeek,
        Cursor {
            seq: 0,
            at: at("2026-11-24T10:00:00Z"),
        },
    );
    let g = groups(&input);
    let count = |k: GroupKind| g.iter().find(|(kind, _)| *kind == k).unwrap().1.len();
    assert_eq!(count(GroupKind::Won), 1);
    // Seen today: gone until tomorrow; seen yesterday: back.
    assert_eq!(count(GroupKind::Quiet), 0);
    assert_eq!(count(GroupKind::ProjectsWeek), 2);
    assert_eq!(
        difference(Some(Decimal::from(5)), Some(Decimal::from(3)), None),
        "-2.00"
    );
}
