//! Saved views: `views.toml` beside the config file (`~/.config/crmdash/views.toml`), one
//! table per view, written by the dashboard's `:save` and edited by hand alike:
//!
//! ```toml
//! [views.open-big]
//! resource = "deals"
//! filters = { status = "open" }
//! sort = "-value"            # "-" before the key: descending
//! include = ["account"]
//! per_page = 50
//! columns = ["name", "value", "status"]
//! ```
//!
//! This file only reads and writes the words; what they mean for a resource (which filters,
//! sort keys and relations exist) is checked by `app::views`, for the dashboard and the CLI
//! alike. Edits go through `toml_edit`, so the user's comments and other views survive.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml_edit::{Array, InlineTable, Item, Table, value};

use super::ConfigError;

/// One saved view, as written in the file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedView {
    /// `contacts`, `deals` or `projects`.
    pub resource: String,
    #[serde(default)]
    pub filters: BTreeMap<String, String>,
    /// A sort key, `-` in front for descending (`-value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_page: Option<u32>,
    /// Column names in display order (`name`, `value`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
}

/// The views read from the file, and what was wrong with the others.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewsFile {
    pub views: BTreeMap<String, SavedView>,
    /// One line per view that could not be read (the others are usable), or the whole file.
    pub problems: Vec<String>,
}

/// `views.toml` in the folder of the config file (so `CRMDASH_CONFIG` moves both).
pub fn views_path() -> Option<PathBuf> {
    let config = super::config_path()?;
    Some(match config.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join("views.toml"),
        _ => PathBuf::from("views.toml"),
    })
}

/// Reads the views at `path`; a missing file has none.
pub fn load_views(path: &Path) -> ViewsFile {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_views(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ViewsFile::default(),
        Err(e) => ViewsFile {
            views: BTreeMap::new(),
            problems: vec![format!(
                "views file {}: cannot read it ({e})",
                path.display()
            )],
        },
    }
}

/// The file's tables read one by one (a section starts at a line beginning with `[`): the
/// good ones merged, each broken one reported with its line.
fn salvage(text: &str, origin: &str, problems: &mut Vec<String>) -> toml::Table {
    let mut sections: Vec<(usize, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('[') || sections.is_empty() {
            sections.push((i, String::new()));
        }
        if let Some((_, body)) = sections.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    let mut merged = toml::Table::new();
    for (first_line, body) in sections {
        match body.parse::<toml::Table>() {
            Ok(part) => {
                for (key, value) in part {
                    match (merged.get_mut(&key), value) {
                        (Some(toml::Value::Table(have)), toml::Value::Table(more)) => {
                            have.extend(more)
                        }
                        (_, value) => {
                            merged.insert(key, value);
                        }
                    }
                }
            }
            Err(e) => {
                let line = e
                    .span()
                    .map(|s| first_line + body[..s.start].matches('\n').count() + 1)
                    .unwrap_or(first_line + 1);
                problems.push(format!(
                    "views file {origin}, line {line}: {} (this table is skipped)",
                    e.message().trim().replace('\n', " ")
                ));
            }
        }
    }
    merged
}

/// Parses views text; each view is read on its own, so one bad view spoils only itself.
pub fn parse_views(text: &str, origin: &str) -> ViewsFile {
    let mut out = ViewsFile::default();
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        // A syntax error: each table of the file is read on its own, so a broken one spoils
        // only itself (the others stay usable) and says where it is.
        Err(_) => salvage(text, origin, &mut out.problems),
    };
    for key in table.keys().filter(|k| *k != "views") {
        out.problems.push(format!(
            "views file {origin}: unknown key '{key}' (views are tables [views.NAME])"
        ));
    }
    let Some(views) = table.get("views") else {
        return out;
    };
    let Some(views) = views.as_table() else {
        out.problems
            .push(format!("views file {origin}: 'views' is not a table"));
        return out;
    };
    for (name, v) in views {
        if let Err(e) = check_view_name(name) {
            out.problems.push(format!("views file {origin}: {e}"));
            continue;
        }
        match SavedView::deserialize(v.clone()) {
            Ok(view) => {
                out.views.insert(name.clone(), view);
            }
            Err(e) => out.problems.push(format!(
                "views file {origin}: view '{name}': {}",
                e.message().trim().replace('\n', " ")
            )),
        }
    }
    out
}

/// View names are TOML keys and palette words: letters, digits, `-`, `_`, `.`.
pub fn check_view_name(name: &str) -> Result<(), String> {
    if super::resolve::plain_name(name) {
        Ok(())
    } else {
        Err(format!(
            "bad view name '{name}': use letters, digits, '-', '_' or '.' (at most 64 characters)"
        ))
    }
}

/// A change to the views file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewEdit {
    /// Adds or replaces a view.
    Save {
        name: String,
        view: SavedView,
    },
    Delete {
        name: String,
    },
    Rename {
        from: String,
        to: String,
    },
}

