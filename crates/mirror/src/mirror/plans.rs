//! Every statement the mirror runs, checked against its indexes: the tests fill a mirror,
//! run each read (every list sort, direction and filter of every resource, search by word,
//! phone and near match, records, relations, status) and each write, record the SQL SQLite
//! was given (`trace_v2`), and ask `EXPLAIN QUERY PLAN` of each. No statement may read
//! every record (`SCAN records`) nor sort a listing in a temporary b-tree.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use rusqlite::trace::{TraceEvent, TraceEventCodes};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{ChangeQuery, Mirror, Mirrored, Resource, SearchQuery, Selection, SyncState};
use crate::api::{
    Contact, ContactQuery, ContactSort, Deal, DealQuery, DealSort, Paging, Project, ProjectQuery,
    ProjectSort, SortDirection,
};
use crate::sandbox::{DEFAULT_SEED, Sizes, each_served, generate};

fn typed<T: Mirrored>(records: Vec<Map<String, Value>>) -> Vec<T> {
    records
        .into_iter()
        .filter_map(|m| RawValue::from_string(Value::Object(m).to_string()).ok())
        .filter_map(|raw| T::from_raw(raw).ok())
        .collect()
}

fn filled(dir: &std::path::Path) -> Mirror {
    let mut m = Mirror::open(&dir.join("plans.sqlite3")).unwrap().mirror;
    let ds = generate(
        DEFAULT_SEED,
        &Sizes {
            contacts: 300,
            ..Sizes::default()
        },
    );
    each_served(ds, |r, page| {
        let s = SyncState::default();
        match r {
            Resource::Contacts => m.apply_page(&typed::<Contact>(page), Some(1), &s),
            Resource::Deals => m.apply_page(&typed::<Deal>(page), Some(1), &s),
            Resource::Projects => m.apply_page(&typed::<Project>(page), Some(1), &s),
        }
        .unwrap();
    });
    m
}

fn paging() -> Paging {
    Paging {
        page: Some(2),
        per_page: Some(10),
    }
}

