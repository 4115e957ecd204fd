//! Schema 7 to 8 in place: the relations (`links`) keyed by the record's `rid` instead of its
//! resource and id. A mirror synced from the sandbox is turned back into version 7's layout
//! (the table as version 7 made it, the same rows), then opened by a sync: the relations read
//! the same, nothing is fetched again, and the next writes keep them right.

use std::collections::BTreeSet;
use std::path::Path;

use crate::mirror_support;

use crmdash::api::ApiRecord;
use crmdash::mirror::sync::SyncOptions;
use crmdash::mirror::{Mirror, Resource};
use crmdash::sandbox::SandboxConfig;
use mirror_support::Env;
use serde_json::Value;

/// Version 7's `links`, made from version 8's rows (the codes back to names, `rid` back to
/// resource and id), and the file marked as version 7.
fn back_to_version_7(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE links_7 (
             resource  TEXT NOT NULL,
             id        TEXT NOT NULL,
             rel       TEXT NOT NULL,
             pos       INTEGER NOT NULL,
             target_id TEXT NOT NULL,
             PRIMARY KEY (resource, id, rel, pos)
         ) WITHOUT ROWID;
         INSERT INTO links_7 (resource, id, rel, pos, target_id)
           SELECT r.resource, r.id, CASE l.rel WHEN 3 THEN 'contact' ELSE 'account' END,
                  l.pos, l.target_id
           FROM links l JOIN records r ON r.rid = l.rid;
         DROP TABLE links;
         ALTER TABLE links_7 RENAME TO links;
         CREATE INDEX links_target ON links (rel, target_id);
         PRAGMA user_version = 7;
         COMMIT;",
    )
    .unwrap();
}

