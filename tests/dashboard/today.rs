//! Today and the change feed in the dashboard: the groups and counts of a known history
//! (the pure model), Today driven through `update()` (open, select, open a record, `x`),
//! snapshots at 60x16, 80x24 and 160x45, `:changes` filtering, and a record's history in
//! its detail pane.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use crmdash::app::dialogs::Overlay;
use crmdash::app::effects::Effect;
use crmdash::app::feed::{ChangeLine, FeedAnswer, FeedAsk};
use crmdash::app::message::Message;
use crmdash::app::mirror::{LinkKind, MirrorEffect, MirrorMessage, RecordRef};
use crmdash::insights::today::*;
use crmdash::mirror::{ChangeKind, Cursor, FieldChange, RecordChange};
use crmdash::resource::Resource;
use crossterm::event::KeyCode;
use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::dashboard_support::Harness;

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
        at: at("2026-11-22T09:00:00Z"),
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
            at: at("2026-11-20T16:40:00Z"),
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
                last_change: Some(at("2026-09-28T00:00:00Z")),
            },
            OpenDeal {
                id: "q2".into(),
                label: "Big".into(),
                value: Some(Decimal::from(90_000)),
                currency: Some("EUR".into()),
                raw: None,
                last_change: Some(at("2026-10-29T00:00:00Z")),
            },
            OpenDeal {
                id: "q3".into(),
                label: "Busy".into(),
                value: Some(Decimal::from(1_000_000)),
                currency: None,
                raw: None,
                last_change: Some(at("2026-11-17T00:00:00Z")),
            },
        ],
        projects: vec![
            ProjectDates {
                id: "p1".into(),
                label: "Launch".into(),
                status: Some("planned".into()),
                start: NaiveDate::from_ymd_opt(2026, 11, 21),
                end: None,
                raw: None,
            },
            ProjectDates {
                id: "p2".into(),
                label: "Migration".into(),
                status: Some("active".into()),
                start: NaiveDate::from_ymd_opt(2026, 9, 1),
                end: NaiveDate::from_ymd_opt(2026, 11, 19),
                raw: None,
            },
            ProjectDates {
                id: "p3".into(),
                label: "Done".into(),
                status: Some("completed".into()),
                start: None,
                end: NaiveDate::from_ymd_opt(2026, 11, 18),
                raw: None,
            },
            ProjectDates {
                id: "p4".into(),
                label: "Later".into(),
                status: Some("planned".into()),
                start: NaiveDate::from_ymd_opt(2027, 1, 4),
                end: None,
                raw: None,
            },
        ],
        reschedules: vec![Reschedule {
            id: "8412".into(),
            at: at("2026-11-22T08:00:00Z"),
            when: "2026-12-01 10:00 – 10:30".into(),
        }],
        seen: HashMap::new(),
    }
}

pub const TODAY: &str = "2026-11-22";
pub const NOW: &str = "2026-11-22T10:00:00Z";

fn groups(input: &TodayInput) -> Vec<(GroupKind, Vec<(String, String)>)> {
    build(
        input,
        TODAY.parse().unwrap(),
        at(NOW),
        &crmdash::timeparse::Zone::Named(chrono_tz::Tz::UTC),
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
            p("p1", "starts Sat 21 Nov"),
            p("p2", "overdue since Thu 19 Nov")
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
            &crmdash::timeparse::Zone::Named(chrono_tz::Tz::UTC)
        ),
        "since Fri 16:40"
    );
}

