//! `:dupes` (`D`): the clusters as a list, a cluster side by side with the fields that
//! differ marked, a member opened as a record, the export of the clusters; said when the
//! mirror is absent or incomplete. update() with synthetic keys and the mirror's answers;
//! snapshots at 60x16, 80x24 and 160x45 (NO_COLOR).

use std::sync::Arc;
use std::time::Duration;

use crmdash::app::dialogs::Overlay;
use crmdash::app::mirror::{MirrorEffect, MirrorMessage};
use crmdash::app::{Effect, ExportFormat, Message};
use crmdash::insights::dupes::Person;
use crmdash::insights::dupes::mirrored::{DupesReport, Finder, ScanOptions, report_of};
use crossterm::event::KeyCode;

use crate::dashboard_support::Harness;

const SIZES: [(u16, u16); 3] = [(60, 16), (80, 24), (160, 45)];

fn person(id: &str, name: &str, email: &str, phone: &str, accounts: &[&str]) -> Person {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Person {
        id: id.to_string(),
        name: name.to_string(),
        email: opt(email),
        phone: opt(phone),
        accounts: accounts.iter().map(|a| a.to_string()).collect(),
        created_at: None,
    }
}

fn people() -> Vec<Person> {
    vec![
        person(
            "con_000001",
            "Jon Smith",
            "JSmith@Example.com",
            "",
            &["acc_1"],
        ),
        person(
            "con_000002",
            "John Smith",
            "jsmith@example.com",
            "",
            &["acc_1"],
        ),
        person("con_000003", "Smith, John", "", "+1 555 0100", &["acc_1"]),
        person("con_000004", "Jürgen Weiß", "", "+49 30 1234567", &[]),
        person(
            "con_000005",
            "Jurgen Weiss",
            "j.weiss@example.de",
            "030 1234567",
            &[],
        ),
        person(
            "con_000006",
            "Anna Weber",
            "anna@example.com",
            "",
            &["acc_2"],
        ),
        person(
            "con_000007",
            "John Smith",
            "john@other.example",
            "+1 555 0199",
            &["acc_9"],
        ),
    ]
}

fn finder() -> Finder {
    Finder {
        region: Some("DE".into()),
        ..Finder::default()
    }
}

fn report(complete: bool) -> Arc<DupesReport> {
    let mut r = report_of(people(), &[], &finder(), &ScanOptions::default());
    r.complete = complete;
    Arc::new(r)
}

/// The record the mirror keeps for a person.
fn raw(p: &Person) -> Arc<str> {
    let (first, last) = p.name.split_once(' ').unwrap_or((&p.name, ""));
    serde_json::json!({
        "id": p.id, "first_name": first, "last_name": last, "email": p.email,
        "phone": p.phone, "created_at": "2026-01-05T10:00:00Z",
        "updated_at": "2026-02-01T09:30:00Z",
    })
    .to_string()
    .into()
}

/// A dashboard with the mirror on and `:dupes` open, the finder's request id returned.
fn opened(size: (u16, u16)) -> (Harness, crmdash::app::effects::RequestId) {
    opened_with(size, crate::dashboard_support::test_config())
}

fn opened_with(
    size: (u16, u16),
    config: crmdash::app::AppConfig,
) -> (Harness, crmdash::app::effects::RequestId) {
    let mut h = Harness::with(size, crate::dashboard_support::FakeData::new(60), config);
    h.app.set_mirror(true, None);
    h.answer_all();
    h.advance(Duration::from_secs(12));
    let fx = h.ch('D');
    let id = fx
        .iter()
        .find_map(|e| match e {
            Effect::Mirror(MirrorEffect::Dupes { id, finder }) => {
                assert_eq!(finder, &Finder::default(), "the configured finder");
                Some(*id)
            }
            _ => None,
        })
        .expect("D asks the mirror for the clusters");
    (h, id)
}

