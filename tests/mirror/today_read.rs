//! Today's read from a real mirror (`runtime::feed::today`): only what Today groups is read
//! from the feed, only the shown lines' records are looked up, counts cover every change, and
//! the quiet deals are ranked with the feed's last change of each (not only `updated_at`).

use chrono::{Duration, Utc};
use crmdash::api::{ApiRecord, Deal};
use crmdash::insights::today::{GroupKind, LINES_SHOWN, build};
use crmdash::mirror::{Mirror, Resource, SyncState};
use serde_json::json;
use serde_json::value::RawValue;

fn deal(id: &str, status: &str, value: &str, updated_days_ago: i64) -> Deal {
    let updated = (Utc::now() - Duration::days(updated_days_ago)).to_rfc3339();
    let v = json!({"id": id, "name": format!("Deal {id}"), "status": status, "value": value,
        "currency": "EUR", "created_at": updated, "updated_at": updated});
    Deal::from_raw(RawValue::from_string(v.to_string()).unwrap()).unwrap()
}

#[test]
fn today_reads_what_it_shows_and_ranks_quiet_deals_with_the_feed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite3");
    let mut m = Mirror::open(&db).unwrap().mirror;
    let mut deals = vec![
        deal("q1", "open", "100.00", 60),
        deal("q2", "open", "90000.00", 40),
        // Old by its stamp, but the feed saw it change two days ago: not quiet.
        deal("q3", "open", "50000.00", 30),
        deal("w0", "won", "999999.00", 90),
    ];
    for i in 0..60 {
        deals.push(deal(&format!("d{i:02}"), "won", "10.00", 0));
    }
    m.apply_page(&deals, None, &SyncState::default()).unwrap();
    drop(m);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let now = Utc::now().timestamp();
    let ins = |at: i64, resource: i64, id: &str, kind: i64, fields: Option<&str>| {
        conn.execute(
            "INSERT INTO changes (at, resource, id, kind, fields) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![at, resource, id, kind, fields],
        )
        .unwrap();
    };
    ins(
        now - 2 * 86_400,
        1,
        "q3",
        1,
        Some(r#"[["probability",10,20]]"#),
    );
    for i in 0..60 {
        ins(
            now - 3600 + i,
            1,
            &format!("d{i:02}"),
            1,
            Some(r#"[["status","open","won"]]"#),
        );
        // Changes Today does not group: never read.
        ins(
            now - 3600 + i,
            0,
            "con_1",
            1,
            Some(r#"[["phone","1","2"]]"#),
        );
    }
    drop(conn);

    let m = Mirror::open(&db).unwrap().mirror;
    let input = crmdash::runtime::feed::today(&m, Some(None), None, Utc::now()).unwrap();
    assert_eq!(input.changes.len(), 60, "only deals' status changes");
    assert!(input.changes.iter().all(|c| c.resource == Resource::Deals));
    // The records of the shown lines only: the 50 newest won deals.
    let mut looked_up: Vec<String> = input.facts.keys().map(|(_, id)| id.clone()).collect();
    looked_up.sort();
    let newest: Vec<String> = (60 - LINES_SHOWN..60).map(|i| format!("d{i:02}")).collect();
    assert_eq!(looked_up, newest);
    assert_eq!(
        input.facts[&(Resource::Deals, "d59".into())].label,
        "Deal d59"
    );

    let zone = crmdash::timeparse::Zone::Named(chrono_tz::Tz::UTC);
    let groups = build(&input, Utc::now().date_naive(), Utc::now(), &zone);
    let won = groups.iter().find(|g| g.kind == GroupKind::Won).unwrap();
    assert_eq!(won.total, 60);
    assert_eq!(won.lines.len(), LINES_SHOWN);
    assert_eq!(won.lines[0].id, "d59", "newest first");
    let quiet = groups.iter().find(|g| g.kind == GroupKind::Quiet).unwrap();
    let ids: Vec<&str> = quiet.lines.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["q2", "q1"]);
    assert!(
        quiet.lines[0].text.contains("quiet 40 days"),
        "{:?}",
        quiet.lines
    );
}

#[test]
fn a_window_of_time_reads_in_time_order_and_leaves_out_what_is_stamped_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite3");
    drop(Mirror::open(&db).unwrap().mirror);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let now = Utc::now().timestamp();
    // seq 1..=4; the third was stamped before the window (a clock set back).
    for (at, id) in [
        (now - 900, "a"),
        (now - 60, "b"),
        (now - 7200, "c"),
        (now - 30, "d"),
    ] {
        conn.execute(
            "INSERT INTO changes (at, resource, id, kind) VALUES (?1, 0, ?2, 0)",
            rusqlite::params![at, id],
        )
        .unwrap();
    }
    drop(conn);
    let m = Mirror::open(&db).unwrap().mirror;
    let ids = |since_secs: i64, newest_first: bool| -> Vec<String> {
        let q = crmdash::mirror::ChangeQuery {
            since: Some(Utc::now() - Duration::seconds(since_secs)),
            newest_first,
            ..Default::default()
        };
        m.changes(&q).unwrap().into_iter().map(|c| c.id).collect()
    };
    assert_eq!(ids(120, false), ["b", "d"]);
    assert_eq!(ids(3600, false), ["a", "b", "d"]);
    assert_eq!(ids(3600, true), ["d", "b", "a"]);
    assert_eq!(ids(86_400, false), ["c", "a", "b", "d"]);
    assert!(ids(1, false).is_empty());
}
