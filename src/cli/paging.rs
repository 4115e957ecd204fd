//! `--all`: follow pages until the last one. With `meta`, until `last_page`; without it, until
//! an empty, short or repeated page (a server that ignores `page` sends page 1 again).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::api::{
    ApiError, ApiRecord, Client, ErrorKind, ListQuery, MAX_PER_PAGE, Meta, Page, Paging,
};

/// A guard against a server whose `last_page` never comes: 100 000 pages of 100 records.
const MAX_PAGES: u32 = 100_000;

/// Where a page's walk stands, for the progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub pages: u32,
    pub records: usize,
    pub last_page: Option<u64>,
}

/// Fetches one page as the user asked, or every page with `all`, handing each page to
/// `on_page` as it arrives (nothing is kept once it returns). An error from `on_page` (a
/// closed pipe, a full disk) stops the walk at once: no further page is asked for. For one
/// page, returns where it stands in the list (see [`partial_note`]); `None` with `all`.
pub async fn each_page<Q, E>(
    client: &Client,
    query: &Q,
    all: bool,
    mut on_page: impl FnMut(Vec<Q::Item>) -> Result<(), E>,
) -> Result<Option<OnePage>, E>
where
    Q: ListQuery,
    E: From<ApiError>,
{
    if !all {
        let page = client.list(query).await?;
        let one = OnePage {
            asked: query.paging(),
            shown: page.data.len(),
            meta: page.meta,
        };
        on_page(page.data)?;
        return Ok(Some(one));
    }
    let progress = AllProgress::new();
    let result = walk(client, query.clone(), |records, p| {
        progress.update(p);
        on_page(records)
    })
    .await;
    progress.finish();
    result.map(|()| None)
}

/// One page as fetched: what was asked, how many records came, the server's `meta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnePage {
    pub asked: Paging,
    pub shown: usize,
    pub meta: Option<Meta>,
}

/// What a terminal user is told on stderr about one page of a longer list:
/// `25 of 500 deals (page 1/20); --all for every page`, or, for a page past the end,
/// `page 99 is past the end: 500 deals make 20 pages of 25 (--page 1 to 20)`. `None` when
/// the page holds the whole list, or the server does not say how long the list is and the
/// page is not full.
pub fn partial_note(noun: &str, one: &OnePage) -> Option<String> {
    let page = u64::from(one.asked.page.unwrap_or(1));
    let meta = one.meta.unwrap_or_default();
    let per = meta
        .per_page
        .or(one.asked.per_page.map(u64::from))
        .filter(|p| *p > 0);
    match (meta.total, meta.last_page) {
        (Some(total), last) => {
            let last = last.or_else(|| per.map(|p| total.div_ceil(p)));
            if one.shown == 0 && total > 0 {
                let pages = match (last, per) {
                    (Some(l), Some(p)) => {
                        let s = if l == 1 { "" } else { "s" };
                        format!(" make {l} page{s} of {p} (--page 1 to {l})")
                    }
                    _ => String::new(),
                };
                return Some(format!(
                    "page {page} is past the end: {total} {noun}{pages}"
                ));
            }
            if one.shown as u64 >= total {
                return None;
            }
            let of = last.map(|l| format!("/{l}")).unwrap_or_default();
            Some(format!(
                "{} of {total} {noun} (page {page}{of}); --all for every page",
                one.shown
            ))
        }
        (None, Some(last)) if one.shown == 0 && page > last => Some(format!(
            "page {page} is past the end: the last page is {last}"
        )),
        (None, Some(last)) if last > 1 => Some(format!(
            "{} {noun} on page {page}/{last}; --all for every page",
            one.shown
        )),
        (None, _) => {
            let full = per.is_some_and(|p| one.shown as u64 >= p) && one.shown > 0;
            if one.shown == 0 && page > 1 {
                Some(format!("page {page} is empty: past the end of the list"))
            } else if full {
                Some(format!(
                    "{} {noun} on page {page}; more may follow: --all for every page",
                    one.shown
                ))
            } else {
                None
            }
        }
    }
}