fn answered(size: (u16, u16), complete: bool) -> Harness {
    let (mut h, id) = opened(size);
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(Some(report(complete))),
    }));
    h
}

fn view(h: &Harness) -> &crmdash::app::dialogs::dupes::DupesView {
    match h.app.overlays.last() {
        Some(Overlay::Dupes(d)) => d,
        _ => panic!("the dupes view is on top"),
    }
}

/// Opens the selected cluster and answers the read of its members' records.
fn open_cluster(h: &mut Harness) {
    let fx = h.key(KeyCode::Enter);
    let (id, ids) = fx
        .iter()
        .find_map(|e| match e {
            Effect::Mirror(MirrorEffect::ContactRecords { id, ids }) => Some((*id, ids.clone())),
            _ => None,
        })
        .expect("opening a cluster reads its members' records");
    let all = people();
    let records = ids
        .iter()
        .map(|i| all.iter().find(|p| &p.id == i).map(raw))
        .collect();
    h.send(Message::Mirror(MirrorMessage::ContactRecords {
        id,
        result: Ok(Some(records)),
    }));
}

#[test]
fn the_clusters_come_best_first_with_members_and_reasons() {
    let (mut h, _) = opened((80, 24));
    assert!(view(&h).pending.is_some());
    assert!(
        h.render().contains("comparing the contacts"),
        "{}",
        h.render()
    );
    let id = view(&h).pending.unwrap();
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(Some(report(true))),
    }));
    let r = view(&h).report().expect("report").clone();
    assert_eq!(r.clusters.len(), 2, "{:?}", r.clusters);
    // The Smith cluster (an email in another case, a close name at the same account) has
    // three members; the other John Smith (another account, phone and email) is apart.
    let ids = |c: usize| -> Vec<&str> {
        r.clusters[c]
            .members
            .iter()
            .map(|&i| r.people[i].id.as_str())
            .collect()
    };
    assert!(r.clusters[0].score >= r.clusters[1].score);
    let smiths = (0..2).find(|&c| ids(c).contains(&"con_000001")).unwrap();
    assert_eq!(ids(smiths), ["con_000001", "con_000002", "con_000003"]);
    assert!(!r.people.iter().any(|p| p.id == "con_000007"));
    let screen = h.render();
    assert!(
        screen.contains("Jon Smith · John Smith · Smith, John"),
        "{screen}"
    );
    assert!(screen.contains("same phone"), "{screen}");
    h.key(KeyCode::Down);
    assert_eq!(view(&h).selected, 1);
    h.key(KeyCode::Down);
    assert_eq!(view(&h).selected, 1, "stops at the last cluster");
}

#[test]
fn a_cluster_side_by_side_marks_what_differs_and_opens_each_member() {
    let mut h = answered((160, 45), true);
    let r = view(&h).report().unwrap().clone();
    let smiths = r
        .clusters
        .iter()
        .position(|c| c.members.len() == 3)
        .unwrap();
    for _ in 0..smiths {
        h.key(KeyCode::Down);
    }
    open_cluster(&mut h);
    let open = view(&h).open.clone().expect("the cluster is open");
    let row = |f: &str| open.rows.iter().find(|r| r.field == f).cloned();
    assert!(row("name").unwrap().differ);
    assert!(
        row("email").unwrap().differ,
        "another case is another value"
    );
    assert!(!row("account ids").unwrap().differ);
    assert_eq!(row("first name").unwrap().values, ["Jon", "John", "Smith,"]);
    assert!(h.render().contains("≠ name"), "{}", h.render());
    // The second member, opened as a record; Esc comes back to the cluster, then the list.
    h.ch('l');
    assert_eq!(view(&h).open.as_ref().unwrap().member, 1);
    h.key(KeyCode::Enter);
    match h.app.overlays.last() {
        Some(Overlay::Detail(d)) => assert!(d.title.contains("con_000002"), "{}", d.title),
        _ => panic!("Enter opens the member as a record"),
    }
    h.key(KeyCode::Esc);
    assert!(view(&h).open.is_some());
    h.key(KeyCode::Esc);
    assert!(view(&h).open.is_none());
    h.key(KeyCode::Esc);
    assert!(!matches!(h.app.overlays.last(), Some(Overlay::Dupes(_))));
}