#[test]
fn a_group_marked_seen_shows_only_what_came_after() {
    let mut input = known();
    input.seen.insert(
        GroupKind::Won,
        Cursor {
            seq: 11,
            at: at("2026-11-22T09:30:00Z"),
        },
    );
    input.seen.insert(
        GroupKind::Quiet,
        Cursor {
            seq: 0,
            at: at("2026-11-22T09:30:00Z"),
        },
    );
    input.seen.insert(
        GroupKind::ProjectsWeek,
        Cursor {
            seq: 0,
            at: at("2026-11-21T10:00:00Z"),
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

/// Every record of the known history can be opened (its JSON is a stand-in).
fn openable(mut input: TodayInput) -> TodayInput {
    let raw = |id: &str, label: &str| Some(Arc::from(json!({"id": id, "name": label}).to_string()));
    for ((_, id), f) in input.facts.iter_mut() {
        f.raw = raw(id, &f.label);
    }
    for d in &mut input.open_deals {
        d.raw = raw(&d.id, &d.label);
    }
    for p in &mut input.projects {
        p.raw = raw(&p.id, &p.label);
    }
    input
}

fn feed_ask(fx: &[Effect]) -> (crmdash::app::RequestId, FeedAsk) {
    fx.iter()
        .find_map(|e| match e {
            Effect::Mirror(MirrorEffect::Feed { id, ask }) => Some((*id, ask.clone())),
            _ => None,
        })
        .expect("the change feed was asked")
}

fn answer(h: &mut Harness, id: crmdash::app::RequestId, answer: FeedAnswer) -> Vec<Effect> {
    h.send(Message::Mirror(MirrorMessage::Feed {
        id,
        result: Ok(Some(answer)),
    }))
}

/// The dashboard with Today open on the known history.
fn today_open(size: (u16, u16)) -> Harness {
    today_open_with(size, crate::dashboard_support::test_config())
}

fn today_open_with(size: (u16, u16), config: crmdash::app::AppConfig) -> Harness {
    let mut h = Harness::with(size, crate::dashboard_support::FakeData::new(60), config);
    h.app.set_mirror(true, None);
    h.answer_all();
    let (id, ask) = feed_ask(&h.ch('t'));
    assert!(matches!(ask, FeedAsk::Today { since: None, .. }), "{ask:?}");
    answer(&mut h, id, FeedAnswer::Today(Box::new(openable(known()))));
    h
}

fn today_view(h: &Harness) -> &crmdash::app::dialogs::today::TodayView {
    match h.app.overlays.last() {
        Some(Overlay::Today(v)) => v,
        _ => panic!("Today is on top"),
    }
}

#[test]
fn today_opens_its_records_and_marks_groups_seen_through_update() {
    let mut h = today_open((80, 24));
    let v = today_view(&h);
    assert_eq!(v.since, "since Fri 16:40");
    let counts: Vec<(GroupKind, usize)> =
        v.groups.iter().map(|g| (g.kind, g.lines.len())).collect();
    assert_eq!(
        counts,
        vec![
            (GroupKind::Won, 2),
            (GroupKind::Lost, 1),
            (GroupKind::Moved, 1),
            (GroupKind::Values, 1),
            (GroupKind::NewContacts, 2),
            (GroupKind::ProjectsWeek, 2),
            (GroupKind::Quiet, 2),
            (GroupKind::Reschedules, 1),
        ]
    );
    // The second line (d1 won) opens its deal, whose history is asked for.
    h.ch('j');
    let fx = h.key(KeyCode::Enter);
    match h.app.overlays.last() {
        Some(Overlay::Detail(d)) => assert_eq!(d.link.as_ref().unwrap().id, "d1"),
        _ => panic!("the deal opened"),
    }
    let (_, ask) = feed_ask(&fx);
    assert_eq!(
        ask,
        FeedAsk::History {
            kind: Resource::Deals,
            id: "d1".into()
        }
    );
    h.key(KeyCode::Esc);
    // `x` marks the selected line's group seen up to its newest change.
    let (_, ask) = feed_ask(&h.ch('x'));
    assert_eq!(
        ask,
        FeedAsk::MarkSeen {
            group: GroupKind::Won,
            seq: 12
        }
    );
    let v = today_view(&h);
    assert!(v.groups[0].lines.is_empty());
    assert_eq!(v.items().len(), 10);
    // The last visit is kept for the session: Today read again shows the same span.
    h.key(KeyCode::Esc);
    let (_, ask) = feed_ask(&h.ch('t'));
    assert!(
        matches!(ask, FeedAsk::Today { since: Some(Some(c)), .. } if c.seq == 10),
        "{ask:?}"
    );
}

#[test]
fn today_snapshots() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let h = today_open(size);
        insta::assert_snapshot!(format!("today_{}x{}", size.0, size.1), h.render());
    }
}

/// Today's footer comes from the key map: a `[keys]` rebinding shows in it (and works); at
/// 60 columns the open and close keys stay, a hint too long for the room goes whole.
#[test]
fn today_s_footer_shows_rebound_keys_and_keeps_close_at_60_columns() {
    let mut config = crate::dashboard_support::test_config();
    config.keymap = crate::dialog_support::keymap(&[("mark_seen", &["m"])]);
    for size in [(60, 16), (100, 30)] {
        let mut h = today_open_with(size, config.clone());
        let screen = h.render();
        let footer = screen
            .lines()
            .find(|l| l.contains("mark group seen") && l.contains('│'))
            .unwrap_or_else(|| panic!("Today's footer:\n{screen}"));
        assert!(footer.contains("m mark group seen"), "{footer}");
        // `q` goes back one level, as Esc does (issue 44): one hint for both.
        assert!(
            footer.contains("Enter open") && footer.contains("Esc/q close"),
            "{footer}"
        );
        assert!(!footer.contains('…'), "{footer}");
        assert!(!footer.contains("q quit"), "{footer}");
        // At 60 columns `j/k select` does not fit.
        assert_eq!(footer.contains("j/k select"), size.0 >= 100, "{footer}");
        let (_, ask) = feed_ask(&h.ch('m'));
        assert!(matches!(ask, FeedAsk::MarkSeen { .. }), "{ask:?}");
    }
}

fn changes_open(size: (u16, u16)) -> (Harness, crmdash::app::RequestId) {
    let mut h = Harness::new(size);
    h.app.set_mirror(true, None);
    h.answer_all();
    h.ch(':');
    h.type_str("changes");
    let (id, ask) = feed_ask(&h.key(KeyCode::Enter));
    assert_eq!(ask, FeedAsk::Recent);
    (h, id)
}

/// `:changes` folds the lines' case once, when they arrive, and filters when the filter
/// changes: what a frame draws is the kept list (`matching`), not a filter run again.
#[test]
fn changes_are_filtered_when_typed_not_each_frame() {
    let (mut h, id) = changes_open((80, 24));
    let line = |text: &str| ChangeLine {
        text: text.into(),
        record: None,
    };
    // Typed before the answer: applied when it comes.
    h.type_str("WON");
    answer(
        &mut h,
        id,
        FeedAnswer::Recent(vec![
            line("2026-11-22 09:00  deal Rollout  status open → Won"),
            line("2026-11-22 08:00  deal Pilot  status open → lost"),
            line("2026-11-22 07:00  deal Wonder Ltd  created"),
        ]),
    );
    let v = today_view(&h);
    assert_eq!(v.all_changes().len(), 3);
    assert_eq!(v.matching(), [0, 2]);
    let before = h.render();
    assert_eq!(today_view(&h).matching(), [0, 2], "a frame changes nothing");
    assert!(before.contains("(2 of 3)"), "{before}");
    h.type_str(" status");
    assert_eq!(today_view(&h).matching(), [0]);
    for _ in 0.." status".len() {
        h.key(KeyCode::Backspace);
    }
    assert_eq!(today_view(&h).filter(), "WON");
    assert_eq!(today_view(&h).matching(), [0, 2]);
    h.key(KeyCode::Down);
    assert_eq!(today_view(&h).list.selected, 1);
    // Another character: the list is found again and the cursor goes back to its top.
    h.type_str("d");
    assert_eq!(today_view(&h).matching(), [2]);
    assert_eq!(today_view(&h).list.selected, 0);
}

#[test]
fn changes_in_the_palette_filter_as_one_types_and_open_records() {
    let (mut h, id) = changes_open((80, 24));
    let line = |text: &str, id: &str| ChangeLine {
        text: text.into(),
        record: Some(RecordRef {
            kind: LinkKind::Record(Resource::Deals),
            id: id.into(),
            label: id.into(),
            detail: String::new(),
            raw: Arc::from(json!({"id": id}).to_string()),
            note: None,
        }),
    };
    answer(
        &mut h,
        id,
        FeedAnswer::Recent(vec![
            line("2026-11-22 09:00  deal Rollout  status open → won", "d1"),
            line("2026-11-22 08:00  deal Pilot  status open → lost", "d3"),
        ]),
    );
    h.type_str("lost");
    let v = today_view(&h);
    assert_eq!(v.items().len(), 1);
    assert!(h.render().contains("(1 of 2)"));
    h.key(KeyCode::Enter);
    match h.app.overlays.last() {
        Some(Overlay::Detail(d)) => assert_eq!(d.link.as_ref().unwrap().id, "d3"),
        _ => panic!("the deal opened"),
    }
}

#[test]
fn a_records_history_shows_in_its_detail_pane_newest_first() {
    let mut h = Harness::new((100, 30));
    h.app.set_mirror(true, None);
    h.answer_all();
    let (id, ask) = feed_ask(&h.key(KeyCode::Enter));
    assert!(matches!(ask, FeedAsk::History { .. }), "{ask:?}");
    answer(
        &mut h,
        id,
        FeedAnswer::History(vec![
            "2026-11-24 10:02  status open → won · value 12,000.00 → 13,500.00 EUR".into(),
            "2026-11-20 08:00  created".into(),
        ]),
    );
    let Some(Overlay::Detail(d)) = h.app.overlays.last() else {
        panic!("the detail pane is open");
    };
    let text: Vec<String> = d.text.entries.iter().map(|e| e.value.clone()).collect();
    let at = text
        .iter()
        .position(|t| t == "History (2)")
        .expect("a history heading");
    assert_eq!(
        text[at + 1..],
        [
            "2026-11-24 10:02  status open → won · value 12,000.00 → 13,500.00 EUR",
            "2026-11-20 08:00  created"
        ]
    );
    // Asked once: another message does not ask again.
    let fx = h.send(Message::Tick);
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::Mirror(MirrorEffect::Feed { .. })))
    );
}

