//! Network thrift, counted in the sandbox's request log (counts, never times): typing a filter
//! sends at most two list requests, pages seen in the last 30 s come from the cache (`r`
//! bypasses it), the next page is prefetched once per settled query, and requests reuse
//! pooled keep-alive connections.
//!
//! The dashboard's real effect engine sends real HTTP to an in-process sandbox; `update` is
//! fed a hand-moved clock, so "10 keys per second" and "30 s later" are exact whatever the
//! machine's load, while the answers travel for real.

use std::time::Duration;

use crmdash::api::Client;
use crmdash::app::{Message, Now};
use crmdash::config::Settings;
use crmdash::runtime::{DashboardOptions, Engine, build_engine};
use crmdash::sandbox::{RecordedRequest, Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use secrecy::SecretString;

/// Only a guard against a hung sandbox; no assertion depends on it.
const ANSWER_GUARD: Duration = Duration::from_secs(20);

/// The engine with a clock the test moves.
struct Driver {
    engine: Engine,
    now: Now,
}

impl Driver {
    fn send(&mut self, msg: Message) {
        let fx = self.engine.app.update(msg, self.now);
        let actions = self.engine.run(fx);
        assert!(actions.is_empty(), "{actions:?}");
    }

    fn key(&mut self, code: KeyCode) {
        self.send(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    /// Moves the clock, sending `Tick` at every deadline passed on the way (as the runtime
    /// does when its timer fires).
    fn advance(&mut self, d: Duration) {
        let target = self.now.at + d;
        while let Some(t) = self.engine.app.next_deadline().filter(|t| *t <= target) {
            self.set_clock(t.max(self.now.at));
            self.send(Message::Tick);
        }
        self.set_clock(target);
    }

    fn set_clock(&mut self, at: tokio::time::Instant) {
        let step = at.saturating_duration_since(self.now.at);
        self.now.wall += chrono::Duration::from_std(step).unwrap();
        self.now.at = at;
    }

    /// Handles answers until no request (prefetches included) is in flight.
    async fn answers(&mut self) {
        while self.engine.app.requests_in_flight() > 0 {
            let m = tokio::time::timeout(ANSWER_GUARD, self.engine.recv())
                .await
                .expect("the sandbox answers")
                .expect("channel open");
            self.send(m);
        }
        while let Some(m) = self.engine.try_recv() {
            self.send(m);
        }
    }
}

async fn start() -> (SandboxHandle, Driver) {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).unwrap();
    let mut settings = Settings::default();
    settings.ui.refresh_seconds = 0;
    let opts = DashboardOptions {
        profile: "perf".into(),
        base_url: sb.base_url(),
        client: Some(client),
        settings,
        state_file: None,
        log_path: None,
        demo: true,
    };
    let engine = build_engine(&opts, (160, 45));
    let mut d = Driver {
        engine,
        now: Now::current(),
    };
    let fx = d.engine.app.start(d.now);
    d.engine.run(fx);
    d.answers().await;
    (sb, d)
}

/// List requests (GET of a collection) for `path`, split into first pages and later pages.
fn lists<'a>(log: &'a [RecordedRequest], path: &str) -> Vec<&'a RecordedRequest> {
    log.iter()
        .filter(|r| r.method == "GET" && r.path == format!("/public/v1/{path}"))
        .collect()
}

fn page_of(r: &RecordedRequest) -> u32 {
    let q = r.query.as_deref().unwrap_or("");
    url::form_urlencoded::parse(q.as_bytes())
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(1)
}

fn shown_page(d: &Driver) -> Option<u32> {
    d.engine.app.tab().shown.as_ref().map(|s| s.spec.page)
}

#[tokio::test]
async fn typing_a_filter_at_ten_keys_a_second_sends_at_most_two_list_requests() {
    let (sb, mut d) = start().await;
    sb.clear_requests();
    d.key(KeyCode::Char('/'));
    for c in "rollout phas".chars() {
        d.key(KeyCode::Char(c));
        d.advance(Duration::from_millis(100));
    }
    // The debounce passes, the answer comes, the query settles (and its next page is fetched).
    d.advance(Duration::from_millis(400));
    d.answers().await;
    d.advance(Duration::from_millis(400));
    d.answers().await;

    let log = sb.requests();
    let deals = lists(&log, "deals");
    let firsts: Vec<_> = deals.iter().filter(|r| page_of(r) == 1).collect();
    let prefetches: Vec<_> = deals.iter().filter(|r| page_of(r) > 1).collect();
    assert!(
        !firsts.is_empty() && firsts.len() <= 2,
        "list requests while typing: {firsts:#?}"
    );
    assert!(
        firsts
            .last()
            .unwrap()
            .query
            .as_deref()
            .unwrap()
            .contains("rollout"),
        "{firsts:#?}"
    );
    assert!(prefetches.len() <= 1, "{prefetches:#?}");
    assert_eq!(log.len(), deals.len(), "only deal lists were asked for");
    // The filtered answer is on screen.
    let shown = d.engine.app.tab().shown.as_ref().unwrap();
    assert!(shown.spec.filter_summary().contains("rollout phas"));
    sb.shutdown().await;
}

