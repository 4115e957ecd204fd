//! The runtime's side of the near-duplicate finder: `:dupes` scans the mirror on the
//! blocking pool with a connection of its own (the table's reads are not held up for the
//! second a scan of 100,000 contacts takes), the form's check asks the shared reader (a few
//! indexed reads), and the clusters' export writes a file as `contacts dupes` does.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::export::{Target, give_memory_back};
use super::mirror::MirrorReader;
use crate::app::effects::RequestId;
use crate::app::{ExportEvent, ExportFormat, Message};
use crate::insights::dupes::Person;
use crate::insights::dupes::mirrored::{self, DupesReport, Finder, NearContact, ScanOptions};
use crate::mirror::Mirror;

/// Near contacts the form lists at most.
pub const NEAR_LIMIT: usize = 5;

impl MirrorReader {
    /// Every cluster of the mirror's contacts, with their records (`Ok(None)`: no mirror).
    pub fn dupes(&self, finder: &Finder) -> Result<Option<DupesReport>, String> {
        let opened = Mirror::open_existing(self.path()).map_err(|e| e.for_read().to_string())?;
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
                ExportFormat::Csv => crate::insights::dupes::output::write_csv(&report, &mut out)?,
                ExportFormat::Json => {
                    crate::insights::dupes::output::write_json(&report, &mut out)?
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insights::dupes::mirrored::report_of;

    fn report() -> Arc<DupesReport> {
        let p = |id: &str, name: &str, email: &str| Person {
            id: id.into(),
            name: name.into(),
            email: Some(email.into()),
            ..Person::default()
        };
        let people = vec![
            p("con_1", "Jon Smith", "JSmith@Example.com"),
            p("con_2", "John Smith", "jsmith@example.com"),
        ];
        Arc::new(report_of(
            people,
            &[],
            &Finder::default(),
            &ScanOptions::default(),
        ))
    }

    #[tokio::test]
    async fn the_clusters_are_written_as_contacts_dupes_writes_them_and_never_over_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clusters.csv");
        std::fs::write(&path, "kept").unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let r = report();
        export(
            RequestId(1),
            r.clone(),
            path.clone(),
            ExportFormat::Csv,
            false,
            &tx,
        );
        let Some(Message::Export { id, event }) = rx.recv().await else {
            panic!("an answer");
        };
        assert_eq!(id, RequestId(1));
        let ExportEvent::Done {
            records,
            path: written,
        } = event
        else {
            panic!("{event:?}");
        };
        assert_eq!(records, 2);
        assert_eq!(written, dir.path().join("clusters-2.csv"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept");
        let mut want = Vec::new();
        crate::insights::dupes::output::write_csv(&r, &mut want).unwrap();
        assert_eq!(std::fs::read(&written).unwrap(), want);
        assert!(String::from_utf8(want).unwrap().starts_with(
            "cluster,score,id,name,email,phone,account_ids,reasons\r\n1,1.00,con_1,Jon Smith"
        ));
    }
}