/// Issue 44: quiet deals are ranked within their own currency (a million yen is not worth more
/// than a thousand euros), taken in turns, and no amount is shown without its currency.
#[test]
fn quiet_deals_are_ranked_within_their_currency_and_keep_it() {
    let deal = |id: &str, value: u64, currency: Option<&str>| OpenDeal {
        id: id.into(),
        label: id.into(),
        value: Some(Decimal::from(value)),
        currency: currency.map(str::to_string),
        raw: None,
        last_change: Some(at("2026-10-01T00:00:00Z")),
    };
    let input = TodayInput {
        since: None,
        changes: Vec::new(),
        facts: HashMap::new(),
        open_deals: vec![
            deal("yen-big", 9_000_000, Some("JPY")),
            deal("yen-small", 5_000_000, Some("JPY")),
            deal("eur-big", 40_000, Some("EUR")),
            deal("eur-small", 1_000, Some("EUR")),
            deal("bare", 10, None),
        ],
        projects: Vec::new(),
        reschedules: Vec::new(),
        seen: HashMap::new(),
    };
    let groups = build(
        &input,
        NaiveDate::from_ymd_opt(2026, 11, 24).unwrap(),
        at("2026-11-24T12:00:00Z"),
        &crmdash::timeparse::Zone::Named(chrono_tz::UTC),
    );
    let quiet = groups
        .iter()
        .find(|g| g.kind == GroupKind::Quiet)
        .expect("the quiet group");
    let ids: Vec<&str> = quiet.lines.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(
        ids,
        ["eur-big", "yen-big", "bare", "eur-small", "yen-small"]
    );
    assert!(
        quiet.lines[1].text.starts_with("9,000,000.00 JPY"),
        "{}",
        quiet.lines[1].text
    );
    assert!(
        quiet.lines[2].text.contains("(currency not given)"),
        "{}",
        quiet.lines[2].text
    );
}
