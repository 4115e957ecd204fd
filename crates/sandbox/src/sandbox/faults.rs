//! Fault rules: what goes wrong, where (method and path, or everywhere) and for how many of the
//! next requests. Set at start, through `SandboxHandle::faults()` or `POST /_sandbox/faults`.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::state::Shared;

/// `Location` of the redirect fault when none is given.
pub const DEFAULT_REDIRECT: &str = "https://login.crm-sandbox.example/session-expired";
/// Size of the huge-body fault when none is given.
pub const HUGE_BODY_BYTES: usize = 10 * 1024 * 1024;

/// What a fault does to a request. JSON: `{"kind": "server_error", "status": 503}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FaultKind {
    /// A 5xx with an HTML body (a proxy's error page).
    ServerError {
        #[serde(default = "default_5xx")]
        status: u16,
    },
    /// 429 with `Retry-After: retry_after_secs`.
    RateLimited {
        #[serde(default = "default_retry_after")]
        retry_after_secs: u64,
    },
    /// The request is handled (a create commits), then the socket closes with no response.
    DropAfterCommit,
    /// The handler's answer with the status and headers intact but the JSON cut in half
    /// (a complete HTTP message whose `Content-Length` matches the short body).
    TruncatedJson,
    /// Headers and the first half of the body, then the connection closes.
    CutMidBody,
    /// 200 with an HTML page instead of JSON; nothing is executed.
    NonJson,
    /// The handler's answer padded with whitespace to `bytes` (valid JSON, 10 MB by default).
    HugeBody {
        #[serde(default = "default_huge")]
        bytes: usize,
    },
    /// Waits `ms` before handling the request normally.
    Latency { ms: u64 },
    /// Makes `changes` changes (as `--churn` does: updates, deletions, new contacts) before
    /// handling the request normally: a sync's reads and the service's changes interleave
    /// without timing.
    Churn { changes: u32 },
    /// Accepts the request and never answers.
    Hang,
    /// A redirect (302 by default) to `location`; nothing is executed.
    Redirect {
        #[serde(default = "default_location")]
        location: String,
        #[serde(default = "default_redirect_status")]
        status: u16,
    },
    /// 401 as if the token had been revoked.
    Unauthorized,
    /// The handler's answer with hostile records (`shape`: escapes, formulas, option_values,
    /// deep (`depth` levels, 100,000 by default), repeated_ids); see `hostile`.
    Hostile {
        shape: super::hostile::HostileShape,
        #[serde(default = "default_depth")]
        depth: usize,
    },
    /// 401 whose message repeats the bearer token the request carried.
    EchoToken,
    /// List pages that never end: page 1's records on every page, which claims to be page 1
    /// and says one more page follows the one asked for.
    EndlessPages,
}

fn default_5xx() -> u16 {
    500
}
fn default_retry_after() -> u64 {
    1
}
fn default_huge() -> usize {
    HUGE_BODY_BYTES
}
fn default_location() -> String {
    DEFAULT_REDIRECT.to_string()
}
fn default_redirect_status() -> u16 {
    302
}
fn default_depth() -> usize {
    super::hostile::DEFAULT_DEPTH
}
fn one() -> u32 {
    1
}

/// A fault and its target. JSON: `{"kind": "hang", "method": "POST", "path": "/contacts",
/// "times": 2}`; `method`/`path` absent = every request; `times` 0 = until cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRule {
    /// Set by the sandbox when the rule is added.
    #[serde(default)]
    pub id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// A path under `/public/v1` (the prefix may be left out); `*` matches one segment:
    /// `/appointments/*/reschedule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// How many of the next matching requests it hits; 0 = every one until cleared.
    #[serde(default = "one")]
    pub times: u32,
    #[serde(flatten)]
    pub kind: FaultKind,
}

impl FaultRule {
    /// `kind` on the next matching request of any route.
    pub fn new(kind: FaultKind) -> FaultRule {
        FaultRule {
            id: 0,
            method: None,
            path: None,
            times: 1,
            kind,
        }
    }

    /// Only requests with this method and path (see `path`).
    pub fn on(mut self, method: &str, path: &str) -> FaultRule {
        self.method = Some(method.to_ascii_uppercase());
        self.path = Some(path.to_string());
        self
    }

    /// Only requests with this method, any path.
    pub fn method(mut self, method: &str) -> FaultRule {
        self.method = Some(method.to_ascii_uppercase());
        self
    }

    /// The next `n` matching requests (0 = all until cleared).
    pub fn times(mut self, n: u32) -> FaultRule {
        self.times = n;
        self
    }

    /// Every matching request until cleared.
    pub fn always(self) -> FaultRule {
        self.times(0)
    }

    fn matches(&self, method: &str, path: &str) -> bool {
        if let Some(m) = &self.method
            && !m.eq_ignore_ascii_case(method)
        {
            return false;
        }
        match &self.path {
            None => true,
            Some(p) => path_matches(p, path),
        }
    }

