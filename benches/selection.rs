//! `*` over 100,000 mirrored contacts: the ids read from the mirror (no record decoded) and
//! merged into the tab's selection, and the selection's memory per record. Before
//! criterion's runs it prints the p50/max of a few whole selections and the bytes per
//! selected record: `cargo bench --features bench --bench selection`.
//! Targets: ≤ 100 ms, ≤ 16 bytes per record.

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use crmdash::api::{ApiRecord, Contact, ContactQuery};
use crmdash::app::selection::{IdBatch, Selection};
use crmdash::mirror::Mirror;
use crmdash::sandbox::{DEFAULT_SEED, Sizes, generate};
use serde_json::Value;
use serde_json::value::RawValue;

const CONTACTS: usize = 100_000;

fn build() -> (tempfile::TempDir, Mirror) {
    let sizes = Sizes {
        contacts: CONTACTS,
        deals: 10,
        ..Sizes::default()
    };
    let ds = generate(DEFAULT_SEED, &sizes);
    let contacts: Vec<Contact> = ds
        .contacts
        .into_iter()
        .map(|c| {
            let raw = RawValue::from_string(Value::Object(c).to_string()).expect("raw");
            Contact::from_raw(raw).expect("decodes")
        })
        .collect();
    support::mirror_of(&contacts)
}

/// What `*` does with a complete mirror: the ids of every match, then the merge.
fn select_all(mirror: &Mirror) -> Selection {
    let mut batch = IdBatch::with_capacity(1024);
    mirror
        .matching_ids(&ContactQuery::default(), |id| batch.push(id))
        .expect("read");
    let mut sel = Selection::default();
    sel.add_batch(batch.finish());
    sel
}

fn bench(c: &mut Criterion) {
    let (_dir, mirror) = build();
    let mut times: Vec<Duration> = (0..15)
        .map(|_| {
            let t = Instant::now();
            black_box(select_all(&mirror));
            t.elapsed()
        })
        .collect();
    times.sort();
    let sel = select_all(&mirror);
    eprintln!(
        "select all {} contacts: p50 {:.1} ms, max {:.1} ms; {} bytes ({:.1} per record)",
        sel.len(),
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        sel.heap_bytes(),
        sel.heap_bytes() as f64 / sel.len() as f64
    );
    assert_eq!(sel.len(), CONTACTS);
    c.bench_function("select_all_100k_mirrored_contacts", |b| {
        b.iter(|| black_box(select_all(&mirror)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
