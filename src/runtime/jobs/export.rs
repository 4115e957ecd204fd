//! A tab's export (`e`): every page of the view, in order, written with the CLI's writers
//! (`runtime::export`, the same columns and bytes as `--format csv|json`) into a staging
//! file beside the target, put in place at the end (`export::Target::place`: an existing
//! file is replaced only when the user said so). Pages come from the service, or offline
//! from the local mirror. A cancel stops it between pages and removes the partial file, so
//! it stops itself rather than being dropped.

use futures::future::BoxFuture;

use super::{JobCx, Work};
use crate::app::jobs::{ExportTo, JobOutput};
use crate::app::{ExportEvent, QuerySpec};
use crate::runtime::export::{Job, Lister, Target};
use crate::runtime::pipeline::Pages;

pub(super) struct TabExport {
    pub spec: QuerySpec,
    pub to: ExportTo,
}

impl Work for TabExport {
    fn stops_itself(&self) -> bool {
        true
    }

    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>> {
        Box::pin(async move {
            let TabExport { spec, to } = *self;
            let Pages {
                source,
                reason,
                mirror,
            } = cx.pages;
            // Offline, the pages come from the local mirror (the same writers, the same bytes).
            let from_mirror = mirror.filter(|_| cx.offline.is_some());
            let target = Target {
                path: to.path,
                overwrite: to.overwrite,
            };
            let staged = target.staging_path();
            let progress = cx.progress.clone();
            let progress = Box::new(move |event: ExportEvent| {
                if let ExportEvent::Progress {
                    records,
                    page,
                    last_page,
                } = event
                {
                    progress.pages(page, last_page, records);
                }
            });
            let event = match (from_mirror, source) {
                (Some(reader), _) => {
                    let job = Job {
                        lister: Lister::Mirror(reader),
                        path: staged.clone(),
                        format: to.format,
                        progress,
                        cancel: cx.cancel.clone(),
                    };
                    spec.with_query(job)
                        .await
                        .unwrap_or_else(ExportEvent::Failed)
                }
                (None, Some(source)) => {
                    source
                        .export(spec, staged.clone(), to.format, progress, cx.cancel.clone())
                        .await
                }
                (None, None) => return Err(reason),
            };
            match event {
                ExportEvent::Done { records, .. } => {
                    let path = tokio::task::spawn_blocking(move || target.place(&staged))
                        .await
                        .map_err(|e| format!("Export failed: {e}"))??;
                    Ok(JobOutput::Exported {
                        records,
                        missing: 0,
                        path,
                    })
                }
                // The job names the file it wrote: the user knows the target's name.
                ExportEvent::Failed(e) => Err(e.replace(
                    &staged.display().to_string(),
                    &target.path.display().to_string(),
                )),
                // Reported as cancelled by the runner (the cancel fired).
                ExportEvent::Cancelled | ExportEvent::Progress { .. } => {
                    Err("Export cancelled; no file was kept".into())
                }
            }
        })
    }
}
