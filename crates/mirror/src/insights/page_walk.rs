//! Reading a query page by page (pages of `MAX_PER_PAGE`) up to a cap: which page comes
//! next, whether a page counts, and how much was read. A server that ignores `page` sends
//! page 1 again; the walk stops there instead of counting the same deals twice.

/// How much of the matching deals was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub pages: u32,
    /// The server's total, when it sends one.
    pub total: Option<u64>,
    /// The cap stopped the reading before the last page.
    pub partial: bool,
    /// Read from the local mirror's complete copy, synced then (`None`: from the service).
    pub synced_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// A page-by-page reading of a query (pages of `MAX_PER_PAGE`), shared by `deals summary`
/// and the dashboard's pipeline view: which page comes next, whether a page counts, and
/// whether another follows, up to `max_pages` (past which the figures are partial).
#[derive(Debug, Clone)]
pub struct PageWalk {
    pub coverage: Coverage,
    max_pages: u32,
    previous_first: Option<String>,
}

/// What to do with a page just read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageStep {
    /// Empty, or page 1 again (a server that ignores `page`): stop without counting it.
    Stop,
    /// Count its records; `more` says whether to read the next page.
    Take { more: bool },
}

impl PageWalk {
    pub fn new(max_pages: u32) -> PageWalk {
        PageWalk {
            coverage: Coverage::default(),
            max_pages,
            previous_first: None,
        }
    }

    /// The page to read next (from 1).
    pub fn next_page(&self) -> u32 {
        self.coverage.pages + 1
    }

    /// Records the page just read: its first record's id, its length and its `meta`.
    pub fn page(
        &mut self,
        first: Option<&str>,
        len: usize,
        meta: Option<crate::api::Meta>,
    ) -> PageStep {
        let page_no = self.next_page();
        let first = first.map(str::to_string);
        if len == 0 || (page_no > 1 && first == self.previous_first) {
            return PageStep::Stop;
        }
        self.coverage.pages = page_no;
        self.coverage.total = meta.and_then(|m| m.total).or(self.coverage.total);
        let done = match meta.and_then(|m| m.last_page) {
            Some(last) => u64::from(page_no) >= last,
            None => len < crate::api::MAX_PER_PAGE as usize,
        };
        if done {
            return PageStep::Take { more: false };
        }
        if page_no >= self.max_pages {
            self.coverage.partial = true;
            return PageStep::Take { more: false };
        }
        self.previous_first = first;
        PageStep::Take { more: true }
    }
}
