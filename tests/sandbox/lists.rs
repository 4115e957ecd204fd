//! Lists against the embedded sandbox over real HTTP with the typed client: every filter, sort
//! key and direction, include and paging edge of the seed, and the server's 422s.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use crmdash::api::{
    ApiRecord, Client, ContactInclude, ContactQuery, ContactSort, DealInclude, DealQuery, DealSort,
    ErrorKind, ListQuery, Paging, ProjectInclude, ProjectQuery, ProjectSort, SortDirection,
};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use rust_decimal::Decimal;
use secrecy::SecretString;
use serde_json::Value;

async fn start() -> (SandboxHandle, Client) {
    let sb = Sandbox::start(SandboxConfig::default())
        .await
        .expect("sandbox starts");
    let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).expect("client");
    (sb, client)
}

/// Every record of a query, page by page (per_page 100).
async fn all<Q: ListQuery>(client: &Client, mut q: Q) -> Vec<Q::Item> {
    let mut out = Vec::new();
    let mut page = 1;
    loop {
        q.set_paging(Paging {
            page: Some(page),
            per_page: Some(100),
        });
        let p = client.list(&q).await.expect("list");
        let meta = p.meta.expect("meta");
        out.extend(p.data);
        if meta.current_page >= meta.last_page {
            assert_eq!(meta.total, Some(out.len() as u64));
            return out;
        }
        page += 1;
    }
}

fn raw<T: ApiRecord>(r: &T) -> Value {
    serde_json::from_str(r.raw().get()).unwrap()
}

/// The sandbox's documented order: by key (text case-insensitive, times and values by value),
/// missing values last, ties by id.
fn key_cmp(a: &Value, b: &Value, key: &str) -> Ordering {
    #[derive(PartialEq, PartialOrd)]
    enum K {
        T(String),
        D(DateTime<Utc>),
        N(Decimal),
    }
    let k = |v: &Value| -> Option<K> {
        let f = v.get(key)?;
        match key {
            "value" => match f {
                Value::String(s) => s.parse().ok().map(K::N),
                Value::Number(n) => n.to_string().parse().ok().map(K::N),
                _ => None,
            },
            "start_date" | "end_date" => f.as_str().map(|s| K::T(s.to_string())),
            "created_at" | "updated_at" => f.as_str().and_then(|s| s.parse().ok()).map(K::D),
            _ => f.as_str().map(|s| K::T(s.to_lowercase())),
        }
    };
    let by_key = match (k(a), k(b)) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap(),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    by_key.then_with(|| a["id"].as_str().cmp(&b["id"].as_str()))
}

fn assert_sorted(records: &[Value], key: &str) {
    for w in records.windows(2) {
        assert_eq!(
            key_cmp(&w[0], &w[1], key),
            Ordering::Less,
            "{key}: {} before {}",
            w[0]["id"],
            w[1]["id"]
        );
    }
}

fn ids<T: ApiRecord>(v: &[T]) -> Vec<String> {
    v.iter().map(|r| r.id().to_string()).collect()
}

