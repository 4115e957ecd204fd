//! Searching and browsing the mirror after a real sync from the sandbox: accents, partial
//! phone numbers, account names, typos; a tab's rows with the service's filters and sorts;
//! a contact's deals and a deal's account and contacts.

use crate::mirror_support;

use crmdash::api::{
    ApiRecord, ContactQuery, ContactSort, DealQuery, DealSort, Paging, ProjectQuery, ProjectSort,
    SortDirection,
};
use crmdash::mirror::sync::SyncOptions;
use crmdash::mirror::{Mirror, MirrorQuery, Resource, SearchQuery, SearchResults};
use crmdash::sandbox::SandboxConfig;
use mirror_support::Env;
use serde_json::Value;

async fn synced() -> Env {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    env
}

fn search(m: &Mirror, text: &str, resources: &[Resource]) -> SearchResults {
    m.search(&SearchQuery {
        text: text.to_string(),
        resources: resources.to_vec(),
        limit: 50,
    })
    .unwrap()
}

fn ids(results: &SearchResults, r: Resource) -> Vec<String> {
    results
        .groups
        .iter()
        .filter(|g| g.resource == r)
        .flat_map(|g| g.hits.iter().map(|h| h.id.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_ignores_accents_matches_prefixes_and_groups_by_resource() {
    let env = synced().await;
    let m = env.mirror();
    let contacts = env.server_records(Resource::Contacts);
    let muellers: Vec<&String> = contacts
        .iter()
        .filter(|(_, c)| c["last_name"].as_str() == Some("Müller"))
        .map(|(id, _)| id)
        .collect();
    assert!(!muellers.is_empty());
    for typed in ["muller", "MÜLLER", "mul", "Müll"] {
        let found = ids(
            &search(&m, typed, &[Resource::Contacts]),
            Resource::Contacts,
        );
        for id in &muellers {
            assert!(found.contains(id), "{typed:?} finds {id}: {found:?}");
        }
    }
    // Grouped: every group belongs to one resource, in the order contacts, deals, projects.
    let all = search(&m, "muller", &[]);
    let order: Vec<Resource> = all.groups.iter().map(|g| g.resource).collect();
    assert_eq!(order, Resource::ALL.to_vec());
    // Two words: both required (first name and last name).
    let anna = contacts
        .iter()
        .find(|(_, c)| c["full_name"] == "Anna Müller")
        .map(|(id, _)| id.clone())
        .expect("Anna Müller in the seed");
    let found = search(&m, "anna muller", &[Resource::Contacts]);
    assert_eq!(found.groups[0].hits[0].id, anna);
    assert!(found.groups[0].hits.iter().all(|h| !h.near));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contact_is_found_by_part_of_its_phone_number() {
    let env = synced().await;
    let m = env.mirror();
    let contacts = env.server_records(Resource::Contacts);
    let mut checked = 0;
    for (id, c) in contacts
        .iter()
        .filter(|(_, c)| c["phone"].is_string())
        .take(25)
    {
        let phone = c["phone"].as_str().unwrap();
        let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
        if digits.len() < 9 {
            continue;
        }
        // Five digits from the middle, and the number as typed with its punctuation.
        let middle = &digits[3..8];
        for typed in [middle, phone] {
            let found = ids(
                &search(&m, typed, &[Resource::Contacts]),
                Resource::Contacts,
            );
            assert!(
                found.contains(id),
                "{typed:?} finds {id} ({phone}): {found:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deal_is_found_by_its_account_name_and_a_typo_finds_near_names() {
    let env = synced().await;
    let m = env.mirror();
    let deals = env.server_records(Resource::Deals);
    let (deal_id, deal) = deals
        .iter()
        .find(|(_, d)| {
            d["account"]["name"]
                .as_str()
                .is_some_and(|n| n.is_ascii() && n.contains(' '))
        })
        .expect("a deal with an account");
    let account = deal["account"]["name"].as_str().unwrap();
    let found = ids(&search(&m, account, &[Resource::Deals]), Resource::Deals);
    assert!(
        found.contains(deal_id),
        "{account:?} finds {deal_id}: {found:?}"
    );
    // Every deal of that account, and only those with the name somewhere.
    for (id, d) in &deals {
        if d["account"]["name"] == Value::String(account.to_string()) {
            assert!(found.contains(id), "{id} of {account}");
        }
    }
    // A typo: no word matches, the near matches find the name.
    let results = search(&m, "Mulller", &[Resource::Contacts]);
    let hits = &results.groups[0].hits;
    assert!(!hits.is_empty() && hits.iter().all(|h| h.near), "{hits:?}");
    assert!(hits.iter().any(|h| h.label.contains("Müller")), "{hits:?}");
    // Nothing to find: empty groups, no error.
    assert!(search(&m, "zzzzqqqq", &[]).is_empty());
    assert!(search(&m, " ,; ", &[]).is_empty());
}

/// The first page of ids for `q` from the service and from the mirror.
async fn same_page<Q: MirrorQuery + std::fmt::Debug>(env: &Env, m: &Mirror, mut q: Q) {
    q.set_paging(Paging {
        page: Some(2),
        per_page: Some(20),
    });
    let server: Vec<String> = env
        .client
        .list(&q)
        .await
        .unwrap()
        .data
        .iter()
        .map(|r| r.id().to_string())
        .collect();
    let page = m.list(&q).unwrap();
    let mirror: Vec<String> = page.page.data.iter().map(|r| r.id().to_string()).collect();
    assert_eq!(mirror, server, "{q:?}");
    assert!(page.synced_at.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_page_from_the_mirror_equals_the_services_page() {
    let env = synced().await;
    let m = env.mirror();
    same_page(&env, &m, ContactQuery::default()).await;
    same_page(
        &env,
        &m,
        ContactQuery {
            sort_by: Some(ContactSort::LastName),
            sort_direction: Some(SortDirection::Desc),
            ..ContactQuery::default()
        },
    )
    .await;
    same_page(
        &env,
        &m,
        ContactQuery {
            full_name: Some("an".into()),
            sort_by: Some(ContactSort::Email),
            ..ContactQuery::default()
        },
    )
    .await;
    same_page(
        &env,
        &m,
        DealQuery {
            status: Some("OPEN".into()),
            sort_by: Some(DealSort::Value),
            sort_direction: Some(SortDirection::Desc),
            ..DealQuery::default()
        },
    )
    .await;
    same_page(
        &env,
        &m,
        ProjectQuery {
            sort_by: Some(ProjectSort::EndDate),
            ..ProjectQuery::default()
        },
    )
    .await;
    let total = m
        .list(&DealQuery::default())
        .unwrap()
        .page
        .meta
        .unwrap()
        .total;
    assert_eq!(total, Some(500));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relations_a_contacts_deals_and_a_deals_account_and_contacts() {
    let env = synced().await;
    let m = env.mirror();
    let deals = env.server_records(Resource::Deals);
    let (deal_id, deal) = deals
        .iter()
        .find(|(_, d)| d["contacts"].as_array().is_some_and(|c| c.len() >= 2))
        .expect("a deal with two contacts");
    let rel = m.deal_relations(deal_id).unwrap().expect("deal mirrored");
    assert_eq!(
        rel.account.as_ref().and_then(|a| a.id.clone()).as_deref(),
        deal["account_id"].as_str()
    );
    let contact_ids: Vec<&str> = deal["contact_ids"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let linked: Vec<&str> = rel
        .contacts
        .iter()
        .filter_map(|c| c.related.id.as_deref())
        .collect();
    assert_eq!(linked, contact_ids);
    assert!(
        rel.contacts.iter().all(|c| c.record.is_some()),
        "contacts are mirrored records"
    );

    let contact = contact_ids[0];
    let mut expected: Vec<&String> = deals
        .iter()
        .filter(|(_, d)| {
            d["contact_ids"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == contact)
        })
        .map(|(id, _)| id)
        .collect();
    expected.sort();
    let mut got: Vec<String> = m
        .deals_of_contact(contact)
        .unwrap()
        .iter()
        .map(|d| d.id.clone())
        .collect();
    got.sort();
    assert_eq!(got.iter().collect::<Vec<_>>(), expected);
    let account = deal["account_id"].as_str().unwrap();
    assert!(
        m.deals_of_account(account)
            .unwrap()
            .iter()
            .any(|d| &d.id == deal_id)
    );
    assert!(m.deal_relations("deal_nope").unwrap().is_none());
}
