//! The contact form's near-duplicate check per keystroke at 100,000 mirrored contacts
//! (target: 5 ms): `near_contacts` as the form runs it on the blocking pool, for a draft
//! like a mirrored contact in each way the form looks for: the same phone written
//! nationally, a close name at the same account, the same email in another case. Before
//! criterion's runs it prints the p50/p99/max of every keystroke of such drafts typed a
//! character at a time: `cargo bench --features bench --bench dupes_form`.

mod support;

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use crmdash::api::{ApiRecord, Contact};
use crmdash::insights::dupes::Person;
use crmdash::insights::dupes::mirrored::{self, Finder, near_contacts};
use crmdash::mirror::Mirror;
use crmdash::sandbox::{DEFAULT_SEED, Sizes, generate};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

const CONTACTS: usize = 100_000;

/// A mirror of the generated contacts with their included accounts, as a sync stores them.
fn build() -> (tempfile::TempDir, Mirror) {
    let sizes = Sizes {
        contacts: CONTACTS,
        deals: 10,
        ..Sizes::default()
    };
    let ds = generate(DEFAULT_SEED, &sizes);
    let accounts: HashMap<String, Value> = ds
        .accounts
        .iter()
        .map(|a| {
            let summary: Map<String, Value> = ["id", "name", "website"]
                .iter()
                .filter_map(|k| a.get(*k).map(|v| ((*k).to_string(), v.clone())))
                .collect();
            (
                a["id"].as_str().unwrap_or_default().to_string(),
                Value::Object(summary),
            )
        })
        .collect();
    let contacts: Vec<Contact> = ds
        .contacts
        .into_iter()
        .map(|mut c| {
            let included: Vec<Value> = c
                .get("account_ids")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|id| id.as_str().and_then(|id| accounts.get(id)).cloned())
                .collect();
            c.insert("accounts".into(), Value::Array(included));
            let raw = RawValue::from_string(Value::Object(c).to_string()).expect("raw");
            Contact::from_raw(raw).expect("decodes")
        })
        .collect();
    support::mirror_of(&contacts)
}

/// Each prefix of `text` put into the draft by `set`, one draft a keystroke.
fn typed(base: &Person, text: &str, set: fn(&mut Person, String)) -> Vec<Person> {
    text.char_indices()
        .map(|(i, ch)| {
            let mut d = base.clone();
            set(&mut d, text[..i + ch.len_utf8()].to_string());
            d
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn form_check(c: &mut Criterion) {
    let (_dir, mirror) = build();
    let finder = Finder {
        region: Some("DE".into()),
        ..Finder::default()
    };
    let model = mirrored::people(&mirror)
        .expect("read")
        .into_iter()
        .find(|p| {
            p.phone.as_deref().is_some_and(|t| t.starts_with("+49 "))
                && p.email.is_some()
                && !p.accounts.is_empty()
                && p.name
                    .split(' ')
                    .nth(1)
                    .is_some_and(|l| l.chars().count() >= 5)
        })
        .expect("a German contact with email, phone and account");
    let blank = Person::default();
    let national = format!(
        "0{}",
        model.phone.as_deref().unwrap_or_default()[4..].trim()
    );
    let upper = model.email.clone().unwrap_or_default().to_uppercase();
    let (first, last) = model.name.split_once(' ').unwrap_or((&model.name, ""));
    let mut typo: Vec<char> = last.chars().collect();
    let n = typo.len();
    typo.swap(n - 2, n - 1);
    let typo = format!("{first} {}", typo.into_iter().collect::<String>());
    let with_account = Person {
        accounts: model.accounts.clone(),
        ..blank.clone()
    };
    let named = Person {
        name: model.name.clone(),
        ..blank.clone()
    };
    let cases: [(&str, Vec<Person>); 3] = [
        (
            "same_phone",
            typed(&blank, &national, |d, t| d.phone = Some(t)),
        ),
        (
            "close_name_same_account",
            typed(&with_account, &typo, |d, t| d.name = t),
        ),
        (
            "same_email_other_case",
            typed(&named, &upper, |d, t| d.email = Some(t)),
        ),
    ];
    let mut all = Vec::new();
    for (name, drafts) in &cases {
        let whole = drafts.last().expect("a draft");
        let found = near_contacts(&mirror, whole, &finder, 5).expect("check");
        assert!(found.iter().any(|n| n.id == model.id), "{name}: {found:?}");
        let mut times = Vec::new();
        for _ in 0..20 {
            for d in drafts {
                let started = Instant::now();
                black_box(near_contacts(&mirror, d, &finder, 5).expect("check"));
                times.push(started.elapsed());
            }
        }
        times.sort();
        let pct = |p: f64| times[((p / 100.0) * (times.len() - 1) as f64).round() as usize];
        eprintln!(
            "{name:<24} {} keystrokes x 20: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            drafts.len(),
            ms(pct(50.0)),
            ms(pct(99.0)),
            ms(*times.last().unwrap_or(&Duration::ZERO))
        );
        all.extend(times);
    }
    all.sort();
    eprintln!(
        "all {} keystrokes: p50 {:.2} ms, p99 {:.2} ms",
        all.len(),
        ms(all[all.len() / 2]),
        ms(all[(all.len() * 99) / 100])
    );
    let mut group = c.benchmark_group("form_near_check");
    for (name, drafts) in &cases {
        let whole = drafts.last().expect("a draft").clone();
        group.bench_function(*name, |b| {
            b.iter(|| near_contacts(&mirror, black_box(&whole), &finder, 5).expect("check"))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = form_check
}
criterion_main!(benches);
