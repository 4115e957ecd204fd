//! Sync against the embedded sandbox over real HTTP: first sync, incremental sync under churn
//! (request counts from the sandbox's log), deletions found by a full sync, resuming an
//! interrupted full pass, a damaged file rebuilt, and the files' permissions.

use crate::mirror_support;

use std::time::Duration;

use crmdash::api::{ContactQuery, Paging};
use crmdash::mirror::sync::{Interval, PassKind, SyncOptions, SyncQuery, Tail};
use crmdash::mirror::{FullPass, Mirror, Resource};
use crmdash::sandbox::{Change, SandboxConfig};
use mirror_support::{Env, assert_same, file_mode, mirror_records, own_fields};

/// The reads a full pass plans to cover `total` records from the chain end `from` (each
/// overlapping the one before).
fn reads_from(from: u64, total: u64) -> u64 {
    let mut end = if from == 0 { 100 } else { from };
    let mut reads = u64::from(from == 0);
    while end < total {
        end = Interval::after(end, 100).end();
        reads += 1;
    }
    reads
}

fn all_resources_same(env: &Env) {
    let m = env.mirror();
    for r in Resource::ALL {
        assert_same(&env.server_records(r), &mirror_records(&m, r), r.noun());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_sync_mirrors_every_record_exactly_with_about_one_request_per_100() {
    let env = Env::new(SandboxConfig::default()).await;
    let report = env.sync(SyncOptions::default()).await;
    all_resources_same(&env);
    for r in &report.resources {
        assert_eq!(r.passes, vec![PassKind::Full, PassKind::Incremental]);
        assert!(!r.resumed);
    }
    let contacts = &report.resources[0];
    assert_eq!(contacts.inserted, 1000);
    // 1 for the starting watermark, the overlapping reads of 1,000, 1 incremental pass.
    assert_eq!(contacts.requests, 1 + reads_from(0, 1000) + 1, "{report:?}");
    assert_eq!(contacts.rereads, 0);
    // Every list request asked for at most 100 a page (the watermark probe asks for 1).
    for q in env.sb.requests() {
        let query = q.query.unwrap_or_default();
        let per_page: u32 = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("per_page="))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        assert!((1..=100).contains(&per_page), "{query}");
    }
    let status = env.mirror().status().unwrap();
    assert_eq!(status.resources[0].records, 1000);
    assert!(
        status
            .resources
            .iter()
            .all(|r| r.last_full_at.is_some() && !r.resumable)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incremental_sync_against_a_churning_sandbox_converges_and_stays_cheap() {
    let env = Env::new(SandboxConfig {
        churn: 200,
        ..SandboxConfig::default()
    })
    .await;
    env.sync(SyncOptions::default()).await;
    // Incremental syncs while the sandbox keeps changing records.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let report = env.sync(SyncOptions::default()).await;
        assert!(
            report
                .resources
                .iter()
                .all(|r| r.passes == vec![PassKind::Incremental])
        );
    }
    env.sb.stop_churn();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let churned = env.sb.churned();
    assert!(churned.len() > 50, "the churn ran: {}", churned.len());
    env.sync(SyncOptions::default()).await;
    // Every server record is in the mirror as the server has it now; what the mirror has
    // beyond that is exactly what was deleted (an incremental sync cannot see deletions).
    let m = env.mirror();
    for r in Resource::ALL {
        let server = env.server_records(r);
        let mut mirror = mirror_records(&m, r);
        for (id, rec) in &server {
            assert_eq!(
                mirror.get(id).map(own_fields),
                Some(own_fields(rec)),
                "{r} {id}"
            );
        }
        mirror.retain(|id, _| !server.contains_key(id));
        for id in mirror.keys() {
            assert!(
                churned.contains(&Change::Deleted {
                    kind: r.noun(),
                    id: id.clone()
                }),
                "{r} {id} is in the mirror, not on the server, and was not deleted"
            );
        }
    }
    drop(m);
    // A full sync then finds the deletions: mirror equals server.
    let report = env
        .sync(SyncOptions {
            full: true,
            ..SyncOptions::default()
        })
        .await;
    let deleted = churned
        .iter()
        .filter(|c| matches!(c, Change::Deleted { .. }))
        .count() as u64;
    let gone: u64 = report.resources.iter().map(|r| r.gone).sum();
    assert!(
        gone > 0 && gone <= deleted,
        "gone {gone}, deleted {deleted}"
    );
    all_resources_same(&env);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_fifty_changes_cost_at_most_four_list_requests_per_resource() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    // Changes must be newer than the sync's overlap window to count as "after the sync".
    let changes = env.sb.churn(250);
    assert_eq!(changes.len(), 250);
    env.sb.clear_requests();
    let report = env.sync(SyncOptions::default()).await;
    for r in Resource::ALL {
        let sent = env.list_requests(r);
        let reported = report
            .resources
            .iter()
            .find(|x| x.resource == r)
            .unwrap()
            .requests;
        assert_eq!(sent as u64, reported, "{r}");
        assert!(sent <= 4, "{r}: {sent} list requests for 250 changes");
    }
    let m = env.mirror();
    for r in Resource::ALL {
        let server = env.server_records(r);
        let mirror = mirror_records(&m, r);
        for (id, rec) in &server {
            assert_eq!(
                mirror.get(id).map(own_fields),
                Some(own_fields(rec)),
                "{r} {id}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_sync_marks_deleted_records_gone_and_hides_them() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    let mut deleted = Vec::new();
    while deleted.len() < 10 {
        for c in env.sb.churn(20) {
            if let Change::Deleted { kind, id } = c {
                deleted.push((kind, id));
            }
        }
    }
    let incremental = env.sync(SyncOptions::default()).await;
    assert_eq!(incremental.resources.iter().map(|r| r.gone).sum::<u64>(), 0);
    let full = env
        .sync(SyncOptions {
            full: true,
            ..SyncOptions::default()
        })
        .await;
    assert_eq!(
        full.resources.iter().map(|r| r.gone).sum::<u64>(),
        deleted.len() as u64,
        "{full:?}"
    );
    all_resources_same(&env);
    let m = env.mirror();
    for (kind, id) in &deleted {
        let r = Resource::ALL
            .into_iter()
            .find(|r| r.noun() == *kind)
            .unwrap();
        assert!(
            m.gone_at(r, id).unwrap().is_some(),
            "{kind} {id} marked gone"
        );
    }
    let status = m.status().unwrap();
    assert_eq!(
        status.resources.iter().map(|r| r.gone).sum::<u64>(),
        deleted.len() as u64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_full_pass_continues_from_its_saved_page() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions {
        resources: vec![Resource::Contacts],
        ..SyncOptions::default()
    })
    .await;
    // A full pass killed after page 4 leaves this: pages 1-4 written with the pass's
    // generation, and the pass's position, in the same transactions.
    {
        let mut m = env.mirror();
        let mut state = m.sync_state(Resource::Contacts).unwrap();
        let generation = state.generation + 1;
        for page in 1..=4 {
            let records = env
                .client
                .list(&ContactQuery::everything(Paging {
                    page: Some(page),
                    per_page: Some(100),
                }))
                .await
                .unwrap()
                .data;
            state.pass = Some(FullPass {
                generation,
                chain: Some(Tail::after_full_read(u64::from(page) * 100, &records)),
                start_mark: state.watermark.clone(),
                fetched: u64::from(page) * 100,
                requests: u64::from(page) + 1,
                deferred: false,
            });
            m.apply_page(&records, Some(generation), &state).unwrap();
        }
    }
    env.sb.clear_requests();
    let report = env
        .sync(SyncOptions {
            resources: vec![Resource::Contacts],
            ..SyncOptions::default()
        })
        .await;
    let c = &report.resources[0];
    assert!(c.resumed);
    // Reads chained onto record 400 up to 1,000, then the incremental pass: no watermark
    // probe, nothing before record 397 again.
    assert_eq!(c.requests, reads_from(400, 1000) + 1, "{report:?}");
    let first = env.sb.requests()[0].query.clone().unwrap_or_default();
    let num = |k: &str| -> u64 {
        first
            .split('&')
            .find_map(|kv| kv.strip_prefix(k))
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    let start = (num("page=") - 1) * num("per_page=");
    assert!((300..=397).contains(&start), "{first}");
    assert!(first.contains("sort_by=created_at"), "{first}");
    assert_eq!(c.gone, 0, "{report:?}");
    assert_same(
        &env.server_records(Resource::Contacts),
        &mirror_records(&env.mirror(), Resource::Contacts),
        "contacts",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_file_is_moved_aside_and_rebuilt() {
    let env = Env::new(SandboxConfig::default()).await;
    let path = env.location.db_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        b"this is not a database, it is a shopping list: eggs, milk, more eggs and bread"
            .repeat(100),
    )
    .unwrap();
    let report = env.sync(SyncOptions::default()).await;
    let aside = report.moved_aside.expect("moved aside");
    assert!(aside.to_string_lossy().contains(".corrupt-"), "{aside:?}");
    assert!(
        std::fs::read(&aside)
            .unwrap()
            .starts_with(b"this is not a database")
    );
    all_resources_same(&env);

    // A valid SQLite file of another program is not ours either.
    drop(std::fs::remove_file(&path));
    for s in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", path.display()));
    }
    {
        let other = rusqlite::Connection::open(&path).unwrap();
        other
            .execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('keep me');")
            .unwrap();
    }
    let opened = Mirror::open(&path).unwrap();
    assert!(opened.moved_aside.is_some());
    assert_eq!(opened.mirror.status().unwrap().resources[0].records, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mirror_is_private_and_one_sync_runs_at_a_time() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions {
        resources: vec![Resource::Projects],
        ..SyncOptions::default()
    })
    .await;
    let dir = env.location.root.clone();
    assert_eq!(file_mode(&dir), 0o700);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        assert_eq!(file_mode(&p), 0o600, "{}", p.display());
    }
    // The token is nowhere in the files.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let token = env.sb.token();
        assert!(!bytes.windows(token.len()).any(|w| w == token.as_bytes()));
    }
    let _held = crmdash::mirror::SyncLock::acquire(&env.location.lock_path()).unwrap();
    let err =
        crmdash::mirror::sync::sync(&env.client, &env.location, &SyncOptions::default(), &|_| {})
            .await
            .unwrap_err();
    assert!(err.to_string().contains("another sync"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_waited_out_and_a_failed_sync_leaves_the_mirror_usable() {
    let env = Env::new(SandboxConfig::default()).await;
    let rule = |times| {
        serde_json::from_value::<crmdash::sandbox::FaultRule>(serde_json::json!({
            "kind": "rate_limited", "retry_after_secs": 1, "path": "/contacts", "times": times
        }))
        .unwrap()
    };
    // Two 429s with Retry-After: 1 are waited out by the client's retries.
    env.sb.faults().add(rule(2));
    let report = env
        .sync(SyncOptions {
            resources: vec![Resource::Contacts],
            ..SyncOptions::default()
        })
        .await;
    assert_eq!(report.resources[0].inserted, 1000);
    let throttled = env.sb.requests().len() as u64 - report.resources[0].requests;
    assert_eq!(throttled, 2, "the two 429s were retried");

    // More than the client retries: the sync fails with the API's error (exit code by its
    // kind in the CLI) and the next one, with the service back, completes.
    let state_before = env.mirror().sync_state(Resource::Deals).unwrap();
    assert!(state_before.pass.is_none());
    env.sb.faults().add(
        serde_json::from_value(serde_json::json!({
            "kind": "server_error", "status": 503, "path": "/deals", "times": 0
        }))
        .unwrap(),
    );
    let err = crmdash::mirror::sync::sync(
        &env.client,
        &env.location,
        &SyncOptions {
            resources: vec![Resource::Deals],
            ..SyncOptions::default()
        },
        &|_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(err, crmdash::mirror::MirrorError::Api(_)), "{err}");
    env.sb.faults().clear();
    let report = env
        .sync(SyncOptions {
            resources: vec![Resource::Deals],
            ..SyncOptions::default()
        })
        .await;
    assert_eq!(report.resources[0].inserted, 500);
}
