//! Search in the local mirror, per keystroke, over 100,000 contacts and 10,000 deals (the
//! sandbox generator's records with their included accounts and contacts, as a sync stores
//! them). Before criterion's runs it prints the p50/p99 of every keystroke of a few typed
//! queries (criterion reports means, the target is a p99), and the start path (open + first
//! page of contacts), and the contact form's near-duplicate check per keystroke:
//! `cargo bench --features bench --bench mirror`.

mod support;

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use crmdash::api::{ApiRecord, Contact, Deal};
use crmdash::mirror::{Mirror, Mirrored, SearchQuery, SyncState};
use crmdash::sandbox::{DEFAULT_SEED, Sizes, generate};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

const CONTACTS: usize = 100_000;
const DEALS: usize = 10_000;

/// What a person types, one query per keystroke.
const TYPED: [&str; 5] = ["muller", "anna mu", "becker gmbh", "+49 30 12", "mulller"];

fn summary(record: &Map<String, Value>, keys: &[&str]) -> Value {
    Value::Object(
        keys.iter()
            .filter_map(|k| record.get(*k).map(|v| ((*k).to_string(), v.clone())))
            .collect(),
    )
}

fn typed<T: ApiRecord>(m: Map<String, Value>) -> T {
    let raw = RawValue::from_string(Value::Object(m).to_string()).expect("raw");
    T::from_raw(raw).expect("decodes")
}

fn insert<T: Mirrored>(mirror: &mut Mirror, records: Vec<T>) {
    for chunk in records.chunks(1000) {
        mirror
            .apply_page(chunk, None, &SyncState::default())
            .expect("written");
    }
}

/// A mirror holding the generated records with their includes, in a temp dir.
fn build() -> (tempfile::TempDir, Mirror) {
    let sizes = Sizes {
        contacts: CONTACTS,
        deals: DEALS,
        ..Sizes::default()
    };
    let ds = generate(DEFAULT_SEED, &sizes);
    let accounts: HashMap<String, Value> = ds
        .accounts
        .iter()
        .map(|a| {
            let id = a["id"].as_str().unwrap_or_default().to_string();
            (id, summary(a, &["id", "name", "website", "country"]))
        })
        .collect();
    let contact_summaries: HashMap<String, Value> = ds
        .contacts
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap_or_default().to_string();
            (
                id,
                summary(c, &["id", "first_name", "last_name", "full_name", "email"]),
            )
        })
        .collect();
    let ids = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let contacts: Vec<Contact> = ds
        .contacts
        .into_iter()
        .map(|mut c| {
            let accs: Vec<Value> = ids(c.get("account_ids"))
                .iter()
                .filter_map(|id| accounts.get(id).cloned())
                .collect();
            c.insert("accounts".into(), Value::Array(accs));
            typed(c)
        })
        .collect();
    let deals: Vec<Deal> = ds
        .deals
        .into_iter()
        .map(|mut d| {
            let account = d
                .get("account_id")
                .and_then(Value::as_str)
                .and_then(|id| accounts.get(id).cloned())
                .unwrap_or(Value::Null);
            let people: Vec<Value> = ids(d.get("contact_ids"))
                .iter()
                .filter_map(|id| contact_summaries.get(id).cloned())
                .collect();
            d.insert("account".into(), account);
            d.insert("contacts".into(), Value::Array(people));
            typed(d)
        })
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut mirror = Mirror::open(&dir.path().join("bench.sqlite3"))
        .expect("mirror")
        .mirror;
    let started = Instant::now();
    insert(&mut mirror, contacts);
    insert(&mut mirror, deals);
    let size = std::fs::metadata(dir.path().join("bench.sqlite3"))
        .map(|m| m.len())
        .unwrap_or(0);
    eprintln!(
        "mirror of {CONTACTS} contacts + {DEALS} deals written in {:.1} s, {:.1} MB",
        started.elapsed().as_secs_f64(),
        size as f64 / 1e6
    );
    (dir, mirror)
}

fn query(text: &str) -> SearchQuery {
    SearchQuery {
        text: text.to_string(),
        resources: Vec::new(),
        limit: 20,
    }
}

