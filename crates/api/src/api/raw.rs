//! Any request under `/public/v1`, as the caller wrote it (`crmdash api`): the profile's base
//! URL and token, the same timeouts, retries and size limits as every operation, and the
//! answer kept whole (status, headers, bytes) whatever its status.

use reqwest::Method;
use reqwest::header::HeaderMap;
use url::Url;

use super::client::Client;
use super::error::ApiError;
use super::retry::RetryPolicy;
use super::transport::Outgoing;
use crate::gate::WriteTicket;

/// A response as received.
#[derive(Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl std::fmt::Debug for Answer {
    // The body may be large: its size is enough in an error's Debug.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answer")
            .field("status", &self.status)
            .field("body_bytes", &self.body.len())
            .finish_non_exhaustive()
    }
}

/// One request of `crmdash api`.
#[derive(Debug, Clone)]
pub struct RawRequest {
    pub method: Method,
    pub url: Url,
    pub body: Option<Vec<u8>>,
    pub headers: HeaderMap,
}

/// Headers many servers read as the request's real method (a POST tunnelled in a GET).
pub const METHOD_OVERRIDES: [&str; 3] = [
    "x-http-method-override",
    "x-http-method",
    "x-method-override",
];

impl RawRequest {
    /// Whether this request only reads: GET, HEAD or OPTIONS, with no body and no header that
    /// names another method. Anything else may change the service and goes through the gate.
    pub fn reads(&self) -> bool {
        Client::reads_only(&self.method)
            && self.body.is_none()
            && !METHOD_OVERRIDES
                .iter()
                .any(|h| self.headers.contains_key(*h))
    }
}

impl Client {
    /// `path` (`contacts`, `/contacts?page=2`, `/public/v1/deals`) as a URL on this client's
    /// host under `/public/v1`. The path is first read as a server would read it
    /// ([`server_segments`]: percent-decoded until nothing changes, backslashes as slashes);
    /// a full URL, a `//host` path, a control character, or a `.`/`..` segment in that
    /// reading is refused, and the URL is built from the segments read, each encoded again.
    /// Last, the URL itself must be under `{base}/public/v1/` on the base URL's origin: the
    /// token goes only to the profile's base URL, and only to the API's paths.
    pub fn api_url(&self, path: &str) -> Result<Url, ApiError> {
        let path = path.trim();
        let refuse = |why: &str| ApiError::invalid_request("path", why.to_string());
        if path.contains("://") || path.starts_with("//") || path.starts_with("\\\\") {
            return Err(refuse(
                "give a path such as contacts or /public/v1/deals: the host is the profile's base URL",
            ));
        }
        let (path_part, query) = match path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (path, None),
        };
        let (path_part, fragment) = match path_part.split_once('#') {
            Some((p, _)) => (p, true),
            None => (path_part, false),
        };
        if fragment || query.is_some_and(|q| q.contains('#')) {
            return Err(refuse("a path cannot carry a #fragment"));
        }
        if query.is_some_and(|q| q.chars().any(char::is_control)) {
            return Err(refuse("a path cannot contain control characters"));
        }
        let mut segments = server_segments(path_part).map_err(refuse)?;
        if segments.len() >= 2 && segments[0] == "public" && segments[1] == "v1" {
            segments.drain(..2);
        }
        let mut url = self.endpoint(&[]);
        let base_path = url.path().trim_end_matches('/').to_string();
        if let Ok(mut p) = url.path_segments_mut() {
            p.pop_if_empty();
            p.extend(&segments);
        }
        url.set_query(query.filter(|q| !q.is_empty()));
        if url.origin() != self.base_url().origin() {
            return Err(refuse("the path leads to another host"));
        }
        let inside = url.path() == base_path
            || url
                .path()
                .strip_prefix(base_path.as_str())
                .is_some_and(|rest| rest.starts_with('/'));
        if !inside || !base_path.ends_with("/public/v1") {
            return Err(refuse("the path leads outside /public/v1"));
        }
        Ok(url)
    }

    /// Whether `method` only reads (GET, HEAD, OPTIONS): any other may change the service
    /// and is sent only through the write gate ([`Client::send_raw_write`]).
    pub fn reads_only(method: &Method) -> bool {
        matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
    }

    /// Sends a reading `req` ([`RawRequest::reads`]) with a read's retries; anything else is
    /// refused here, unsent: it needs the gate's ticket ([`Client::send_raw_write`]). A non-2xx
    /// answer is an error whose `answer` holds the response.
    pub async fn send_raw(&self, req: RawRequest) -> Result<Answer, ApiError> {
        if !req.reads() {
            return Err(ApiError::invalid_request(
                "method",
                format!(
                    "{} with a body or a method-override header can change the service: it goes through the write gate",
                    req.method
                ),
            ));
        }
        self.send_any(req, RetryPolicy::Read).await
    }

    /// Sends a request that may change the service, with the gate's leave: retried only when
    /// it surely did not reach the server.
    pub async fn send_raw_write(
        &self,
        _ticket: &WriteTicket,
        req: RawRequest,
    ) -> Result<Answer, ApiError> {
        self.send_any(req, RetryPolicy::Unsafe).await
    }

    async fn send_any(&self, req: RawRequest, policy: RetryPolicy) -> Result<Answer, ApiError> {
        let resp = self
            .execute(Outgoing {
                method: req.method,
                url: req.url,
                body: req.body,
                key: None,
                policy,
                headers: req.headers,
            })
            .await?;
        Ok(Answer {
            status: resp.status,
            headers: resp.headers,
            body: resp.body,
        })
    }
}