/// Every read and write the mirror offers, once each way.
fn exercise(m: &mut Mirror) {
    // The contact form's near-duplicate check: an account's namesakes.
    m.contacts_of_account_named("acc_000001", &["anna".into(), "muller".into()], 10)
        .unwrap();
    let dirs = [SortDirection::Asc, SortDirection::Desc];
    let t = chrono::Utc::now() - chrono::Duration::days(400);
    // The change feed's reads: a window of time (`changes --since 7d`, Today's first visit),
    // after a cursor (`--since last`, watch, Today), one record's history, its last change.
    for q in [
        ChangeQuery {
            since: Some(t),
            ..ChangeQuery::default()
        },
        ChangeQuery {
            since: Some(t),
            field: Some("status".into()),
            newest_first: true,
            selection: Some(Selection::Today),
            ..ChangeQuery::default()
        },
        ChangeQuery {
            after_seq: Some(1),
            resources: vec![Resource::Deals],
            selection: Some(Selection::Today),
            ..ChangeQuery::default()
        },
        ChangeQuery {
            resources: vec![Resource::Deals],
            id: Some("deal_1".into()),
            newest_first: true,
            limit: Some(5),
            ..ChangeQuery::default()
        },
    ] {
        m.changes(&q).unwrap();
    }
    m.last_change_at(Resource::Deals, "deal_1").unwrap();
    for d in dirs {
        for s in [
            ContactSort::CreatedAt,
            ContactSort::UpdatedAt,
            ContactSort::FirstName,
            ContactSort::LastName,
            ContactSort::Email,
        ] {
            let q = ContactQuery {
                sort_by: Some(s),
                sort_direction: Some(d),
                paging: paging(),
                ..ContactQuery::default()
            };
            m.list(&q).unwrap();
            m.each_listed(&q, 50, |_| true).unwrap();
            seek_all(m, &q);
            for filtered in [
                ContactQuery {
                    email: Some("a@b.example".into()),
                    ..q.clone()
                },
                ContactQuery {
                    created_after: Some(t),
                    updated_after: Some(t),
                    ..q.clone()
                },
            ] {
                m.list(&filtered).unwrap();
                seek_all(m, &filtered);
            }
        }
        for s in [
            DealSort::CreatedAt,
            DealSort::UpdatedAt,
            DealSort::Name,
            DealSort::Status,
            DealSort::Value,
        ] {
            let q = DealQuery {
                sort_by: Some(s),
                sort_direction: Some(d),
                paging: paging(),
                ..DealQuery::default()
            };
            m.list(&q).unwrap();
            m.list(&DealQuery {
                status: Some("won".into()),
                ..q.clone()
            })
            .unwrap();
            seek_all(m, &q);
            seek_all(
                m,
                &DealQuery {
                    name: Some("a".into()),
                    ..q.clone()
                },
            );
        }
        for s in [
            ProjectSort::CreatedAt,
            ProjectSort::UpdatedAt,
            ProjectSort::Name,
            ProjectSort::Status,
            ProjectSort::StartDate,
            ProjectSort::EndDate,
        ] {
            let q = ProjectQuery {
                sort_by: Some(s),
                sort_direction: Some(d),
                paging: paging(),
                ..ProjectQuery::default()
            };
            m.list(&q).unwrap();
            m.list(&ProjectQuery {
                status: Some("active".into()),
                ..q.clone()
            })
            .unwrap();
            seek_all(m, &q);
        }
    }
    for text in [
        "m",
        "mu",
        "muller",
        "anna mu",
        "+49 30 12",
        "4930",
        "mulller",
        "zzzz",
    ] {
        m.search(&SearchQuery {
            text: text.to_string(),
            resources: Vec::new(),
            limit: 20,
        })
        .unwrap();
    }
    m.page_as_sent(&ContactQuery::default()).unwrap();
    for col in ["created_us", "updated_us"] {
        m.without_value(Resource::Contacts, col).unwrap();
    }
    m.get::<Contact>("con_000001").unwrap();
    m.gone_at(Resource::Contacts, "con_000001").unwrap();
    m.deals_of_contact("con_000001").unwrap();
    m.deals_of_account("acc_000001").unwrap();
    m.deal_relations("deal_000001").unwrap();
    m.each_live::<Deal>(|_| {}).unwrap();
    m.status().unwrap();
    for r in Resource::ALL {
        m.sync_state(r).unwrap();
    }
    // Writing: a changed record, an unchanged one, the end of a full pass.
    let raw = m.raw(Resource::Contacts, "con_000002").unwrap().unwrap();
    let mut c: Map<String, Value> = serde_json::from_str(&raw).unwrap();
    c.insert("first_name".into(), Value::from("Changed"));
    let same: Map<String, Value> = serde_json::from_str(&raw).unwrap();
    m.apply_page(
        &typed::<Contact>(vec![c, same]),
        Some(2),
        &SyncState::default(),
    )
    .unwrap();
    m.finish_full_pass(Resource::Contacts, 2, &SyncState::default())
        .unwrap();
}

/// A keyset walk in small batches (so the seeking statements run too), in a snapshot.
fn seek_all<Q: super::MirrorQuery>(m: &Mirror, q: &Q) {
    m.in_snapshot(|m| m.each_seek(q, 7, |_| Ok::<(), super::MirrorError>(())))
        .unwrap()
        .unwrap();
}

