//! The mirror commands through the real binary: sync (and resuming after kill -9), search,
//! cache clear, logout, auth status, and `[cache] enabled = false`.

use crate::cli_support;
use crate::mirror_support;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli_support::{Env, run};
use crmdash::mirror::{Mirror, MirrorLocation, Resource};
use crmdash::sandbox::SandboxConfig;
use mirror_support::{assert_same, file_mode, mirror_records};

fn location(env: &Env) -> MirrorLocation {
    MirrorLocation::new(
        env.dir.path().join("xdg-cache/crmdash/mirror"),
        "default",
        &env.sb.base_url(),
    )
}

fn mirror_files(env: &Env) -> Vec<PathBuf> {
    match std::fs::read_dir(env.dir.path().join("xdg-cache/crmdash/mirror")) {
        Ok(d) => d.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

/// The same command as a child process we can kill.
fn spawn(cmd: &assert_cmd::Command) -> std::process::Child {
    let mut c = std::process::Command::new(cmd.get_program());
    c.args(cmd.get_args()).env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    if let Some(d) = cmd.get_current_dir() {
        c.current_dir(d);
    }
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn")
}

#[test]
fn sync_then_search_print_a_summary_and_grouped_results() {
    let env = Env::new();
    let out = run(env.cmd(&["sync"])).code(0);
    // Piped: a summary only, no progress bar.
    assert!(!out.stderr.contains('\r'), "{}", out.stderr);
    for r in ["contacts", "deals", "projects"] {
        let line = out.stdout.lines().find(|l| l.starts_with(r)).expect(r);
        assert!(
            line.contains("full + incremental") && line.contains("requests"),
            "{line}"
        );
    }
    assert!(out.stdout.contains("1000 new"), "{}", out.stdout);
    let path = location(&env).db_path();
    assert!(
        out.stdout.contains(&path.display().to_string()),
        "{}",
        out.stdout
    );
    assert_eq!(file_mode(&path), 0o600);
    assert_eq!(file_mode(path.parent().unwrap()), 0o700);

    let json = run(env.cmd(&["search", "muller", "--format", "json"]))
        .code(0)
        .json();
    let groups = json["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3);
    let first = &groups[0]["hits"][0];
    assert_eq!(groups[0]["resource"], "contacts");
    assert!(
        first["label"].as_str().unwrap().contains("Müller"),
        "{first}"
    );
    // The record as the server sent it.
    assert_eq!(first["record"]["id"], first["id"]);

    let table = run(env.cmd(&["search", "muller", "--type", "deals", "--format", "table"])).code(0);
    assert!(table.stdout.starts_with("Deals ("), "{}", table.stdout);
    let csv = run(env.cmd(&["search", "muller", "--type", "contacts", "--format", "csv"])).code(0);
    assert!(
        csv.stdout
            .starts_with("type,id,label,detail,near,why\ncontact,"),
        "{}",
        csv.stdout
    );

    let status = run(env.cmd(&["auth", "status"]));
    let line = status
        .stdout
        .lines()
        .find(|l| l.starts_with("mirror:"))
        .expect("mirror line");
    assert!(
        line.contains(&path.display().to_string())
            && line.contains("MB")
            && line.contains("1620 records"),
        "{line}"
    );
}

#[test]
fn search_before_any_sync_says_what_to_do() {
    let env = Env::new();
    let out = run(env.cmd(&["search", "anna"])).code(1);
    assert!(
        out.error_line().contains("run `crmdash sync` first"),
        "{}",
        out.stderr
    );
    let out = run(env.cmd(&["search", "  "])).code(2);
    out.error_line();
}

#[test]
fn cache_clear_and_logout_delete_the_mirror() {
    let env = Env::new();
    run(env.cmd(&["sync", "projects"])).code(0);
    assert!(!mirror_files(&env).is_empty());
    let out = run(env.cmd(&["cache", "clear"])).code(0);
    assert!(
        out.stderr
            .contains("Deleted the local mirror of profile 'default'"),
        "{}",
        out.stderr
    );
    assert!(mirror_files(&env).is_empty(), "{:?}", mirror_files(&env));
    let again = run(env.cmd(&["cache", "clear"])).code(0);
    assert!(again.stderr.contains("No local mirror"), "{}", again.stderr);

    // Another profile's mirror is left alone by a clear of this one.
    run(env.cmd(&["sync", "projects", "--profile", "work"])).code(0);
    run(env.cmd(&["sync", "projects"])).code(0);
    run(env.cmd(&["cache", "clear", "--profile", "work"])).code(0);
    let left: Vec<String> = mirror_files(&env)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        !left.is_empty() && left.iter().all(|f| f.starts_with("default@")),
        "{left:?}"
    );

    // Logout deletes it, whatever the keyring says.
    let out = run(env.cmd(&["logout"]).env("CRMDASH_KEYRING", "keyutils"));
    assert!(
        out.stderr
            .contains("Deleted the local mirror of profile 'default'"),
        "{}",
        out.stderr
    );
    assert!(mirror_files(&env).is_empty(), "{:?}", mirror_files(&env));
}

#[test]
fn cache_disabled_keeps_nothing_on_disk_and_says_so() {
    let env = Env::new();
    env.write_config("[cache]\nenabled = false\n");
    for args in [&["sync"][..], &["search", "anna"][..]] {
        let out = run(env.cmd(args)).code(1);
        assert!(out.error_line().contains("turned off"), "{}", out.stderr);
    }
    assert!(!env.dir.path().join("xdg-cache/crmdash").exists());
    assert!(env.requests_to("GET", "").is_empty(), "no request was sent");
    let status = run(env.cmd(&["auth", "status"]));
    assert!(
        status.stdout.contains("mirror:    off"),
        "{}",
        status.stdout
    );
}

#[test]
fn a_sync_killed_mid_way_continues_and_nothing_is_missing_or_doubled() {
    let env = Env::with(SandboxConfig {
        contacts: 6000,
        latency: Some(Duration::from_millis(15)),
        ..SandboxConfig::default()
    });
    let mut child = spawn(&env.cmd(&["sync", "contacts"]));
    // Wait until the full pass is well under way, then kill -9.
    let started = Instant::now();
    while env
        .requests_to("GET", "contacts")
        .iter()
        .filter(|r| {
            r.query
                .as_deref()
                .is_some_and(|q| q.contains("sort_by=created_at"))
        })
        .count()
        < 15
    {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the sync never got going"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the sync ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    let before = env.requests_to("GET", "contacts").len();

    let out = run(env.cmd(&["sync", "contacts"])).code(0);
    assert!(
        out.stdout.contains("full (resumed) + incremental"),
        "{}",
        out.stdout
    );
    let resumed: Vec<String> = env.requests_to("GET", "contacts")[before..]
        .iter()
        .filter_map(|r| r.query.clone())
        .collect();
    assert!(
        !resumed[0].contains("page=1&"),
        "continued, not restarted: {}",
        resumed[0]
    );

    let m = Mirror::open(&location(&env).db_path()).unwrap().mirror;
    let server = mirror_support::ServerView::new(&env.sb.base_url(), &env.sb.token())
        .records(Resource::Contacts);
    assert_eq!(server.len(), 6000);
    assert_same(&server, &mirror_records(&m, Resource::Contacts), "contacts");
}

#[test]
fn deals_summary_from_the_mirror_equals_the_one_from_the_service_without_a_request() {
    let env = Env::new();
    // No mirror yet: a clear error, not an empty summary.
    let out = run(env.cmd(&["deals", "summary", "--source", "mirror"])).code(10);
    assert!(out.stderr.contains("crmdash sync"), "{}", out.stderr);
    run(env.cmd(&["sync", "deals"])).code(0);
    for by in ["status", "currency", "month"] {
        let api = run(env.cmd(&["deals", "summary", "--by", by, "--format", "json"]))
            .code(0)
            .json();
        let before = env.requests_to("GET", "deals").len();
        let mirror = run(env.cmd(&[
            "deals", "summary", "--by", by, "--format", "json", "--source", "mirror",
        ]))
        .code(0)
        .json();
        assert_eq!(env.requests_to("GET", "deals").len(), before, "no request");
        assert_eq!(mirror["rows"], api["rows"], "--by {by}");
        assert_eq!(mirror["deals"], api["deals"]);
        assert_eq!(mirror["source"], "mirror");
        assert_eq!(api["source"], "api");
        assert!(mirror["synced_at"].is_string());
    }
    // Filters apply to the mirror's copy as to the service.
    let api = run(env.cmd(&["deals", "summary", "--status", "won", "--format", "json"]))
        .code(0)
        .json();
    let mirror = run(env.cmd(&[
        "deals", "summary", "--status", "won", "--format", "json", "--source", "mirror",
    ]))
    .code(0)
    .json();
    assert_eq!(mirror["rows"], api["rows"]);
    let table = run(env.cmd(&[
        "deals", "summary", "--format", "table", "--source", "mirror",
    ]))
    .code(0);
    assert!(
        table.stdout.contains("from the local mirror, synced"),
        "{}",
        table.stdout
    );
}
