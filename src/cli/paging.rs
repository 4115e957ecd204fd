//! `--all`: follow pages until the last one. With `meta`, until `last_page`; without it, until
//! an empty, short or repeated page (a server that ignores `page` sends page 1 again).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::api::{ApiError, ApiRecord, Client, ListQuery, MAX_PER_PAGE, Page, Paging};

/// A guard against a server whose `last_page` never comes: 100 000 pages of 100 records.
const MAX_PAGES: u32 = 100_000;

/// Fetches one page as the user asked, or every page with `all`.
pub async fn fetch<Q: ListQuery>(
    client: &Client,
    query: &Q,
    all: bool,
) -> Result<Vec<Q::Item>, ApiError> {
    if !all {
        return Ok(client.list(query).await?.data);
    }
    let progress = AllProgress::new();
    let result = fetch_all(client, query.clone(), |pages, records, last| {
        progress.update(pages, records, last)
    })
    .await;
    progress.finish();
    result
}

/// Every page, concatenated. `on_page(pages_fetched, records_so_far, last_page)` after each page.
pub async fn fetch_all<Q: ListQuery>(
    client: &Client,
    mut query: Q,
    mut on_page: impl FnMut(u32, usize, Option<u64>),
) -> Result<Vec<Q::Item>, ApiError> {
    let mut out: Vec<Q::Item> = Vec::new();
    let mut previous_ids: Option<Vec<String>> = None;
    let mut page_no: u32 = 1;
    loop {
        query.set_paging(Paging {
            page: Some(page_no),
            per_page: Some(MAX_PER_PAGE),
        });
        let page = client.list(&query).await?;
        let ids = page_ids(&page);
        if page.data.is_empty() || previous_ids.as_ref() == Some(&ids) {
            break;
        }
        let len = page.data.len();
        let last_page = page.meta.and_then(|m| m.last_page);
        let current = page
            .meta
            .and_then(|m| m.current_page)
            .unwrap_or(page_no as u64);
        out.extend(page.data);
        on_page(page_no, out.len(), last_page);
        let done = match last_page {
            Some(last) => current >= last,
            None => len < MAX_PER_PAGE as usize,
        };
        if done || page_no >= MAX_PAGES {
            break;
        }
        previous_ids = Some(ids);
        page_no += 1;
    }
    Ok(out)
}

fn page_ids<T: ApiRecord>(page: &Page<T>) -> Vec<String> {
    page.data.iter().map(|r| r.id().to_string()).collect()
}

/// A progress line on stderr, only when stderr is a terminal (scripts see nothing).
struct AllProgress(Option<ProgressBar>);

impl AllProgress {
    fn new() -> Self {
        if !std::io::stderr().is_terminal() {
            return AllProgress(None);
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message("fetching page 1...");
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        AllProgress(Some(bar))
    }

    fn update(&self, pages: u32, records: usize, last: Option<u64>) {
        if let Some(bar) = &self.0 {
            let of = last.map(|l| format!(" of {l}")).unwrap_or_default();
            bar.set_message(format!("fetched page {pages}{of} ({records} records)"));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
