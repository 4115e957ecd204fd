//! `contacts|deals|projects list --source mirror` through the real binary against the sandbox
//! over HTTP: stdout byte for byte what `--source api` prints (every format, one page and
//! `--all`, filters, sorts, includes, columns, `--jq`), no request, the provenance line on
//! stderr, exit 10 without a complete copy, and a filter the mirror cannot answer refused.

use crate::cli_support;

use cli_support::{Env, run};
use crmdash::api::{ApiRecord, Contact};
use crmdash::mirror::{FullPass, Mirror, MirrorLocation, Resource};
use serde_json::Value;

fn location(env: &Env) -> MirrorLocation {
    MirrorLocation::new(
        env.dir.path().join("xdg-cache/crmdash/mirror"),
        "default",
        &env.sb.base_url(),
    )
}

/// A contact's `created_at` as the service sends it, from the middle of the default order.
fn middle_created_at(env: &Env) -> String {
    let page = run(env.cmd(&[
        "contacts",
        "list",
        "--page",
        "5",
        "--per-page",
        "100",
        "--format",
        "json",
    ]))
    .code(0)
    .json();
    page[50]["created_at"].as_str().unwrap().to_string()
}

/// Runs `args` from the service and from the mirror: the same stdout, no request for the
/// mirror's, which says where its records came from.
fn same_from_both(env: &Env, noun: &str, args: &[&str]) {
    let mut api_args = vec![noun, "list"];
    api_args.extend(args);
    let api = run(env.cmd(&api_args)).code(0);
    let before = env.requests_to("GET", noun).len();
    let mut mirror_args = api_args.clone();
    mirror_args.extend(["--source", "mirror"]);
    let mirror = run(env.cmd(&mirror_args)).code(0);
    assert_eq!(
        env.requests_to("GET", noun).len(),
        before,
        "{noun} {args:?}: no request"
    );
    assert!(!api.stdout.is_empty(), "{noun} {args:?}: something listed");
    assert!(
        mirror.stdout == api.stdout,
        "{noun} {args:?}: stdout differs\n--- api ({} bytes)\n{}\n--- mirror ({} bytes)\n{}",
        api.stdout.len(),
        &api.stdout[..api.stdout.len().min(1500)],
        mirror.stdout.len(),
        &mirror.stdout[..mirror.stdout.len().min(1500)],
    );
    let line = mirror.stderr.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("from the mirror of profile default, synced ") && line.ends_with(')'),
        "{noun} {args:?}: {}",
        mirror.stderr
    );
}

#[test]
fn lists_from_the_mirror_print_what_the_service_sends_byte_for_byte() {
    let env = Env::new();
    run(env.cmd(&["sync"])).code(0);
    let t = middle_created_at(&env);
    let contacts: &[&[&str]] = &[
        &[],
        &["--format", "json", "--per-page", "30", "--page", "3"],
        &["--all", "--format", "jsonl"],
        &["--all", "--format", "json"],
        &["--all", "--format", "csv"],
        &[
            "--sort-by",
            "last_name",
            "--sort-direction",
            "desc",
            "--all",
            "--format",
            "csv",
            "--columns",
            "id,email,updated,last_name",
        ],
        &[
            "--include",
            "accounts",
            "--sort-by",
            "email",
            "--all",
            "--format",
            "json",
        ],
        &[
            "--include",
            "assigned_user,accounts",
            "--per-page",
            "100",
            "--page",
            "2",
            "--format",
            "csv",
        ],
        &[
            "--full-name",
            "an",
            "--sort-by",
            "first_name",
            "--all",
            "--format",
            "jsonl",
        ],
        &[
            "--created-after",
            &t,
            "--sort-by",
            "updated_at",
            "--all",
            "--format",
            "jsonl",
        ],
        &["--updated-after", "2024-06-01", "--all", "--format", "csv"],
        &["--all", "--jq", ".[] | .id"],
        &[
            "--per-page",
            "7",
            "--page",
            "9",
            "--template",
            "{% for c in records %}{{ c.id }} {% endfor %}",
        ],
    ];
    for args in contacts {
        same_from_both(&env, "contacts", args);
    }
    let deals: &[&[&str]] = &[
        &["--all", "--format", "jsonl"],
        &[
            "--status",
            "won",
            "--sort-by",
            "value",
            "--sort-direction",
            "desc",
            "--all",
            "--format",
            "json",
        ],
        &["--include", "account,contacts", "--all", "--format", "csv"],
        &[
            "--name",
            "a",
            "--sort-by",
            "name",
            "--format",
            "json",
            "--per-page",
            "100",
        ],
        &["--sort-by", "status", "--all", "--format", "csv"],
    ];
    for args in deals {
        same_from_both(&env, "deals", args);
    }
    let projects: &[&[&str]] = &[
        &["--sort-by", "end_date", "--all", "--format", "jsonl"],
        &[
            "--include",
            "owner,members",
            "--sort-by",
            "start_date",
            "--sort-direction",
            "desc",
            "--all",
            "--format",
            "csv",
        ],
        &["--status", "active", "--format", "json"],
        &["--include", "members", "--all", "--format", "json"],
    ];
    for args in projects {
        same_from_both(&env, "projects", args);
    }
}

