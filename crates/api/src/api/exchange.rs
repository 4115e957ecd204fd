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
    /// The answer's body as text (lossy), JSON indented for reading ([`kept_body`]): its
    /// first [`BODY_KEPT`] bytes.
    pub response_body: String,
    /// The body was longer than what is kept.
    pub response_cut: bool,
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

/// The body as the request log keeps it: JSON indented (two spaces, as `serde_json`'s pretty
/// printer, keys in the server's order) before it is cut at `max` bytes, so a long answer
/// still reads as indented JSON up to the cut; anything else as it came. Linear, and stops at
/// the cut: the whole body is never parsed. Whether something was cut.
pub fn kept_body(body: &[u8], max: usize) -> (String, bool) {
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'{' | b'[')) {
        let cut = body.len() > max;
        return (lossy_cut(&body[..body.len().min(max)]), cut);
    }
    let mut out: Vec<u8> = Vec::with_capacity(max.min(body.len() * 2) + 8);
    let mut depth = 0usize;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', depth * 2));
    };
    let mut i = 0;
    while i < body.len() && out.len() < max {
        let b = body[i];
        match b {
            b'"' => {
                // A string whole, escapes included.
                let start = i;
                i += 1;
                while i < body.len() && body[i] != b'"' {
                    i += if body[i] == b'\\' { 2 } else { 1 };
                }
                out.extend_from_slice(&body[start..(i + 1).min(body.len())]);
            }
            b'{' | b'[' => {
                out.push(b);
                let close = if b == b'{' { b'}' } else { b']' };
                let next = body[i + 1..].iter().position(|c| !c.is_ascii_whitespace());
                match next {
                    Some(n) if body[i + 1 + n] == close => {
                        out.push(close);
                        i += 1 + n;
                    }
                    _ => {
                        depth += 1;
                        newline(&mut out, depth);
                    }
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b',');
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            c if c.is_ascii_whitespace() => {}
            c => out.push(c),
        }
        i += 1;
    }
    let cut = out.len() > max
        || body[i.min(body.len())..]
            .iter()
            .any(|c| !c.is_ascii_whitespace());
    out.truncate(max);
    (lossy_cut(&out), cut)
}

/// Text of bytes cut anywhere: a character split by the cut is left out, not replaced.
fn lossy_cut(bytes: &[u8]) -> String {
    let end = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    };
    String::from_utf8_lossy(&bytes[..end]).into_owned()
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
            response_cut: false,
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

    #[test]
    fn a_json_body_is_indented_as_serde_json_does_then_cut() {
        let body = br#" {"data": [{"id": "con_1", "s": "a,b:{\"c\"}", "tags": [], "x": {}}, 2], "meta": {"total": 2}} "#;
        let v: serde_json::Value = serde_json::from_slice(body).unwrap();
        let (kept, cut) = kept_body(body, BODY_KEPT);
        assert!(!cut);
        // serde_json sorts keys; these are already in order.
        assert_eq!(kept, serde_json::to_string_pretty(&v).unwrap());
        let (short, cut) = kept_body(body, 20);
        assert!(cut);
        assert_eq!(short, kept[..20]);
        assert!(short.starts_with("{\n  \"data\": [\n    {"), "{short}");
    }

    #[test]
    fn other_bodies_are_kept_as_they_came_and_never_split_a_character() {
        assert_eq!(
            kept_body(b"plain, text: {x}", 100),
            ("plain, text: {x}".into(), false)
        );
        let (s, cut) = kept_body("ab\u{e9}".as_bytes(), 3);
        assert_eq!((s.as_str(), cut), ("ab", true));
    }
}
