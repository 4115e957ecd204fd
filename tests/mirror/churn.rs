//! Sync against a service that changes while it is read (issue 30): the sandbox's `churn`
//! fault makes changes (new contacts, updates, deletions) as each list request arrives, so the
//! changes fall between the sync's reads on every run, with no timing involved. After the
//! sync, with the changes stopped: every record the server has is in the mirror as the server
//! has it, nothing live is marked gone, and what the mirror has beyond the server was deleted
//! during the sync. A quiet full sync then leaves the mirror equal to the server.

use crate::mirror_support;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crmdash::mirror::sync::{PassKind, ResourceReport, SyncOptions};
use crmdash::mirror::{Mirror, Resource};
use crmdash::sandbox::{Change, FaultKind, FaultRule, SandboxConfig};
use mirror_support::{Env, assert_same, mirror_records, own_fields};
use serde_json::Value;

/// Syncs each resource in turn while every list request of it first makes `changes` changes,
/// then once more quietly (what was created or changed after the last pass began reading is
/// for the next sync; an unchanged record it missed, or a change behind the watermark, no
/// incremental sync would ever bring), and checks the resource.
async fn sync_each_under_churn(
    env: &Env,
    opts: SyncOptions,
    changes: u32,
    what: &str,
) -> Vec<ResourceReport> {
    let mut reports = Vec::new();
    for r in Resource::ALL {
        env.sb.faults().add(
            FaultRule::new(FaultKind::Churn { changes })
                .on("GET", &format!("/{r}"))
                .always(),
        );
        let report = env
            .sync(SyncOptions {
                resources: vec![r],
                ..opts.clone()
            })
            .await;
        env.sb.faults().clear();
        env.sync(SyncOptions {
            resources: vec![r],
            ..SyncOptions::default()
        })
        .await;
        mirror_holds_the_server(env, r, what);
        reports.extend(report.resources);
    }
    reports
}

fn full() -> SyncOptions {
    SyncOptions {
        full: true,
        ..SyncOptions::default()
    }
}

fn live(m: &Mirror) -> BTreeMap<Resource, BTreeMap<String, Value>> {
    Resource::ALL
        .into_iter()
        .map(|r| (r, mirror_records(m, r)))
        .collect()
}

/// The churn log's changes of one kind, by resource noun and id.
fn changed(env: &Env, deleted: bool) -> BTreeSet<(String, String)> {
    env.sb
        .churned()
        .into_iter()
        .filter_map(|c| match c {
            Change::Deleted { kind, id } if deleted => Some((kind.to_string(), id)),
            Change::Created { kind, id } if !deleted => Some((kind.to_string(), id)),
            _ => None,
        })
        .collect()
}

