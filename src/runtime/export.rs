//! The export job: every page of a query, in order, written page by page with the CLI's
//! writers (`output::ListWriter`, so the same columns and bytes as `--format csv|json`) into
//! a temporary file beside the target, renamed into place at the end. One page is in memory
//! at a time. Cancellable between pages; a cancelled or failed export leaves no partial file
//! behind.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use super::mirror::MirrorReader;
use crate::api::{Client, ListQuery, Paging};
use crate::app::{ExportEvent, ExportFormat};
use crate::mirror::{MirrorError, MirrorQuery};
use crate::output::{Columns, Format, ListWriter, Tabular};

/// Pages asked for at a time (the service's maximum).
const EXPORT_PAGE_SIZE: u32 = 100;
/// A guard against a server whose `meta` never ends.
const MAX_PAGES: u32 = 100_000;

/// Where the pages come from: the service, or (offline) the local mirror.
pub(super) enum Lister {
    Service(Client),
    Mirror(MirrorReader),
}

pub(super) struct Job {
    pub lister: Lister,
    pub path: PathBuf,
    pub format: ExportFormat,
    pub progress: Box<dyn Fn(ExportEvent) + Send + Sync>,
    pub cancel: CancellationToken,
}

type FileWriter = ListWriter<BufWriter<File>>;

impl Job {
    pub async fn export<Q>(self, query: Q) -> Result<ExportEvent, String>
    where
        Q: ListQuery + MirrorQuery + Send + 'static,
        Q::Item: Columns + Tabular + Send + 'static,
    {
        // File system calls off the async workers (a slow disk must not hold them).
        let path = self.path.clone();
        let tmp = tokio::task::spawn_blocking(move || temp_path_beside(&path))
            .await
            .map_err(|e| format!("Export failed: {e}"))?
            .map_err(|e| self.fail(&e))?;
        let result = self.stream(query, &tmp).await;
        let done = matches!(result, Ok(ExportEvent::Done { .. }));
        let _ = tokio::task::spawn_blocking(move || {
            if !done {
                let _ = std::fs::remove_file(&tmp);
            }
            give_memory_back();
        })
        .await;
        result
    }

    async fn stream<Q>(&self, query: Q, tmp: &Path) -> Result<ExportEvent, String>
    where
        Q: ListQuery + MirrorQuery + Send + 'static,
        Q::Item: Columns + Tabular + Send + 'static,
    {
        let format = match self.format {
            ExportFormat::Csv => Format::Csv,
            ExportFormat::Json => Format::Json,
        };
        let file = {
            let tmp = tmp.to_path_buf();
            tokio::task::spawn_blocking(move || File::create(tmp))
                .await
                .map_err(|e| format!("Export failed: {e}"))?
                .map_err(|e| self.fail(&e))?
        };
        let writer: FileWriter = ListWriter::new::<Q::Item>(format, None, 0, BufWriter::new(file));
        let walked = match &self.lister {
            Lister::Service(client) => self.pages(client, query, writer).await?,
            Lister::Mirror(reader) => self.seek(reader.clone(), query, writer).await?,
        };
        let Some((writer, records)) = walked else {
            return Ok(ExportEvent::Cancelled);
        };
        if self.cancel.is_cancelled() {
            return Ok(ExportEvent::Cancelled);
        }
        let (tmp, path) = (tmp.to_path_buf(), self.path.clone());
        tokio::task::spawn_blocking(move || -> Result<(), String> {
            let fail = |e: &dyn std::fmt::Display| format!("Cannot write {}: {e}", path.display());
            let out = writer.finish().map_err(|e| fail(&e))?;
            let file = out.into_inner().map_err(|e| fail(&e.into_error()))?;
            file.sync_all().map_err(|e| fail(&e))?;
            std::fs::rename(&tmp, &path).map_err(|e| fail(&e))
        })
        .await
        .map_err(|e| format!("Export failed: {e}"))??;
        Ok(ExportEvent::Done {
            records,
            path: self.path.clone(),
        })
    }

