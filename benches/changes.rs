//! The change feed's targets, measured in one run (`cargo bench --features bench --bench
//! changes`; see docs/performance.md):
//! - change detection's share of an incremental sync: 1,000 changed contacts written into a
//!   mirror of 100,000, with the feed (diffing each) and without (a baseline), as a share of
//!   the write alone and of the whole sync's CPU (decoding the pages' bodies included);
//! - bytes per stored change, over 1,000,000 changes;
//! - `crmdash changes --since 7d` over those 1,000,000 changes, as a whole command (the
//!   release binary, output to a pipe), `--format jsonl` and `--format table`;
//! - Today's read from that mirror (changes since the last visit, open deals, projects).
//!
//! Two more modes, to measure one thing at a time (`cargo bench --features bench --bench
//! changes -- ARGS`, or the bench binary itself, e.g. under valgrind):
//! - `keep DIR`: the same run, but the mirrors are built once into DIR and reused by later
//!   runs: `DIR/config.toml` is a config whose `crmdash changes` reads the 1,000,000 changes,
//!   `DIR/sync-base.sqlite3` the 100,000-contact mirror before any change was stored, and
//!   `DIR/pages/` the bodies of one incremental round (1,000 changed contacts, pages of 100);
//! - `round DIR feed|baseline`: one incremental write round and nothing else: a fresh copy of
//!   `DIR/sync-base.sqlite3` receives those 1,000 changed contacts (each page decoded by
//!   `api::decode_page`, written by `Mirror::apply_page`) with the change feed, or as a
//!   baseline (no feed). Under `valgrind --tool=callgrind --collect-atstart=no
//!   --toggle-collect='*apply_page*' --toggle-collect='*decode_page*'` the instruction counts
//!   are the round's alone (see docs/performance.md).

use std::path::Path;
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
/// Where `base_url`'s mirror lives under a config's `[cache] dir`.
const BASE_URL: &str = "http://127.0.0.1:9";
/// The `updated_at` of the kept round's changed contacts (fixed, so every run writes the same).
const ROUND_STAMP: &str = "2026-11-27T06:00:00Z";

fn typed<T: ApiRecord>(m: Map<String, Value>) -> T {
    let raw = RawValue::from_string(Value::Object(m).to_string()).expect("raw");
    T::from_raw(raw).expect("decodes")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["round", dir, mode @ ("feed" | "baseline")] => round(Path::new(dir), *mode == "feed"),
        ["keep", dir] => {
            std::fs::create_dir_all(dir).expect("dir");
            measure(Path::new(dir));
        }
        [] => {
            let dir = tempfile::tempdir().expect("tempdir");
            measure(dir.path());
        }
        other => panic!("usage: changes [keep DIR | round DIR feed|baseline], not {other:?}"),
    }
}

/// The 1,000 changed contacts of one kept round, as the service sends them (pages of 100).
fn round_pages(contacts: &[Map<String, Value>]) -> Vec<Vec<u8>> {
    contacts
        .iter()
        .take(CHANGED)
        .cloned()
        .enumerate()
        .map(|(i, mut c)| {
            c.insert(
                "phone".into(),
                json!(format!("+49 30 {:07}", 7_000_000 + i)),
            );
            c.insert("job_title".into(), json!("Head of Changes"));
            c.insert("updated_at".into(), json!(ROUND_STAMP));
            Value::Object(c)
        })
        .collect::<Vec<_>>()
        .chunks(100)
        .map(|page| serde_json::to_vec(&json!({ "data": page })).expect("body"))
        .collect()
}

/// One incremental write round into a fresh copy of the kept 100,000-contact mirror.
fn round(dir: &Path, feed: bool) {
    let db = dir.join("round.sqlite3");
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.clone().into_os_string();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
    std::fs::copy(dir.join("sync-base.sqlite3"), &db).expect("run `keep DIR` first");
    let mut bodies: Vec<_> = std::fs::read_dir(dir.join("pages"))
        .expect("pages")
        .map(|e| e.expect("entry").path())
        .collect();
    bodies.sort();
    let bodies: Vec<Vec<u8>> = bodies
        .iter()
        .map(|p| std::fs::read(p).expect("page"))
        .collect();
    let mut mirror = Mirror::open(&db).expect("mirror").mirror;
    let state = SyncState {
        last_full_at: feed.then(Utc::now),
        ..SyncState::default()
    };
    let t = Instant::now();
    let mut updated = 0;
    for body in &bodies {
        let page = decode_page::<Contact>(body).expect("decodes").data;
        updated += mirror
            .apply_page(&page, None, &state)
            .expect("written")
            .updated;
    }
    let took = t.elapsed();
    let stored: i64 = rusqlite::Connection::open(&db)
        .and_then(|c| c.query_row("SELECT count(*) FROM changes", [], |r| r.get(0)))
        .expect("count");
    println!(
        "one round, {}: {updated} contacts updated, {stored} changes stored, {:.1} ms",
        if feed {
            "with the change feed"
        } else {
            "as a baseline (no feed)"
        },
        took.as_secs_f64() * 1e3
    );
}

