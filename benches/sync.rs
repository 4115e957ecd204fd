//! A full sync over the in-process sandbox with 50 ms of latency on every request (issue 30):
//! the window of `sync_jobs` concurrent, chained reads, the writer's large transactions.
//! Before criterion's runs it prints, for one first sync of `SYNC_BENCH_CONTACTS` contacts
//! (default 20,000) with `jobs` 1 and 8: wall time, requests, records, the bytes the process
//! wrote (`/proc/self/io`: only the mirror writes; the sandbox keeps its data in memory) against
//! the mirror's size, and CPU time (client and sandbox together: the sandbox builds its pages
//! in the same process), and what the sandbox's data takes in memory.
//! Its `sync_cpu` group measures the client's own work per record without network or sandbox
//! (pages fetched once beforehand): decoding a page of 100 contacts (whole, and lean as a sync
//! does), decoding, packing and writing it as a first sync's bulk phase does, the search build
//! at the pass's end, and the pass's end itself (`SYNC_BENCH_CPU_ONLY=1` skips the rest).
//! `cargo bench --features bench --bench sync`; `SYNC_BENCH_CONTACTS=1000000
//! SYNC_BENCH_JOBS=8 target/release/deps/sync-* --test` runs the figures once for a million.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use crmdash::api::{
    Client, Contact, ContactQuery, ListQuery, Paging, decode_page, decode_page_lean,
};
use crmdash::mirror::sync::{self, SyncOptions, SyncQuery};
use crmdash::mirror::{Mirror, MirrorLocation, SyncState};
use crmdash::resource::Resource;
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use secrecy::SecretString;

const LATENCY: Duration = Duration::from_millis(50);

fn contacts() -> usize {
    std::env::var("SYNC_BENCH_CONTACTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

/// `write_bytes` of this process so far (bytes that reached the storage layer).
fn written() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("write_bytes: "))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// A line of `/proc/self/status` (`VmRSS`, `VmHWM`), in kB.
fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| {
                v.trim_start_matches(':')
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .ok()
            })
        })
        .unwrap_or(0)
}

/// User + system CPU time of this process so far.
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|i| fields.get(*i).and_then(|v| v.parse::<u64>().ok()))
        .sum();
    // USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

fn sandbox(rt: &tokio::runtime::Runtime, n: usize) -> (SandboxHandle, Client) {
    rt.block_on(async {
        let sb = Sandbox::start(SandboxConfig {
            contacts: n,
            latency: Some(LATENCY),
            ..SandboxConfig::default()
        })
        .await
        .expect("sandbox");
        let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).expect("client");
        (sb, client)
    })
}

/// One first sync into a fresh mirror.
fn first_sync(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    sb: &SandboxHandle,
    jobs: usize,
) -> (Duration, u64, u64, u64, u64, Duration) {
    let dir = tempfile::tempdir().expect("tempdir");
    let location = MirrorLocation::new(dir.path().join("mirror"), "bench", &sb.base_url());
    let opts = SyncOptions {
        jobs,
        ..SyncOptions::default()
    };
    let (w0, c0, t0) = (written(), cpu(), Instant::now());
    let report = rt
        .block_on(sync::sync(client, &location, &opts, &|_| {}))
        .expect("sync");
    let (elapsed, cpu_used, bytes) = (t0.elapsed(), cpu() - c0, written() - w0);
    let size: u64 = std::fs::read_dir(dir.path().join("mirror"))
        .expect("dir")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    let requests = report.resources.iter().map(|r| r.requests).sum();
    let records = report.resources.iter().map(|r| r.inserted).sum();
    (elapsed, requests, records, bytes, size, cpu_used)
}

fn figures() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let n = contacts();
    let rss0 = status_kb("VmRSS");
    let t0 = Instant::now();
    let (sb, client) = sandbox(&rt, n);
    println!(
        "sandbox with {n} contacts: started in {:.1} s, {} MB more resident",
        t0.elapsed().as_secs_f64(),
        (status_kb("VmRSS").saturating_sub(rss0)) / 1024
    );
    let jobs_list: Vec<usize> = std::env::var("SYNC_BENCH_JOBS")
        .ok()
        .map(|v| v.split(',').filter_map(|j| j.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 8]);
    for jobs in jobs_list {
        let (elapsed, requests, records, bytes, size, cpu_used) =
            first_sync(&rt, &client, &sb, jobs);
        println!(
            "first sync, {n} contacts, {}ms latency, jobs {jobs}: {:.2} s, {requests} requests, \
             {records} records, {:.1} MB written for a {:.1} MB mirror ({:.2}x), CPU {:.2} s \
             ({:.0} us a record, sandbox included)",
            LATENCY.as_millis(),
            elapsed.as_secs_f64(),
            bytes as f64 / 1e6,
            size as f64 / 1e6,
            bytes as f64 / size.max(1) as f64,
            cpu_used.as_secs_f64(),
            cpu_used.as_secs_f64() * 1e6 / records.max(1) as f64,
        );
    }
}