/// Rounds of percent-decoding a path gets: `%252e` is `%2e` after one, `.` after two.
const DECODE_ROUNDS: usize = 4;

/// `path`'s segments as a server reading it would find them: percent-decoded (again and again
/// until nothing changes: a server or proxy that decodes twice must not find a `..` either),
/// a backslash read as a slash (IIS, some proxies), empty segments dropped. A control
/// character, a segment of dots only (`.`, `..`, `...`) or a path still encoded after
/// [`DECODE_ROUNDS`] rounds is refused.
pub fn server_segments(path: &str) -> Result<Vec<String>, &'static str> {
    let mut text = path.to_string();
    let mut stable = false;
    for _ in 0..DECODE_ROUNDS {
        let decoded = percent_encoding::percent_decode_str(&text)
            .decode_utf8()
            .map_err(|_| "the path is not UTF-8 once percent-decoded")?
            .into_owned();
        if decoded == text {
            stable = true;
            break;
        }
        text = decoded;
    }
    if !stable {
        return Err("the path is percent-encoded too many times over");
    }
    if text.chars().any(|c| c.is_control()) {
        return Err("a path cannot contain control characters");
    }
    let mut out = Vec::new();
    for seg in text.split(['/', '\\']) {
        if seg.is_empty() {
            continue;
        }
        if seg.trim().chars().all(|c| c == '.') {
            return Err("a path cannot contain . or .. segments");
        }
        out.push(seg.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::SecretString;

    fn client(base: &str) -> Client {
        Client::new(base, SecretString::from("t0ken")).unwrap()
    }

    #[test]
    fn paths_land_under_public_v1_on_the_base_host() {
        let c = client("http://127.0.0.1:9");
        let url = |p: &str| c.api_url(p).unwrap().to_string();
        assert_eq!(url("contacts"), "http://127.0.0.1:9/public/v1/contacts");
        assert_eq!(url("/contacts"), "http://127.0.0.1:9/public/v1/contacts");
        assert_eq!(
            url("/public/v1/deals?status=won&page=2"),
            "http://127.0.0.1:9/public/v1/deals?status=won&page=2"
        );
        let c = client("https://crm.example.com/tenant/");
        assert_eq!(
            c.api_url("appointments/7/reschedule").unwrap().as_str(),
            "https://crm.example.com/tenant/public/v1/appointments/7/reschedule"
        );
    }

    #[test]
    fn other_hosts_and_dot_segments_are_refused() {
        let c = client("http://127.0.0.1:9");
        for p in [
            "https://evil.example/contacts",
            "//evil.example/contacts",
            "../admin",
            "contacts/../../x",
            "contacts#x",
        ] {
            assert!(c.api_url(p).is_err(), "{p} was accepted");
        }
    }

    #[test]
    fn paths_are_read_as_a_server_reads_them_before_the_confinement_check() {
        let c = client("http://127.0.0.1:9");
        for p in [
            "contacts/.%2e/.%2e/.%2e/admin/users",
            "contacts/%2e%2e/%2E%2E/admin",
            "contacts/%2e./admin",
            "contacts%2f..%2f..%2fadmin",
            "contacts%2F%2E%2E%2F%2E%2E%2Fadmin",
            "contacts/%252e%252e/%252e%252e/admin",
            "contacts\\..\\..\\admin",
            "contacts/.\t./admin",
            "contacts/%00/x",
            "contacts/%0d%0aHost:%20evil",
            "contacts/ .. /admin",
            "contacts/.../admin",
            "\\\\evil.example\\x",
            "public/v1/../../admin",
            "contacts?x=1\r\nHost: evil",
            "contacts/%25252525252e",
        ] {
            assert!(
                c.api_url(p).is_err(),
                "{p:?} was accepted: {:?}",
                c.api_url(p)
            );
        }
        let url = |p: &str| c.api_url(p).unwrap().to_string();
        // Encoded text that is no separator stays a segment of its own, encoded again.
        assert_eq!(
            url("contacts/a%20b"),
            "http://127.0.0.1:9/public/v1/contacts/a%20b"
        );
        assert_eq!(
            url("%70ublic/v1/deals"),
            "http://127.0.0.1:9/public/v1/deals"
        );
        assert_eq!(
            url("contacts//7/"),
            "http://127.0.0.1:9/public/v1/contacts/7"
        );
        assert_eq!(url(""), "http://127.0.0.1:9/public/v1");
        // An encoded `//host` is a path under /public/v1, never a host.
        assert_eq!(
            url("%2f%2fevil.example/x"),
            "http://127.0.0.1:9/public/v1/evil.example/x"
        );
    }
}