#[test]
fn without_a_complete_copy_the_mirror_refuses_with_exit_10() {
    let env = Env::new();
    let out = run(env.cmd(&["contacts", "list", "--source", "mirror"])).code(10);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.contains("no local mirror for profile 'default'")
            && out.stderr.contains("crmdash sync")
            && out.stderr.contains("--source api"),
        "{}",
        out.stderr
    );
    run(env.cmd(&["deals", "summary", "--source", "mirror"])).code(10);
    // Deals synced, contacts never: the deals list, not the contacts one.
    run(env.cmd(&["sync", "deals"])).code(0);
    run(env.cmd(&[
        "deals", "list", "--source", "mirror", "--all", "--format", "jsonl",
    ]))
    .code(0);
    let out = run(env.cmd(&["contacts", "list", "--source", "mirror", "--all"])).code(10);
    assert!(
        out.stdout.is_empty(),
        "never a partial list: {}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("has no complete copy of the contacts: run `crmdash sync contacts`"),
        "{}",
        out.stderr
    );
    // A sync stopped half way: its resource is not complete any more.
    let m = Mirror::open(&location(&env).db_path()).unwrap().mirror;
    let mut state = m.sync_state(Resource::Deals).unwrap();
    state.pass = Some(FullPass {
        generation: state.generation + 1,
        chain: None,
        start_mark: None,
        fetched: 100,
        requests: 1,
        deferred: false,
    });
    m.set_sync_state(Resource::Deals, &state).unwrap();
    let out = run(env.cmd(&["deals", "list", "--source", "mirror"])).code(10);
    assert!(out.stderr.contains("only part of a sync"), "{}", out.stderr);
}

#[test]
fn a_time_filter_the_mirror_cannot_answer_exactly_is_refused() {
    let env = Env::new();
    run(env.cmd(&["sync", "contacts"])).code(0);
    // One stored contact whose creation time the mirror cannot read.
    let mut m = Mirror::open(&location(&env).db_path()).unwrap().mirror;
    let raw = m.raw(Resource::Contacts, "con_000003").unwrap().unwrap();
    let mut v: Value = serde_json::from_str(&raw).unwrap();
    v["created_at"] = Value::from("last spring");
    let odd = Contact::from_raw(serde_json::value::to_raw_value(&v).unwrap()).unwrap();
    let state = m.sync_state(Resource::Contacts).unwrap();
    m.apply_page(&[odd], None, &state).unwrap();
    drop(m);
    let out = run(env.cmd(&[
        "contacts",
        "list",
        "--source",
        "mirror",
        "--created-after",
        "2024-01-01",
    ]))
    .code(5);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("--created-after cannot be answered exactly from the mirror")
            && out
                .stderr
                .contains("1 of its contacts have no readable created_at")
            && out.stderr.contains("--source api"),
        "{}",
        out.stderr
    );
    // The other filters, and the list without one, are answered.
    run(env.cmd(&[
        "contacts",
        "list",
        "--source",
        "mirror",
        "--updated-after",
        "2024-01-01",
    ]))
    .code(0);
    let all = run(env.cmd(&[
        "contacts", "list", "--source", "mirror", "--all", "--format", "jsonl",
    ]))
    .code(0);
    assert_eq!(all.stdout.lines().count(), 1000);
}
