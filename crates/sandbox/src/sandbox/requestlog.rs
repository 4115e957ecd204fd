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
    bearers: Bearers,
}

/// The distinct bearer tokens received, kept apart from the log (which never holds a token)
/// and answered only by `contains`: tests prove a token never reached the wrong host.
#[derive(Default)]
struct Bearers(std::collections::HashSet<String>);

impl std::fmt::Debug for Bearers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bearers({} distinct, redacted)", self.0.len())
    }
}

impl RequestLog {
    pub fn push(&mut self, r: RecordedRequest) {
        if self.entries.len() >= LOG_CAPACITY {
            self.entries.pop_front();
        }
        self.entries.push_back(r);
    }

    /// Notes the bearer token a request came with (at most 1000 distinct ones).
    pub fn note_bearer(&mut self, token: &str) {
        if self.bearers.0.len() < 1000 {
            self.bearers.0.insert(token.to_string());
        }
    }

    /// Whether any request came with this bearer token.
    pub fn received_bearer(&self, token: &str) -> bool {
        self.bearers.0.contains(token)
    }

    pub fn snapshot(&self) -> Vec<RecordedRequest> {
        self.entries.iter().cloned().collect()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}
