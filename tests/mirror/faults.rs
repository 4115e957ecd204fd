//! The mirror's files under faults (issue 28), through the real binary: a cache folder shared
//! with other programs' files, damaged mirrors (truncated, text, bit-flipped) under `search`
//! and `sync`, search while the first sync creates the mirror, a sync stopped by a signal,
//! private masked logs, and contacts created by the CLI found at once.

use crate::cli_support;
use crate::damage::{Damage, damage};
use crate::mirror_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cli_support::{Env, run};
use crmdash::mirror::MirrorLocation;
use crmdash::sandbox::SandboxConfig;
use mirror_support::file_mode;

fn location(env: &Env) -> MirrorLocation {
    MirrorLocation::new(
        env.dir.path().join("xdg-cache/crmdash/mirror"),
        "default",
        &env.sb.base_url(),
    )
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[cfg(unix)]
fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_cache_folder_shared_with_other_programs_keeps_their_files_and_its_mode() {
    let env = Env::new();
    let shared = env.dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    set_mode(&shared, 0o755);
    std::fs::write(shared.join("budget.sqlite3"), b"another program's database").unwrap();
    std::fs::write(shared.join("photos.sqlite3.bak"), b"a backup").unwrap();
    // A real SQLite file of another program, even under a name of crmdash's scheme.
    let lookalike = shared.join("notes@0123456789ab.sqlite3");
    {
        let c = rusqlite::Connection::open(&lookalike).unwrap();
        c.execute_batch("PRAGMA application_id = 4242; CREATE TABLE t (x);")
            .unwrap();
    }
    // ...and one with no application id at all, with its journal and a lock beside it.
    let unmarked = shared.join("work@0123456789ab.sqlite3");
    {
        let c = rusqlite::Connection::open(&unmarked).unwrap();
        c.execute_batch("CREATE TABLE t (x);").unwrap();
    }
    std::fs::write(shared.join("work@0123456789ab.sqlite3-journal"), b"j").unwrap();
    std::fs::write(shared.join("work@0123456789ab.sqlite3.lock"), b"").unwrap();
    env.write_config(&format!("[cache]\ndir = \"{}\"\n", shared.display()));

    run(env.cmd(&["sync", "projects"])).code(0);
    assert_eq!(
        file_mode(&shared),
        0o755,
        "a folder crmdash did not create keeps its mode"
    );
    let ours = location_in(&env, &shared).db_path();
    assert_eq!(file_mode(&ours), 0o600);

    let out = run(env.cmd(&["cache", "clear", "--all"])).code(0);
    assert!(
        out.stderr
            .contains("Deleted the local mirror of every profile")
            && out.stderr.contains("default@")
            && out.stderr.contains("Left alone: 6 other file(s)"),
        "{}",
        out.stderr
    );
    assert_eq!(
        names(&shared),
        [
            "budget.sqlite3",
            "notes@0123456789ab.sqlite3",
            "photos.sqlite3.bak",
            "work@0123456789ab.sqlite3",
            "work@0123456789ab.sqlite3-journal",
            "work@0123456789ab.sqlite3.lock",
        ]
    );
    assert_eq!(file_mode(&shared), 0o755);
}

fn location_in(env: &Env, root: &Path) -> MirrorLocation {
    MirrorLocation::new(root.to_path_buf(), "default", &env.sb.base_url())
}

fn corrupt_copies(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.contains(".corrupt-"))
        .collect()
}

