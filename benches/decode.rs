//! Decoding list bodies with `api::decode_page`: a 100-item deals page as the sandbox sends it
//! (with the dashboard's includes), the same page formatted into table rows, and a bare list
//! of 10,000 contacts (the generator's records).

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crmdash::api::{Contact, Deal, decode_page};
use crmdash::app::resources::{ColumnId, Descriptor};
use crmdash::app::table::record::build_page;
use crmdash::resource::Resource;
use crmdash::sandbox::{DEFAULT_SEED, Sizes, generate};

use support::{Fixture, zone};

fn columns(kind: Resource) -> Vec<ColumnId> {
    Descriptor::of(kind).columns.iter().map(|c| c.id).collect()
}

fn decode(c: &mut Criterion) {
    let fixture = Fixture::new();
    let deals = fixture.raw_page(Resource::Deals);
    let first = decode_page::<Deal>(&deals).expect("deals decode");
    assert_eq!(first.data.len(), 100);

    let sizes = Sizes {
        contacts: 10_000,
        ..Sizes::default()
    };
    let contacts = generate(DEFAULT_SEED, &sizes).to_asset_texts()[2].clone();
    let all = decode_page::<Contact>(contacts.as_bytes()).expect("contacts decode");
    assert_eq!(all.data.len(), 10_000);

    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Bytes(deals.len() as u64));
    group.bench_function("deals_page_100", |b| {
        b.iter(|| decode_page::<Deal>(black_box(&deals)).expect("decode"))
    });
    let cols = columns(Resource::Deals);
    group.bench_function("deals_page_100_to_rows", |b| {
        b.iter(|| {
            let page = decode_page::<Deal>(black_box(&deals)).expect("decode");
            build_page(page, &cols, zone())
        })
    });
    group.throughput(Throughput::Bytes(contacts.len() as u64));
    group.bench_function("contacts_list_10000", |b| {
        b.iter(|| decode_page::<Contact>(black_box(contacts.as_bytes())).expect("decode"))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = decode
}
criterion_main!(benches);
