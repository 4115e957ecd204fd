//! The pipeline and timeline views' reading: every page of the tab's query (`per_page` 100, oldest
//! first) through the `DataSource`, added to an `insights::pipeline` summary as it arrives,
//! (or, for the timeline, kept as rows), with a progress message per page. Running as a task of its own, the loop never waits on it;
//! aborting the task (`Effect::Cancel`) stops it between two requests.
//!
//! It asks the `DataSource`, not the client: the local mirror, once it exists, answers the
//! same pages from disk without a change here.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::source::DataSource;
use crate::api::{ApiRecord, Deal, MAX_PER_PAGE, SortDirection};
use crate::app::message::{CollectEvent, SummaryEvent};
use crate::app::table::record::Record;
use crate::app::{Message, QuerySpec, RequestId};
use crate::insights::pipeline::{Coverage, PageStep, PageWalk, PipelineSummary, SummaryOptions};

/// Reads the pages and sends `Progress` after each, then `Done` or `Failed`.
pub(super) async fn summarize(
    source: Arc<dyn DataSource>,
    id: RequestId,
    spec: QuerySpec,
    opts: SummaryOptions,
    max_pages: u32,
    tx: UnboundedSender<Message>,
) {
    let send = |event| {
        let _ = tx.send(Message::Summary { id, event });
    };
    let event = match read(
        source.as_ref(),
        spec,
        &opts,
        max_pages,
        |pages, last, deals| {
            send(SummaryEvent::Progress {
                pages,
                last_page: last,
                deals,
            })
        },
    )
    .await
    {
        Ok(done) => SummaryEvent::Done(Arc::new(done)),
        Err(e) => SummaryEvent::Failed(e),
    };
    send(event);
}

/// The page loop (`PageWalk`, as `deals summary` reads): stable order (created_at ascending)
/// so pages do not shift while read, and no relations (the totals need none).
async fn read(
    source: &dyn DataSource,
    spec: QuerySpec,
    opts: &SummaryOptions,
    max_pages: u32,
    mut on_page: impl FnMut(u32, Option<u64>, u64),
) -> Result<(PipelineSummary, Coverage), String> {
    let base = QuerySpec {
        includes: Vec::new(),
        ..spec
    };
    let mut summary = PipelineSummary::new(opts);
    let coverage = walk(source, base, max_pages, |page_no, last, records| {
        for r in records {
            let deal = serde_json::value::RawValue::from_string(r.raw.to_string())
                .map_err(|e| e.to_string())
                .and_then(|raw| Deal::from_raw(raw).map_err(|e| e.to_string()))
                .map_err(|e| format!("deal {} cannot be read: {e}", r.id))?;
            summary.add(&deal, opts);
        }
        on_page(page_no, last, summary.deals);
        Ok(())
    })
    .await?;
    Ok((summary, coverage))
}

/// Reads every page of the timeline's projects query (with the tab's relations, for the
/// detail pane) and sends `Progress` after each page, then `Done` or `Failed`.
pub(super) async fn collect(
    source: Arc<dyn DataSource>,
    id: RequestId,
    spec: QuerySpec,
    max_pages: u32,
    tx: UnboundedSender<Message>,
) {
    let send = |event| {
        let _ = tx.send(Message::Collected { id, event });
    };
    let mut all: Vec<Record> = Vec::new();
    let event = match walk(
        source.as_ref(),
        spec,
        max_pages,
        |pages, last_page, records| {
            all.extend_from_slice(records);
            send(CollectEvent::Progress {
                pages,
                last_page,
                records: all.len() as u64,
            });
            Ok(())
        },
    )
    .await
    {
        Ok(coverage) => CollectEvent::Done(Arc::new((std::mem::take(&mut all), coverage))),
        Err(e) => CollectEvent::Failed(e),
    };
    send(event);
}

/// Every page of `spec` in a stable order (created_at ascending, `per_page` 100, so pages do
/// not shift while read), handed to `take` with the page number and the server's last page,
/// up to `max_pages`.
async fn walk(
    source: &dyn DataSource,
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
    let mut walk = PageWalk::new(max_pages);
    loop {
        let page_no = walk.next_page();
        let page = source
            .fetch(base.at_page(page_no))
            .await
            .map_err(|e| e.summary())?;
        let first = page.records.first().map(|r| r.id.as_str());
        let PageStep::Take { more } = walk.page(first, page.records.len(), page.meta) else {
            break;
        };
        take(page_no, page.meta.and_then(|m| m.last_page), &page.records)?;
        if !more {
            break;
        }
    }
    Ok(walk.coverage)
}
