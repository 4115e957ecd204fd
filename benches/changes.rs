//! The change feed's targets, measured in one run (`cargo bench --features bench --bench
//! changes`; see docs/performance.md):
//! - change detection's share of an incremental sync: 1,000 changed contacts written into a
//!   mirror of 100,000, with the feed (diffing each) and without (a baseline), as a share of
//!   the write alone and of the whole sync's CPU (decoding the pages' bodies included);
//! - bytes per stored change, over 1,000,000 changes;
//! - `crmdash changes --since 7d` over those 1,000,000 changes, as a whole command (the
//!   release binary, output to a pipe), `--format jsonl` and `--format table`;
//! - Today's read from that mirror (changes since the last visit, open deals, projects).

use std::process::Command;
use std::time::{Duration, Instant};

use chrono::Utc;
use crmdash::api::{ApiRecord, Contact, Deal, Project, decode_page};
use crmdash::mirror::{Mirror, MirrorLocation, SyncState};
use crmdash::sandbox::{DEFAULT_SEED, Sizes, generate};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

const CONTACTS: usize = 100_000;
const CHANGED: usize = 1_000;
const STORED: i64 = 1_000_000;

fn typed<T: ApiRecord>(m: Map<String, Value>) -> T {
    let raw = RawValue::from_string(Value::Object(m).to_string()).expect("raw");
    T::from_raw(raw).expect("decodes")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base_url = "http://127.0.0.1:9";
    let config = dir.path().join("config.toml");
    let cache = dir.path().join("mirrors");
    std::fs::write(&config, format!("[cache]\ndir = {:?}\n", cache)).expect("config");
    let location = MirrorLocation::new(cache.clone(), "default", base_url);
    let db = location.db_path();
    std::fs::create_dir_all(&cache).expect("dir");
    let mut mirror = Mirror::open(&db).expect("mirror").mirror;

    let ds = generate(
        DEFAULT_SEED,
        &Sizes {
            contacts: CONTACTS,
            ..Sizes::default()
        },
    );
    let contacts: Vec<Map<String, Value>> = ds.contacts;
    let baseline = SyncState::default();
    let started = Instant::now();
    for chunk in contacts.chunks(1000) {
        let recs: Vec<Contact> = chunk.iter().cloned().map(typed).collect();
        mirror.apply_page(&recs, None, &baseline).expect("written");
    }
    // The generator's deals and projects too: Today lists open deals and this week's projects.
    let deals: Vec<Deal> = ds.deals.iter().cloned().map(typed).collect();
    mirror.apply_page(&deals, None, &baseline).expect("written");
    let projects: Vec<Project> = ds.projects.iter().cloned().map(typed).collect();
    mirror
        .apply_page(&projects, None, &baseline)
        .expect("written");
    eprintln!(
        "mirror of {CONTACTS} contacts written in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Change detection: the same 1,000 changed records written with the feed and without,
    // alternately (each round changes a phone and a job title of 1,000 contacts).
    let synced = SyncState {
        last_full_at: Some(Utc::now()),
        ..SyncState::default()
    };
    let (mut with_feed, mut without, mut decoding) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..12 {
        for feed in [true, false] {
            // The pages' bodies as the service sends them, 100 records each.
            let bodies: Vec<Vec<u8>> = contacts
                .iter()
                .skip(round * 5000 + usize::from(feed) * CHANGED)
                .take(CHANGED)
                .cloned()
                .map(|mut c| {
                    c.insert("phone".into(), json!(format!("+49 30 {round}{feed}")));
                    c.insert("job_title".into(), json!(format!("Title {round}")));
                    c.insert("updated_at".into(), json!(Utc::now().to_rfc3339()));
                    Value::Object(c)
                })
                .collect::<Vec<_>>()
                .chunks(100)
                .map(|page| serde_json::to_vec(&json!({ "data": page })).expect("body"))
                .collect();
            let t = Instant::now();
            let pages: Vec<Vec<Contact>> = bodies
                .iter()
                .map(|b| decode_page::<Contact>(b).expect("decodes").data)
                .collect();
            decoding.push(t.elapsed());
            let state = if feed { &synced } else { &baseline };
            let t = Instant::now();
            for page in &pages {
                mirror.apply_page(page, None, state).expect("written");
            }
            if feed { &mut with_feed } else { &mut without }.push(t.elapsed());
        }
    }
    let (w, wo, dec) = (median(with_feed), median(without), median(decoding));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "writing {CHANGED} changed contacts (pages of 100): {:.1} ms with the change feed, {:.1} ms without: +{:.1}% of the write",
        ms(w),
        ms(wo),
        (ms(w) / ms(wo) - 1.0) * 100.0
    );
    println!(
        "the whole sync's CPU (decoding the pages {:.1} ms + writing): +{:.1}% with the change feed",
        ms(dec),
        ((ms(dec) + ms(w)) / (ms(dec) + ms(wo)) - 1.0) * 100.0
    );
    drop(mirror);

    // 1,000,000 stored changes over 90 days: the sync's own encoding, bulk inserted.
    let conn = rusqlite::Connection::open(&db).expect("sqlite");
    let pages = |c: &rusqlite::Connection| -> i64 {
        c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap()
    };
    let page_size: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let before = pages(&conn);
    let now = Utc::now().timestamp();
    let span = 90 * 86_400;
    conn.execute_batch("BEGIN").unwrap();
    {
        let mut ins = conn
            .prepare(
                "INSERT INTO changes (at, resource, id, kind, fields) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .unwrap();
        for i in 0..STORED {
            let at = now - span + i * span / STORED;
            let (resource, id, fields) = match i % 4 {
                0 => (
                    1,
                    format!("deal_{:06}", i % 10_000),
                    format!(
                        r#"[["status","open","won"],["value","{}.00","{}.50"]]"#,
                        i % 90_000,
                        i % 70_000
                    ),
                ),
                1 => (
                    0,
                    format!("con_{:06}", i % CONTACTS as i64),
                    format!(
                        r#"[["phone","+49 30 {:07}","+49 30 {:07}"]]"#,
                        i % 9_999_999,
                        (i * 7) % 9_999_999
                    ),
                ),
                2 => (
                    0,
                    format!("con_{:06}", i % CONTACTS as i64),
                    r#"[["job_title","Project Lead","Head of Sales"]]"#.to_string(),
                ),
                _ => (
                    2,
                    format!("prj_{:06}", i % 2_000),
                    r#"[["status","planned","active"]]"#.to_string(),
                ),
            };
            ins.execute(rusqlite::params![at, resource, id, 1, fields])
                .unwrap();
        }
    }
    conn.execute_batch("COMMIT; PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let added = (pages(&conn) - before) * page_size;
    println!(
        "{STORED} changes stored: {:.1} MB, {:.0} bytes a change with the indexes",
        added as f64 / 1e6,
        added as f64 / STORED as f64
    );
    drop(conn);

    // The whole command, as a user runs it (output to a pipe), in both formats.
    for format in ["jsonl", "table"] {
        let mut runs = Vec::new();
        let mut lines = 0;
        for _ in 0..7 {
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_crmdash"))
                .args([
                    "--base-url",
                    base_url,
                    "changes",
                    "--since",
                    "7d",
                    "--format",
                    format,
                ])
                .env("CRMDASH_CONFIG", &config)
                .env("CRMDASH_TOKEN", "unused")
                .output()
                .expect("crmdash runs");
            runs.push(t.elapsed());
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            lines = out.stdout.iter().filter(|b| **b == b'\n').count();
        }
        println!(
            "crmdash changes --since 7d --format {format} over {STORED} changes: {lines} lines, median {:.1} ms (whole command)",
            median(runs).as_secs_f64() * 1e3
        );
    }
    // The command's floor: the same command with nothing in its window.
    let mut runs = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_crmdash"))
            .args([
                "--base-url",
                base_url,
                "changes",
                "--since",
                "now",
                "--format",
                "jsonl",
            ])
            .env("CRMDASH_CONFIG", &config)
            .env("CRMDASH_TOKEN", "unused")
            .output()
            .expect("crmdash runs");
        runs.push(t.elapsed());
        assert!(out.status.success());
    }
    println!(
        "crmdash changes with an empty window: median {:.1} ms (start-up, config, opening the mirror)",
        median(runs).as_secs_f64() * 1e3
    );

    // Today's read from the mirror (the dashboard's first open of the day).
    let m = Mirror::open(&db).expect("mirror").mirror;
    let mut reads = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let input = crmdash::runtime::feed::today(&m, Some(None), None, Utc::now()).expect("read");
        reads.push(t.elapsed());
        std::hint::black_box(input);
    }
    println!(
        "Today's read, {CONTACTS} contacts and {STORED} changes mirrored: median {:.1} ms",
        median(reads).as_secs_f64() * 1e3
    );
}
