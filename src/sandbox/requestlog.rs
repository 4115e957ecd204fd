//! The request log: every API request the sandbox received (method, path, query, idempotency
//! key, body; never the token), for tests to inspect.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// One received request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// The raw query string, without `?`.
    pub query: Option<String>,
    pub idempotency_key: Option<String>,
    /// The body as text (lossy UTF-8), when there was one.
    pub body: Option<String>,
}

/// Oldest entries are dropped past this, so a long perf run cannot exhaust memory.
pub const LOG_CAPACITY: usize = 50_000;

#[derive(Debug, Default)]
pub struct RequestLog {
    entries: VecDeque<RecordedRequest>,
}

impl RequestLog {
    pub fn push(&mut self, r: RecordedRequest) {
        if self.entries.len() >= LOG_CAPACITY {
            self.entries.pop_front();
        }
        self.entries.push_back(r);
    }

    pub fn snapshot(&self) -> Vec<RecordedRequest> {
        self.entries.iter().cloned().collect()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}
