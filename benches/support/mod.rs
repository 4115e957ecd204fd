//! Shared fixtures of the benches: real pages from an in-process sandbox (its seed data, the
//! dashboard's own queries and includes), and an `App` loaded with a 100-row page per tab.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use crmdash::api::{Client, ListQuery};
use crmdash::app::keymap::KeyMap;
use crmdash::app::persist::PersistedState;
use crmdash::app::resources::{Descriptor, WithQuery};
use crmdash::app::table::filter::DateParser;
use crmdash::app::table::record::TableRecord;
use crmdash::app::table::tab::TabState;
use crmdash::app::{
    App, AppConfig, ColorMode, DisplayZone, Effect, Message, Now, QuerySpec, Resource,
};
use crmdash::mirror::{Mirror, Mirrored, SyncState};
use crmdash::runtime::{ClientSource, DataSource};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use secrecy::SecretString;

/// Rows per page in every bench.
pub const PER_PAGE: u32 = 100;

/// A sandbox kept alive while the benches set up; idle while they measure.
pub struct Fixture {
    pub rt: tokio::runtime::Runtime,
    pub sandbox: SandboxHandle,
    pub source: ClientSource,
}

impl Fixture {
    pub fn new() -> Fixture {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let sandbox = rt
            .block_on(Sandbox::start(SandboxConfig::default()))
            .expect("sandbox starts");
        let client =
            Client::new(&sandbox.base_url(), SecretString::from(sandbox.token())).expect("client");
        let source = ClientSource::new(client, zone(), None);
        Fixture {
            rt,
            sandbox,
            source,
        }
    }

    /// The body the sandbox sends for the tab's default query at 100 rows, as bytes.
    pub fn raw_page(&self, kind: Resource) -> Vec<u8> {
        let spec = default_spec(kind);
        let (path, pairs) = spec.with_query(PairsOf);
        let url = format!("{}/public/v1/{path}", self.sandbox.base_url());
        self.rt.block_on(async {
            reqwest::Client::new()
                .get(url)
                .query(&pairs)
                .bearer_auth(self.sandbox.token())
                .header("Accept", "application/json")
                .send()
                .await
                .expect("request")
                .error_for_status()
                .expect("status 200")
                .bytes()
                .await
                .expect("body")
                .to_vec()
        })
    }

    /// An app at `size` with every tab showing its first 100-row page (and page 2 prefetched),
    /// answered through the dashboard's real data source.
    pub fn loaded_app(&self, size: (u16, u16)) -> App {
        let now = Now::current();
        let mut app = App::new(config(), &PersistedState::default(), size, now);
        let mut fx = app.start(now);
        for key in ['1', '2', '3', '2'] {
            self.answer_all(&mut app, fx);
            fx = app.update(key_msg(KeyCode::Char(key)), Now::current());
        }
        self.answer_all(&mut app, fx);
        app.dirty = false;
        app
    }

    /// Answers fetches (and the fetches the answers cause) until none is left.
    pub fn answer_all(&self, app: &mut App, mut fx: Vec<Effect>) {
        while let Some(e) = fx.pop() {
            if let Effect::Fetch { id, spec } = e {
                let page = self
                    .rt
                    .block_on(self.source.fetch(spec))
                    .expect("sandbox answers");
                let more = app.update(
                    Message::Fetched {
                        id,
                        result: Ok(Arc::new(page)),
                        elapsed: Duration::from_millis(1),
                    },
                    Now::current(),
                );
                fx.extend(more);
            }
        }
    }
}

/// A typed query's path and query-string pairs.
struct PairsOf;

impl WithQuery for PairsOf {
    type Output = (&'static str, Vec<(&'static str, String)>);

    fn run<Q>(self, q: Q) -> Self::Output
    where
        Q: ListQuery + Send + Sync + 'static,
        Q::Item: TableRecord + Send + 'static,
    {
        (Q::RESOURCE.noun(), q.to_pairs().expect("valid query"))
    }
}

/// The query a fresh tab asks for, at 100 rows.
pub fn default_spec(kind: Resource) -> QuerySpec {
    TabState::new(Descriptor::of(kind), PER_PAGE).spec()
}

pub fn zone() -> DisplayZone {
    DisplayZone::Named(chrono_tz::Tz::UTC)
}

pub fn config() -> AppConfig {
    let parser: DateParser = Arc::new(|s: &str, now| {
        crmdash::timeparse::parse_instant(
            s,
            &crmdash::timeparse::Zone::Named(chrono_tz::Tz::UTC),
            now,
        )
        .map_err(|e| e.to_string())
    });
    AppConfig {
        profile: "default".into(),
        host: "127.0.0.1".into(),
        per_page: PER_PAGE,
        refresh: None,
        zone: zone(),
        currency: None,
        date_parser: parser,
        log_path: None,
        keymap: KeyMap::default(),
        colors: ColorMode::Full,
        warnings: Vec::new(),
    }
}

pub fn key_msg(code: KeyCode) -> Message {
    Message::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Every bench's criterion settings: 3 s x 30 samples after 1 s of warm-up, so the three
/// benches run in a few minutes on 2 cores.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(30)
}

/// A fresh mirror in a temp dir holding `records`, written 1,000 a page as a sync writes them.
pub fn mirror_of<T: Mirrored>(records: &[T]) -> (tempfile::TempDir, Mirror) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut mirror = Mirror::open(&dir.path().join("bench.sqlite3"))
        .expect("mirror")
        .mirror;
    for chunk in records.chunks(1000) {
        mirror
            .apply_page(chunk, None, &SyncState::default())
            .expect("written");
    }
    (dir, mirror)
}