#[tokio::test]
async fn defaults_meta_and_paging_edges() {
    let (sb, client) = start().await;
    let p = client
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap();
    let m = p.meta.unwrap();
    assert_eq!(
        (m.current_page, m.per_page, m.total, m.last_page),
        (Some(1), Some(25), Some(1000), Some(40))
    );
    assert_eq!(p.data.len(), 25);

    // Last page holds the remainder; past the end is empty with a truthful meta.
    let mut q = DealQuery {
        paging: Paging {
            page: Some(17),
            per_page: Some(30),
        },
        ..Default::default()
    };
    let p = client.list_deals(&q).await.unwrap();
    assert_eq!(p.data.len(), 500 - 16 * 30);
    assert_eq!(p.meta.unwrap().last_page, Some(17));
    assert!(!p.has_next());
    q.paging.page = Some(18);
    let p = client.list_deals(&q).await.unwrap();
    assert!(p.data.is_empty());
    let m = p.meta.unwrap();
    assert_eq!(
        (m.current_page, m.last_page, m.total),
        (Some(18), Some(17), Some(500))
    );

    // per_page 100 is served; 101 is refused by the client before anything is sent.
    q.paging = Paging {
        page: Some(1),
        per_page: Some(100),
    };
    assert_eq!(client.list_deals(&q).await.unwrap().data.len(), 100);
    sb.clear_requests();
    q.paging.per_page = Some(101);
    let e = client.list_deals(&q).await.unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidRequest);
    assert!(e.field_errors.contains_key("per_page"));
    assert!(sb.requests().is_empty(), "nothing may reach the server");
    q.paging = Paging {
        page: Some(0),
        per_page: None,
    };
    assert_eq!(
        client.list_deals(&q).await.unwrap_err().kind,
        ErrorKind::InvalidRequest
    );

    // Pages tile the whole set without gaps or repeats.
    let every = all(&client, ProjectQuery::default()).await;
    let mut seen = ids(&every);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 120);
}

#[tokio::test]
async fn server_refuses_bad_list_parameters_with_field_errors() {
    let (sb, _client) = start().await;
    let http = reqwest::Client::new();
    let cases = [
        ("deals?per_page=101", "per_page"),
        ("projects?per_page=0", "per_page"),
        ("contacts?per_page=abc", "per_page"),
        ("deals?page=0", "page"),
        ("deals?sort_by=email", "sort_by"),
        ("contacts?sort_by=name", "sort_by"),
        ("projects?sort_by=value", "sort_by"),
        ("deals?sort_direction=up", "sort_direction"),
        ("contacts?include=owner", "include"),
        ("deals?include=account,members", "include"),
        ("projects?include=contacts", "include"),
        ("contacts?created_after=yesterday", "created_after"),
        ("contacts?updated_after=2025-13-01", "updated_after"),
    ];
    for (path, field) in cases {
        let resp = http
            .get(format!("{}/public/v1/{path}", sb.base_url()))
            .bearer_auth(sb.token())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 422, "{path}");
        let body: Value = resp.json().await.unwrap();
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{path}"
        );
        assert!(
            body["errors"][field]
                .as_array()
                .is_some_and(|a| !a.is_empty()),
            "{path}: {body}"
        );
    }
    // Unknown parameters are ignored; per_page 100 and an empty filter are fine.
    let resp = http
        .get(format!(
            "{}/public/v1/deals?per_page=100&colour=blue&name=",
            sb.base_url()
        ))
        .bearer_auth(sb.token())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn every_sort_key_both_directions_ties_by_id() {
    let (_sb, client) = start().await;
    for key in ContactSort::ALL {
        let mut q = ContactQuery {
            sort_by: Some(*key),
            sort_direction: Some(SortDirection::Asc),
            ..Default::default()
        };
        let asc = all(&client, q.clone()).await;
        assert_sorted(&asc.iter().map(raw).collect::<Vec<_>>(), key.as_str());
        q.sort_direction = Some(SortDirection::Desc);
        let desc = all(&client, q).await;
        let mut rev = ids(&asc);
        rev.reverse();
        assert_eq!(
            ids(&desc),
            rev,
            "desc is the exact reverse of asc for {key}"
        );
    }
    for key in DealSort::ALL {
        let mut q = DealQuery {
            sort_by: Some(*key),
            ..Default::default()
        };
        let asc = all(&client, q.clone()).await;
        assert_sorted(&asc.iter().map(raw).collect::<Vec<_>>(), key.as_str());
        q.sort_direction = Some(SortDirection::Desc);
        let mut rev = ids(&asc);
        rev.reverse();
        assert_eq!(ids(&all(&client, q).await), rev, "{key}");
    }
    for key in ProjectSort::ALL {
        let mut q = ProjectQuery {
            sort_by: Some(*key),
            ..Default::default()
        };
        let asc = all(&client, q.clone()).await;
        assert_sorted(&asc.iter().map(raw).collect::<Vec<_>>(), key.as_str());
        q.sort_direction = Some(SortDirection::Desc);
        let mut rev = ids(&asc);
        rev.reverse();
        assert_eq!(ids(&all(&client, q).await), rev, "{key}");
    }
    // Status sorting has many ties: they must come by id.
    let q = DealQuery {
        sort_by: Some(DealSort::Status),
        ..Default::default()
    };
    let by_status = all(&client, q).await;
    let open: Vec<String> = by_status
        .iter()
        .filter(|d| d.status.as_deref() == Some("open"))
        .map(|d| d.id.clone())
        .collect();
    let mut sorted = open.clone();
    sorted.sort();
    assert!(open.len() > 50);
    assert_eq!(open, sorted);
}

