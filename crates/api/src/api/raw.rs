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

impl Client {
    /// `path` (`contacts`, `/contacts?page=2`, `/public/v1/deals`) as a URL on this client's
    /// host under `/public/v1`. A full URL, a `//host` path or a `..` segment is refused: the
    /// token goes only to the profile's base URL, and only to the API's paths.
    pub fn api_url(&self, path: &str) -> Result<Url, ApiError> {
        let path = path.trim();
        let refuse = |why: &str| ApiError::invalid_request("path", why.to_string());
        if path.contains("://") || path.starts_with("//") {
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
        let rest = path_part.trim_start_matches('/');
        let rest = rest
            .strip_prefix("public/v1/")
            .or_else(|| (rest == "public/v1").then_some(""))
            .unwrap_or(rest);
        if rest
            .split('/')
            .any(|s| s == ".." || s == "." || s.eq_ignore_ascii_case("%2e%2e"))
        {
            return Err(refuse("a path cannot contain . or .. segments"));
        }
        let mut url = self.endpoint(&[]);
        let base_path = url.path().trim_end_matches('/').to_string();
        if rest.is_empty() {
            url.set_path(&base_path);
        } else {
            url.set_path(&format!("{base_path}/{rest}"));
        }
        url.set_query(query.filter(|q| !q.is_empty()));
        if url.origin() != self.base_url().origin() {
            return Err(refuse("the path leads to another host"));
        }
        Ok(url)
    }

    /// Whether `method` only reads (GET, HEAD, OPTIONS): any other may change the service
    /// and is sent only through the write gate ([`Client::send_raw_write`]).
    pub fn reads_only(method: &Method) -> bool {
        matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
    }

    /// Sends a reading `req` (GET, HEAD, OPTIONS) with a read's retries; any other method is
    /// refused here, unsent: it needs the gate's ticket ([`Client::send_raw_write`]). A non-2xx
    /// answer is an error whose `answer` holds the response.
    pub async fn send_raw(&self, req: RawRequest) -> Result<Answer, ApiError> {
        if !Self::reads_only(&req.method) {
            return Err(ApiError::invalid_request(
                "method",
                format!(
                    "{} can change the service: it goes through the write gate",
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
}
