//! The runtime's side of the near-duplicate finder: `:dupes` scans the mirror on the
//! blocking pool with a connection of its own (the table's reads are not held up for the
//! second a scan of 100,000 contacts takes), the form's check asks the shared reader (a few
//! indexed reads), and the clusters' export writes a file as `contacts dupes` does.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::export::Target;
use super::mirror::MirrorReader;
use crate::app::effects::RequestId;
use crate::app::{ExportEvent, ExportFormat, Message};
use crate::insights::dupes::Person;
use crate::insights::dupes::mirrored::{
    self, DupesReport, Finder, NearContact, ScanOptions,
};
use crate::mirror::Mirror;

/// Near contacts the form lists at most.
pub const NEAR_LIMIT: usize = 5;

impl MirrorReader {
    /// Every cluster of the mirror's contacts, with their records (`Ok(None)`: no mirror).
    pub fn dupes(&self, finder: &Finder) -> Result<Option<DupesReport>, String> {
        let opened = Mirror::open_existing(self.path())
            .map_err(|e| e.for_read().to_string())?;
        let Some(opened) = opened else {
            return Ok(None);
        };
        let report = mirrored::scan(&opened.mirror, finder, &ScanOptions::default())
            .map_err(|e| e.for_read().to_string())?;
        give_memory_back();
        Ok(Some(report))
    }

    /// These contacts' records (the members of a cluster opened in `:dupes`).
    pub fn contact_records(&self, ids: &[String]) -> Result<Option<Vec<Option<Arc<str>>>>, String> {
        self.with(|m| mirrored::records(m, ids))
    }

    /// The mirrored contacts like the form's draft (indexed reads only).
    pub fn near_contacts(
        &self,
        draft: &Person,
        finder: &Finder,
    ) -> Result<Option<Vec<NearContact>>, String> {
        self.with(|m| mirrored::near_contacts(m, draft, finder, NEAR_LIMIT))
    }
}

/// The scan read 100,000 records: the freed heap goes back to the system.
fn give_memory_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory held by the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Writes the clusters to a hidden file beside `path`, then puts it in place (never
/// replacing a file unless `overwrite`); says how it went with `Message::Export`.
pub fn export(
    id: RequestId,
    report: Arc<DupesReport>,
    path: PathBuf,
    format: ExportFormat,
    overwrite: bool,
    tx: &UnboundedSender<Message>,
) {
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        let target = Target { path, overwrite };
        let staged = target.staging_path();
        let written = File::create(&staged).and_then(|f| {
            let mut out = BufWriter::new(f);
            match format {
                ExportFormat::Csv => crate::output::dupes::write_csv(&report, &mut out)?,
                ExportFormat::Json => crate::output::dupes::write_json(&report, &mut out)?,
            }
            out.flush()?;
            out.get_ref().sync_all()
        });
        let event = match written {
            Ok(()) => match target.place(&staged) {
                Ok(path) => ExportEvent::Done {
                    records: report.clusters.iter().map(|c| c.members.len()).sum(),
                    path,
                },
                Err(e) => ExportEvent::Failed(e),
            },
            Err(e) => {
                let _ = std::fs::remove_file(&staged);
                ExportEvent::Failed(format!("Cannot write {}: {e}", target.path.display()))
            }
        };
        let _ = tx.send(Message::Export { id, event });
    });
}