#[tokio::test]
async fn contact_filters() {
    let (sb, client) = start().await;
    let everyone: Vec<Value> = all(&client, ContactQuery::default())
        .await
        .iter()
        .map(raw)
        .collect();

    // email: exact, case-insensitive; the seed has a few duplicates on purpose.
    let dup = everyone
        .iter()
        .filter_map(|c| c["email"].as_str())
        .find(|e| sb.contacts_with_email(e) > 1)
        .expect("a duplicated email in the seed")
        .to_string();
    let q = ContactQuery {
        email: Some(dup.to_uppercase()),
        ..Default::default()
    };
    let found = all(&client, q).await;
    assert_eq!(found.len(), sb.contacts_with_email(&dup));
    assert!(
        found
            .iter()
            .all(|c| c.email.as_deref() == Some(dup.as_str()))
    );
    let part = ContactQuery {
        email: Some(dup[1..].to_string()),
        ..Default::default()
    };
    assert!(
        all(&client, part).await.is_empty(),
        "email is not a partial match"
    );

    // full_name: partial, case-insensitive, unicode.
    for needle in ["MÜLLER", "佐藤", "ana", "al-"] {
        let q = ContactQuery {
            full_name: Some(needle.to_string()),
            ..Default::default()
        };
        let got = ids(&all(&client, q).await);
        let want: Vec<String> = everyone
            .iter()
            .filter(|c| {
                c["full_name"]
                    .as_str()
                    .is_some_and(|n| n.to_lowercase().contains(&needle.to_lowercase()))
            })
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect();
        assert!(!want.is_empty(), "{needle} matches something in the seed");
        assert_eq!(got, want, "{needle}");
    }

    // created_after / updated_after: strictly after.
    for field in ["created_at", "updated_at"] {
        let cut: DateTime<Utc> = "2024-06-01T00:00:00Z".parse().unwrap();
        let mut q = ContactQuery::default();
        if field == "created_at" {
            q.created_after = Some(cut);
        } else {
            q.updated_after = Some(cut);
        }
        let got = ids(&all(&client, q).await);
        let want: Vec<String> = everyone
            .iter()
            .filter(|c| c[field].as_str().unwrap().parse::<DateTime<Utc>>().unwrap() > cut)
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect();
        assert!(!want.is_empty() && want.len() < 1000);
        assert_eq!(got, want, "{field}");
    }

    // Filters combine.
    let q = ContactQuery {
        full_name: Some("a".into()),
        created_after: Some("2025-01-01T00:00:00Z".parse().unwrap()),
        sort_by: Some(ContactSort::Email),
        ..Default::default()
    };
    let got = all(&client, q).await;
    assert!(!got.is_empty());
    assert!(
        got.iter()
            .all(|c| c.full_name().to_lowercase().contains('a'))
    );
}