#[test]
fn an_absent_or_incomplete_mirror_is_said() {
    let (mut h, id) = opened((80, 24));
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(None),
    }));
    assert!(h.render().contains("No local mirror yet"), "{}", h.render());
    let h = answered((80, 24), false);
    assert!(h.render().contains("incomplete"), "{}", h.render());
    // Off in the config: said, nothing asked.
    let mut h = Harness::new((80, 24));
    h.answer_all();
    let fx = h.ch('D');
    assert!(!fx.iter().any(|e| matches!(e, Effect::Mirror(_))), "{fx:?}");
    assert!(crate::dashboard_support::note_of(&h.app).contains("turned off"));
}

/// The footer comes from the key map: a `[keys]` rebinding shows in it; at 60 columns the
/// keys that matter (compare, close) stay and the minor ones go, never cut mid-word.
#[test]
fn the_footer_shows_rebound_keys_and_keeps_close_at_60_columns() {
    let mut config = crate::dashboard_support::test_config();
    config.keymap = crate::dialog_support::keymap(&[("export", &["E"]), ("scroll_left", &["H"])]);
    // The dialog's own footer: the line inside its frame with `needle`.
    let footer = |h: &Harness, needle: &str| {
        let screen = h.render();
        screen
            .lines()
            .find(|l| l.contains(needle) && l.contains('│'))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("the dialog's footer has {needle}:\n{screen}"))
    };
    for size in [(60, 16), (100, 30)] {
        let (mut h, id) = opened_with(size, config.clone());
        // Reading: only what works then.
        let reading = footer(&h, "Esc close");
        assert!(!reading.contains("compare"), "{reading}");
        h.send(Message::Mirror(MirrorMessage::Dupes {
            id,
            result: Ok(Some(report(true))),
        }));
        let list = footer(&h, "Enter compare");
        assert!(list.contains("Esc close"), "{list}");
        assert!(!list.contains('…'), "{list}");
        if size.0 >= 100 {
            assert!(
                list.contains("E export") && list.contains("r again"),
                "{list}"
            );
        } else {
            // The least needed goes first.
            assert!(!list.contains("r again"), "{list}");
        }
        open_cluster(&mut h);
        let cluster = footer(&h, "H/l member");
        assert!(cluster.contains("Esc back"), "{cluster}");
    }
}

#[test]
fn the_palette_opens_it_and_r_looks_again() {
    let mut h = Harness::new((80, 24));
    h.app.set_mirror(true, None);
    h.answer_all();
    h.ch(':');
    h.type_str("dupes");
    let fx = h.key(KeyCode::Enter);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Mirror(MirrorEffect::Dupes { .. }))),
        "{fx:?}"
    );
    let id = view(&h).pending.unwrap();
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(Some(report(true))),
    }));
    let fx = h.ch('r');
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Mirror(MirrorEffect::Dupes { .. }))),
        "{fx:?}"
    );
    assert!(
        view(&h).report().is_some(),
        "the clusters stay while it looks again"
    );
}

#[test]
fn e_exports_the_clusters_as_contacts_dupes_writes_them() {
    let mut h = answered((80, 24), true);
    h.ch('e');
    let Some(Overlay::Export(d)) = h.app.overlays.last() else {
        panic!("e opens the export dialog");
    };
    assert!(d.dupes.is_some());
    assert!(
        d.path.value().starts_with("contacts-dupes-"),
        "{}",
        d.path.value()
    );
    assert!(h.render().contains("Export near duplicate contacts"));
    let dir = tempfile::tempdir().unwrap();
    // The suggested name is selected: typing replaces it.
    h.type_str(&dir.path().join("clusters.json").display().to_string());
    let fx = h.key(KeyCode::Enter);
    let exported = fx.iter().find_map(|e| match e {
        Effect::ExportDupes { report, format, .. } => Some((report.clone(), *format)),
        _ => None,
    });
    let (r, format) = exported.expect("Enter writes the clusters");
    assert_eq!(format, ExportFormat::Json);
    assert_eq!(r.clusters.len(), 2);
}