/// Times every keystroke of every typed query `rounds` times; prints p50 and p99 per query
/// and over all keystrokes.
fn keystroke_percentiles(mirror: &Mirror, rounds: usize) {
    let mut all = Vec::new();
    for text in TYPED {
        let mut times = Vec::new();
        for _ in 0..rounds {
            for end in text.char_indices().map(|(i, c)| i + c.len_utf8()) {
                let started = Instant::now();
                black_box(mirror.search(&query(&text[..end])).expect("search"));
                times.push(started.elapsed());
            }
        }
        times.sort();
        eprintln!(
            "keystrokes of {text:<14} p50 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms",
            ms(pct(&times, 50.0)),
            ms(pct(&times, 99.0)),
            ms(*times.last().unwrap_or(&Duration::ZERO))
        );
        all.extend(times);
    }
    all.sort();
    eprintln!(
        "all {} keystrokes: p50 {:.2} ms, p99 {:.2} ms",
        all.len(),
        ms(pct(&all, 50.0)),
        ms(pct(&all, 99.0))
    );
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The dashboard's start from the mirror: opening the file (a fresh connection, as a new
/// process does) and reading the Contacts tab's first page (its default query: 25 per page,
/// newest updated first) with its total, formatted for the table.
fn first_rows(path: &std::path::Path) -> usize {
    use crmdash::api::{ContactQuery, ContactSort, Paging, SortDirection};
    use crmdash::app::resources::Descriptor as Tab;
    use crmdash::resource::Resource;
    let m = Mirror::open_existing(path)
        .expect("opens")
        .expect("exists")
        .mirror;
    let q = ContactQuery {
        sort_by: Some(ContactSort::UpdatedAt),
        sort_direction: Some(SortDirection::Desc),
        paging: Paging {
            page: Some(1),
            per_page: Some(25),
        },
        ..ContactQuery::default()
    };
    let page = m.list(&q).expect("page").page;
    let cols: Vec<_> = Tab::of(Resource::Contacts)
        .columns
        .iter()
        .map(|c| c.id)
        .collect();
    let shown = crmdash::app::table::record::build_page(
        page,
        &cols,
        crmdash::app::DisplayZone::Named(chrono_tz::Tz::UTC),
    );
    shown.records.len()
}

fn start_percentiles(path: &std::path::Path, rounds: usize) {
    let mut times = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        assert_eq!(black_box(first_rows(path)), 25);
        times.push(started.elapsed());
    }
    times.sort();
    eprintln!(
        "first rows from the mirror (open + page 1 of 100,000 contacts): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(pct(&times, 50.0)),
        ms(pct(&times, 99.0)),
        ms(*times.last().unwrap_or(&Duration::ZERO))
    );
}

fn search(c: &mut Criterion) {
    let (dir, mirror) = build();
    let path = dir.path().join("bench.sqlite3");
    start_percentiles(&path, 50);
    keystroke_percentiles(&mirror, 20);
    c.bench_function("mirror_first_rows", |b| b.iter(|| first_rows(&path)));
    let mut group = c.benchmark_group("mirror_search");
    for text in ["m", "mul", "muller", "anna mu", "4930", "mulller"] {
        group.bench_function(text, |b| {
            b.iter(|| mirror.search(black_box(&query(text))).expect("search"))
        });
    }
    group.finish();
    near_check(c, &mirror);
}

/// The contact form's near-duplicate check, per keystroke, at 100,000 contacts (target:
/// 5 ms): a draft typed a character at a time (an existing contact's name with its account,
/// then its email in capitals, then its phone written nationally), each keystroke one call
/// of what the dashboard runs on the blocking pool.
fn near_check(c: &mut Criterion, mirror: &Mirror) {
    use crmdash::insights::dupes::Person;
    use crmdash::insights::dupes::mirrored::{Finder, near_contacts};
    let finder = Finder {
        region: Some("DE".into()),
        ..Finder::default()
    };
    let mut model = None;
    mirror
        .each_live::<Contact>(|c| {
            let german = c.phone.as_deref().is_some_and(|p| p.starts_with("+49"));
            if model.is_none()
                && german
                && c.email.is_some()
                && c.accounts.iter().flatten().count() > 0
            {
                model = Some(c);
            }
        })
        .expect("read");
    let model = Person::from_contact(&model.expect("a contact with phone, email and account"));
    let email = model.email.clone().unwrap_or_default().to_uppercase();
    let phone = format!(
        "0{}",
        model
            .phone
            .clone()
            .unwrap_or_default()
            .trim_start_matches("+49")
            .trim()
    );
    let mut drafts = Vec::new();
    let mut draft = Person {
        accounts: model.accounts.clone(),
        ..Person::default()
    };
    for (i, ch) in model.name.char_indices() {
        draft.name = model.name[..i + ch.len_utf8()].to_string();
        drafts.push(draft.clone());
    }
    for (i, ch) in email.char_indices() {
        draft.email = Some(email[..i + ch.len_utf8()].to_string());
        drafts.push(draft.clone());
    }
    for (i, ch) in phone.char_indices() {
        draft.phone = Some(phone[..i + ch.len_utf8()].to_string());
        drafts.push(draft.clone());
    }
    let found = near_contacts(mirror, &draft, &finder, 5).expect("check");
    assert!(found.iter().any(|n| n.id == model.id), "{found:?}");
    let mut times = Vec::new();
    for _ in 0..20 {
        for d in &drafts {
            let started = Instant::now();
            black_box(near_contacts(mirror, d, &finder, 5).expect("check"));
            times.push(started.elapsed());
        }
    }
    times.sort();
    eprintln!(
        "form near-duplicate check, {} keystrokes x 20: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        drafts.len(),
        ms(pct(&times, 50.0)),
        ms(pct(&times, 99.0)),
        ms(*times.last().unwrap_or(&Duration::ZERO))
    );
    c.bench_function("form_near_check_whole_draft", |b| {
        b.iter(|| near_contacts(mirror, black_box(&draft), &finder, 5).expect("check"))
    });
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = search
}
criterion_main!(benches);
