//! A first sync writes its records without their search entries and builds those once at the
//! end of the full pass (`crates/mirror/src/mirror/deferred.rs`): search then finds every record exactly
//! once; an interrupted first sync leaves lists that answer and a search that says the
//! resource is not indexed yet, and the next sync finishes the job.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::mirror_support;

use crmdash::api::{ApiRecord, Contact, ContactQuery, ContactSort, Paging};
use crmdash::mirror::sync::{self, PassKind, SyncOptions, SyncQuery};
use crmdash::mirror::{Mirror, Resource, SearchQuery};
use crmdash::sandbox::SandboxConfig;
use mirror_support::Env;
use serde_json::Value;

/// A reading connection, as `crmdash search` and the dashboard open the mirror.
fn reader(env: &Env) -> Mirror {
    Mirror::open_existing(&env.location.db_path())
        .expect("opens")
        .expect("a mirror is there")
        .mirror
}

/// The ids a search for `text` finds among `r`'s records (duplicates kept).
fn found(m: &Mirror, r: Resource, text: &str) -> Vec<String> {
    m.search(&SearchQuery {
        text: text.to_string(),
        resources: vec![r],
        limit: 50,
    })
    .unwrap()
    .groups
    .into_iter()
    .flat_map(|g| g.hits.into_iter().map(|h| h.id))
    .collect()
}

/// Every contact is found by its email, exactly once; a part of a phone number finds its
/// contact; every deal is found by its name.
fn search_finds_everything_once(env: &Env, m: &Mirror, deals: bool) {
    let contacts = env.server_records(Resource::Contacts);
    for (id, c) in &contacts {
        let Some(email) = c["email"].as_str() else {
            continue;
        };
        let hits = found(m, Resource::Contacts, email);
        assert_eq!(
            hits.iter().filter(|h| *h == id).count(),
            1,
            "{email} finds {id} once: {hits:?}"
        );
    }
    let mut phones = 0;
    for (id, c) in contacts.iter().filter(|(_, c)| c["phone"].is_string()) {
        let digits: String = c["phone"]
            .as_str()
            .unwrap()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        if digits.len() >= 9 && phones < 25 {
            assert!(found(m, Resource::Contacts, &digits[3..8]).contains(id));
            phones += 1;
        }
    }
    assert!(phones >= 10);
    if !deals {
        return;
    }
    for (id, d) in env.server_records(Resource::Deals) {
        let name = d["name"].as_str().unwrap_or_default();
        let words: Vec<&str> = name.split_whitespace().take(3).collect();
        let hits = found(m, Resource::Deals, &words.join(" "));
        if hits.len() < 50 {
            assert!(hits.contains(&id), "{name:?} finds {id}: {hits:?}");
        }
    }
}

