//! Problems met trying the CLI's saved views as a new user would.

use crate::cli_support;

use cli_support::{Env, run};

/// The lines printed by `crmdash ARGS` (exit 0), its arguments given as one string.
fn lines(env: &Env, args: &str) -> Vec<String> {
    let args: Vec<&str> = args.split_whitespace().collect();
    let out = run(env.cmd(&args)).code(0);
    out.stdout.lines().map(str::to_string).collect()
}

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
    let out = lines(&env, "deals list --view mine --per-page 3 --format csv");
    assert_eq!(out[0], "name,value,assigned_user,updated_at");
    assert_eq!(out.len(), 4, "{out:?}");
    for l in &out[1..] {
        // Every cell filled: the assignee was included, every deal has updated_at.
        assert!(!l.ends_with(',') && l.contains('T'), "{l}");
    }
    // --columns wins over the view's.
    let out = lines(
        &env,
        "deals list --view mine --per-page 1 --format csv --columns id",
    );
    assert_eq!(out[0], "id");
    // json prints whole records, as without a view.
    let out = lines(&env, "deals list --view mine --per-page 1 --format json");
    assert!(out.concat().contains("\"created_at\""), "{out:?}");
    // A contact's Name is its first and last name.
    let out = lines(
        &env,
        "contacts list --view people --per-page 1 --format csv",
    );
    assert_eq!(out[0], "first_name,last_name,email");
}

/// The table's headers say ASSIGNEE and UPDATED, but `--columns name,assignee,updated` gave
/// two empty columns (no record field has those names); they stand for the CSV columns now.
#[test]
fn table_headers_name_their_csv_columns() {
    let env = Env::new();
    let out = lines(
        &env,
        "deals list --per-page 2 --include assigned_user --format csv --columns name,assignee,updated,created",
    );
    assert_eq!(out[0], "name,assigned_user,updated_at,created_at");
    for l in &out[1..] {
        assert!(!l.contains(",,") && !l.ends_with(','), "{l}");
    }
    let out = lines(
        &env,
        "projects list --per-page 1 --format csv --columns name,start,end",
    );
    assert_eq!(out[0], "name,start_date,end_date");
}
