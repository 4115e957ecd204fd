//! Shared fixtures of the dashboard tests: deterministic records, a fake data source that
//! filters, sorts and pages like the service, and a harness that drives `App::update`
//! with a hand-moved clock and renders to a `TestBackend`.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use crmdash::api::{ApiError, Contact, Deal, Project, SortDirection, decode_page};
use crmdash::app::keymap::KeyMap;
use crmdash::app::persist::PersistedState;
use crmdash::app::resources::Descriptor;
use crmdash::app::table::filter::DateParser;
use crmdash::app::table::record::{TableRecord, build_page};
use crmdash::app::table::spec::FilterValue;
use crmdash::app::{
    App, AppConfig, ColorMode, DisplayZone, Effect, ExportEvent, ExportFormat, FetchedPage,
    Message, Now, QuerySpec, RequestId, Resource,
};
use crmdash::runtime::DataSource;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use futures::future::BoxFuture;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub const STATUSES: [&str; 4] = ["open", "won", "lost", "negotiation"];

pub fn wall0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap()
}

fn ts(i: usize) -> String {
    (wall0() - chrono::Duration::hours(7 * i as i64 + 3))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Fixed records: deals, projects and contacts with varied, sometimes awkward values.
#[derive(Clone)]
pub struct FakeData {
    pub deals: Vec<Value>,
    pub projects: Vec<Value>,
    pub contacts: Vec<Value>,
    /// Contacts come as a plain list without `meta`.
    pub contacts_unpaged: bool,
}

impl FakeData {
    pub fn new(n: usize) -> FakeData {
        let names = [
            "Acme renewal",
            "Globex expansion",
            "Initech licences",
            "Umbrella pilot",
            "Stark retrofit",
            "Wayne security",
            "Hooli cloud",
            "Pied Piper compression",
        ];
        let deals = (0..n)
            .map(|i| {
                let mut d = json!({
                    "id": format!("{}", 1000 + i),
                    "name": format!("{} #{}", names[i % names.len()], i + 1),
                    "status": STATUSES[i % STATUSES.len()],
                    "value": format!("{}.{:02}", 500 + i * 1375 % 90_000, i * 7 % 100),
                    "created_at": ts(i + 30),
                    "updated_at": ts(i),
                    "account": {"id": format!("a{}", i % 5), "name": format!("Account {}", i % 5)},
                    "assigned_user": {"id": format!("u{}", i % 3), "first_name": "Sam", "last_name": format!("Rep{}", i % 3)},
                    "probability": (i * 13) % 100,
                });
                if i == 2 {
                    d["name"] = json!("Multi\nline name with a very long tail that goes on and on");
                }
                if i == 3 {
                    d["name"] = json!("東京の大きな取引 🚀 wide");
                    d["value"] = json!(1234567.5);
                }
                d
            })
            .collect();
        let projects = (0..n)
            .map(|i| {
                json!({
                    "id": format!("p{}", i + 1),
                    "name": format!("Project {}", names[i % names.len()]),
                    "status": (["active", "planned", "done", "on_hold"][i % 4]),
                    "start_date": "2026-01-15",
                    "end_date": if i % 3 == 0 { Value::Null } else { json!("2026-12-31") },
                    "updated_at": ts(i),
                    "created_at": ts(i + 40),
                    "owner": {"id": "u1", "full_name": "Olivia Owner"},
                    "members": (0..(i % 4)).map(|m| json!({"id": format!("m{m}"), "email": format!("m{m}@example.com")})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let contacts = (0..n)
            .map(|i| {
                json!({
                    "id": format!("c{}", i + 1),
                    "first_name": (["Ada", "Grace", "Linus", "Margaret"][i % 4]),
                    "last_name": format!("Person{}", i + 1),
                    "email": format!("person{}@example.com", i + 1),
                    "phone": "+49 30 1234567",
                    "created_at": ts(i + 50),
                    "updated_at": ts(i),
                    "accounts": [{"id": "a1", "name": "Acme GmbH"}],
                    "assigned_user": {"id": "u2", "email": "rep@example.com"},
                    "tags": ["vip"],
                })
            })
            .collect();
        FakeData {
            deals,
            projects,
            contacts,
            contacts_unpaged: false,
        }
    }

    fn records(&self, kind: Resource) -> &[Value] {
        match kind {
            Resource::Contacts => &self.contacts,
            Resource::Deals => &self.deals,
            Resource::Projects => &self.projects,
        }
    }

    /// The body the service would send for `spec`.
    pub fn body(&self, spec: &QuerySpec) -> String {
        let mut rows: Vec<&Value> = self
            .records(spec.kind)
            .iter()
            .filter(|r| {
                spec.filters.iter().all(|(k, v)| match v {
                    FilterValue::Text(t) => {
                        let field = if *k == "full_name" {
                            format!(
                                "{} {}",
                                r["first_name"].as_str().unwrap_or(""),
                                r["last_name"].as_str().unwrap_or("")
                            )
                        } else {
                            r[*k].as_str().unwrap_or("").to_string()
                        };
                        if *k == "status" {
                            field == *t
                        } else {
                            field.to_lowercase().contains(&t.to_lowercase())
                        }
                    }
                    FilterValue::Instant(t) => {
                        let key = k.trim_end_matches("_after").to_string() + "_at";
                        r[&key]
                            .as_str()
                            .is_some_and(|s| s > t.to_rfc3339().as_str())
                    }
                })
            })
            .collect();
        let key = |r: &Value| -> String {
            match &r[spec.sort_by] {
                Value::String(s) if spec.sort_by == "value" => format!("{:>20}", s),
                Value::Number(n) => format!("{:>20}", n),
                Value::String(s) => s.clone(),
                _ => String::new(),
            }
        };
        rows.sort_by_key(|r| key(r));
        if spec.direction == SortDirection::Desc {
            rows.reverse();
        }
        if spec.kind == Resource::Contacts && self.contacts_unpaged {
            return serde_json::to_string(&rows).unwrap();
        }
        let total = rows.len();
        let per = spec.per_page as usize;
        let last = total.div_ceil(per).max(1);
        let start = (spec.page as usize - 1) * per;
        let data: Vec<&Value> = rows.into_iter().skip(start).take(per).collect();
        json!({"data": data, "meta": {"current_page": spec.page, "last_page": last, "per_page": per, "total": total}})
            .to_string()
    }

    pub fn page(&self, spec: &QuerySpec) -> FetchedPage {
        let body = self.body(spec);
        let cols: Vec<_> = Descriptor::of(spec.kind)
            .columns
            .iter()
            .map(|c| c.id)
            .collect();
        let zone = DisplayZone::Named(chrono_tz::Tz::UTC);
        fn build<T: TableRecord>(
            b: &str,
            cols: &[crmdash::app::resources::ColumnId],
            z: &DisplayZone,
        ) -> FetchedPage {
            build_page(decode_page::<T>(b.as_bytes()).unwrap(), cols, z)
        }
        match spec.kind {
            Resource::Contacts => build::<Contact>(&body, &cols, &zone),
            Resource::Deals => build::<Deal>(&body, &cols, &zone),
            Resource::Projects => build::<Project>(&body, &cols, &zone),
        }
    }
}

/// The status bar's note now (empty when there is none).
pub fn note_of(app: &App) -> String {
    app.status
        .note
        .as_ref()
        .map(|(n, _)| n.clone())
        .unwrap_or_default()
}

/// ISO dates only: enough grammar for the tests (the real one is `timeparse`).
pub fn test_parser() -> DateParser {
    Arc::new(|s: &str, now: DateTime<Utc>| {
        crmdash::timeparse::parse_instant(
            s,
            &crmdash::timeparse::Zone::Named(chrono_tz::Tz::UTC),
            now,
        )
        .map_err(|e| e.to_string())
    })
}

pub fn test_config() -> AppConfig {
    AppConfig {
        profile: "default".into(),
        host: "crm.example.com".into(),
        per_page: 25,
        refresh: None,
        zone: DisplayZone::Named(chrono_tz::Tz::UTC),
        currency: None,
        date_parser: test_parser(),
        log_path: Some("/tmp/crmdash/crmdash.log".into()),
        keymap: KeyMap::default(),
        colors: ColorMode::None,
        warnings: Vec::new(),
    }
}

/// Drives `App::update` by hand: keys in, effects out, fetches answered from `FakeData`.
pub struct Harness {
    pub app: App,
    pub data: FakeData,
    pub now: Now,
    /// Every effect so far.
    pub effects: Vec<Effect>,
    /// Fetches not answered yet, oldest first.
    pub pending: Vec<(RequestId, QuerySpec)>,
}

impl Harness {
    pub fn new(size: (u16, u16)) -> Harness {
        Harness::with(size, FakeData::new(60), test_config())
    }

    pub fn with(size: (u16, u16), data: FakeData, config: AppConfig) -> Harness {
        let now = Now {
            at: tokio::time::Instant::now(),
            wall: wall0(),
        };
        let app = App::new(config, &PersistedState::default(), size, now);
        let mut h = Harness {
            app,
            data,
            now,
            effects: Vec::new(),
            pending: Vec::new(),
        };
        let fx = h.app.start(now);
        h.record(fx);
        h
    }

    fn record(&mut self, fx: Vec<Effect>) -> Vec<Effect> {
        for e in &fx {
            match e {
                Effect::Fetch { id, spec } => self.pending.push((*id, spec.clone())),
                Effect::Cancel(id) => self.pending.retain(|(p, _)| p != id),
                _ => {}
            }
        }
        self.effects.extend(fx.iter().cloned());
        fx
    }

    pub fn send(&mut self, msg: Message) -> Vec<Effect> {
        let fx = self.app.update(msg, self.now);
        self.record(fx)
    }

    /// A note on the status line, as the runtime sends one.
    pub fn note(&mut self, text: &str) -> Vec<Effect> {
        self.send(Message::Notice {
            text: text.into(),
            error: false,
        })
    }

    pub fn key(&mut self, code: KeyCode) -> Vec<Effect> {
        self.send(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    pub fn ch(&mut self, c: char) -> Vec<Effect> {
        self.key(KeyCode::Char(c))
    }

    pub fn ctrl(&mut self, c: char) -> Vec<Effect> {
        self.send(Message::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        )))
    }

    pub fn type_str(&mut self, s: &str) {
        for c in s.chars() {
            self.ch(c);
        }
    }

    pub fn advance(&mut self, d: Duration) -> Vec<Effect> {
        self.now.at += d;
        self.now.wall += chrono::Duration::from_std(d).unwrap();
        self.send(Message::Tick)
    }

    /// Answers one pending fetch (by position) from the fake data.
    pub fn answer(&mut self, index: usize) -> Vec<Effect> {
        let (id, spec) = self.pending.remove(index);
        let page = Arc::new(self.data.page(&spec));
        self.send(Message::Fetched {
            id,
            result: Ok(page),
            elapsed: Duration::from_millis(42),
        })
    }

    pub fn fail(&mut self, index: usize, error: &str) -> Vec<Effect> {
        let (id, _) = self.pending.remove(index);
        self.send(Message::Fetched {
            id,
            result: Err(error.to_string()),
            elapsed: Duration::from_millis(42),
        })
    }

    /// Answers every `Effect::Collect` so far (the timeline's reading of every page) from
    /// the fake data, page by page as the engine reads: pages of 100 by created_at.
    pub fn answer_collects(&mut self) {
        let collects: Vec<(RequestId, QuerySpec, u32)> = self
            .effects
            .iter()
            .filter_map(|e| match e {
                Effect::Collect {
                    id,
                    spec,
                    max_pages,
                    ..
                } => Some((*id, spec.clone(), *max_pages)),
                _ => None,
            })
            .collect();
        for (id, spec, max_pages) in collects {
            let base = QuerySpec {
                sort_by: "created_at",
                direction: SortDirection::Asc,
                per_page: 100,
                ..spec
            };
            let mut walk = crmdash::insights::pipeline::PageWalk::new(max_pages);
            let mut rows = Vec::new();
            loop {
                let page = self.data.page(&base.at_page(walk.next_page()));
                let first = page.records.first().map(|r| r.id.clone());
                let step = walk.page(first.as_deref(), page.records.len(), page.meta);
                let crmdash::insights::pipeline::PageStep::Take { more } = step else {
                    break;
                };
                rows.extend(page.records);
                if !more {
                    break;
                }
            }
            self.send(Message::Collected {
                id,
                event: crmdash::app::message::CollectEvent::Done(Arc::new((rows, walk.coverage))),
            });
        }
    }

    /// Answers every pending fetch, including those the answers cause (prefetches).
    pub fn answer_all(&mut self) {
        while !self.pending.is_empty() {
            self.answer(0);
        }
    }

    pub fn fetches(&self) -> Vec<&QuerySpec> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Fetch { spec, .. } => Some(spec),
                _ => None,
            })
            .collect()
    }

    pub fn render(&self) -> String {
        let (w, h) = self.app.size;
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| crmdash::ui::render(&self.app, f)).unwrap();
        buffer_text(t.backend())
    }
}

/// The screen as plain lines (trailing spaces trimmed).
pub fn buffer_text(b: &TestBackend) -> String {
    let buf = b.buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        let mut x = 0;
        while x < buf.area.width {
            let sym = buf[(x, y)].symbol();
            let w = unicode_width::UnicodeWidthStr::width(sym).max(1) as u16;
            // A wide character whose second half was drawn over (a modal's border) shows as
            // a blank followed by what covers it, as a terminal would.
            let covered =
                w > 1 && x + 1 < buf.area.width && !matches!(buf[(x + 1, y)].symbol(), "" | " ");
            if covered {
                line.push(' ');
                x += 1;
                continue;
            }
            line.push_str(sym);
            x += w;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A `DataSource` over `FakeData` for engine tests: counts calls, optional delay.
pub struct FakeSource {
    pub data: Mutex<FakeData>,
    pub calls: AtomicUsize,
    pub delay: Duration,
    pub seen: Mutex<Vec<QuerySpec>>,
}

impl FakeSource {
    pub fn new(data: FakeData, delay: Duration) -> Arc<FakeSource> {
        Arc::new(FakeSource {
            data: Mutex::new(data),
            calls: AtomicUsize::new(0),
            delay,
            seen: Mutex::new(Vec::new()),
        })
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl DataSource for FakeSource {
    fn fetch(&self, spec: QuerySpec) -> BoxFuture<'static, Result<FetchedPage, ApiError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.seen.lock().unwrap().push(spec.clone());
        let page = self.data.lock().unwrap().page(&spec);
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            Ok(page)
        })
    }

    fn export(
        &self,
        _spec: QuerySpec,
        _path: std::path::PathBuf,
        _format: ExportFormat,
        _progress: Box<dyn Fn(ExportEvent) + Send + Sync>,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, ExportEvent> {
        Box::pin(async { ExportEvent::Failed("the fake source does not export".into()) })
    }

    fn create_contact(
        &self,
        _ticket: crmdash::gate::WriteTicket,
        contact: crmdash::api::NewContact,
        _key: crmdash::api::IdempotencyKey,
    ) -> BoxFuture<'static, Result<crmdash::api::Created<Contact>, ApiError>> {
        // Echo the body back as the created record, as the sandbox does.
        let mut body = contact.to_body();
        body.insert("id".into(), json!("c-new"));
        let raw =
            serde_json::value::RawValue::from_string(Value::Object(body).to_string()).unwrap();
        let record = <Contact as crmdash::api::ApiRecord>::from_raw(raw).ok();
        Box::pin(async move {
            Ok(crmdash::api::Created {
                status: 201,
                record,
                replayed: false,
                undecoded: None,
            })
        })
    }

    fn reschedule(
        &self,
        _ticket: crmdash::gate::WriteTicket,
        appointment_id: String,
        _body: serde_json::Map<String, Value>,
    ) -> BoxFuture<'static, Result<crmdash::api::AppointmentRef, ApiError>> {
        Box::pin(async move {
            Err(ApiError::new(
                crmdash::api::ErrorKind::NotFound,
                format!("no appointment {appointment_id}"),
            ))
        })
    }
}

/// The dashboard's real engine against a fresh embedded sandbox (HTTP on 127.0.0.1, port 0),
/// started and settled: the first page is loaded.
pub async fn sandbox_engine(
    latency: Option<std::time::Duration>,
    size: (u16, u16),
    state_file: Option<std::path::PathBuf>,
) -> (crmdash::sandbox::SandboxHandle, crmdash::runtime::Engine) {
    use crmdash::api::Client;
    use crmdash::runtime::build_engine;
    use crmdash::sandbox::{Sandbox, SandboxConfig};
    use secrecy::SecretString;

    let sb = Sandbox::start(SandboxConfig {
        latency,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).unwrap();
    let opts = sandbox_options(&sb, client, state_file);
    let mut e = build_engine(&opts, size);
    e.start();
    e.settle(std::time::Duration::from_millis(400)).await;
    (sb, e)
}

/// The options of a demo dashboard (profile "test", default settings, no log) on the sandbox
/// `sb`, reached through `client`.
pub fn sandbox_options(
    sb: &crmdash::sandbox::SandboxHandle,
    client: crmdash::api::Client,
    state_file: Option<std::path::PathBuf>,
) -> crmdash::runtime::DashboardOptions {
    crmdash::runtime::DashboardOptions {
        profile: "test".into(),
        base_url: sb.base_url(),
        client: Some(client),
        settings: crmdash::config::Settings::default(),
        state_file,
        log_path: None,
        demo: true,
    }
}

/// The write gate's settings for a test: no flags, no undo window, and a write journal in a
/// folder of the test's own (every write's intent is journaled before it is sent; a test never
/// writes the real data directory's).
pub fn test_safety() -> crmdash::app::SafetyConfig {
    let dir = tempfile::tempdir().unwrap().keep();
    crmdash::app::SafetyConfig {
        journal: Some(dir.join("write-journal.jsonl")),
        ..crmdash::app::SafetyConfig::default()
    }
}

/// The write journal at `path` as `crmdash log` reads it: one entry per write (its intent and
/// answer lines as one).
pub fn journal_entries(path: &std::path::Path) -> Vec<crmdash::journal::WriteRecord> {
    crmdash::journal::read(path, &crmdash::journal::Filter::default()).unwrap()
}