/// Statements (as given to SQLite) that ran during `f`.
fn statements(m: &mut Mirror, f: impl FnOnce(&mut Mirror)) -> BTreeSet<String> {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let sink = seen.clone();
    m.conn
        .trace_v2(
            TraceEventCodes::SQLITE_TRACE_STMT,
            Some(move |e: TraceEvent<'_>| {
                if let TraceEvent::Stmt(_, sql) = e {
                    sink.lock().unwrap().insert(sql.to_string());
                }
            }),
        )
        .unwrap();
    f(m);
    m.conn
        .trace_v2(TraceEventCodes::empty(), None::<fn(TraceEvent<'_>)>)
        .unwrap();
    seen.lock().unwrap().clone()
}

fn plan(m: &Mirror, sql: &str) -> Vec<String> {
    let mut stmt = m
        .conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap();
    // Unbound parameters are NULL: the plan depends on the statement, not the values.
    let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
    stmt.query_map(rusqlite::params_from_iter(nulls), |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// What a plan line may not say: a walk over a whole table (a virtual table is its own
/// index; an ordered walk of an index stops at the page's LIMIT), or a sort of a listing.
fn forbidden(sql: &str, line: &str) -> bool {
    // The end of a full pass asks, once, whether any record was not seen: that reads every
    // record whatever the plan, and in table order it reads each page once (`NOT INDEXED`).
    // `live_counts` holds a row per resource.
    let full_scan = line.starts_with("SCAN ")
        && !sql.contains("FROM records NOT INDEXED")
        && line != "SCAN live_counts"
        && !line.contains("VIRTUAL TABLE")
        && !line.contains(" USING ")
        && !line.starts_with("SCAN CONSTANT ROW");
    // A deal list of one contact or account (a handful) is sorted; nothing else is.
    let sort = line.contains("TEMP B-TREE") && !sql.contains("FROM links");
    // A keyset batch seeks past the previous one: walking the index from its start for
    // every batch would read the records again and again.
    let seek = (sql.contains(", id) >")
        || sql.contains(", id) <")
        || sql.contains(" id > ?")
        || sql.contains(" id < ?"))
        && line.starts_with("SCAN ");
    // A count of a sort column's missing values through the (resource, id) index reads
    // every record of the resource (the first page of a million contacts took 5 s so).
    let count_all = sql.contains("count(")
        && sql.replace("gone_at IS NULL", "").contains(" IS NULL")
        && line.contains("sqlite_autoindex_records_1 (resource=?)");
    full_scan || sort || seek || count_all
}

#[test]
fn no_statement_reads_every_record_or_sorts_a_listing() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = filled(dir.path());
    let sqls = statements(&mut m, exercise);
    let sqls: Vec<&String> = sqls
        .iter()
        .filter(|s| {
            let s = s.trim_start().to_ascii_uppercase();
            ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"]
                .iter()
                .any(|k| s.starts_with(k))
        })
        .collect();
    assert!(sqls.len() > 40, "the reads ran: {sqls:#?}");
    let mut bad = Vec::new();
    for sql in sqls {
        let lines = plan(&m, sql);
        if lines.iter().any(|l| forbidden(sql, l)) {
            bad.push(format!("{sql}\n    {}", lines.join("\n    ")));
        }
    }
    assert!(
        bad.is_empty(),
        "plans that scan or sort:\n{}",
        bad.join("\n\n")
    );
}

#[test]
fn the_rule_catches_a_scan_and_a_sort() {
    let dir = tempfile::tempdir().unwrap();
    let m = filled(dir.path());
    let sql = "SELECT packed FROM records WHERE resource = 'contacts' AND gone_at IS NULL ORDER BY email_lc || ''";
    assert!(plan(&m, sql).iter().any(|l| forbidden(sql, l)));
    let sql = "SELECT count(*) FROM records WHERE seen_pass = 3";
    assert!(plan(&m, sql).iter().any(|l| forbidden(sql, l)));
    // A count of one resource's missing sort values through the (resource, id) index.
    let sql = "SELECT count(*) FROM records WHERE resource = 'contacts' AND gone_at IS NULL AND created_us IS NULL";
    assert!(plan(&m, sql).iter().any(|l| forbidden(sql, l)));
    // A seek the index cannot serve (the cursor compared through an expression).
    let sql = "SELECT created_us, id, packed FROM records INDEXED BY contacts_by_created_us WHERE resource = 'contacts' AND gone_at IS NULL AND (created_us + 0, id) > (?1, ?2) ORDER BY created_us ASC, id ASC LIMIT 7";
    assert!(plan(&m, sql).iter().any(|l| forbidden(sql, l)));
}