#[test]
fn a_damaged_mirror_is_said_by_search_and_rebuilt_by_sync() {
    for how in [Damage::Truncated, Damage::Text, Damage::BitFlipped] {
        let env = Env::new();
        run(env.cmd(&["sync"])).code(0);
        let path = location(&env).db_path();
        let dir = path.parent().unwrap().to_path_buf();
        damage(&path, how);
        let damaged = std::fs::read(&path).unwrap();
        let listing = names(&dir);

        // A read says so, with the way out and its own exit code, and touches nothing.
        for args in [
            &["search", "muller"][..],
            &["deals", "summary", "--source", "mirror"],
        ] {
            let out = run(env.cmd(args)).code(7);
            assert!(
                out.error_line().contains("is damaged")
                    && out.error_line().contains("run `crmdash sync`"),
                "{how:?} {args:?}: {}",
                out.stderr
            );
        }
        assert_eq!(std::fs::read(&path).unwrap(), damaged, "{how:?}: not moved");
        assert_eq!(names(&dir), listing, "{how:?}: a read writes no file");
        assert!(
            corrupt_copies(&dir).is_empty(),
            "{how:?}: {:?}",
            names(&dir)
        );

        // A sync moves it aside, says so, and rebuilds it.
        let out = run(env.cmd(&["sync"])).code(0);
        assert!(
            out.stderr.contains("moved to") && out.stderr.contains("rebuilt"),
            "{how:?}: {}",
            out.stderr
        );
        assert_eq!(corrupt_copies(&dir).len(), 1, "{how:?}: {:?}", names(&dir));
        let found = run(env.cmd(&["search", "muller", "--format", "json"]))
            .code(0)
            .json();
        assert!(
            !found["groups"][0]["hits"].as_array().unwrap().is_empty(),
            "{how:?}: rebuilt and searchable"
        );
    }
}

#[test]
fn a_sync_checks_a_file_damaged_where_it_does_not_read() {
    let env = Env::new();
    run(env.cmd(&["sync"])).code(0);
    let path = location(&env).db_path();
    // The last check long ago, and damage in an index no incremental sync reads.
    let index_page: i64 = {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "UPDATE meta SET value = '2000-01-01T00:00:00Z' WHERE key = 'checked_at'",
            [],
        )
        .unwrap();
        c.query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = 'deals_by_value_num'",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    let mut bytes = std::fs::read(&path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    bytes[(index_page as usize - 1) * page] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();

    let out = run(env.cmd(&["sync"])).code(0);
    assert!(
        out.stderr.contains("moved to") && out.stderr.contains("rebuilt"),
        "the check found it: {}",
        out.stderr
    );
    // Checked now: the next sync does not check (nor rebuild) again.
    let out = run(env.cmd(&["sync"])).code(0);
    assert!(!out.stderr.contains("rebuilt"), "{}", out.stderr);
}

#[test]
fn search_while_the_first_sync_creates_the_mirror_waits_or_sees_none() {
    let env = Env::with(SandboxConfig {
        contacts: 3000,
        latency: Some(Duration::from_millis(20)),
        ..SandboxConfig::default()
    });
    let mut sync = cli_support_spawn(&env, &["sync"]);
    let started = Instant::now();
    // Searching starts once the sync has asked for its first page (the mirror is being made
    // then), so the loop below always runs while the sync is under way.
    while env.requests_to("GET", "contacts").is_empty() {
        assert!(sync.try_wait().unwrap().is_none(), "ended before a page");
        assert!(started.elapsed() < Duration::from_secs(120), "got going");
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut searches = 0;
    while sync.try_wait().unwrap().is_none() {
        let out = run(env.cmd(&["search", "muller"]));
        searches += 1;
        assert!(
            !out.stderr.contains("already exists") && !out.stderr.contains("damaged"),
            "search {searches}: {}",
            out.stderr
        );
        match out.code {
            0 => {}
            1 => assert!(
                out.stderr.contains("run `crmdash sync` first"),
                "{}",
                out.stderr
            ),
            other => panic!("search {searches} exited {other}: {}", out.stderr),
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the sync ends"
        );
    }
    assert!(sync.wait().unwrap().success());
    assert!(searches > 0);
    assert!(
        !names(location(&env).db_path().parent().unwrap())
            .iter()
            .any(|n| n.contains(".creating-")),
        "no half-made file left"
    );
}

/// `crmdash ARGS` in the background, its output discarded.
fn cli_support_spawn(env: &Env, args: &[&str]) -> std::process::Child {
    let mut c = env.bare_std();
    c.env("CRMDASH_TOKEN", env.sb.token())
        .arg("--base-url")
        .arg(env.sb.base_url())
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    c.spawn().unwrap()
}

#[test]
fn a_sync_stopped_by_a_signal_says_that_running_it_again_continues() {
    for (sig, code, name) in [
        (libc::SIGINT, 130, "SIGINT"),
        (libc::SIGTERM, 143, "SIGTERM"),
    ] {
        let env = Env::with(SandboxConfig {
            contacts: 3000,
            latency: Some(Duration::from_millis(15)),
            ..SandboxConfig::default()
        });
        let mut child = cli_support_spawn(&env, &["sync", "contacts"]);
        let started = Instant::now();
        while env.requests_to("GET", "contacts").len() < 4 {
            assert!(
                child.try_wait().unwrap().is_none(),
                "ended before the signal"
            );
            assert!(started.elapsed() < Duration::from_secs(120), "got going");
            std::thread::sleep(Duration::from_millis(5));
        }
        unsafe { libc::kill(child.id() as i32, sig) };
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("sync stopped by {name}"))
                && stderr.contains("run `crmdash sync` again to continue"),
            "{stderr}"
        );
        let again = run(env.cmd(&["sync", "contacts"])).code(0);
        assert!(again.stdout.contains("full (resumed)"), "{}", again.stdout);
    }
}

