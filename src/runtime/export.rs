//! The export job: every page of a query, in order, written with the CLI's writers
//! (`output::write_csv` / `write_json`). Cancellable between pages; a cancelled or failed
//! export leaves no partial file behind.

use std::io::BufWriter;
use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use crate::api::{Client, ListQuery, Paging};
use crate::app::{ExportEvent, ExportFormat};

/// Pages asked for at a time (the service's maximum).
const EXPORT_PAGE_SIZE: u32 = 100;
/// A guard against a server whose `meta` never ends.
const MAX_PAGES: u32 = 100_000;

pub(super) struct Job {
    pub client: Client,
    pub path: PathBuf,
    pub format: ExportFormat,
    pub progress: Box<dyn Fn(ExportEvent) + Send + Sync>,
    pub cancel: CancellationToken,
}

impl Job {
    pub async fn export<Q: ListQuery>(self, mut query: Q) -> Result<ExportEvent, String> {
        let mut records: Vec<Q::Item> = Vec::new();
        let mut page = 1u32;
        loop {
            query.set_paging(Paging {
                page: Some(page),
                per_page: Some(EXPORT_PAGE_SIZE),
            });
            let result = tokio::select! {
                _ = self.cancel.cancelled() => return Ok(ExportEvent::Cancelled),
                r = self.client.list(&query) => r,
            };
            let got =
                result.map_err(|e| format!("Export failed on page {page}: {}", e.summary()))?;
            let n = got.data.len();
            let has_next = got.has_next();
            let last = got
                .meta
                .and_then(|m| m.last_page)
                .map(|l| u32::try_from(l).unwrap_or(u32::MAX));
            records.extend(got.data);
            (self.progress)(ExportEvent::Progress {
                records: records.len(),
                page,
                last_page: last,
            });
            // Without `meta` (a plain list) the first answer is everything.
            if !has_next || n == 0 || page >= MAX_PAGES {
                break;
            }
            page += 1;
        }
        if self.cancel.is_cancelled() {
            return Ok(ExportEvent::Cancelled);
        }
        let count = records.len();
        let path = self.path.clone();
        let format = self.format;
        tokio::task::spawn_blocking(move || write_file(&path, format, &records))
            .await
            .map_err(|e| format!("Export failed: {e}"))??;
        Ok(ExportEvent::Done {
            records: count,
            path: self.path,
        })
    }
}

/// Writes to a temporary file beside the target, then renames: never a half-written export.
fn write_file<T: crate::api::ApiRecord>(
    path: &std::path::Path,
    format: ExportFormat,
    records: &[T],
) -> Result<(), String> {
    use std::io::Write;
    let fail = |e: &dyn std::fmt::Display| format!("Cannot write {}: {e}", path.display());
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let tmp = tempfile_in(dir).map_err(|e| fail(&e))?;
    let result = (|| -> Result<(), String> {
        let file = std::fs::File::create(&tmp).map_err(|e| fail(&e))?;
        let mut w = BufWriter::new(file);
        match format {
            ExportFormat::Csv => crate::output::write_csv(records, &mut w).map_err(|e| fail(&e))?,
            ExportFormat::Json => {
                crate::output::write_json(records, &mut w).map_err(|e| fail(&e))?
            }
        }
        w.flush().map_err(|e| fail(&e))?;
        std::fs::rename(&tmp, path).map_err(|e| fail(&e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn tempfile_in(dir: &std::path::Path) -> std::io::Result<PathBuf> {
    let name = format!(".crmdash-export-{}.tmp", uuid::Uuid::new_v4());
    let p = dir.join(name);
    std::fs::metadata(dir)?;
    Ok(p)
}
