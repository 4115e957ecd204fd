//! A scripted HTTP/1.1 server on 127.0.0.1:0 for the client's wire tests: it records every
//! request it fully received and answers each with what the test's script says, including
//! the faults a framework server cannot produce (dropped connections, cut bodies, silence).

// Each test crate uses part of this harness.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crmdash::api::{ApiError, Client, ClientOptions};
use secrecy::SecretString;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A token distinctive enough to search for in every message.
pub const TOKEN: &str = "sekret-TOKEN-4f9a2c";

/// What the server does with the n-th request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Write these bytes, then close.
    Send(Vec<u8>),
    /// Close without answering (after reading the whole request).
    Drop,
    /// Keep the connection open and never answer.
    Hang,
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub target: String,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

pub struct Server {
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub fn attempts(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    pub fn client(&self) -> Client {
        Client::with_options(&self.base, SecretString::from(TOKEN), fast_options()).unwrap()
    }
}

/// Short limits so fault tests finish quickly; same shape as the defaults.
pub fn fast_options() -> ClientOptions {
    ClientOptions {
        connect_timeout: Duration::from_secs(1),
        request_timeout: Duration::from_millis(300),
        deadline: Duration::from_secs(3),
        max_retries: 3,
        backoff_base: Duration::from_millis(10),
        max_retry_after: Duration::from_millis(50),
        ..ClientOptions::default()
    }
}

/// Starts a server answering request n (0-based) with `script(n)`.
pub async fn serve(script: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let script = Arc::new(script);
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let log = log.clone();
            let script = script.clone();
            tokio::spawn(async move { handle(stream, log, script).await });
        }
    });
    Server {
        base: format!("http://{addr}"),
        seen,
    }
}

async fn handle(
    mut stream: TcpStream,
    log: Arc<Mutex<Vec<Seen>>>,
    script: Arc<impl Fn(usize) -> Reply>,
) {
    let Some(seen) = read_request(&mut stream).await else {
        return;
    };
    let n = {
        let mut log = log.lock().unwrap();
        log.push(seen);
        log.len() - 1
    };
    match script(n) {
        Reply::Send(bytes) => {
            let _ = stream.write_all(&bytes).await;
            let _ = stream.shutdown().await;
        }
        Reply::Drop => drop(stream),
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            drop(stream);
        }
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let target = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Seen {
        method,
        target,
        headers,
        body,
    })
}

/// A complete response with `Content-Length` and `Connection: close`.
pub fn http(status: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    Reply::Send(raw_response(status, headers, body.as_bytes(), body.len()))
}

/// A response whose head announces `declared` bytes of body; `body` may be shorter (cut).
pub fn raw_response(
    status: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    declared: usize,
) -> Vec<u8> {
    let mut out =
        format!("HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {declared}\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

pub fn json_ok(body: &str) -> Reply {
    http("200 OK", &[("Content-Type", "application/json")], body)
}

/// The token appears in no form of the error.
pub fn assert_no_token(err: &ApiError) {
    for shown in [err.to_string(), format!("{err:?}"), err.summary()] {
        assert!(!shown.contains(TOKEN), "token leaked: {shown}");
    }
}

/// A loopback port with nothing listening.
pub async fn refused_base() -> String {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    format!("http://{addr}")
}
