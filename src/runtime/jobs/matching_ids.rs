//! `*` and `:select`: the ids of every record a query matches. From the mirror's complete
//! copy, one query of ids (no record is read); else every page from the service, with the
//! pages counted as they come.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::{JobCx, Work};
use crate::api::MAX_PER_PAGE;
use crate::app::QuerySpec;
use crate::app::jobs::JobOutput;
use crate::app::selection::IdBatch;
use crate::runtime::pipeline::{Pages, Reader, walk};

pub(super) struct MatchingIds {
    pub spec: QuerySpec,
}

impl Work for MatchingIds {
    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>> {
        Box::pin(async move {
            let spec = QuerySpec {
                includes: Vec::new(),
                page: 1,
                per_page: MAX_PER_PAGE,
                ..self.spec
            };
            let noun = spec.kind.noun();
            let Pages {
                source,
                reason,
                mirror,
            } = cx.pages;
            if let Some(m) = mirror {
                let pages = Pages {
                    source: None,
                    reason: String::new(),
                    mirror: Some(m),
                };
                if let Ok(Reader::Mirror(m, _)) = pages.reader(&spec).await {
                    let s = spec.clone();
                    if let Some(batch) = m.run(move |r| r.matching_ids(&s)).await? {
                        let n = batch.len() as u64;
                        cx.progress.report(n, Some(n), noun);
                        return Ok(JobOutput::Ids(Arc::new(batch)));
                    }
                }
            }
            let pages = Pages {
                source,
                reason,
                mirror: None,
            };
            let mut batch = IdBatch::default();
            let progress = cx.progress.clone();
            walk(pages, spec, u32::MAX, |page, last, records| {
                for r in records {
                    batch.push(&r.id);
                }
                progress.report(u64::from(page), last, "pages");
                Ok(())
            })
            .await?;
            Ok(JobOutput::Ids(Arc::new(batch.finish())))
        })
    }
}