    /// Checks a rule from outside (JSON or flag) before it is added.
    pub fn check(&self) -> Result<(), String> {
        match &self.kind {
            FaultKind::ServerError { status } if !(500..=599).contains(status) => {
                Err(format!("server_error status must be 500-599, got {status}"))
            }
            FaultKind::Redirect { status, .. } if !(300..=399).contains(status) => {
                Err(format!("redirect status must be 300-399, got {status}"))
            }
            FaultKind::Redirect { location, .. }
                if axum::http::HeaderValue::from_str(location).is_err() =>
            {
                Err("redirect location is not a valid header value".into())
            }
            FaultKind::Hostile { depth, .. } if *depth > 10_000_000 => {
                Err("hostile depth is limited to 10,000,000".into())
            }
            FaultKind::HugeBody { bytes } if *bytes > 512 * 1024 * 1024 => {
                Err("huge_body is limited to 512 MB".into())
            }
            _ => Ok(()),
        }
    }
}

/// `pattern` against a request path; the `/public/v1` prefix is implied when missing.
fn path_matches(pattern: &str, path: &str) -> bool {
    let full;
    let pattern = if pattern.starts_with("/public/") || pattern.starts_with("/_sandbox") {
        pattern
    } else {
        full = format!("/public/v1/{}", pattern.trim_start_matches('/'));
        &full
    };
    let a: Vec<&str> = pattern.trim_end_matches('/').split('/').collect();
    let b: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    a.len() == b.len() && a.iter().zip(&b).all(|(p, s)| *p == "*" || p == s)
}

/// The active rules.
#[derive(Debug, Default)]
pub struct FaultBook {
    rules: Vec<FaultRule>,
    next_id: u64,
}

impl FaultBook {
    pub fn add(&mut self, mut rule: FaultRule) -> u64 {
        self.next_id += 1;
        rule.id = self.next_id;
        self.rules.push(rule);
        self.next_id
    }

    /// The first rule matching this request, counted down (and dropped when used up).
    pub fn take(&mut self, method: &str, path: &str) -> Option<FaultKind> {
        let i = self.rules.iter().position(|r| r.matches(method, path))?;
        let rule = &mut self.rules[i];
        let kind = rule.kind.clone();
        if rule.times == 1 {
            self.rules.remove(i);
        } else if rule.times > 1 {
            rule.times -= 1;
        }
        Some(kind)
    }

    pub fn list(&self) -> Vec<FaultRule> {
        self.rules.clone()
    }

    pub fn remove(&mut self, id: u64) -> bool {
        let before = self.rules.len();
        self.rules.retain(|r| r.id != id);
        before != self.rules.len()
    }

    pub fn clear(&mut self) {
        self.rules.clear();
    }
}

/// The Rust handle on a running sandbox's faults (from `SandboxHandle::faults()`).
#[derive(Clone)]
pub struct Faults {
    pub(super) shared: Arc<Shared>,
}

impl Faults {
    /// Adds a rule; returns its id.
    pub fn add(&self, rule: FaultRule) -> u64 {
        self.shared.faults().add(rule)
    }

    /// Shorthand: `kind` on the next `times` requests to `method path`.
    pub fn inject(&self, method: &str, path: &str, kind: FaultKind, times: u32) -> u64 {
        self.add(FaultRule::new(kind).on(method, path).times(times))
    }

    pub fn list(&self) -> Vec<FaultRule> {
        self.shared.faults().list()
    }

    pub fn remove(&self, id: u64) -> bool {
        self.shared.faults().remove(id)
    }

    pub fn clear(&self) {
        self.shared.faults().clear();
    }
}

impl std::fmt::Debug for Faults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.list()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_from_json_and_count_down() {
        let rule: FaultRule = serde_json::from_str(
            r#"{"kind":"drop_after_commit","method":"post","path":"/contacts","times":2}"#,
        )
        .unwrap();
        assert_eq!(rule.kind, FaultKind::DropAfterCommit);
        let s: FaultRule = serde_json::from_str(r#"{"kind":"server_error"}"#).unwrap();
        assert_eq!(s.kind, FaultKind::ServerError { status: 500 });
        assert_eq!(s.times, 1);
        assert!(serde_json::from_str::<FaultRule>(r#"{"kind":"nope"}"#).is_err());

        let mut book = FaultBook::default();
        book.add(rule);
        assert_eq!(book.take("GET", "/public/v1/contacts"), None);
        assert!(book.take("POST", "/public/v1/contacts").is_some());
        assert!(book.take("POST", "/public/v1/contacts/").is_some());
        assert_eq!(book.take("POST", "/public/v1/contacts"), None);
    }

    #[test]
    fn wildcards_match_one_segment() {
        assert!(path_matches(
            "/appointments/*/reschedule",
            "/public/v1/appointments/apt_000001/reschedule"
        ));
        assert!(!path_matches(
            "/appointments/*",
            "/public/v1/appointments/a/reschedule"
        ));
        assert!(path_matches("/public/v1/deals", "/public/v1/deals"));
    }
}
