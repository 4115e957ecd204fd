//! Shared harness of the mirror tests: a sandbox, a client for it, a mirror in a tempdir, and
//! comparisons of the mirror with the server, record by record.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use crmdash::api::{ApiRecord, Client, ContactQuery, DealQuery, Paging, ProjectQuery};
use crmdash::mirror::sync::{self, SyncOptions, SyncReport};
use crmdash::mirror::{Mirror, MirrorLocation, MirrorQuery, Resource};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use secrecy::SecretString;
use serde_json::Value;

pub struct Env {
    pub sb: SandboxHandle,
    pub client: Client,
    pub dir: tempfile::TempDir,
    pub location: MirrorLocation,
}

impl Env {
    pub async fn new(cfg: SandboxConfig) -> Env {
        let sb = Sandbox::start(cfg).await.expect("sandbox starts");
        let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).expect("client");
        let dir = tempfile::tempdir().expect("tempdir");
        let location = MirrorLocation::new(dir.path().join("mirror"), "default", &sb.base_url());
        Env {
            sb,
            client,
            dir,
            location,
        }
    }

    pub async fn sync(&self, opts: SyncOptions) -> SyncReport {
        sync::sync(&self.client, &self.location, &opts, &|_| {})
            .await
            .expect("sync succeeds")
    }

    pub fn mirror(&self) -> Mirror {
        Mirror::open(&self.location.db_path())
            .expect("mirror opens")
            .mirror
    }

    /// Every record of a resource on the server (all includes, as the sync asks), by id.
    pub fn server_records(&self, r: Resource) -> BTreeMap<String, Value> {
        ServerView::new(&self.sb.base_url(), &self.sb.token()).records(r)
    }

    /// Number of list requests to a resource the sandbox received.
    pub fn list_requests(&self, r: Resource) -> usize {
        let path = format!("/public/v1/{r}");
        self.sb
            .requests()
            .into_iter()
            .filter(|q| q.method == "GET" && q.path == path)
            .count()
    }
}

/// The server's records, read straight over HTTP (not through crmdash).
pub struct ServerView {
    base_url: String,
    token: String,
}

impl ServerView {
    pub fn new(base_url: &str, token: &str) -> ServerView {
        ServerView {
            base_url: base_url.to_string(),
            token: token.to_string(),
        }
    }

    /// Every record of a resource (all includes, as the sync asks), by id.
    pub fn records(&self, r: Resource) -> BTreeMap<String, Value> {
        let include = match r {
            Resource::Contacts => "accounts,assigned_user,assigned_users",
            Resource::Deals => "account,assigned_user,assigned_users,contacts",
            Resource::Projects => "members,owner",
        };
        let mut out = BTreeMap::new();
        for page in 1.. {
            let url = format!(
                "{}/public/v1/{r}?per_page=100&page={page}&include={include}",
                self.base_url
            );
            let body: Value = blocking_get(&url, &self.token);
            let data = body["data"].as_array().expect("data").clone();
            for rec in &data {
                out.insert(rec["id"].as_str().expect("id").to_string(), rec.clone());
            }
            if body["meta"]["current_page"] == body["meta"]["last_page"] || data.is_empty() {
                break;
            }
        }
        out
    }
}

fn blocking_get(url: &str, token: &str) -> Value {
    let url = url.to_string();
    let token = token.to_string();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("GET")
                .json::<Value>()
                .await
                .expect("JSON")
        })
    })
    .join()
    .expect("GET thread")
}

/// Every live record of a resource in the mirror (read through `Mirror::list`), by id.
pub fn mirror_records(m: &Mirror, r: Resource) -> BTreeMap<String, Value> {
    fn all<Q: MirrorQuery + Default>(m: &Mirror) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        for page in 1.. {
            let mut q = Q::default();
            q.set_paging(Paging {
                page: Some(page),
                per_page: Some(100),
            });
            let p = m.list(&q).expect("list").page;
            for rec in &p.data {
                let v: Value = serde_json::from_str(rec.raw().get()).unwrap();
                assert!(
                    out.insert(rec.id().to_string(), v).is_none(),
                    "{} listed twice",
                    rec.id()
                );
            }
            if !p.has_next() {
                break;
            }
        }
        out
    }
    match r {
        Resource::Contacts => all::<ContactQuery>(m),
        Resource::Deals => all::<DealQuery>(m),
        Resource::Projects => all::<ProjectQuery>(m),
    }
}

/// Asserts the mirror holds exactly the server's records, byte-equivalent JSON.
pub fn assert_same(server: &BTreeMap<String, Value>, mirror: &BTreeMap<String, Value>, what: &str) {
    let missing: Vec<&String> = server.keys().filter(|k| !mirror.contains_key(*k)).collect();
    let extra: Vec<&String> = mirror.keys().filter(|k| !server.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "{what}: missing from the mirror: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "{what}: in the mirror, not on the server: {extra:?}"
    );
    for (id, rec) in server {
        assert_eq!(&mirror[id], rec, "{what}: {id} differs");
    }
}

pub fn file_mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777
}

/// A record without its included relations: those are the related records' summaries at the
/// time the record was read, and change without the record's `updated_at` moving (a contact
/// renamed or deleted changes the deals that include it); only a full sync refreshes them.
pub fn own_fields(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(m) = v.as_object_mut() {
        for k in [
            "account",
            "accounts",
            "contacts",
            "assigned_user",
            "assigned_users",
            "owner",
            "members",
        ] {
            m.remove(k);
        }
    }
    v
}
