//! `ApiError`: what went wrong with a request, in words a user can act on, plus the
//! machine-readable parts (status, field errors, Retry-After) callers need.

use std::collections::BTreeMap;
use std::time::Duration;

/// The class of a failure; decides retries, exit codes and the advice shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Refused before any request was sent (bad paging, bad URL, plain http to a remote host).
    InvalidRequest,
    /// 401: the token was rejected.
    Unauthorized,
    /// 403: the token may not do this.
    Forbidden,
    /// 404.
    NotFound,
    /// 400 / 422: the server rejected the input (field errors when given).
    Validation,
    /// 409: e.g. an Idempotency-Key reused with another body, or still in flight.
    Conflict,
    /// 429 after retries.
    RateLimited,
    /// 5xx after retries.
    Server,
    /// A 3xx: redirects are never followed (the token must not travel elsewhere).
    Redirect,
    /// Could not connect, or the connection broke.
    Network,
    /// No answer in time.
    Timeout,
    /// A 2xx whose body could not be decoded (or was too large).
    BadResponse,
    /// Any other status.
    Other,
    /// Not sent: the write journal could not record the write's intent first (no data
    /// directory, a full disk, no permission). Every further write would fail the same way.
    NotJournaled,
}

impl ErrorKind {
    /// Whether a row (of a plan, an import) that failed with this was refused for what it
    /// holds: it needs a fix, not a re-run (exit 5, "rejected input"). The service's 400, 409
    /// and 422, a 404 (the row names a record that is not there), and a request refused before
    /// sending. The token refused (401, 403), the service or the network failing are not the
    /// row's fault: a re-run may get through.
    pub fn is_rejection(self) -> bool {
        matches!(
            self,
            ErrorKind::Validation
                | ErrorKind::Conflict
                | ErrorKind::NotFound
                | ErrorKind::InvalidRequest
        )
    }
}

/// A failed API operation.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", self.summary())]
pub struct ApiError {
    pub kind: ErrorKind,
    /// HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// The best human message found (body message, or the status text, or the transport error).
    pub message: String,
    /// Field errors (`{errors: {field: [..]}}`), field name -> messages.
    pub field_errors: BTreeMap<String, Vec<String>>,
    /// `Retry-After`, when the server gave one.
    pub retry_after: Option<Duration>,
    /// `Location` of a 3xx.
    pub location: Option<String>,
    /// True when the request may have reached the server and its outcome is unknown
    /// (timeout or connection dropped after sending): retry with the same Idempotency-Key.
    pub outcome_unknown: bool,
    /// How many attempts were made (1 = no retry).
    pub attempts: u32,
    /// The response as received, when one arrived (`crmdash api` prints it).
    pub answer: Option<std::sync::Arc<super::raw::Answer>>,
}

impl ApiError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            status: None,
            message: message.into(),
            field_errors: BTreeMap::new(),
            retry_after: None,
            location: None,
            outcome_unknown: false,
            attempts: 0,
            answer: None,
        }
    }

    /// A request refused before sending, naming the offending field.
    pub fn invalid_request(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        let mut e = ApiError::new(ErrorKind::InvalidRequest, message.clone());
        e.field_errors.insert(field.to_string(), vec![message]);
        e
    }

    /// One line: what happened and, where there is one, what to do about it.
    pub fn summary(&self) -> String {
        let line = one_line(&self.headline());
        if self.outcome_unknown {
            format!(
                "{line} - it may have been applied: retry with the same Idempotency-Key, or check before repeating"
            )
        } else {
            line
        }
    }

    fn headline(&self) -> String {
        let status = self.status.map(|s| format!(" ({s})")).unwrap_or_default();
        let msg = self.message.trim();
        match self.kind {
            ErrorKind::InvalidRequest => msg.to_string(),
            ErrorKind::Unauthorized => format!(
                "Unauthorized{status}: the token was rejected - run `crmdash login` ({msg})"
            ),
            ErrorKind::Forbidden => format!("Forbidden{status}: the token may not do this ({msg})"),
            ErrorKind::NotFound => format!("Not found{status}: {msg}"),
            ErrorKind::Validation => format!("Rejected{status}: {msg}"),
            ErrorKind::Conflict => format!("Conflict{status}: {msg}"),
            ErrorKind::RateLimited => match self.retry_after {
                Some(d) => format!(
                    "Rate limited{status}: the service asks to wait {}s ({msg})",
                    d.as_secs()
                ),
                None => format!("Rate limited{status}: {msg}"),
            },
            ErrorKind::Server => format!("Server error{status}: {msg}"),
            ErrorKind::Redirect => format!(
                "Redirected{status} to {} - not followed; check the base URL",
                self.location.as_deref().unwrap_or("an unnamed location")
            ),
            ErrorKind::Network => format!("Network error: {msg}"),
            ErrorKind::Timeout => format!("Timed out: {msg}"),
            ErrorKind::BadResponse => format!("Bad response{status}: {msg}"),
            ErrorKind::Other => format!("HTTP error{status}: {msg}"),
            ErrorKind::NotJournaled => format!("Not sent: {msg}"),
        }
    }

    /// Whether the same request may be sent again safely for a read.
    pub fn is_transient(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Network | ErrorKind::Timeout | ErrorKind::RateLimited | ErrorKind::Server
        )
    }
}