    /// The service's pages, one request at a time. `None`: cancelled.
    async fn pages<Q>(
        &self,
        client: &Client,
        mut query: Q,
        mut writer: FileWriter,
    ) -> Result<Option<(FileWriter, usize)>, String>
    where
        Q: ListQuery + Send + 'static,
        Q::Item: Columns + Tabular + Send + 'static,
    {
        let mut page = 1u32;
        let mut records = 0usize;
        loop {
            query.set_paging(Paging {
                page: Some(page),
                per_page: Some(EXPORT_PAGE_SIZE),
            });
            let result = tokio::select! {
                _ = self.cancel.cancelled() => return Ok(None),
                r = client.list(&query) => r.map_err(|e| e.summary()),
            };
            let got = result.map_err(|e| format!("Export failed on page {page}: {e}"))?;
            let n = got.data.len();
            let has_next = got.has_next();
            let last = got
                .meta
                .and_then(|m| m.last_page)
                .map(|l| u32::try_from(l).unwrap_or(u32::MAX));
            // File I/O off the dashboard's loop thread; the page is dropped once written.
            let data = got.data;
            writer = tokio::task::spawn_blocking(move || writer.page(&data).map(|()| writer))
                .await
                .map_err(|e| format!("Export failed: {e}"))?
                .map_err(|e| self.fail(&e))?;
            records += n;
            (self.progress)(ExportEvent::Progress {
                records,
                page,
                last_page: last,
            });
            // Without `meta` (a plain list) the first answer is everything.
            if !has_next || n == 0 || page >= MAX_PAGES {
                break;
            }
            page += 1;
        }
        Ok(Some((writer, records)))
    }

    /// The mirror's records in one pass on the blocking pool: keyset batches of a page's
    /// size inside one read transaction (`Mirror::each_seek`: no OFFSET walk stepping over
    /// the rows before every page, no sync commit shifting the pages between two reads),
    /// each record as the service sends it for the query. Progress comes back per batch;
    /// cancellation is checked between batches. `None`: cancelled.
    async fn seek<Q>(
        &self,
        reader: MirrorReader,
        mut query: Q,
        writer: FileWriter,
    ) -> Result<Option<(FileWriter, usize)>, String>
    where
        Q: ListQuery + MirrorQuery + Send + 'static,
        Q::Item: Columns + Tabular + Send + 'static,
    {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let cancel = self.cancel.clone();
        let path = self.path.clone();
        let walk = tokio::task::spawn_blocking(move || {
            let mut writer = writer;
            let mut page = 0u32;
            let mut records = 0usize;
            let read = reader.with(|m| {
                let walked = m.in_snapshot(|m| -> Result<(), Stop> {
                    // The count for "page n of m" (one indexed count and one row).
                    query.set_paging(Paging {
                        page: Some(1),
                        per_page: Some(1),
                    });
                    let total = m.list(&query)?.page.meta.and_then(|m| m.total);
                    let last = total.map(|t| {
                        u32::try_from(t.div_ceil(u64::from(EXPORT_PAGE_SIZE)).max(1))
                            .unwrap_or(u32::MAX)
                    });
                    let size = EXPORT_PAGE_SIZE as usize;
                    m.each_seek(&query, size, |batch| {
                        if cancel.is_cancelled() {
                            return Err(Stop::Cancelled);
                        }
                        page += 1;
                        writer
                            .page(&batch)
                            .map_err(|e| Stop::Write(e.to_string()))?;
                        records += batch.len();
                        let _ = tx.send(ExportEvent::Progress {
                            records,
                            page,
                            last_page: last,
                        });
                        Ok(())
                    })?;
                    if page == 0 {
                        let _ = tx.send(ExportEvent::Progress {
                            records: 0,
                            page: 1,
                            last_page: last,
                        });
                    }
                    Ok(())
                })?;
                // A mirror error goes back through `with` (which reports a damaged file).
                match walked {
                    Err(Stop::Mirror(e)) => Err(e),
                    other => Ok(other),
                }
            });
            let failed_on = page + 1;
            match read {
                Ok(Some(Ok(()))) => Ok(Some((writer, records))),
                Ok(Some(Err(Stop::Cancelled))) => Ok(None),
                Ok(Some(Err(Stop::Write(e)))) => {
                    Err(format!("Cannot write {}: {e}", path.display()))
                }
                Ok(Some(Err(Stop::Mirror(e)))) => {
                    Err(format!("Export failed on page {failed_on}: {e}"))
                }
                Ok(None) => Err(format!(
                    "Export failed on page {failed_on}: there is no local mirror"
                )),
                Err(e) => Err(format!("Export failed on page {failed_on}: {e}")),
            }
        });
        while let Some(event) = rx.recv().await {
            (self.progress)(event);
        }
        walk.await
            .map_err(|e| format!("Export failed: the mirror's read stopped: {e}"))?
    }

