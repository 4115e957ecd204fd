//! One request and its answer as the dashboard's request log keeps them: method, URL, status,
//! time, size, the headers sent (the token masked) and received, both bodies (the answer's
//! cut at [`BODY_KEPT`] bytes), and the request as a `curl` command line that reads the token
//! from `$CRMDASH_TOKEN`. Built only when a client has an observer.

use std::time::Duration;

use chrono::{DateTime, Utc};

/// Bytes of an answer's body kept per request (500 requests stay within 4 MB).
pub const BODY_KEPT: usize = 8 * 1024;

/// The masked value shown for `Authorization`.
pub const MASKED_AUTH: &str = "Bearer ****";

/// A request and what came back.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub at: DateTime<Utc>,
    pub method: String,
    pub url: String,
    /// `None` when no answer came (connection refused, timeout).
    pub status: Option<u16>,
    /// Why no answer came (or the body could not be read).
    pub error: Option<String>,
    pub elapsed: Duration,
    /// Headers sent, `Authorization` as [`MASKED_AUTH`].
    pub request_headers: Vec<(String, String)>,
    pub request_body: Option<String>,
    pub response_headers: Vec<(String, String)>,
    /// The first [`BODY_KEPT`] bytes of the answer's body (as text, lossy).
    pub response_body: String,
    /// The answer's full size in bytes.
    pub size: usize,
}

impl Exchange {
    /// The request as a POSIX shell command: every value single-quoted, the token left to the
    /// shell as `"$CRMDASH_TOKEN"`, never written out.
    pub fn curl(&self) -> String {
        let q = |s: &str| shell_words::quote(s).into_owned();
        let mut parts = vec!["curl".to_string()];
        if self.method != "GET" {
            parts.push("-X".into());
            parts.push(q(&self.method));
        }
        parts.push(q(&self.url));
        for (name, value) in &self.request_headers {
            if name.eq_ignore_ascii_case("authorization") {
                parts.push("-H".into());
                parts.push("\"Authorization: Bearer $CRMDASH_TOKEN\"".into());
            } else if !name.eq_ignore_ascii_case("user-agent") {
                parts.push("-H".into());
                parts.push(q(&format!("{name}: {value}")));
            }
        }
        if let Some(body) = &self.request_body {
            parts.push("--data-raw".into());
            parts.push(q(body));
        }
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curl_line_quotes_values_and_leaves_the_token_to_the_shell() {
        let x = Exchange {
            at: Utc::now(),
            method: "POST".into(),
            url: "http://127.0.0.1:9/public/v1/contacts?x=1&y=2".into(),
            status: Some(201),
            error: None,
            elapsed: Duration::from_millis(5),
            request_headers: vec![
                ("authorization".into(), MASKED_AUTH.into()),
                ("accept".into(), "application/json".into()),
                ("content-type".into(), "application/json".into()),
            ],
            request_body: Some(r#"{"first_name":"O'Brien; $(rm -rf ~)"}"#.into()),
            response_headers: Vec::new(),
            response_body: String::new(),
            size: 0,
        };
        let line = x.curl();
        assert!(
            line.contains("-H \"Authorization: Bearer $CRMDASH_TOKEN\""),
            "{line}"
        );
        assert!(!line.contains("****"), "{line}");
        let words = shell_words::split(&line).unwrap();
        assert_eq!(words[0..3], ["curl", "-X", "POST"]);
        assert_eq!(words[3], "http://127.0.0.1:9/public/v1/contacts?x=1&y=2");
        assert_eq!(
            words.last().unwrap(),
            r#"{"first_name":"O'Brien; $(rm -rf ~)"}"#
        );
    }
}
