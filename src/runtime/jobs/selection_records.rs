//! A selection's records, for an action on them (copy, export): the tab's query is read
//! first (where hand-picked rows usually are), then, for ids still missing (marked under
//! another filter), the whole resource, in the tab's order, each stopping once every id is
//! found. Pages come from the mirror's complete copy when there is one, else the service.
//! An export writes them with the CLI's writers, the same columns and bytes as `e`.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::value::RawValue;

use super::{Ids, JobCx, Work};
use crate::api::{ListQuery, MAX_PER_PAGE};
use crate::app::jobs::{ExportTo, JobOutput};
use crate::app::resources::WithQuery;
use crate::app::selection::Selection;
use crate::app::table::record::{Record, TableRecord};
use crate::app::{ExportFormat, QuerySpec};
use crate::insights::pipeline::{PageStep, PageWalk};
use crate::output::{Format, ListWriter};

pub(super) struct SelectionRecords {
    pub spec: QuerySpec,
    pub ids: Ids,
    pub export: Option<ExportTo>,
}

impl Work for SelectionRecords {
    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>> {
        Box::pin(async move {
            let want = self.ids.len();
            let noun = self.spec.kind.noun();
            let base = QuerySpec {
                page: 1,
                per_page: MAX_PER_PAGE,
                ..self.spec.clone()
            };
            let reader = cx.pages.reader(&base).await?;
            let mut passes = vec![base.clone()];
            if !base.filters.is_empty() {
                passes.push(QuerySpec {
                    filters: Vec::new(),
                    ..base
                });
            }
            let mut found: Vec<Record> = Vec::new();
            let mut seen = Selection::default();
            for pass in passes {
                if seen.len() >= want {
                    break;
                }
                let mut walk = PageWalk::new(u32::MAX);
                loop {
                    let page_no = walk.next_page();
                    let page = reader.page(pass.at_page(page_no)).await?;
                    let first = page.records.first().map(|r| r.id.as_str());
                    let PageStep::Take { more } = walk.page(first, page.records.len(), page.meta)
                    else {
                        break;
                    };
                    for r in &page.records {
                        if self.ids.contains(&r.id) && seen.insert(&r.id) {
                            found.push(r.clone());
                        }
                    }
                    cx.progress
                        .report(seen.len() as u64, Some(want as u64), noun);
                    if !more || seen.len() >= want {
                        break;
                    }
                }
            }
            let missing = want - seen.len();
            let Some(to) = self.export else {
                return Ok(JobOutput::Records {
                    records: Arc::new(found),
                    missing,
                });
            };
            let spec = self.spec;
            let records = found.len();
            let path = tokio::task::spawn_blocking(move || write_and_place(&spec, found, &to))
                .await
                .map_err(|e| format!("Export failed: {e}"))??;
            Ok(JobOutput::Exported {
                records,
                missing,
                path,
            })
        })
    }
}

/// Writes the records beside the target, then puts the file in place (never replacing a
/// file unless asked, as `e` does).
fn write_and_place(
    spec: &QuerySpec,
    records: Vec<Record>,
    to: &ExportTo,
) -> Result<PathBuf, String> {
    let target = crate::runtime::export::Target {
        path: to.path.clone(),
        overwrite: to.overwrite,
    };
    let staged = target.staging_path();
    let written = spec.with_query(WriteRecords {
        records,
        path: staged.clone(),
        format: to.format,
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&staged);
        return Err(format!("Cannot write {}: {e}", to.path.display()));
    }
    target.place(&staged)
}

/// The records decoded as the resource's type and written with the CLI's list writer.
struct WriteRecords {
    records: Vec<Record>,
    path: PathBuf,
    format: ExportFormat,
}

impl WithQuery for WriteRecords {
    type Output = Result<(), String>;

    fn run<Q>(self, _query: Q) -> Self::Output
    where
        Q: ListQuery + crate::mirror::MirrorQuery + Send + Sync + 'static,
        Q::Item: TableRecord + Send + 'static,
    {
        let items = self
            .records
            .iter()
            .map(|r| {
                let raw = RawValue::from_string(r.raw.to_string()).map_err(|e| e.to_string())?;
                <Q::Item as crate::api::ApiRecord>::from_raw(raw)
                    .map_err(|e| format!("record {} cannot be read: {e}", r.id))
            })
            .collect::<Result<Vec<Q::Item>, String>>()?;
        let format = match self.format {
            ExportFormat::Csv => Format::Csv,
            ExportFormat::Json => Format::Json,
        };
        let file = File::create(&self.path).map_err(|e| e.to_string())?;
        let mut w = ListWriter::new::<Q::Item>(format, None, 0, BufWriter::new(file));
        w.page(&items).map_err(|e| e.to_string())?;
        let out = w.finish().map_err(|e| e.to_string())?;
        let file = out.into_inner().map_err(|e| e.into_error().to_string())?;
        file.sync_all().map_err(|e| e.to_string())
    }
}
