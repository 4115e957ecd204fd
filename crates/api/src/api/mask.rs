//! A token the service echoes back (`"the token abc123 has expired"`, in a body or a header) is
//! masked as soon as the answer is read, before anything else sees it: error messages, the
//! request log, `crmdash api`'s output, the log file. The client alone knows its token, so the
//! masking is here, once, for every request.

use reqwest::header::{HeaderMap, HeaderValue};

/// What a token is replaced with.
pub const MASK: &str = "****";

/// Tokens shorter than this are not looked for (a token of one or two characters would mask
/// ordinary text; the service's tokens are long).
const MIN_TOKEN: usize = 6;

/// `text` with every occurrence of `token` replaced by [`MASK`]; `None` when there is none.
fn masked(text: &[u8], token: &[u8]) -> Option<Vec<u8>> {
    if token.len() < MIN_TOKEN || text.len() < token.len() {
        return None;
    }
    let first = text.windows(token.len()).position(|w| w == token)?;
    let mut out = Vec::with_capacity(text.len());
    out.extend_from_slice(&text[..first]);
    out.extend_from_slice(MASK.as_bytes());
    let mut rest = &text[first + token.len()..];
    while let Some(i) = rest.windows(token.len()).position(|w| w == token) {
        out.extend_from_slice(&rest[..i]);
        out.extend_from_slice(MASK.as_bytes());
        rest = &rest[i + token.len()..];
    }
    out.extend_from_slice(rest);
    Some(out)
}

/// Masks `token` in a response's body and header values, in place.
pub fn mask_answer(token: &str, headers: &mut HeaderMap, body: &mut Vec<u8>) {
    let token = token.trim().as_bytes();
    if let Some(m) = masked(body, token) {
        *body = m;
    }
    for v in headers.values_mut() {
        if let Some(m) = masked(v.as_bytes(), token)
            && let Ok(hv) = HeaderValue::from_bytes(&m)
        {
            *v = hv;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_occurrence_in_the_body_and_headers_is_masked() {
        let mut body = br#"{"message":"the token s3cr3t-tok has expired; s3cr3t-tok"}"#.to_vec();
        let mut headers = HeaderMap::new();
        headers.insert(
            "www-authenticate",
            HeaderValue::from_static("Bearer error_description=\"s3cr3t-tok revoked\""),
        );
        mask_answer("s3cr3t-tok", &mut headers, &mut body);
        assert_eq!(
            String::from_utf8(body).unwrap(),
            r#"{"message":"the token **** has expired; ****"}"#
        );
        assert_eq!(
            headers["www-authenticate"],
            "Bearer error_description=\"**** revoked\""
        );
        assert_eq!(masked(b"abc", b"abc"), None, "too short to look for");
    }
}