/// Every page, concatenated (for callers that need the whole list at once).
pub async fn fetch_all<Q: ListQuery>(
    client: &Client,
    query: Q,
    mut on_page: impl FnMut(u32, usize, Option<u64>),
) -> Result<Vec<Q::Item>, ApiError> {
    let mut out: Vec<Q::Item> = Vec::new();
    walk(client, query, |records, p: Progress| {
        out.extend(records);
        on_page(p.pages, p.records, p.last_page);
        Ok::<(), ApiError>(())
    })
    .await?;
    Ok(out)
}

/// Walks the pages with `per_page=100`: with `meta` until `last_page`, without it until an
/// empty, short or repeated page.
async fn walk<Q, E>(
    client: &Client,
    mut query: Q,
    mut on_page: impl FnMut(Vec<Q::Item>, Progress) -> Result<(), E>,
) -> Result<(), E>
where
    Q: ListQuery,
    E: From<ApiError>,
{
    let mut previous_ids: Option<Vec<String>> = None;
    let mut page_no: u32 = 1;
    let mut records = 0usize;
    loop {
        query.set_paging(Paging {
            page: Some(page_no),
            per_page: Some(MAX_PER_PAGE),
        });
        let page = client.list(&query).await?;
        let ids = page_ids(&page);
        if page.data.is_empty() {
            break;
        }
        if previous_ids.as_ref() == Some(&ids) {
            // Everything at once (a page longer than asked for, sent again) is the whole list;
            // a full page sent again, or one whose `meta` says more follow, is a service that
            // ignores `page`: what was read is not the whole list, and that is said.
            let more = page
                .meta
                .and_then(|m| Some(m.current_page? < m.last_page?))
                .unwrap_or(ids.len() == MAX_PER_PAGE as usize);
            if more {
                return Err(ApiError::new(
                    ErrorKind::BadResponse,
                    format!(
                        "the service sent page {} again instead of page {page_no}: it ignores `page`, so the list is incomplete ({records} records read)",
                        page_no - 1
                    ),
                )
                .into());
            }
            break;
        }
        let len = page.data.len();
        let last_page = page.meta.and_then(|m| m.last_page);
        let current = page
            .meta
            .and_then(|m| m.current_page)
            .unwrap_or(page_no as u64);
        records += len;
        on_page(
            page.data,
            Progress {
                pages: page_no,
                records,
                last_page,
            },
        )?;
        let done = match last_page {
            Some(last) => current >= last,
            None => len < MAX_PER_PAGE as usize,
        };
        if done {
            break;
        }
        if page_no >= MAX_PAGES {
            return Err(ApiError::new(
                ErrorKind::BadResponse,
                format!(
                    "the list goes on past {MAX_PAGES} pages ({records} records read): stopped; narrow it with a filter"
                ),
            )
            .into());
        }
        previous_ids = Some(ids);
        page_no += 1;
    }
    Ok(())
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

    fn update(&self, p: Progress) {
        if let Some(bar) = &self.0 {
            let of = p.last_page.map(|l| format!(" of {l}")).unwrap_or_default();
            bar.set_message(format!(
                "fetched page {}{of} ({} records)",
                p.pages, p.records
            ));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::Router;
    use axum::extract::{Query, State};
    use axum::routing::get;
    use secrecy::SecretString;

    use super::*;
    use crate::api::DealQuery;

    /// A server without `meta`: bare arrays of `total` deals, or (with `ignore_page`) page 1
    /// whatever was asked. Returns the client and the request counter.
    async fn bare_server(total: usize, ignore_page: bool) -> (Client, Arc<AtomicUsize>) {
        #[derive(serde::Deserialize)]
        struct P {
            page: Option<usize>,
            per_page: Option<usize>,
        }
        let hits = Arc::new(AtomicUsize::new(0));
        let state = (hits.clone(), total, ignore_page);
        let app = Router::new()
            .route(
                "/public/v1/deals",
                get(
                    |State((hits, total, ignore)): State<(Arc<AtomicUsize>, usize, bool)>,
                     Query(p): Query<P>| async move {
                        hits.fetch_add(1, Ordering::SeqCst);
                        let per = p.per_page.unwrap_or(25);
                        let page = if ignore { 1 } else { p.page.unwrap_or(1) };
                        let items: Vec<serde_json::Value> = ((page - 1) * per
                            ..(page * per).min(total))
                            .map(|i| serde_json::json!({"id": format!("d{i}")}))
                            .collect();
                        axum::Json(items)
                    },
                ),
            )
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let client = Client::new(&format!("http://{addr}"), SecretString::from("t")).unwrap();
        (client, hits)
    }

    async fn all(total: usize, ignore_page: bool) -> (usize, usize) {
        let (client, hits) = bare_server(total, ignore_page).await;
        let got = fetch_all(&client, DealQuery::default(), |_, _, _| {})
            .await
            .unwrap();
        (got.len(), hits.load(Ordering::SeqCst))
    }

    fn one(page: Option<u32>, per: Option<u32>, shown: usize, meta: Option<Meta>) -> OnePage {
        OnePage {
            asked: Paging {
                page,
                per_page: per,
            },
            shown,
            meta,
        }
    }

    fn meta(current: u64, last: u64, per: u64, total: u64) -> Option<Meta> {
        Some(Meta {
            current_page: Some(current),
            last_page: Some(last),
            per_page: Some(per),
            total: Some(total),
        })
    }

    /// Issue 27: `deals list` printed 25 of 500 without a word, and `--page 99` a header.
    #[test]
    fn a_page_of_a_longer_list_says_so_and_a_page_past_the_end_too() {
        assert_eq!(
            partial_note("deals", &one(None, None, 25, meta(1, 20, 25, 500))).as_deref(),
            Some("25 of 500 deals (page 1/20); --all for every page")
        );
        assert_eq!(
            partial_note("deals", &one(Some(99), None, 0, meta(99, 20, 25, 500))).as_deref(),
            Some("page 99 is past the end: 500 deals make 20 pages of 25 (--page 1 to 20)")
        );
        assert_eq!(
            partial_note("contacts", &one(Some(2), Some(3), 0, meta(2, 1, 3, 2))).as_deref(),
            Some("page 2 is past the end: 2 contacts make 1 page of 3 (--page 1 to 1)")
        );
        // The whole list on one page, or nothing matched: nothing to say.
        assert_eq!(
            partial_note("deals", &one(None, None, 7, meta(1, 1, 25, 7))),
            None
        );
        assert_eq!(
            partial_note("deals", &one(None, None, 0, meta(1, 1, 25, 0))),
            None
        );
        // Without meta: a full page may have more after it; an empty later page is the end.
        assert_eq!(
            partial_note("deals", &one(None, Some(25), 25, None)).as_deref(),
            Some("25 deals on page 1; more may follow: --all for every page")
        );
        assert_eq!(
            partial_note("deals", &one(Some(5), Some(25), 0, None)).as_deref(),
            Some("page 5 is empty: past the end of the list")
        );
        assert_eq!(partial_note("deals", &one(None, Some(25), 3, None)), None);
    }

    #[tokio::test]
    async fn without_meta_a_short_page_ends_the_walk() {
        assert_eq!(all(250, false).await, (250, 3));
    }

    #[tokio::test]
    async fn without_meta_an_empty_page_ends_the_walk() {
        assert_eq!(all(200, false).await, (200, 3));
        assert_eq!(all(0, false).await, (0, 1));
    }

    /// A service that ignores `page` sends its first full page again: what was read is not the
    /// whole list, and the walk says so instead of ending as if it were (it used to, exit 0).
    #[tokio::test]
    async fn a_full_page_sent_again_is_an_incomplete_list_and_an_error() {
        let (client, hits) = bare_server(500, true).await;
        let err = fetch_all(&client, DealQuery::default(), |_, _, _| {})
            .await
            .unwrap_err();
        assert!(
            err.message
                .contains("sent page 1 again instead of page 2: it ignores `page`, so the list is incomplete (100 records read)"),
            "{}",
            err.message
        );
        assert_eq!(hits.load(Ordering::SeqCst), 2);
        // Fewer than a page: the whole list, read once.
        assert_eq!(all(60, true).await, (60, 1));
    }
}