/// Pages of contacts as a first sync reads them (oldest created first, 100 a page, every
/// include), as the sandbox (no latency) sends them: the bodies the client decodes.
fn sync_pages(rt: &tokio::runtime::Runtime, sb: &SandboxHandle, n: usize) -> Vec<Vec<u8>> {
    let http = reqwest::Client::new();
    (0..n)
        .map(|i| {
            let q = ContactQuery::everything(Paging {
                page: Some(i as u32 + 1),
                per_page: Some(100),
            });
            let pairs = q.to_pairs().expect("pairs");
            let url = format!("{}/public/v1/contacts", sb.base_url());
            rt.block_on(async {
                http.get(&url)
                    .query(&pairs)
                    .bearer_auth(sb.token())
                    .send()
                    .await
                    .expect("request")
                    .error_for_status()
                    .expect("200")
                    .bytes()
                    .await
                    .expect("body")
                    .to_vec()
            })
        })
        .collect()
}

/// A fresh mirror as a first sync's bulk phase writes it (sort indexes dropped, no search
/// entries, the rollback journal, one open transaction).
fn bulk_mirror() -> (tempfile::TempDir, Mirror) {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = Mirror::open(&dir.path().join("bench.sqlite3"))
        .expect("mirror")
        .mirror;
    m.drop_sort_indexes(Resource::Contacts).expect("indexes");
    m.bulk_journal(true).expect("journal");
    (dir, m)
}

/// Iteration `k`'s copy of a page: the same contacts under ids no other iteration wrote, so
/// each one is an insert (as in a first sync), not an unchanged record.
fn fresh_ids(page: &[u8], k: u64) -> Vec<u8> {
    String::from_utf8_lossy(page)
        .replace("\"id\":\"con_", &format!("\"id\":\"con_{k}x"))
        .into_bytes()
}

/// The client's CPU per synced record without the network or the sandbox: decoding a page,
/// packing and writing it (the bulk phase), and the search build at the pass's end.
fn sync_cpu(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let sb = rt
        .block_on(Sandbox::start(SandboxConfig {
            contacts: 10_000,
            ..SandboxConfig::default()
        }))
        .expect("sandbox");
    let pages = sync_pages(&rt, &sb, 100);
    assert!(
        pages
            .iter()
            .all(|p| decode_page::<Contact>(p).expect("decodes").data.len() == 100)
    );
    let mut g = c.benchmark_group("sync_cpu");
    g.throughput(Throughput::Elements(100));
    g.bench_function("decode a page of 100 contacts", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % pages.len();
            black_box(decode_page::<Contact>(&pages[i]).expect("decode"))
        })
    });
    // What a sync decodes (relations by id, no `extra`: `ApiRecord::from_raw_lean`).
    g.bench_function("decode a page of 100 contacts, lean", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % pages.len();
            black_box(decode_page_lean::<Contact>(&pages[i]).expect("decode"))
        })
    });
    g.bench_function("decode, pack and write a page of 100 contacts", |b| {
        b.iter_custom(|iters| {
            let (_dir, mut m) = bulk_mirror();
            let mut spent = Duration::ZERO;
            for k in 0..iters {
                let body = fresh_ids(&pages[k as usize % pages.len()], k);
                let t = Instant::now();
                let page = decode_page_lean::<Contact>(&body).expect("decode");
                m.apply_open(&[(page.data, Some(1))], None).expect("write");
                if k % 50 == 49 {
                    m.commit_open().expect("commit");
                }
                spent += t.elapsed();
            }
            let t = Instant::now();
            m.commit_open().expect("commit");
            spent + t.elapsed()
        })
    });
    // One build per sample (each needs a mirror of 10,000 contacts written first).
    g.throughput(Throughput::Elements(10_000));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1));
    g.bench_function("search build of 10,000 contacts", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let (_dir, mut m) = bulk_mirror();
                for p in &pages {
                    let page = decode_page::<Contact>(p).expect("decode");
                    m.apply_open(&[(page.data, Some(1))], None).expect("write");
                }
                m.commit_open().expect("commit");
                let t = Instant::now();
                assert_eq!(m.build_search_indexes::<Contact>().expect("build"), 10_000);
                spent += t.elapsed();
            }
            spent
        })
    });
    // The end of a full pass that saw every record (the usual case): one read of the
    // records finds none unseen.
    g.bench_function("end of a full pass of 10,000 contacts, nothing gone", |b| {
        let (_dir, mut m) = bulk_mirror();
        for p in &pages {
            let page = decode_page_lean::<Contact>(p).expect("decode");
            m.apply_open(&[(page.data, Some(1))], None).expect("write");
        }
        m.commit_open().expect("commit");
        let state = SyncState::default();
        b.iter(|| {
            assert_eq!(
                m.finish_full_pass(Resource::Contacts, 1, &state)
                    .expect("finish"),
                0
            )
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    if std::env::var_os("SYNC_BENCH_CPU_ONLY").is_some() {
        return;
    }
    figures();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (sb, client) = sandbox(&rt, 5_000);
    let mut g = c.benchmark_group("sync");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("first sync, 5,000 contacts, 50 ms latency, 8 jobs", |b| {
        b.iter(|| black_box(first_sync(&rt, &client, &sb, 8)))
    });
    g.finish();
}

criterion_group!(benches, sync_cpu, bench);
criterion_main!(benches);