#[test]
fn snapshots_of_the_list_and_a_cluster_side_by_side() {
    for size in SIZES {
        let mut h = answered(size, true);
        insta::assert_snapshot!(format!("dupes_list_{}x{}", size.0, size.1), h.render());
        let r = view(&h).report().unwrap().clone();
        let smiths = r
            .clusters
            .iter()
            .position(|c| c.members.len() == 3)
            .unwrap();
        for _ in 0..smiths {
            h.key(KeyCode::Down);
        }
        open_cluster(&mut h);
        insta::assert_snapshot!(format!("dupes_cluster_{}x{}", size.0, size.1), h.render());
        let h = answered(size, false);
        insta::assert_snapshot!(
            format!("dupes_incomplete_{}x{}", size.0, size.1),
            h.render()
        );
    }
}

/// The list's lines are made once, when the clusters arrive; a frame draws from them (it
/// never walks every cluster's members again).
#[test]
fn the_list_lines_are_made_when_the_clusters_arrive_and_frames_draw_from_them() {
    let (mut h, id) = opened((80, 24));
    assert!(view(&h).list.is_empty());
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(Some(report(true))),
    }));
    let list = view(&h).list.clone();
    assert_eq!(list.len(), 2);
    let smiths = list
        .iter()
        .find(|e| e.head.contains("Jon Smith · John Smith · Smith, John"))
        .expect("the Smith cluster's line");
    assert!(
        smiths
            .why
            .contains("3 contacts · same email in another case"),
        "{smiths:?}"
    );
    // A frame shows what the cache holds.
    if let Some(Overlay::Dupes(d)) = h.app.overlays.last_mut() {
        d.list[1].head = "1.00  drawn from the cache".into();
    }
    assert!(
        h.render().contains("drawn from the cache"),
        "{}",
        h.render()
    );
    // Looking again replaces it; no mirror empties it.
    h.ch('r');
    let id = view(&h).pending.expect("r looks again");
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(Some(report(true))),
    }));
    assert_eq!(view(&h).list, list);
    h.ch('r');
    let id = view(&h).pending.unwrap();
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(None),
    }));
    assert!(view(&h).list.is_empty());
}

/// Thousands of clusters: the list scrolls to the selected one, drawing only what is in view.
#[test]
fn a_long_list_keeps_the_selected_cluster_in_view() {
    let mut many = Vec::new();
    for n in 0..400 {
        let name = format!("Person{n:03} Example");
        many.push(person(
            &format!("con_a{n:03}"),
            &name,
            &format!("p{n}@x.example"),
            "",
            &[],
        ));
        many.push(person(
            &format!("con_b{n:03}"),
            &name,
            &format!("P{n}@X.example"),
            "",
            &[],
        ));
    }
    let r = Arc::new(report_of(many, &[], &finder(), &ScanOptions::default()));
    assert_eq!(r.clusters.len(), 400);
    let (mut h, id) = opened((80, 24));
    h.send(Message::Mirror(MirrorMessage::Dupes {
        id,
        result: Ok(Some(r)),
    }));
    for _ in 0..25 {
        h.key(KeyCode::PageDown);
    }
    assert_eq!(view(&h).selected, 250);
    let screen = h.render();
    let selected = &view(&h).list[250].head;
    assert!(screen.contains(&format!("▸ {selected}")), "{screen}");
    assert!(!screen.contains(&view(&h).list[0].head), "{screen}");
}
