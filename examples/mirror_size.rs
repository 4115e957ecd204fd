//! The mirror's size per record (issue 30): fills a mirror with the sandbox's records as a
//! sync receives them (every include embedded, written with `apply_page` in pages of 1,000)
//! without a server, then prints the file's size and the bytes per record.
//!
//! ```sh
//! cargo run --release --example mirror_size -- 100000 /tmp/m/default@x.sqlite3
//! sqlite3 /tmp/m/default@x.sqlite3 "SELECT name, sum(pgsize) FROM dbstat GROUP BY 1 ORDER BY 2 DESC"
//! ```
//!
//! The first argument is the number of contacts (default 100,000, with the sandbox's 500
//! deals and 120 projects); the second where to write the mirror (default: a temporary
//! folder, deleted at the end). An existing file there is written into (a re-run finds
//! every record unchanged).

use std::time::Instant;

use crmdash::api::{Contact, Deal, Project};
use crmdash::mirror::{Mirror, Mirrored, SyncState};
use crmdash::resource::Resource;
use crmdash::sandbox::{DEFAULT_SEED, Sizes, each_served, generate};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

fn typed<T: Mirrored>(records: Vec<Map<String, Value>>) -> Vec<T> {
    records
        .into_iter()
        .filter_map(|m| RawValue::from_string(Value::Object(m).to_string()).ok())
        .filter_map(|raw| T::from_raw(raw).ok())
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let contacts: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let path = args
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("size.sqlite3"));
    let ds = generate(
        DEFAULT_SEED,
        &Sizes {
            contacts,
            ..Sizes::default()
        },
    );
    let mut mirror = Mirror::open(&path).expect("mirror").mirror;
    let started = Instant::now();
    let mut records = 0usize;
    each_served(ds, |r, page| {
        records += page.len();
        let state = SyncState::default();
        let written = match r {
            Resource::Contacts => mirror.apply_page(&typed::<Contact>(page), Some(1), &state),
            Resource::Deals => mirror.apply_page(&typed::<Deal>(page), Some(1), &state),
            Resource::Projects => mirror.apply_page(&typed::<Project>(page), Some(1), &state),
        };
        written.expect("written");
    });
    let took = started.elapsed();
    // Closing checkpoints the journal into the file.
    drop(mirror);
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "{records} records ({contacts} contacts) written in {:.1} s: {:.1} MB, {:.0} bytes per record",
        took.as_secs_f64(),
        bytes as f64 / 1e6,
        bytes as f64 / records.max(1) as f64
    );
}