/// Builds the error for a non-2xx response from whatever body shape the server chose:
/// `{message}`, `{message, errors: {field: [..]}}`, `{error: "..."}`, `{error: {message}}`,
/// problem+json `title`/`detail`, HTML or empty (then the status text).
pub fn from_response(
    status: reqwest::StatusCode,
    headers: &reqwest::header::HeaderMap,
    body: &[u8],
) -> ApiError {
    let code = status.as_u16();
    let kind = match code {
        300..=399 => ErrorKind::Redirect,
        400 | 422 => ErrorKind::Validation,
        401 => ErrorKind::Unauthorized,
        403 => ErrorKind::Forbidden,
        404 => ErrorKind::NotFound,
        409 => ErrorKind::Conflict,
        429 => ErrorKind::RateLimited,
        500..=599 => ErrorKind::Server,
        _ => ErrorKind::Other,
    };
    let (message, field_errors) = parse_error_body(body);
    let status_text = status.canonical_reason().unwrap_or("error").to_string();
    let message = message
        .or_else(|| plain_text_message(body))
        .unwrap_or(status_text);
    let mut err = ApiError::new(kind, message);
    err.status = Some(code);
    err.field_errors = field_errors;
    err.retry_after = headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after);
    err.location = headers
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    err
}

/// A short plain-text body (`Service Unavailable`), but never HTML or anything binary.
fn plain_text_message(body: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?.trim();
    let plain = !text.is_empty()
        && text.len() <= 200
        && !text.starts_with(['<', '{', '['])
        && !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\r' && c != '\t');
    plain.then(|| one_line(text))
}

/// `Retry-After`: delay-seconds or an HTTP date (a date in the past is zero).
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let delta = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}

/// The best message and the field errors found in an error body.
pub fn parse_error_body(body: &[u8]) -> (Option<String>, BTreeMap<String, Vec<String>>) {
    use serde_json::Value;
    let mut fields = BTreeMap::new();
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return (None, fields);
    };
    let text = |v: Option<&Value>| -> Option<String> {
        match v? {
            Value::String(s) if !s.trim().is_empty() => Some(one_line(s)),
            _ => None,
        }
    };
    let Value::Object(obj) = &v else {
        return (text(Some(&v)), fields);
    };
    let mut listed = None;
    if let Some(Value::Array(items)) = obj.get("errors") {
        // JSON:API style: `errors: [{title, detail, source: {pointer}}]` or a list of strings.
        listed = items.iter().find_map(|item| match item {
            Value::Object(o) => text(o.get("detail"))
                .or_else(|| text(o.get("message")))
                .or_else(|| text(o.get("title"))),
            other => text(Some(other)),
        });
    }
    if let Some(Value::Object(errs)) = obj.get("errors") {
        for (field, msgs) in errs {
            let list = match msgs {
                Value::Array(a) => a
                    .iter()
                    .map(|m| match m {
                        Value::String(s) => one_line(s),
                        other => other.to_string(),
                    })
                    .collect(),
                Value::String(s) => vec![one_line(s)],
                other => vec![other.to_string()],
            };
            fields.insert(field.clone(), list);
        }
    }
    let nested = match obj.get("error") {
        Some(Value::Object(e)) => text(e.get("message")).or_else(|| text(e.get("detail"))),
        other => text(other),
    };
    let problem = match (text(obj.get("title")), text(obj.get("detail"))) {
        (Some(t), Some(d)) => Some(format!("{t}: {d}")),
        (t, d) => t.or(d),
    };
    let message = text(obj.get("message"))
        .or(nested)
        .or(problem)
        .or(listed)
        .or_else(|| {
            fields
                .iter()
                .next()
                .and_then(|(f, m)| m.first().map(|m| format!("{f}: {m}")))
        });
    (message, fields)
}

/// Collapses whitespace and control characters so a message stays on one line.
fn one_line(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let joined = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > 300 {
        let cut: String = joined.chars().take(300).collect();
        format!("{cut}...")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per the exit codes (docs/command-line.md): 5 is rejected input, refused before sending
    /// or by the service (400/409/422, a plan's 404); 3 the token, 6 the service or network.
    #[test]
    fn rejections_are_the_row_s_fault_the_rest_are_not() {
        let kind_of = |status: u16| {
            let status = reqwest::StatusCode::from_u16(status).unwrap();
            from_response(status, &reqwest::header::HeaderMap::new(), b"").kind
        };
        for status in [400, 404, 409, 422] {
            assert!(kind_of(status).is_rejection(), "{status}");
        }
        for status in [302, 401, 403, 418, 429, 500, 503] {
            assert!(!kind_of(status).is_rejection(), "{status}");
        }
        assert!(ApiError::invalid_request("id", "x").kind.is_rejection());
        for kind in [
            ErrorKind::Network,
            ErrorKind::Timeout,
            ErrorKind::BadResponse,
        ] {
            assert!(!kind.is_rejection(), "{kind:?}");
        }
    }
}
