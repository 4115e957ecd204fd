//! The change feed against a churning sandbox: the baseline records nothing, an incremental
//! sync records what the sandbox changed field by field, a full sync reports deletions as
//! `gone`, a record seen again is `back`, pruning, and cursors.

use crate::mirror_support;

use std::collections::{BTreeMap, BTreeSet};

use chrono::Utc;
use crmdash::mirror::sync::SyncOptions;
use crmdash::mirror::{ChangeKind, ChangeQuery, Resource};
use crmdash::sandbox::{Change, SandboxConfig};
use mirror_support::Env;
use serde_json::Value;

fn resource(kind: &str) -> Resource {
    Resource::ALL
        .into_iter()
        .find(|r| r.noun() == kind)
        .expect(kind)
}

type Fields = BTreeMap<String, (Value, Value)>;
type Key = (Resource, String);

/// What the churn did, per record: for those updated and still there, each field's first old
/// and last new value (fields set back to where they were left out); the deleted ones; and the
/// created ones still there (a sync sees them as created, whatever happened to them since).
fn net_effect(log: &[Change]) -> (BTreeMap<Key, Fields>, BTreeSet<Key>, BTreeSet<Key>) {
    let mut updated: BTreeMap<(Resource, String), Fields> = BTreeMap::new();
    let mut deleted = BTreeSet::new();
    let mut created = BTreeSet::new();
    for c in log {
        match c {
            Change::Created { kind, id } => {
                created.insert((resource(kind), id.clone()));
            }
            Change::Updated { kind, id, fields } => {
                let rec = updated.entry((resource(kind), id.clone())).or_default();
                for f in fields {
                    rec.entry(f.field.to_string())
                        .and_modify(|(_, new)| *new = f.new.clone())
                        .or_insert((f.old.clone(), f.new.clone()));
                }
            }
            Change::Deleted { kind, id } => {
                deleted.insert((resource(kind), id.clone()));
            }
        }
    }
    for key in &deleted {
        updated.remove(key);
        created.remove(key);
    }
    for key in &created {
        updated.remove(key);
    }
    for fields in updated.values_mut() {
        fields.retain(|_, (old, new)| old != new);
    }
    updated.retain(|_, f| !f.is_empty());
    (updated, deleted, created)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_baseline_records_nothing_and_an_incremental_sync_records_the_churn_field_by_field() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    let m = env.mirror();
    assert_eq!(m.changes(&ChangeQuery::default()).unwrap(), vec![]);
    assert_eq!(m.last_change_seq().unwrap(), 0);

    let log = env.sb.churn(400);
    let (expected, _, created) = net_effect(&log);
    assert!(
        expected.keys().any(|(r, _)| *r == Resource::Deals)
            && expected
                .values()
                .any(|f| f.contains_key("status") && f.contains_key("value")),
        "the churn moves deal statuses and values: {expected:?}"
    );
    let report = env.sync(SyncOptions::default()).await;
    assert!(report.resources.iter().all(|r| r.gone == 0), "{report:?}");

    let changes = env.mirror().changes(&ChangeQuery::default()).unwrap();
    let mut got: BTreeMap<(Resource, String), Fields> = BTreeMap::new();
    let mut got_created = BTreeSet::new();
    for c in &changes {
        if c.kind == ChangeKind::Created {
            got_created.insert((c.resource, c.id.clone()));
            continue;
        }
        assert_eq!(c.kind, ChangeKind::Updated, "{c:?}");
        let fields = c
            .fields
            .iter()
            .map(|f| (f.field.clone(), (f.old.clone(), f.new.clone())))
            .collect();
        assert!(
            got.insert((c.resource, c.id.clone()), fields).is_none(),
            "one change per record and sync: {c:?}"
        );
    }
    assert_eq!(got, expected);
    assert_eq!(got_created, created);
    // Oldest first, numbered in order.
    assert!(changes.windows(2).all(|w| w[0].seq < w[1].seq));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_sync_reports_deletions_as_gone_and_a_record_seen_again_as_back() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    let log = env.sb.churn(200);
    let (_, deleted, _) = net_effect(&log);
    assert!(!deleted.is_empty());
    env.sync(SyncOptions {
        full: true,
        ..SyncOptions::default()
    })
    .await;
    let m = env.mirror();
    let gone: BTreeSet<(Resource, String)> = m
        .changes(&ChangeQuery {
            kinds: vec![ChangeKind::Gone],
            ..ChangeQuery::default()
        })
        .unwrap()
        .into_iter()
        .map(|c| {
            assert!(c.fields.is_empty());
            (c.resource, c.id)
        })
        .collect();
    assert_eq!(gone, deleted);

    // A record the mirror holds as gone comes back through a write of it (as after a
    // restore on the service): `back`, with what differs.
    let (r, id) = deleted
        .iter()
        .find(|(r, _)| *r == Resource::Contacts)
        .cloned()
        .expect("a contact was deleted");
    let contact: crmdash::api::Contact = m.get(&id).unwrap().expect("kept while gone");
    let mut m = m;
    m.upsert(&[contact]).unwrap();
    let back = m
        .changes(&ChangeQuery {
            id: Some(id.clone()),
            newest_first: true,
            ..ChangeQuery::default()
        })
        .unwrap();
    assert_eq!(back[0].kind, ChangeKind::Back);
    assert_eq!((back[0].resource, back[1].kind), (r, ChangeKind::Gone));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_cursors_and_pruning() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    env.sb.churn(300);
    env.sync(SyncOptions::default()).await;
    let m = env.mirror();
    let all = m.changes(&ChangeQuery::default()).unwrap();
    let deals_status = m
        .changes(&ChangeQuery {
            resources: vec![Resource::Deals],
            field: Some("status".into()),
            ..ChangeQuery::default()
        })
        .unwrap();
    assert!(!deals_status.is_empty());
    assert_eq!(
        deals_status,
        all.iter()
            .filter(|c| c.resource == Resource::Deals && c.field("status").is_some())
            .cloned()
            .collect::<Vec<_>>()
    );
    let newest = m
        .changes(&ChangeQuery {
            newest_first: true,
            limit: Some(2),
            ..ChangeQuery::default()
        })
        .unwrap();
    assert_eq!(newest[0], *all.last().unwrap());
    assert_eq!(newest.len(), 2);

    // A cursor never moves backwards.
    assert_eq!(m.cursor("cron").unwrap(), None);
    m.set_cursor("cron", all[3].seq, Utc::now()).unwrap();
    m.set_cursor("cron", all[1].seq, Utc::now()).unwrap();
    assert_eq!(m.cursor("cron").unwrap().unwrap().seq, all[3].seq);
    let after = m
        .changes(&ChangeQuery {
            after_seq: Some(all[3].seq),
            ..ChangeQuery::default()
        })
        .unwrap();
    assert_eq!(after, all[4..].to_vec());

    // Pruning drops what is older than the cut.
    assert_eq!(
        m.prune_changes(Utc::now() - chrono::Duration::days(1))
            .unwrap(),
        0
    );
    assert_eq!(
        m.prune_changes(Utc::now() + chrono::Duration::days(1))
            .unwrap(),
        all.len() as u64
    );
    // `[cache] history_days` reaches the sync.
    let cache = crmdash::config::CacheSettings {
        history_days: 3,
        ..Default::default()
    };
    assert_eq!(
        SyncOptions::from_settings(&cache, false, vec![]).history_days,
        3
    );
}
