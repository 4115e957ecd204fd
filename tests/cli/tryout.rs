//! Problems met trying the CLI's saved views as a new user would.

use crate::cli_support;

use cli_support::{Env, run};

/// A view saved with `:columns` in the dashboard: `--view` ignored its columns, and the
/// dashboard's names (`assignee`, `updated`) given to `--columns` were empty columns. csv and
/// table now use the view's columns under their CSV names; json prints whole records.
#[test]
fn a_views_columns_shape_csv_and_table() {
    let env = Env::new();
    std::fs::write(
        env.dir.path().join("views.toml"),
        r#"[views.mine]
resource = "deals"
sort = "-value"
include = ["assigned_user"]
columns = ["name", "value", "assignee", "updated"]

[views.people]
resource = "contacts"
columns = ["name", "email"]
"#,
    )
    .unwrap();
    let out = run(env.cmd(&[
        "deals", "list", "--view", "mine", "--per-page", "3", "--format", "csv",
    ]))
    .code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "name,value,assigned_user,updated_at");
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    for l in &lines[1..] {
        // Every cell filled: the assignee was included, every deal has updated_at.
        assert!(!l.ends_with(','), "{l}");
        assert!(l.contains('T'), "{l}");
    }
    // --columns wins over the view's.
    let out = run(env.cmd(&[
        "deals", "list", "--view", "mine", "--per-page", "1", "--format", "csv", "--columns",
        "id",
    ]))
    .code(0);
    assert_eq!(out.stdout.lines().next(), Some("id"));
    // json prints whole records, as without a view.
    let out = run(env.cmd(&[
        "deals", "list", "--view", "mine", "--per-page", "1", "--format", "json",
    ]))
    .code(0);
    assert!(out.stdout.contains("\"created_at\""), "{}", out.stdout);
    // A contact's Name is its first and last name.
    let out = run(env.cmd(&[
        "contacts", "list", "--view", "people", "--per-page", "1", "--format", "csv",
    ]))
    .code(0);
    assert_eq!(out.stdout.lines().next(), Some("first_name,last_name,email"));
}

/// The table's headers say ASSIGNEE and UPDATED, but `--columns name,assignee,updated` gave
/// two empty columns (no record field has those names); they stand for the CSV columns now.
#[test]
fn table_headers_name_their_csv_columns() {
    let env = Env::new();
    let out = run(env.cmd(&[
        "deals",
        "list",
        "--per-page",
        "2",
        "--include",
        "assigned_user",
        "--format",
        "csv",
        "--columns",
        "name,assignee,updated,created",
    ]))
    .code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "name,assigned_user,updated_at,created_at");
    for l in &lines[1..] {
        assert!(!l.contains(",,") && !l.ends_with(','), "{l}");
    }
    let out = run(env.cmd(&[
        "projects",
        "list",
        "--per-page",
        "1",
        "--format",
        "csv",
        "--columns",
        "name,start,end",
    ]))
    .code(0);
    assert_eq!(out.stdout.lines().next(), Some("name,start_date,end_date"));
}