fn user_version(path: &Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

fn columns(path: &Path, table: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn count(path: &Path, sql: &str) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

/// What the relations answer: a contact's deals, an account's deals, an account's contacts
/// sharing a name word.
#[derive(Debug, PartialEq, Eq)]
struct Answers {
    deals_of_contact: BTreeSet<String>,
    deals_of_account: BTreeSet<String>,
    contacts_of_account: BTreeSet<String>,
}

fn answers(m: &Mirror, contact: &str, account: &str, word: &str) -> Answers {
    Answers {
        deals_of_contact: m
            .deals_of_contact(contact)
            .unwrap()
            .into_iter()
            .map(|d| d.id)
            .collect(),
        deals_of_account: m
            .deals_of_account(account)
            .unwrap()
            .into_iter()
            .map(|d| d.id)
            .collect(),
        contacts_of_account: m
            .contacts_of_account_named(account, &[word.to_string()], 1_000)
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect(),
    }
}

/// Checks the answers against the server: a contact's and an account's deals exactly; the
/// account's namesakes are its contacts (and some are found; which words match is the
/// full-text index's folding, compared before and after the migration instead).
fn check_with_server(env: &Env, got: &Answers, contact: &str, account: &str) {
    let deals = env.server_records(Resource::Deals);
    let contacts = env.server_records(Resource::Contacts);
    let has = |v: &Value, key: &str, id: &str| {
        v[key].as_array().is_some_and(|a| a.iter().any(|x| x == id))
    };
    let of_contact: BTreeSet<String> = deals
        .iter()
        .filter(|(_, d)| has(d, "contact_ids", contact))
        .map(|(id, _)| id.clone())
        .collect();
    let of_account: BTreeSet<String> = deals
        .iter()
        .filter(|(_, d)| d["account_id"] == account)
        .map(|(id, _)| id.clone())
        .collect();
    assert!(!of_contact.is_empty() && !of_account.is_empty());
    assert_eq!(got.deals_of_contact, of_contact);
    // Only deals: the account's contacts are linked to it too, under their own code.
    assert_eq!(got.deals_of_account, of_account);
    assert!(!got.contacts_of_account.is_empty());
    for id in &got.contacts_of_account {
        assert!(
            has(&contacts[id], "account_ids", account),
            "{id} of {account}"
        );
    }
}

/// A deal with two contacts, its account, and a last name among that account's contacts.
fn pick(env: &Env) -> (String, String, String) {
    let deals = env.server_records(Resource::Deals);
    let contacts = env.server_records(Resource::Contacts);
    let deal = deals
        .values()
        .find(|d| d["contact_ids"].as_array().is_some_and(|c| c.len() >= 2))
        .expect("a deal with two contacts");
    let contact = deal["contact_ids"][0].as_str().unwrap().to_string();
    let account = deal["account_id"].as_str().unwrap().to_string();
    let word = contacts
        .values()
        .find(|c| {
            c["account_ids"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == account.as_str()))
                && c["last_name"]
                    .as_str()
                    .is_some_and(|n| n.chars().all(|ch| ch.is_ascii_alphabetic()))
        })
        .and_then(|c| c["last_name"].as_str())
        .expect("a contact of the account")
        .to_lowercase();
    (contact, account, word)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_7_mirror_keeps_its_relations_keyed_by_rid() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    let path = env.location.db_path();
    let (contact, account, word) = pick(&env);
    let want = answers(&env.mirror(), &contact, &account, &word);
    check_with_server(&env, &want, &contact, &account);
    let links = count(&path, "SELECT count(*) FROM links");
    assert!(links > 0);

    back_to_version_7(&path);
    assert_eq!(user_version(&path), 7);
    assert_eq!(
        columns(&path, "links"),
        ["resource", "id", "rel", "pos", "target_id"]
    );
    // A read does not migrate: an older schema is no mirror to it until a sync's open.
    assert!(Mirror::open_existing(&path).unwrap().is_none());
    assert_eq!(user_version(&path), 7);

    // A sync's open migrates in place: every link kept, keyed by rid, the records untouched.
    let records = count(&path, "SELECT count(*) FROM records");
    let m = env.mirror();
    assert_eq!(user_version(&path), 8);
    assert_eq!(columns(&path, "links"), ["rid", "pos", "rel", "target_id"]);
    assert_eq!(count(&path, "SELECT count(*) FROM links"), links);
    assert_eq!(count(&path, "SELECT count(*) FROM records"), records);
    assert_eq!(
        count(
            &path,
            "SELECT count(*) FROM links l LEFT JOIN records r ON r.rid = l.rid WHERE r.rid IS NULL"
        ),
        0,
        "every link names a record"
    );
    assert_eq!(answers(&m, &contact, &account, &word), want);
    assert!(
        Mirror::open_existing(&path).unwrap().is_some(),
        "reads find it again"
    );
    drop(m);

    // Opening again finds nothing to do; the next sync is incremental and changes nothing.
    let report = env.sync(SyncOptions::default()).await;
    assert!(
        report
            .resources
            .iter()
            .all(|r| r.inserted == 0 && r.updated == 0),
        "{report:?}"
    );
    assert_eq!(count(&path, "SELECT count(*) FROM links"), links);
    assert_eq!(answers(&env.mirror(), &contact, &account, &word), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_deal_moves_its_links_after_the_migration() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    let path = env.location.db_path();
    back_to_version_7(&path);
    let mut m = env.mirror();
    assert_eq!(user_version(&path), 8);

    // A deal whose contacts change: its links follow (the old ones gone, none doubled).
    let deals = env.server_records(Resource::Deals);
    let (id, deal) = deals
        .iter()
        .find(|(_, d)| d["contact_ids"].as_array().is_some_and(|c| c.len() >= 2))
        .unwrap();
    let old: Vec<String> = deal["contact_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let mut changed = deal.clone();
    changed["contact_ids"] = Value::from(vec![old[1].clone()]);
    changed["contacts"] = Value::from(vec![deal["contacts"][1].clone()]);
    let raw = serde_json::value::RawValue::from_string(changed.to_string()).unwrap();
    let typed = crmdash::api::Deal::from_raw(raw).unwrap();
    m.upsert(&[typed]).unwrap();
    assert!(
        !m.deals_of_contact(&old[0])
            .unwrap()
            .iter()
            .any(|d| &d.id == id),
        "the removed contact no longer lists the deal"
    );
    let of_kept: Vec<String> = m
        .deals_of_contact(&old[1])
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(of_kept.iter().filter(|d| *d == id).count(), 1);
    let rid: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT rid FROM records WHERE resource = 'deals' AND id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap();
    // The deal's account and its one contact.
    assert_eq!(
        count(
            &path,
            &format!("SELECT count(*) FROM links WHERE rid = {rid}")
        ),
        2
    );
}