    fn fail(&self, e: &dyn std::fmt::Display) -> String {
        format!("Cannot write {}: {e}", self.path.display())
    }
}

/// A hidden temporary name in the target's directory (so the final rename stays on one file
/// system); fails early when that directory does not exist.
fn temp_path_beside(path: &Path) -> std::io::Result<PathBuf> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::metadata(dir)?;
    Ok(dir.join(format!(".crmdash-export-{}.tmp", uuid::Uuid::new_v4())))
}

/// Hands freed heap pages back to the system after an export (or a duplicate scan), so the
/// dashboard's resident memory returns to where it was.
pub(super) fn give_memory_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory held by the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Why a walk of the mirror stopped early.
enum Stop {
    Cancelled,
    Write(String),
    Mirror(MirrorError),
}

impl From<MirrorError> for Stop {
    fn from(e: MirrorError) -> Self {
        Stop::Mirror(e)
    }
}

/// Where a finished export goes, and whether it may replace a file there.
pub(super) struct Target {
    pub path: PathBuf,
    pub overwrite: bool,
}

impl Target {
    /// The name the export job writes (and renames its own temporary file to): hidden, in
    /// the target's folder, so putting it in place is a rename on one file system.
    pub fn staging_path(&self) -> PathBuf {
        let dir = self
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        dir.join(format!(".crmdash-export-{}.done", uuid::Uuid::new_v4()))
    }

    /// Moves the staged file to the target. Without `overwrite` nothing is replaced, even a
    /// file that appeared while the export ran: the link that makes the name fails when the
    /// name is taken, and the next free name (`x-2.csv`) is used. Returns the path written.
    pub fn place(&self, staged: &Path) -> Result<PathBuf, String> {
        let fail = |path: &Path, e: &dyn std::fmt::Display| {
            let _ = std::fs::remove_file(staged);
            format!("Cannot write {}: {e}", path.display())
        };
        if self.overwrite {
            return std::fs::rename(staged, &self.path)
                .map(|()| self.path.clone())
                .map_err(|e| fail(&self.path, &e));
        }
        let mut path = self.path.clone();
        loop {
            match std::fs::hard_link(staged, &path) {
                Ok(()) => {
                    let _ = std::fs::remove_file(staged);
                    return Ok(path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    path = crate::app::dialogs::export::free_name(&path, Path::exists);
                }
                // A file system without hard links: check, then rename (a small window).
                Err(_) if !path.exists() => {
                    return std::fs::rename(staged, &path)
                        .map(|()| path.clone())
                        .map_err(|e| fail(&path, &e));
                }
                Err(_) => path = crate::app::dialogs::export::free_name(&path, Path::exists),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placing_never_replaces_a_file_unless_asked() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("contacts.csv");
        std::fs::write(&target, "mine").unwrap();
        let t = Target {
            path: target.clone(),
            overwrite: false,
        };
        let staged = t.staging_path();
        std::fs::write(&staged, "export").unwrap();
        let written = t.place(&staged).unwrap();
        assert_eq!(written, dir.path().join("contacts-2.csv"));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(&written).unwrap(), "export");
        assert!(!staged.exists());

        let t = Target {
            path: target.clone(),
            overwrite: true,
        };
        let staged = t.staging_path();
        std::fs::write(&staged, "again").unwrap();
        assert_eq!(t.place(&staged).unwrap(), target);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "again");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 2, "no staging file left behind");
    }
}