#[tokio::test]
async fn deal_and_project_filters() {
    let (_sb, client) = start().await;
    let deals: Vec<Value> = all(&client, DealQuery::default())
        .await
        .iter()
        .map(raw)
        .collect();
    for status in ["open", "WON", "lost", "on_hold"] {
        let q = DealQuery {
            status: Some(status.into()),
            ..Default::default()
        };
        let got = all(&client, q).await;
        let want = deals
            .iter()
            .filter(|d| d["status"].as_str() == Some(&status.to_lowercase()))
            .count();
        assert!(want > 0);
        assert_eq!(got.len(), want, "{status}");
    }
    let q = DealQuery {
        status: Some("ope".into()),
        ..Default::default()
    };
    assert!(all(&client, q).await.is_empty(), "status is exact");
    let q = DealQuery {
        name: Some("RENEWAL".into()),
        ..Default::default()
    };
    let got = all(&client, q).await;
    let want = deals
        .iter()
        .filter(|d| {
            d["name"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("renewal")
        })
        .count();
    assert!(want > 0);
    assert_eq!(got.len(), want);

    let projects: Vec<Value> = all(&client, ProjectQuery::default())
        .await
        .iter()
        .map(raw)
        .collect();
    for status in ["planned", "active", "on_hold", "completed", "cancelled"] {
        let q = ProjectQuery {
            status: Some(status.into()),
            ..Default::default()
        };
        let got = all(&client, q).await;
        assert_eq!(
            got.len(),
            projects.iter().filter(|p| p["status"] == status).count(),
            "{status}"
        );
    }
    let q = ProjectQuery {
        name: Some("migration".into()),
        status: Some("active".into()),
        ..Default::default()
    };
    let got = all(&client, q).await;
    assert!(got.iter().all(|p| {
        p.status.as_deref() == Some("active")
            && p.name
                .as_deref()
                .unwrap()
                .to_lowercase()
                .contains("migration")
    }));
    assert!(
        projects.iter().any(|p| p["end_date"].is_null()),
        "open-ended projects exist"
    );
}

#[tokio::test]
async fn includes_embed_related_records() {
    let (_sb, client) = start().await;
    let plain = client
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap();
    assert!(
        plain
            .data
            .iter()
            .all(|c| c.accounts.is_none() && c.assigned_user.is_none())
    );

    let q = ContactQuery {
        include: ContactInclude::ALL.to_vec(),
        paging: Paging {
            page: None,
            per_page: Some(100),
        },
        ..Default::default()
    };
    let p = client.list_contacts(&q).await.unwrap();
    for c in &p.data {
        let r = raw(c);
        let want: Vec<&str> = r["account_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let got: Vec<String> = c
            .accounts
            .as_ref()
            .unwrap()
            .iter()
            .map(|a| a.id.clone().unwrap())
            .collect();
        assert_eq!(got, want);
        assert!(
            c.accounts
                .as_ref()
                .unwrap()
                .iter()
                .all(|a| a.fields["name"].is_string())
        );
        assert_eq!(
            c.assigned_user
                .as_ref()
                .and_then(|u| u.id.clone())
                .as_deref(),
            r["assigned_user_id"].as_str()
        );
        assert_eq!(
            c.assigned_users.as_ref().unwrap().len(),
            r["assigned_user_ids"].as_array().unwrap().len()
        );
    }
    assert!(p.data.iter().any(|c| c.assigned_user.is_some()));

    let q = DealQuery {
        include: DealInclude::ALL.to_vec(),
        ..Default::default()
    };
    let p = client.list_deals(&q).await.unwrap();
    for d in &p.data {
        let r = raw(d);
        assert_eq!(
            d.account.as_ref().and_then(|a| a.id.clone()).as_deref(),
            r["account_id"].as_str()
        );
        assert_eq!(
            d.contacts.as_ref().unwrap().len(),
            r["contact_ids"].as_array().unwrap().len()
        );
        assert!(
            d.contacts.as_ref().unwrap().iter().all(|c| c
                .id
                .as_deref()
                .unwrap()
                .starts_with("con_"))
        );
        assert!(d.assigned_users.is_some());
    }
    let q = DealQuery {
        include: vec![DealInclude::Account],
        ..Default::default()
    };
    let only_account = client.list_deals(&q).await.unwrap();
    assert!(only_account.data.iter().all(|d| d.contacts.is_none()));

    let q = ProjectQuery {
        include: ProjectInclude::ALL.to_vec(),
        ..Default::default()
    };
    let p = client.list_projects(&q).await.unwrap();
    for pr in &p.data {
        let r = raw(pr);
        assert_eq!(
            pr.owner.as_ref().unwrap().id.as_deref(),
            r["owner_id"].as_str()
        );
        assert_eq!(
            pr.members.as_ref().unwrap().len(),
            r["member_ids"].as_array().unwrap().len()
        );
        assert!(
            pr.owner.as_ref().unwrap().label().contains(' '),
            "users have names"
        );
    }
}

#[tokio::test]
async fn values_times_and_unknown_fields_reach_the_client() {
    let (_sb, client) = start().await;
    let deals = all(&client, DealQuery::default()).await;
    let strings = deals
        .iter()
        .filter(|d| raw(*d)["value"].is_string())
        .count();
    let numbers = deals
        .iter()
        .filter(|d| raw(*d)["value"].is_number())
        .count();
    assert!(
        strings > 0 && numbers > 0,
        "value comes as string and as number"
    );
    assert!(
        deals
            .iter()
            .all(|d| d.value.as_ref().and_then(|v| v.decimal()).is_some())
    );
    let contacts = all(&client, ContactQuery::default()).await;
    let created = contacts[0].created_at.as_ref().unwrap();
    assert_eq!(
        created.raw().len(),
        "2025-03-04T10:11:12.123456Z".len(),
        "{}",
        created.raw()
    );
    assert!(created.instant().is_some());
    assert!(
        contacts
            .iter()
            .any(|c| c.extra.contains_key("custom_fields"))
    );
    assert!(contacts.iter().any(|c| c.extra.contains_key("tags")));
}

#[tokio::test]
async fn cached_orderings_stay_right_after_creates() {
    let (sb, client) = start().await;
    let by_last = ContactQuery {
        sort_by: Some(ContactSort::LastName),
        ..Default::default()
    };
    let filtered = ContactQuery {
        full_name: Some("an".into()),
        sort_by: Some(ContactSort::CreatedAt),
        sort_direction: Some(SortDirection::Desc),
        ..Default::default()
    };
    let before = all(&client, by_last.clone()).await.len();
    let before_filtered = all(&client, filtered.clone()).await.len();
    for (first, last) in [
        ("Anna", "Aaberg"),
        ("Zoltan", "Zyx"),
        ("Ana", "Müller"),
        ("Bo", ""),
    ] {
        let new = crmdash::api::NewContact {
            first_name: Some(first.into()),
            last_name: (!last.is_empty()).then(|| last.to_string()),
            email: Some(format!("{first}{last}@example.com").to_lowercase()),
            ..Default::default()
        };
        let key = crmdash::api::IdempotencyKey::random();
        client
            .create_contact(&crate::ticket(), &new, &key)
            .await
            .unwrap();
    }
    let after = all(&client, by_last).await;
    assert_eq!(after.len(), before + 4);
    assert_sorted(&after.iter().map(raw).collect::<Vec<_>>(), "last_name");
    assert_eq!(after[0].last_name.as_deref(), Some("Aaberg"));
    assert_eq!(
        after.last().unwrap().last_name,
        None,
        "missing values sort last"
    );
    let after_filtered = all(&client, filtered).await;
    assert_eq!(
        after_filtered.len(),
        before_filtered + 3,
        "Anna, Zoltan and Ana contain 'an'"
    );
    assert_eq!(
        after_filtered[0].first_name.as_deref(),
        Some("Ana"),
        "newest first"
    );
    assert_eq!(sb.contact_count(), 1004);
}