#[tokio::test]
async fn the_next_page_is_prefetched_once_and_n_needs_no_request() {
    let (sb, mut d) = start().await;
    let log = sb.requests();
    let deals = lists(&log, "deals");
    assert_eq!(
        deals.iter().map(|r| page_of(r)).collect::<Vec<_>>(),
        [1, 2],
        "the first page, then its next page once: {deals:#?}"
    );
    // Nothing more while the query stays settled.
    d.advance(Duration::from_secs(5));
    d.answers().await;
    assert_eq!(sb.requests().len(), 2);

    sb.clear_requests();
    d.key(KeyCode::Char('n'));
    // Shown at once, from the prefetched page, before any answer is handled.
    assert_eq!(shown_page(&d), Some(2));
    assert!(d.engine.app.tab().pending.is_none());
    d.answers().await;
    let log = sb.requests();
    let pages: Vec<u32> = lists(&log, "deals").iter().map(|r| page_of(r)).collect();
    assert_eq!(pages, [3], "only the prefetch of page 3: {log:#?}");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_page_seen_in_the_last_30_s_is_not_asked_for_again_and_r_bypasses_the_cache() {
    let (sb, mut d) = start().await;
    d.key(KeyCode::Char('3'));
    d.answers().await;
    d.key(KeyCode::Char('n'));
    d.answers().await;
    sb.clear_requests();

    // Back and forth within 30 s: pages and tabs come from the cache.
    d.advance(Duration::from_secs(10));
    d.key(KeyCode::Char('p'));
    d.key(KeyCode::Char('2'));
    d.key(KeyCode::Char('s'));
    d.answers().await;
    let after_sort = sb.requests().len();
    assert!(after_sort >= 1, "a new sort is a new query");
    d.key(KeyCode::Char('S'));
    d.answers().await;
    sb.clear_requests();
    d.advance(Duration::from_secs(5));
    // Back to the sort seen seconds ago: cached.
    d.key(KeyCode::Char('S'));
    d.key(KeyCode::Char('3'));
    d.key(KeyCode::Char('2'));
    d.answers().await;
    assert_eq!(sb.requests(), Vec::new(), "nothing re-requested");
    assert!(d.engine.app.tab().shown.is_some());

    // `r` asks again even though the page is fresh.
    d.key(KeyCode::Char('r'));
    d.answers().await;
    let firsts = lists(&sb.requests(), "deals")
        .into_iter()
        .filter(|r| page_of(r) == 1)
        .count();
    assert_eq!(firsts, 1);

    // Past 30 s the cache is stale: going back to projects asks again.
    sb.clear_requests();
    d.advance(Duration::from_secs(31));
    d.key(KeyCode::Char('3'));
    d.key(KeyCode::Char('r'));
    d.answers().await;
    assert!(!lists(&sb.requests(), "projects").is_empty());
    sb.shutdown().await;
}

/// Client ports of every TCP connection to `port` that exists or recently closed (TIME_WAIT),
/// from `/proc/net/tcp`.
#[cfg(target_os = "linux")]
fn connections_to(port: u16) -> std::collections::BTreeSet<u16> {
    let text = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port_of = |addr: &str| u16::from_str_radix(addr.rsplit(':').next().unwrap(), 16).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (local, remote) = (port_of(f[1]), port_of(f[2]));
            if remote == 0 {
                return None; // the listening socket
            }
            if local == port {
                Some(remote)
            } else if remote == port {
                Some(local)
            } else {
                None
            }
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn requests_reuse_pooled_keep_alive_connections() {
    let (sb, mut d) = start().await;
    for key in ['n', 'n', 'p', 's', 's', '3', 'n', '1', 'r', '2', 'r'] {
        d.key(KeyCode::Char(key));
        d.answers().await;
    }
    let requests = sb.requests().len();
    let conns = connections_to(sb.port());
    assert!(requests >= 10, "{requests}");
    // A prefetch may run beside a page request: two connections, never one per request.
    assert!(
        !conns.is_empty() && conns.len() <= 2,
        "{} connections for {requests} requests",
        conns.len()
    );
    sb.shutdown().await;
}
