//! `crmdash deals|contacts|projects list --view NAME`: a saved view (views.toml beside the
//! config file) fills in what the options leave out; a bad view is a usage error (exit 2)
//! that says what is wrong.

use crate::cli_support;

use cli_support::{Env, run};

const VIEWS: &str = r#"# written by hand
[views.open-big]
resource = "deals"
filters = { status = "open" }
sort = "-value"
include = ["account"]
per_page = 10

[views.adas]
resource = "contacts"
filters = { full_name = "Ada" }
sort = "email"

[views.active]
resource = "projects"
filters = { status = "active" }

[views.typo]
resource = "deals"
filters = { stauts = "open" }

[views.bad-sort]
resource = "deals"
sort = "-amount"

[views.unreadable]
resource = "deals"
sortt = "x"
"#;

fn env() -> Env {
    let env = Env::new();
    std::fs::write(env.dir.path().join("views.toml"), VIEWS).unwrap();
    env
}

fn query_of(env: &Env, path: &str) -> String {
    env.requests_to("GET", path)
        .last()
        .and_then(|r| r.query.clone())
        .unwrap_or_default()
}

#[test]
fn a_view_fills_the_query() {
    let env = env();
    let out = run(env.cmd(&["deals", "list", "--view", "open-big", "--format", "json"])).code(0);
    let q = query_of(&env, "deals");
    for part in [
        "status=open",
        "sort_by=value",
        "sort_direction=desc",
        "include=account",
        "per_page=10",
    ] {
        assert!(q.contains(part), "{part} missing from {q}");
    }
    let rows = out.json();
    let rows = rows.as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= 10);
    assert!(rows.iter().all(|r| r["status"] == "open"), "{rows:?}");

    // Options given win over the view.
    run(env.cmd(&[
        "deals",
        "list",
        "--view",
        "open-big",
        "--status",
        "won",
        "--per-page",
        "5",
    ]))
    .code(0);
    let q = query_of(&env, "deals");
    assert!(q.contains("status=won") && q.contains("per_page=5"), "{q}");
    assert!(q.contains("sort_by=value"), "{q}");

    run(env.cmd(&["contacts", "list", "--view", "adas"])).code(0);
    let q = query_of(&env, "contacts");
    assert!(
        q.contains("full_name=Ada") && q.contains("sort_by=email"),
        "{q}"
    );
    run(env.cmd(&["projects", "list", "--view", "active"])).code(0);
    assert!(query_of(&env, "projects").contains("status=active"));
}

#[test]
fn a_bad_view_is_a_usage_error_that_says_why() {
    let env = env();
    let cases = [
        (
            vec!["deals", "list", "--view", "typo"],
            "view 'typo': deals have no filter 'stauts': use name, status",
        ),
        (
            vec!["deals", "list", "--view", "bad-sort"],
            "view 'bad-sort': deals cannot sort by 'amount': use created_at, updated_at, name, status, value",
        ),
        (
            vec!["deals", "list", "--view", "unreadable"],
            "view 'unreadable': unknown field `sortt`",
        ),
        (
            vec!["contacts", "list", "--view", "open-big"],
            "view 'open-big' lists deals: run `crmdash deals list --view open-big`",
        ),
        (
            vec!["deals", "list", "--view", "nope"],
            "--view nope: no such view in",
        ),
    ];
    for (args, says) in cases {
        let out = run(env.cmd(&args)).code(2);
        let line = out.error_line();
        assert!(line.contains(says), "{args:?}: {line}");
    }
    assert!(
        env.requests_to("GET", "deals").is_empty(),
        "nothing is sent"
    );
}

#[test]
fn a_broken_views_file_names_its_line() {
    let env = Env::new();
    std::fs::write(
        env.dir.path().join("views.toml"),
        "[views.x\nresource = 1\n",
    )
    .unwrap();
    let out = run(env.cmd(&["deals", "list", "--view", "x"])).code(2);
    let line = out.error_line();
    assert!(line.contains("views.toml, line 1"), "{line}");
}
