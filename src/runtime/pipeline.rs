//! The pipeline and timeline views' reading: every page of the tab's query (`per_page` 100,
//! oldest first), added to an `insights::pipeline` summary as it arrives (or, for the
//! timeline, kept as rows), with a progress message per page. Running as a task of its own,
//! the loop never waits on it; aborting the task (`Effect::Cancel`) stops it between pages.
//!
//! The pages come from the local mirror when it holds a complete copy of the resource (a
//! full sync finished, none under way): no request, no page cap, and the figures say when
//! the copy was synced. Otherwise, or when the user asks for the service (`r`), they come
//! from the `DataSource`, capped at `max_pages`.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc::UnboundedSender;

use super::mirror::MirrorReader;
use super::source::DataSource;
use crate::api::{ApiRecord, Deal, MAX_PER_PAGE, SortDirection};
use crate::app::message::{CollectEvent, SummaryEvent};
use crate::app::table::record::{FetchedPage, Record};
use crate::app::{Message, QuerySpec, RequestId};
use crate::insights::pipeline::{Coverage, PageStep, PageWalk, PipelineSummary, SummaryOptions};

/// Where a reading's pages come from.
pub(super) struct Pages {
    /// The service (`None`: not logged in, `reason` says why).
    pub source: Option<Arc<dyn DataSource>>,
    pub reason: String,
    /// The mirror, when it may answer (not when the user asked for the service).
    pub mirror: Option<MirrorReader>,
}

/// The chosen reader: the mirror's complete copy (synced then) or the service.
pub(super) enum Reader {
    Mirror(MirrorReader, DateTime<Utc>),
    Service(Arc<dyn DataSource>),
}

impl Pages {
    /// The mirror when its copy of the resource is complete, else the service.
    pub(super) async fn reader(self, spec: &QuerySpec) -> Result<Reader, String> {
        if let Some(m) = self.mirror {
            let kind = spec.kind;
            if let Ok(Some(at)) = m.run(move |r| r.complete_since(kind)).await {
                return Ok(Reader::Mirror(m, at));
            }
        }
        self.source.map(Reader::Service).ok_or(self.reason)
    }
}

impl Reader {
    pub(super) async fn page(&self, spec: QuerySpec) -> Result<FetchedPage, String> {
        match self {
            Reader::Service(s) => s.fetch(spec).await.map_err(|e| e.summary()),
            Reader::Mirror(m, _) => m
                .run(move |r| r.page(&spec))
                .await?
                .ok_or_else(|| "the local mirror is gone".to_string()),
        }
    }

    fn synced_at(&self) -> Option<DateTime<Utc>> {
        match self {
            Reader::Mirror(_, at) => Some(*at),
            Reader::Service(_) => None,
        }
    }
}

/// Reads the pages and sends `Progress` after each, then `Done` or `Failed`.
pub(super) async fn summarize(
    pages: Pages,
    id: RequestId,
    spec: QuerySpec,
    opts: SummaryOptions,
    max_pages: u32,
    tx: UnboundedSender<Message>,
) {
    let send = |event| {
        let _ = tx.send(Message::Summary { id, event });
    };
    // No relations: the totals need none.
    let spec = QuerySpec {
        includes: Vec::new(),
        ..spec
    };
    let mut summary = PipelineSummary::new(&opts);
    let read = walk(pages, spec, max_pages, |page_no, last, records| {
        for r in records {
            let deal = serde_json::value::RawValue::from_string(r.raw.to_string())
                .map_err(|e| e.to_string())
                .and_then(|raw| Deal::from_raw(raw).map_err(|e| e.to_string()))
                .map_err(|e| format!("deal {} cannot be read: {e}", r.id))?;
            summary.add(&deal, &opts);
        }
        send(SummaryEvent::Progress {
            pages: page_no,
            last_page: last,
            deals: summary.deals,
        });
        Ok(())
    })
    .await;
    send(match read {
        Ok(coverage) => SummaryEvent::Done(Arc::new((summary, coverage))),
        Err(e) => SummaryEvent::Failed(e),
    });
}

/// Reads every page of the timeline's projects query (with the tab's relations, for the
/// detail pane) and sends `Progress` after each page, then `Done` or `Failed`.
pub(super) async fn collect(
    pages: Pages,
    id: RequestId,
    spec: QuerySpec,
    max_pages: u32,
    tx: UnboundedSender<Message>,
) {
    let send = |event| {
        let _ = tx.send(Message::Collected { id, event });
    };
    let mut all: Vec<Record> = Vec::new();
    let read = walk(pages, spec, max_pages, |pages, last_page, records| {
        all.extend_from_slice(records);
        send(CollectEvent::Progress {
            pages,
            last_page,
            records: all.len() as u64,
        });
        Ok(())
    })
    .await;
    send(match read {
        Ok(coverage) => CollectEvent::Done(Arc::new((all, coverage))),
        Err(e) => CollectEvent::Failed(e),
    });
}

/// Every page of `spec` in a stable order (created_at ascending, `per_page` 100, so pages do
/// not shift while read), handed to `take` with the page number and the last page, up to
/// `max_pages` from the service (the mirror's complete copy has no cap).
pub(super) async fn walk(
    pages: Pages,
    spec: QuerySpec,
    max_pages: u32,
    mut take: impl FnMut(u32, Option<u64>, &[Record]) -> Result<(), String>,
) -> Result<Coverage, String> {
    let base = QuerySpec {
        sort_by: "created_at",
        direction: SortDirection::Asc,
        per_page: MAX_PER_PAGE,
        ..spec
    };
    let reader = pages.reader(&base).await?;
    let synced_at = reader.synced_at();
    let cap = if synced_at.is_some() {
        u32::MAX
    } else {
        max_pages
    };
    let mut walk = PageWalk::new(cap);
    loop {
        let page_no = walk.next_page();
        let page = reader.page(base.at_page(page_no)).await?;
        let first = page.records.first().map(|r| r.id.as_str());
        let PageStep::Take { more } = walk.page(first, page.records.len(), page.meta) else {
            break;
        };
        take(page_no, page.meta.and_then(|m| m.last_page), &page.records)?;
        if !more {
            break;
        }
    }
    Ok(Coverage {
        synced_at,
        ..walk.coverage
    })
}