#[test]
fn logs_are_private_and_mask_personal_query_values_at_every_level() {
    let env = Env::new();
    let state = env.dir.path().join("xdg-state/crmdash");
    std::fs::create_dir_all(&state).unwrap();
    set_mode(&state, 0o755);
    for level in ["debug", "trace", "info"] {
        run(env
            .cmd(&["contacts", "list", "--email", "ada.lovelace@example.com"])
            .env("CRMDASH_LOG", level))
        .code(0);
    }
    let logs: Vec<PathBuf> = std::fs::read_dir(&state)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(file_mode(&logs[0]), 0o600);
    assert_eq!(file_mode(&state), 0o700);
    let text = std::fs::read_to_string(&logs[0]).unwrap();
    assert!(text.contains("email=***"), "{text}");
    assert!(!text.contains("ada.lovelace"), "{text}");
    assert!(!text.contains("example.com"), "{text}");
}

#[test]
fn a_contact_created_by_the_cli_is_found_by_search_before_the_next_sync() {
    let env = Env::new();
    run(env.cmd(&["sync", "contacts"])).code(0);
    run(env.cmd(&[
        "contacts",
        "create",
        "--first-name",
        "Zebulon",
        "--last-name",
        "Quartermaine",
        "--email",
        "zq@example.org",
    ]))
    .code(0);
    let found = run(env.cmd(&["search", "quartermaine", "--format", "json"]))
        .code(0)
        .json();
    let hits = found["groups"][0]["hits"].as_array().unwrap();
    assert!(
        hits.iter()
            .any(|h| h["label"].as_str().unwrap().contains("Zebulon")),
        "{found}"
    );
}

#[test]
fn a_demo_keeps_no_mirror_after_it_ends() {
    let env = Env::new();
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = run(env
        .bare()
        .env("TMPDIR", &tmp)
        .args(["--demo", "sync", "projects"]))
    .code(0);
    assert!(out.stdout.contains("crmdash-demo-"), "{}", out.stdout);
    assert!(names(&tmp).is_empty(), "thrown away: {:?}", names(&tmp));
    assert!(
        !env.dir.path().join("xdg-cache/crmdash/mirror").exists(),
        "nothing in the real cache"
    );
    let out = run(env
        .bare()
        .env("TMPDIR", &tmp)
        .args(["--demo", "search", "muller"]))
    .code(1);
    assert!(out.stderr.contains("--demo"), "{}", out.stderr);
}