fn measure(dir: &Path) {
    let config = dir.join("config.toml");
    let cache = dir.join("mirrors");
    let location = MirrorLocation::new(cache.clone(), "default", BASE_URL);
    let db = location.db_path();
    let built = dir.join("built");
    if built.exists() {
        eprintln!("reusing the mirrors in {}", dir.display());
        print!("{}", std::fs::read_to_string(&built).expect("built"));
    } else {
        let report = build(dir, &config, &cache, &db);
        print!("{report}");
        std::fs::write(&built, report).expect("built");
    }
    commands(&config);
    today(&db);
}

/// Builds the mirrors (see the module's comment) and measures what building them shows:
/// change detection by the wall clock, and the bytes a stored change takes.
fn build(dir: &Path, config: &Path, cache: &Path, db: &Path) -> String {
    let mut report = String::new();
    std::fs::write(config, format!("[cache]\ndir = {:?}\n", cache)).expect("config");
    std::fs::create_dir_all(cache).expect("dir");
    let mut mirror = Mirror::open(db).expect("mirror").mirror;
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

    // The kept round's starting point and its pages.
    drop(mirror);
    checkpoint(db);
    std::fs::copy(db, dir.join("sync-base.sqlite3")).expect("copied");
    std::fs::create_dir_all(dir.join("pages")).expect("pages");
    for (i, body) in round_pages(&contacts).iter().enumerate() {
        std::fs::write(dir.join("pages").join(format!("{i:02}.json")), body).expect("page");
    }
    let mut mirror = Mirror::open(db).expect("mirror").mirror;

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
    report += &format!(
        "writing {CHANGED} changed contacts (pages of 100): {:.1} ms with the change feed, {:.1} ms without: +{:.1}% of the write\n",
        ms(w),
        ms(wo),
        (ms(w) / ms(wo) - 1.0) * 100.0
    );
    report += &format!(
        "the whole sync's CPU (decoding the pages {:.1} ms + writing): +{:.1}% with the change feed\n",
        ms(dec),
        ((ms(dec) + ms(w)) / (ms(dec) + ms(wo)) - 1.0) * 100.0
    );
    drop(mirror);

    // 1,000,000 stored changes over 90 days: the sync's own encoding, bulk inserted.
    let conn = rusqlite::Connection::open(db).expect("sqlite");
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
    report += &format!(
        "{STORED} changes stored: {:.1} MB, {:.0} bytes a change with the indexes\n",
        added as f64 / 1e6,
        added as f64 / STORED as f64
    );
    drop(conn);
    report
}

/// `crmdash changes --since 7d` as a user runs it (the release binary, output to a pipe).
fn commands(config: &Path) {
    // The whole command, as a user runs it (output to a pipe), in each format.
    for format in ["jsonl", "json", "csv", "table"] {
        let mut runs = Vec::new();
        let mut lines = 0;
        for _ in 0..7 {
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_crmdash"))
                .args([
                    "--base-url",
                    BASE_URL,
                    "changes",
                    "--since",
                    "7d",
                    "--format",
                    format,
                ])
                .env("CRMDASH_CONFIG", config)
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
                BASE_URL,
                "changes",
                "--since",
                "now",
                "--format",
                "jsonl",
            ])
            .env("CRMDASH_CONFIG", config)
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
}

/// Today's read (the dashboard's first open of the day).
fn today(db: &Path) {
    // Today's read from the mirror (the dashboard's first open of the day).
    let m = Mirror::open(db).expect("mirror").mirror;
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

/// Moves the write-ahead log into the file, so a copy of the file is the whole mirror.
fn checkpoint(db: &Path) {
    rusqlite::Connection::open(db)
        .and_then(|c| c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);"))
        .expect("checkpoint");
}