/// Applies `edit` to the file at `path` (created with its folder when missing), keeping
/// comments and the other views. A file that does not parse is left alone and reported.
pub fn edit_views(path: &Path, edit: &ViewEdit) -> Result<(), ConfigError> {
    let file_err = |message: String| ConfigError::File {
        path: path.display().to_string(),
        message,
    };
    let mut doc = super::edit::read_document(path, "views")?;
    let views = super::edit::top_table(&mut doc, "views", path)?;
    match edit {
        ViewEdit::Save { name, view } => {
            check_view_name(name).map_err(file_err)?;
            views.insert(name, Item::Table(view_table(view)));
        }
        ViewEdit::Delete { name } => {
            if views.remove(name).is_none() {
                return Err(file_err(format!("there is no view '{name}'")));
            }
        }
        ViewEdit::Rename { from, to } => {
            check_view_name(to).map_err(file_err)?;
            if views.contains_key(to) {
                return Err(file_err(format!("a view named '{to}' exists already")));
            }
            let item = views
                .remove(from)
                .ok_or_else(|| file_err(format!("there is no view '{from}'")))?;
            views.insert(to, item);
        }
    }
    super::edit::write_atomically(path, doc.to_string().as_bytes())
        .map_err(|e| file_err(format!("cannot write it: {e}")))
}

fn view_table(v: &SavedView) -> Table {
    let mut t = Table::new();
    t.insert("resource", value(v.resource.as_str()));
    if !v.filters.is_empty() {
        let mut f = InlineTable::new();
        for (k, val) in &v.filters {
            f.insert(k, val.as_str().into());
        }
        t.insert("filters", value(f));
    }
    if let Some(s) = &v.sort {
        t.insert("sort", value(s.as_str()));
    }
    let list = |items: &[String]| {
        let mut a = Array::new();
        for i in items {
            a.push(i.as_str());
        }
        value(a)
    };
    if let Some(i) = &v.include {
        t.insert("include", list(i));
    }
    if let Some(p) = v.per_page {
        t.insert("per_page", value(i64::from(p)));
    }
    if let Some(c) = &v.columns {
        t.insert("columns", list(c));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> SavedView {
        SavedView {
            resource: "deals".into(),
            filters: BTreeMap::from([("status".to_string(), "open".to_string())]),
            sort: Some("-value".into()),
            include: Some(vec!["account".into()]),
            per_page: Some(50),
            columns: Some(vec!["name".into(), "value".into()]),
        }
    }

    #[test]
    fn saves_reads_renames_and_deletes_keeping_comments() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/views.toml");
        edit_views(
            &p,
            &ViewEdit::Save {
                name: "open-big".into(),
                view: view(),
            },
        )
        .unwrap();
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.insert_str(0, "# my views\n");
        std::fs::write(&p, &text).unwrap();
        let read = load_views(&p);
        assert!(read.problems.is_empty(), "{:?}", read.problems);
        assert_eq!(read.views["open-big"], view());
        edit_views(
            &p,
            &ViewEdit::Rename {
                from: "open-big".into(),
                to: "big".into(),
            },
        )
        .unwrap();
        let read = load_views(&p);
        assert_eq!(read.views.keys().collect::<Vec<_>>(), ["big"]);
        // A comment above a view moves with it, other views and their comments stay.
        let mut text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("# my views\n[views.big]"), "{text}");
        text.push_str("\n# the other one\n[views.other]\nresource = \"contacts\"\n");
        std::fs::write(&p, &text).unwrap();
        edit_views(&p, &ViewEdit::Delete { name: "big".into() }).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("# the other one\n[views.other]"), "{text}");
        assert_eq!(load_views(&p).views.keys().collect::<Vec<_>>(), ["other"]);
        let e = edit_views(&p, &ViewEdit::Delete { name: "big".into() }).unwrap_err();
        assert!(e.to_string().contains("there is no view 'big'"), "{e}");
    }

    #[test]
    fn a_bad_view_spoils_only_itself() {
        let f = parse_views(
            "[views.ok]\nresource = \"deals\"\n[views.bad]\nresource = \"deals\"\nsortt = \"x\"\n",
            "v.toml",
        );
        assert_eq!(f.views.keys().collect::<Vec<_>>(), ["ok"]);
        assert_eq!(f.problems.len(), 1);
        assert!(f.problems[0].contains("view 'bad'"), "{:?}", f.problems);
        assert!(f.problems[0].contains("sortt"), "{:?}", f.problems);
        let broken = parse_views("[views.x\n", "v.toml");
        assert!(
            broken.problems[0].contains("line 1"),
            "{:?}",
            broken.problems
        );
        // A syntax error spoils only its own table: the views before and after it stay.
        let f = parse_views(
            "# mine\n[views.a]\nresource = \"deals\"\n\n[views.broken\nresource = \"deals\"\n[views.b]\nresource = \"contacts\"\nsort = \"-email\"\n",
            "v.toml",
        );
        assert_eq!(f.views.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
        assert!(f.problems[0].contains("line 5"), "{:?}", f.problems);
        assert!(f.problems[0].contains("skipped"), "{:?}", f.problems);
    }
}
