//! The pipeline-over-time reports' target (`cargo bench --features bench --bench reports`; see
//! docs/performance.md): each `crmdash deals report KIND` as a whole command (the release
//! binary, output to a pipe) over a mirror of 100,000 deals and 1,000,000 stored changes of
//! their status and value spread over 90 days, at most 100 ms.
//!
//! `keep DIR` builds the mirror once into DIR and reuses it in later runs.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use chrono::Utc;
use crmdash::api::{ApiRecord, Deal};
use crmdash::mirror::{Mirror, MirrorLocation, Resource, SyncState};
use crmdash::sandbox::{DEFAULT_SEED, Sizes, generate};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

const DEALS: usize = 100_000;
const STORED: i64 = 1_000_000;
/// Where `BASE_URL`'s mirror lives under the config's `[cache] dir`.
const BASE_URL: &str = "http://127.0.0.1:9";
const KINDS: [&str; 5] = [
    "waterfall",
    "time-in-status",
    "velocity",
    "forecast",
    "stale",
];
const STATUSES: [&str; 4] = ["open", "on_hold", "won", "lost"];

fn typed(m: Map<String, Value>) -> Deal {
    let raw = RawValue::from_string(Value::Object(m).to_string()).expect("raw");
    Deal::from_raw(raw).expect("decodes")
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
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["keep", dir] => {
            std::fs::create_dir_all(dir).expect("dir");
            measure(Path::new(dir));
        }
        [] => {
            let dir = tempfile::tempdir().expect("tempdir");
            measure(dir.path());
        }
        other => panic!("usage: reports [keep DIR], not {other:?}"),
    }
}

fn measure(dir: &Path) {
    let config = dir.join("config.toml");
    let cache = dir.join("mirrors");
    let db = MirrorLocation::new(cache.clone(), "default", BASE_URL).db_path();
    if !dir.join("built").exists() {
        build(&config, &cache, &db);
        std::fs::write(dir.join("built"), "").expect("built");
    }
    for kind in KINDS {
        let mut runs = Vec::new();
        let mut lines = 0;
        for _ in 0..7 {
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_crmdash"))
                .args(["--base-url", BASE_URL, "deals", "report", kind])
                .args(["--since", "30d", "--format", "json"])
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
            "crmdash deals report {kind} over {DEALS} deals and {STORED} changes: {lines} lines of JSON, median {:.1} ms (whole command)",
            median(runs).as_secs_f64() * 1e3
        );
    }
}

/// 100,000 generated deals, synced in full 90 days ago, and 1,000,000 changes of their status
/// and value since (the sync's own encoding, bulk inserted).
fn build(config: &Path, cache: &Path, db: &Path) {
    std::fs::write(config, format!("[cache]\ndir = {cache:?}\n")).expect("config");
    std::fs::create_dir_all(cache).expect("dir");
    let mut mirror = Mirror::open(db).expect("mirror").mirror;
    let ds = generate(
        DEFAULT_SEED,
        &Sizes {
            contacts: 100,
            deals: DEALS,
            ..Sizes::default()
        },
    );
    let baseline = SyncState::default();
    let deals: Vec<Deal> = ds.deals.into_iter().map(typed).collect();
    for chunk in deals.chunks(1000) {
        mirror.apply_page(chunk, None, &baseline).expect("written");
    }
    let span = 90 * 86_400;
    let now = Utc::now().timestamp();
    mirror
        .set_sync_state(
            Resource::Deals,
            &SyncState {
                last_sync_at: Some(Utc::now()),
                last_full_at: chrono::DateTime::from_timestamp(now - span, 0),
                ..SyncState::default()
            },
        )
        .expect("state");
    drop(mirror);
    let conn = rusqlite::Connection::open(db).expect("sqlite");
    conn.execute_batch("BEGIN").expect("begin");
    {
        let mut ins = conn
            .prepare(
                "INSERT INTO changes (at, resource, id, kind, fields) VALUES (?1, 1, ?2, 1, ?3)",
            )
            .expect("insert");
        for i in 0..STORED {
            let at = now - span + i * span / STORED;
            let deal = &deals[(i as usize * 7919) % DEALS];
            let fields = if i % 2 == 0 {
                let (a, b) = (i as usize % 4, (i as usize + 1) % 4);
                format!(r#"[["status","{}","{}"]]"#, STATUSES[a], STATUSES[b])
            } else {
                format!(
                    r#"[["value","{}.00","{}.50"]]"#,
                    i % 90_000,
                    (i * 7) % 90_000
                )
            };
            ins.execute(rusqlite::params![at, deal.id, fields])
                .expect("change");
        }
    }
    conn.execute_batch("COMMIT; PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("commit");
}
