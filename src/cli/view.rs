//! `--view NAME` on `contacts|deals|projects list`: a saved view (`views.toml`, the one the
//! dashboard's `:save` writes) fills the options the command line leaves out; options given
//! win. A view that is missing, for another resource, or names a filter, sort key or relation
//! the resource does not have stops the command with the usage exit code, saying which.

use std::str::FromStr;

use crate::api::SortDirection;
use crate::cli::exit::CliError;
use crate::cli::list::PageArgs;
use crate::config::views::{load_views, views_path};
use crate::resource::Resource;
use crate::view_query::{ViewQuery, resolve_view};

/// The view `name`, checked for the resource `kind`.
pub fn load(name: &str, kind: Resource) -> Result<ViewQuery, CliError> {
    let path = views_path().ok_or_else(|| {
        CliError::Usage("--view: no config directory is known (set CRMDASH_CONFIG)".into())
    })?;
    let file = load_views(&path);
    let Some(view) = file.views.get(name) else {
        // A view that is in the file but could not be read says why.
        let why = file
            .problems
            .iter()
            .find(|p| p.contains(&format!("'{name}'")) || !p.contains("view '"));
        return Err(CliError::Usage(match why {
            Some(p) => p.clone(),
            None if file.views.is_empty() => format!(
                "--view {name}: no saved views in {} (save one with :save NAME in the dashboard)",
                path.display()
            ),
            None => format!(
                "--view {name}: no such view in {}: use {}",
                path.display(),
                file.views.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        }));
    };
    let q = resolve_view(name, view).map_err(CliError::Usage)?;
    if q.kind != kind {
        return Err(CliError::Usage(format!(
            "view '{name}' lists {}: run `crmdash {} list --view {name}`",
            q.kind.noun(),
            q.kind.noun()
        )));
    }
    Ok(q)
}

/// The view's text for filter `key`, unless the option was given.
pub fn filter(given: &Option<String>, q: &ViewQuery, key: &str) -> Option<String> {
    given.clone().or_else(|| {
        q.filters
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    })
}

/// The view's sort key and direction where the options leave them out.
pub fn sort<T: FromStr + Copy>(
    given: Option<T>,
    direction: Option<SortDirection>,
    q: &ViewQuery,
) -> (Option<T>, Option<SortDirection>) {
    match (given, q.sort) {
        (Some(k), _) => (Some(k), direction),
        (None, Some((key, dir))) => (key.parse().ok(), direction.or(Some(dir))),
        (None, None) => (None, direction),
    }
}

/// The view's relations when `--include` is not given.
pub fn includes<T: FromStr + Clone>(given: &[T], q: &ViewQuery) -> Vec<T> {
    if !given.is_empty() {
        return given.to_vec();
    }
    q.includes
        .iter()
        .flatten()
        .filter_map(|i| i.parse().ok())
        .collect()
}

/// The view's page size unless `--per-page` or `--all` is given.
pub fn paging(given: &PageArgs, q: &ViewQuery) -> PageArgs {
    let mut p = given.clone();
    if p.per_page.is_none() && !p.all {
        p.per_page = q.per_page.map(i64::from);
    }
    p.view_columns = q
        .columns
        .as_ref()
        .map(|cols| cols.iter().flat_map(|t| csv_columns(q.kind, t)).collect());
    p
}

/// A dashboard column (its title: `Updated`) as the CSV columns of `--columns` that hold the
/// same data (`updated_at`): a contact's `Name` is two, `first_name` and `last_name`.
fn csv_columns(kind: Resource, title: &str) -> Vec<String> {
    let name = title.to_ascii_lowercase();
    let fields: &[&str] = match (kind, name.as_str()) {
        (Resource::Contacts, "name") => &["first_name", "last_name"],
        (_, "created") => &["created_at"],
        (_, "updated") => &["updated_at"],
        (_, "assignee") => &["assigned_user"],
        (Resource::Projects, "start") => &["start_date"],
        (Resource::Projects, "end") => &["end_date"],
        _ => return vec![name],
    };
    fields.iter().map(|f| f.to_string()).collect()
}
