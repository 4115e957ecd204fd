//! `crmdash changes` byte for byte: every format, read in both orders (by sequence, and by time
//! within a window), on a fixed mirror whose changes cover what the printers treat apart
//! (plain and escaped strings, nested values, numbers serde_json would write otherwise,
//! created/gone/back, damaged text, a currency change, amounts, long lines, odd ids, times
//! before 1970 and after 9999, a clock that went back). The expected files were written by
//! the build before the feed's reads were reworked for speed (issue 31); any difference is a
//! change of output. `CRMDASH_GOLDEN_WRITE=1` writes the files again (then review the diff).

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};

use crate::cli_support::Env;
use crmdash::api::{ApiRecord, Contact, Deal, Project};
use crmdash::mirror::{Mirror, MirrorLocation, SyncState};
use serde_json::{Value, json};

/// The mirror's location key: any URL, nothing is fetched.
const BASE_URL: &str = "http://127.0.0.1:9";

fn typed<T: ApiRecord>(v: Value) -> T {
    T::from_raw(serde_json::value::RawValue::from_string(v.to_string()).unwrap()).unwrap()
}

/// `(at, resource code, id, kind code, fields)`, stored in this order (seq 1, 2, ...).
/// Codes: contacts 0, deals 1, projects 2; created 0, updated 1, gone 2, back 3.
fn stored() -> Vec<(i64, i64, &'static str, i64, Option<&'static str>)> {
    let day = 86_400;
    let t0 = 1_795_514_520; // 2026-11-24T10:02:00Z
    vec![
        (
            t0,
            1,
            "deal_g1",
            1,
            Some(r#"[["status","open","won"],["value","12000.00","13500.50"]]"#),
        ),
        (t0 + 60, 0, "con_g1", 0, None),
        (
            t0 + 61,
            0,
            "con_g1",
            1,
            Some(r#"[["first_name","A\"b","Zoë"],["note","line\nbreak","tab\there"]]"#),
        ),
        // The clock went back: seen earlier than the change stored before it.
        (
            t0 - day,
            1,
            "deal_g1",
            1,
            Some(r#"[["tags",["x"],["x","y"]],["address",{"b":1,"a":[2,{"c":null}]},null]]"#),
        ),
        (
            t0 + 120,
            1,
            "deal_g2",
            1,
            Some(
                r#"[["probability",10,-0.5],["score",1e3,123456789012345678901],["flag",true,false],["big",-7,0],["exp",1.5E+2,-0]]"#,
            ),
        ),
        (t0 + 180, 2, "prj_g1", 2, None),
        (
            t0 + 181,
            2,
            "prj_g1",
            3,
            Some(r#"[["status","cancelled","active"],["budget","5000","7500.25"]]"#),
        ),
        (t0 + 240, 1, "deal_g2", 1, Some(r#"[["status","open""#)),
        (t0 + 241, 0, "odd\"id\n", 1, Some(r#"[["name","x","y"]]"#)),
        (
            t0 + 300,
            1,
            "deal_g1",
            1,
            Some(r#"[["currency","EUR","USD"],["value","100","200"]]"#),
        ),
        (
            t0 + 301,
            0,
            "con_g2",
            1,
            Some(
                r#"[["notes","A long note that goes on and on about the customer's wishes for the next quarter","Shorter"],["job_title","","Head of Sales"],["phone",null,"+49 30 1234567"]]"#,
            ),
        ),
        (t0 + 302, 0, "con_g2", 1, Some(r#"[["na\u006de","A","B"]]"#)),
        (
            t0 + 303,
            0,
            "con_g2",
            1,
            Some(
                r#"[["a","1","2"],["b","1","2"],["c","1","2"],["d","1","2"],["e","1","2"],["f","1","2"],["g","1","2"],["h","1","2"],["i","1","2"]]"#,
            ),
        ),
        (t0 + 304, 1, "deal_g1", 1, Some("[]")),
        (t0 + 305, 1, "deal_g1", 1, Some(r#"[[1,"a","b"]]"#)),
        (
            -day,
            2,
            "prj_g1",
            1,
            Some(r#"[["name","Roll-out","Roll-out 2"]]"#),
        ),
        // From here on each change is seen at or after every change before it.
        (t0 + 2 * day, 0, "con_g1", 2, None),
        (
            t0 + 2 * day,
            1,
            "deal_g2",
            1,
            Some(r#"[["value",null,"99.9"],["status","lost","open"]]"#),
        ),
        (
            t0 + 3 * day,
            1,
            "deal_g1",
            1,
            Some(r#"[["status","won","lost"],["value","200","0.5"]]"#),
        ),
        (t0 + 3 * day + 1, 0, "con_g2", 0, None),
        (
            t0 + 3 * day + 2,
            0,
            "con_g1",
            3,
            Some(r#"[["email",null,"z@example.com"]]"#),
        ),
        (
            253_402_300_800,
            1,
            "deal_g2",
            1,
            Some(r#"[["status","won","lost"]]"#),
        ),
    ]
}

/// The fixed mirror: three records to name (one with a currency, names wider than the
/// table's name column and not ASCII) and the changes above.
fn fixed_mirror(db: &Path) {
    let mut m = Mirror::open(db).expect("mirror").mirror;
    let s = SyncState::default();
    let contacts: Vec<Contact> = vec![
        typed(json!({"id": "con_g1", "first_name": "Zoë", "last_name": "Ångström"})),
        typed(json!({"id": "con_g2", "full_name": "Ma Lin 林", "email": "ma@example.com"})),
    ];
    m.apply_page(&contacts, None, &s).unwrap();
    let deals: Vec<Deal> = vec![
        typed(
            json!({"id": "deal_g1", "name": "A deal whose name is longer than thirty columns",
            "status": "won", "value": "13500.50", "currency": "EUR"}),
        ),
        typed(json!({"id": "deal_g2", "name": "Small", "status": "open", "value": "99.9"})),
    ];
    m.apply_page(&deals, None, &s).unwrap();
    let projects: Vec<Project> = vec![typed(json!({"id": "prj_g1", "name": "Roll-out 2",
        "status": "active"}))];
    m.apply_page(&projects, None, &s).unwrap();
    drop(m);
    let conn = rusqlite::Connection::open(db).unwrap();
    for (i, (at, r, id, kind, fields)) in stored().into_iter().enumerate() {
        conn.execute(
            "INSERT INTO changes (seq, at, resource, id, kind, fields) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![i as i64 + 1, at, r, id, kind, fields],
        )
        .unwrap();
    }
}

/// Each case: its file's name and the arguments after `changes`.
const CASES: &[(&str, &[&str])] = &[
    ("all.jsonl", &["--format", "jsonl"]),
    ("all.json", &["--format", "json"]),
    ("all.csv", &["--format", "csv"]),
    ("all.table", &["--format", "table"]),
    (
        "window.jsonl",
        &["--since", "2026-11-23T00:00:00Z", "--format", "jsonl"],
    ),
    (
        "window.json",
        &["--since", "2026-11-23T00:00:00Z", "--format", "json"],
    ),
    (
        "window.csv",
        &["--since", "2026-11-23T00:00:00Z", "--format", "csv"],
    ),
    (
        "window.table",
        &["--since", "2026-11-23T00:00:00Z", "--format", "table"],
    ),
    (
        "since-1900.jsonl",
        &["--since", "1900-01-01T00:00:00Z", "--format", "jsonl"],
    ),
    (
        "deals-status.jsonl",
        &[
            "--since",
            "2026-11-01T00:00:00Z",
            "--type",
            "deals",
            "--field",
            "status",
            "--format",
            "jsonl",
        ],
    ),
    ("record.table", &["--id", "deal_g1", "--format", "table"]),
    (
        "kinds.csv",
        &[
            "--kind", "created", "--kind", "gone", "--kind", "back", "--format", "csv",
        ],
    ),
    (
        "late.jsonl",
        &["--since", "2026-11-25T00:00:00Z", "--format", "jsonl"],
    ),
    (
        "late.json",
        &["--since", "2026-11-25T00:00:00Z", "--format", "json"],
    ),
    (
        "late.csv",
        &["--since", "2026-11-25T00:00:00Z", "--format", "csv"],
    ),
    (
        "late.table",
        &["--since", "2026-11-25T00:00:00Z", "--format", "table"],
    ),
    (
        "late-deals.jsonl",
        &[
            "--since",
            "2026-11-26T12:00:00Z",
            "--type",
            "deals",
            "--field",
            "status",
            "--format",
            "jsonl",
        ],
    ),
    ("empty.table", &["--id", "con_none", "--format", "table"]),
    ("empty.json", &["--id", "con_none", "--format", "json"]),
];

fn expected_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mirror/data/changes_golden")
}

#[test]
fn changes_prints_every_format_byte_for_byte_as_before() {
    let env = Env::new();
    let cache = env.dir.path().join("xdg-cache/crmdash/mirror");
    let db = MirrorLocation::new(cache, "default", BASE_URL).db_path();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    fixed_mirror(&db);
    let write = std::env::var_os("CRMDASH_GOLDEN_WRITE").is_some();
    let mut differ = Vec::new();
    for (name, args) in CASES {
        let mut cmd = env.bare_std();
        cmd.env("CRMDASH_TOKEN", "unused")
            .env("COLUMNS", "100")
            .args(["--base-url", BASE_URL, "changes"])
            .args(*args);
        // No controlling terminal: the table's width is COLUMNS, wherever the tests run.
        // SAFETY: setsid is async-signal-safe and touches nothing of this process.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let out = cmd.output().expect("crmdash runs");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = expected_dir().join(name);
        if write {
            std::fs::create_dir_all(expected_dir()).unwrap();
            std::fs::write(&path, &out.stdout).unwrap();
            continue;
        }
        let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if out.stdout != want {
            differ.push(format!(
                "{name}:\n--- expected\n{}\n--- got\n{}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&out.stdout)
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
