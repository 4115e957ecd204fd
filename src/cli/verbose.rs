//! `-v`: one stderr line per request (method, URL, status, time) through the client's observer.
//! `-vv` adds the request headers crmdash sets, the token always masked.

use std::io::Write;
use std::sync::Arc;

use crate::api::{Observer, RequestEvent};

/// The observer for verbosity `level` (0 = silent, `None`).
pub fn observer(level: u8) -> Option<Observer> {
    if level == 0 {
        return None;
    }
    Some(Arc::new(move |ev: &RequestEvent| {
        let line = describe(ev, level);
        if !line.is_empty() {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }))
}

/// The text shown for one event; empty when this level shows nothing for it.
pub fn describe(ev: &RequestEvent, level: u8) -> String {
    match ev {
        RequestEvent::Sending {
            method,
            url,
            attempt,
            max_attempts,
        } if level >= 2 => format!(
            "> {method} {url} (attempt {attempt}/{max_attempts})\n\
             > Authorization: Bearer ****\n> Accept: application/json\n\
             > User-Agent: crmdash/{}",
            env!("CARGO_PKG_VERSION")
        ),
        RequestEvent::Sending { .. } | RequestEvent::Exchanged(_) => String::new(),
        RequestEvent::Received {
            method,
            url,
            status,
            elapsed,
        } => format!("{method} {url} -> {status} ({} ms)", elapsed.as_millis()),
        RequestEvent::Failed {
            method,
            url,
            error,
            elapsed,
        } => format!(
            "{method} {url} -> failed after {} ms: {error}",
            elapsed.as_millis()
        ),
        RequestEvent::Retrying {
            attempt,
            max_attempts,
            delay,
            reason,
        } => format!(
            "retrying (attempt {attempt}/{max_attempts}) in {} ms: {reason}",
            delay.as_millis()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::Method;
    use std::time::Duration;

    #[test]
    fn a_received_line_names_method_url_status_and_time() {
        let ev = RequestEvent::Received {
            method: Method::GET,
            url: "http://127.0.0.1:9/public/v1/deals?page=2".into(),
            status: 200,
            elapsed: Duration::from_millis(12),
        };
        assert_eq!(
            describe(&ev, 1),
            "GET http://127.0.0.1:9/public/v1/deals?page=2 -> 200 (12 ms)"
        );
    }

    #[test]
    fn headers_show_only_at_level_two_and_never_the_token() {
        let ev = RequestEvent::Sending {
            method: Method::POST,
            url: "http://127.0.0.1:9/public/v1/contacts".into(),
            attempt: 1,
            max_attempts: 4,
        };
        assert_eq!(describe(&ev, 1), "");
        let shown = describe(&ev, 2);
        assert!(shown.contains("Authorization: Bearer ****"), "{shown}");
    }
}