/// Every live contact listed from the mirror (id order), by id.
fn listed(m: &Mirror) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    m.each_live::<Contact>(|c| {
        out.insert(
            c.id().to_string(),
            serde_json::from_str(c.raw().get()).unwrap(),
        );
    })
    .unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_sync_builds_its_search_indexes_at_the_end_and_search_finds_every_record_once() {
    let env = Env::new(SandboxConfig::default()).await;
    let report = env.sync(SyncOptions::default()).await;
    assert!(
        report
            .resources
            .iter()
            .all(|r| r.passes == [PassKind::Full, PassKind::Incremental]),
        "{report:?}"
    );
    let m = reader(&env);
    for r in Resource::ALL {
        assert!(!m.index_pending(r).unwrap(), "{r}");
        assert!(m.sync_state(r).unwrap().pass.is_none());
    }
    search_finds_everything_once(&env, &m, true);
    // A typo still finds near names (the trigram index was built too).
    assert!(!found(&m, Resource::Contacts, "mulller").is_empty());
    assert_eq!(listed(&m), env.server_records(Resource::Contacts));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_first_sync_lists_what_it_read_says_search_waits_and_the_next_sync_builds_it()
 {
    let env = Env::new(SandboxConfig::default()).await;
    let contacts_only = SyncOptions {
        resources: vec![Resource::Contacts],
        // One read at a time: with more, the reads already out when the service starts
        // failing can finish the whole pass (1,000 contacts) before any 503 comes back.
        jobs: 1,
        ..SyncOptions::default()
    };
    // The service starts failing once 300 contacts were read.
    let failing = AtomicBool::new(false);
    let stop = |p: &sync::SyncProgress| {
        if p.fetched >= 300 && !failing.swap(true, Ordering::SeqCst) {
            env.sb.faults().add(
                serde_json::from_value(serde_json::json!({
                    "kind": "server_error", "status": 503, "path": "/contacts", "times": 0
                }))
                .unwrap(),
            );
        }
    };
    let err = sync::sync(&env.client, &env.location, &contacts_only, &stop)
        .await
        .unwrap_err();
    assert!(matches!(err, crmdash::mirror::MirrorError::Api(_)), "{err}");
    env.sb.faults().clear();

    let m = reader(&env);
    let pass = m
        .sync_state(Resource::Contacts)
        .unwrap()
        .pass
        .expect("saved");
    assert!(pass.deferred, "{pass:?}");
    assert!(m.index_pending(Resource::Contacts).unwrap());
    // Lists answer with what was read, exactly as the server has it.
    let server = env.server_records(Resource::Contacts);
    let have = listed(&m);
    assert!(have.len() >= 300, "{}", have.len());
    assert!(
        have.len() < server.len(),
        "{} of {}",
        have.len(),
        server.len()
    );
    for (id, rec) in &have {
        assert_eq!(Some(rec), server.get(id), "{id}");
    }
    // A tab's page sorted by a column whose index the bulk phase dropped: sorted anyway.
    let page = m
        .list(&ContactQuery {
            sort_by: Some(ContactSort::FirstName),
            paging: Paging {
                page: Some(2),
                per_page: Some(25),
            },
            ..ContactQuery::default()
        })
        .unwrap()
        .page;
    assert_eq!(page.meta.unwrap().total, Some(have.len() as u64));
    // Missing first names come last (as on the service).
    let mut firsts: Vec<(String, String)> = have
        .iter()
        .filter_map(|(id, c)| {
            let first = c["first_name"].as_str()?.trim().to_lowercase();
            (!first.is_empty()).then(|| (first, id.clone()))
        })
        .collect();
    assert!(firsts.len() >= 50);
    firsts.sort();
    let want: Vec<String> = firsts[25..50].iter().map(|(_, id)| id.clone()).collect();
    let got: Vec<String> = page.data.iter().map(|c| c.id().to_string()).collect();
    assert_eq!(got, want);
    // A keyset walk by that column (`list --all` from the mirror): the same order, all of it.
    let mut walked = Vec::new();
    m.each_seek(
        &ContactQuery {
            sort_by: Some(ContactSort::FirstName),
            ..ContactQuery::default()
        },
        7,
        |batch| {
            walked.extend(batch.iter().map(|c| c.id().to_string()));
            Ok::<(), crmdash::mirror::MirrorError>(())
        },
    )
    .unwrap();
    assert_eq!(walked.len(), have.len());
    let firsts_ids: Vec<String> = firsts.iter().map(|(_, id)| id.clone()).collect();
    assert_eq!(walked[..firsts_ids.len()], firsts_ids[..]);
    assert_eq!(
        m.without_value(Resource::Contacts, "updated_us").unwrap(),
        0
    );
    // Search does not see them yet (and says so: `index_pending`).
    let (id, email) = have
        .iter()
        .find_map(|(id, c)| Some((id, c["email"].as_str()?)))
        .unwrap();
    assert!(!found(&m, Resource::Contacts, email).contains(id));
    let everywhere = SearchQuery {
        text: email.to_string(),
        resources: Vec::new(),
        limit: 5,
    };
    assert_eq!(
        m.search(&everywhere).unwrap().unsearchable,
        [Resource::Contacts]
    );
    // Completion's newest ids read without the dropped sort index (`or_unindexed`).
    let newest = m.complete_ids(Resource::Contacts, "", 5).unwrap();
    assert_eq!(newest.len(), 5, "{newest:?}");
    assert!(
        newest.iter().all(|(id, _)| have.contains_key(id)),
        "{newest:?}"
    );

    // Meanwhile a contact the mirror has not read yet is written with its search entries
    // (as the dashboard does after creating one): the build must not index it twice.
    let last = env
        .client
        .list(&ContactQuery::everything(Paging {
            page: Some(10),
            per_page: Some(100),
        }))
        .await
        .unwrap()
        .data;
    let late = last
        .iter()
        .rev()
        .find(|c| c.email.is_some())
        .unwrap()
        .clone();
    assert!(!have.contains_key(late.id()));
    env.mirror().upsert(std::slice::from_ref(&late)).unwrap();
    assert_eq!(
        found(
            &reader(&env),
            Resource::Contacts,
            late.email.as_deref().unwrap()
        ),
        vec![late.id().to_string()]
    );

    let report = env.sync(contacts_only).await;
    let c = &report.resources[0];
    assert!(c.resumed, "{report:?}");
    let m = reader(&env);
    assert!(!m.index_pending(Resource::Contacts).unwrap());
    assert!(m.search(&everywhere).unwrap().unsearchable.is_empty());
    assert!(m.sync_state(Resource::Contacts).unwrap().pass.is_none());
    assert_eq!(listed(&m), server);
    search_finds_everything_once(&env, &m, false);
}