/// Every record of the server is in the mirror as the server has it (its own fields: the
/// included relations are summaries of other records, refreshed by the next full sync), and
/// everything the mirror has beyond the server was deleted during the sync.
fn mirror_holds_the_server(env: &Env, r: Resource, what: &str) {
    let deleted = changed(env, true);
    let m = env.mirror();
    {
        let server = env.server_records(r);
        let mirror = mirror_records(&m, r);
        let missing: Vec<&String> = server
            .keys()
            .filter(|id| !mirror.contains_key(*id))
            .collect();
        assert!(
            missing.is_empty(),
            "{what}: {r} missing from the mirror: {missing:?}"
        );
        for (id, rec) in &server {
            assert_eq!(
                own_fields(&mirror[id]),
                own_fields(rec),
                "{what}: {r} {id} differs"
            );
        }
        for id in mirror.keys().filter(|id| !server.contains_key(*id)) {
            assert!(
                deleted.contains(&(r.noun().to_string(), id.clone())),
                "{what}: {r} {id} is in the mirror, not on the server, and was not deleted"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_sync_under_creations_updates_and_deletions_stores_every_record() {
    let env = Env::new(SandboxConfig {
        contacts: 3000,
        ..SandboxConfig::default()
    })
    .await;
    let reports = sync_each_under_churn(&env, SyncOptions::default(), 4, "first sync").await;
    let created = changed(&env, false);
    let deleted = changed(&env, true);
    assert!(
        created.len() >= 5 && deleted.len() >= 10,
        "the service changed during the sync: {} created, {} deleted",
        created.len(),
        deleted.len()
    );
    assert_eq!(
        reports[0].passes,
        vec![PassKind::Full, PassKind::Incremental]
    );
    // A quiet full sync: the mirror equals the server, and it marks gone exactly the records
    // deleted after the first sync had read them.
    let before = live(&env.mirror());
    let quiet = env.sync(full()).await;
    for r in Resource::ALL {
        let server = env.server_records(r);
        assert_same(&server, &mirror_records(&env.mirror(), r), r.noun());
        let extra = before[&r]
            .keys()
            .filter(|id| !server.contains_key(*id))
            .count();
        let gone = quiet
            .resources
            .iter()
            .find(|x| x.resource == r)
            .unwrap()
            .gone;
        assert_eq!(gone, extra as u64, "{r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_sync_under_churn_and_latency_marks_nothing_live_gone() {
    // The second report of the issue: `sync --full` on a complete mirror, with a 150 ms
    // latency on every request, while the service changes.
    let env = Env::new(SandboxConfig {
        contacts: 3000,
        latency: Some(Duration::from_millis(150)),
        ..SandboxConfig::default()
    })
    .await;
    env.sync(SyncOptions::default()).await;
    let before = live(&env.mirror());
    let reports = sync_each_under_churn(&env, full(), 4, "full sync").await;
    let deleted = changed(&env, true);
    assert!(
        deleted.len() >= 10,
        "deleted during the sync: {}",
        deleted.len()
    );
    // What the full sync marked gone was deleted.
    let after = live(&env.mirror());
    let mut gone = 0;
    for r in Resource::ALL {
        for id in before[&r].keys().filter(|id| !after[&r].contains_key(*id)) {
            gone += 1;
            assert!(
                deleted.contains(&(r.noun().to_string(), id.clone())),
                "{r} {id} marked gone but never deleted"
            );
        }
    }
    let reported: u64 = reports.iter().map(|r| r.gone).sum();
    assert_eq!(reported, gone);
    assert!(
        gone > 0,
        "deletions before their records were read are found"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incremental_syncs_under_churn_miss_no_change() {
    let env = Env::new(SandboxConfig {
        contacts: 2000,
        ..SandboxConfig::default()
    })
    .await;
    env.sync(SyncOptions::default()).await;
    for round in 0..2 {
        // Many pages of changes to read, and more changes while they are read.
        env.sb.churn(1500);
        let what = format!("incremental round {round}");
        let reports = sync_each_under_churn(&env, SyncOptions::default(), 8, &what).await;
        assert!(
            reports
                .iter()
                .all(|r| r.passes == vec![PassKind::Incremental]),
            "{what}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_longer_than_the_clients_retries_fails_nothing() {
    let env = Env::new(SandboxConfig::default()).await;
    // More 429s in a row than the client retries one request: the sync waits them out.
    env.sb.faults().add(
        FaultRule::new(FaultKind::RateLimited {
            retry_after_secs: 0,
        })
        .on("GET", "/contacts")
        .times(12),
    );
    let report = env.sync(SyncOptions::default()).await;
    env.sb.faults().clear();
    let answered: u64 = report.resources.iter().map(|r| r.requests).sum();
    assert_eq!(env.sb.requests().len() as u64, answered + 12);
    for r in Resource::ALL {
        assert_same(
            &env.server_records(r),
            &mirror_records(&env.mirror(), r),
            r.noun(),
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_allowing_ten_requests_a_second_still_gets_a_complete_mirror() {
    // 8 requests at once against a service allowing 10 a second: 429s with Retry-After.
    let env = Env::new(SandboxConfig {
        rate_limit: Some(10),
        ..SandboxConfig::default()
    })
    .await;
    let report = env.sync(SyncOptions::default()).await;
    let received = env.sb.requests().len() as u64;
    let answered: u64 = report.resources.iter().map(|r| r.requests).sum();
    assert!(
        received > answered,
        "rate limited: {received} received, {answered} answered"
    );
    // Compared with the sandbox's store (reading it over HTTP would be rate limited too).
    let m = env.mirror();
    for r in Resource::ALL {
        let mirror = mirror_records(&m, r);
        let ids: BTreeSet<String> = env.sb.ids(r.noun()).into_iter().collect();
        assert_eq!(mirror.keys().cloned().collect::<BTreeSet<_>>(), ids, "{r}");
    }
    for (id, rec) in mirror_records(&m, Resource::Contacts) {
        assert_eq!(
            own_fields(&rec),
            own_fields(&env.sb.contact(&id).unwrap()),
            "{id}"
        );
    }
}
