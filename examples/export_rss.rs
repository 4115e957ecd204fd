//! Memory of the dashboard's export (issue 19): runs the dashboard's own export job
//! (`ClientSource::export`, the code behind `e`) for every contact of a service, on a
//! single-threaded runtime with one malloc arena as the dashboard does, and prints the
//! process's resident memory before, at its peak, and after the export.
//!
//! ```sh
//! crmdash sandbox --contacts 200000 --port 8080 &
//! cargo run --release --example export_rss -- http://127.0.0.1:8080 sandbox-token-local-only csv
//! ```

use crmdash::api::{Client, SortDirection};
use crmdash::app::{DisplayZone, ExportEvent, ExportFormat, QuerySpec, Resource};
use crmdash::runtime::{ClientSource, DataSource};
use secrecy::SecretString;
use tokio_util::sync::CancellationToken;

/// `VmRSS` and `VmHWM` of this process, in MB.
fn rss() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (kb("VmRSS:"), kb("VmHWM:"))
}

fn main() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a malloc tunable, set before any other thread exists (as the dashboard does).
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    let args: Vec<String> = std::env::args().collect();
    let base = args
        .get(1)
        .cloned()
        .unwrap_or("http://127.0.0.1:8080".into());
    let token = args
        .get(2)
        .cloned()
        .unwrap_or("sandbox-token-local-only".into());
    let format = match args.get(3).map(String::as_str) {
        Some("json") => ExportFormat::Json,
        _ => ExportFormat::Csv,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let client = Client::new(&base, SecretString::from(token)).expect("client");
        let source = ClientSource::new(client, DisplayZone::Local, None);
        let spec = QuerySpec {
            kind: Resource::Contacts,
            filters: Vec::new(),
            sort_by: "updated_at",
            direction: SortDirection::Desc,
            includes: Vec::new(),
            page: 1,
            per_page: 100,
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(format!("contacts.{}", format.extension()));
        let (before, _) = rss();
        let started = std::time::Instant::now();
        let event = source
            .export(
                spec,
                path.clone(),
                format,
                Box::new(|_| {}),
                CancellationToken::new(),
            )
            .await;
        let took = started.elapsed();
        let (after, peak) = rss();
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        match event {
            ExportEvent::Done { records, .. } => println!(
                "export {format:?}: {records} records, {bytes} bytes in {:.1}s; RSS before {before:.1} MB, peak {peak:.1} MB, after {after:.1} MB",
                took.as_secs_f64()
            ),
            other => println!("export did not finish: {other:?}"),
        }
    });
}
