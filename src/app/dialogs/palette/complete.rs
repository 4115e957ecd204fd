//! What `Tab` may put in place of the word being typed: command names first, then per
//! command its words (resource filter keys as `key=`, sort keys with or without `-`,
//! relations after a comma, the statuses seen so far, view and profile names).

use super::grammar::{COMMANDS, PaletteContext};
use crate::app::resources::{Descriptor, FilterKind, Resource};
use crate::app::table::tab::PAGE_SIZES;
use crate::view_query::{self as views, column_name};

/// The word under completion and what may replace it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completions {
    /// Byte offset in the line where the word starts.
    pub start: usize,
    /// Whole replacements for the word, in the order offered.
    pub items: Vec<String>,
}

/// The completions of the end of `line`.
pub fn complete(line: &str, cx: &PaletteContext) -> Completions {
    let start = line
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let word = &line[start..];
    let before = line[..start].trim();
    let prefixed = |all: Vec<String>| -> Vec<String> {
        all.into_iter()
            .filter(|c| c.starts_with(word) && c != word)
            .collect()
    };
    // The leading `:` is optional.
    let before = before.trim_start_matches(':').trim();
    if before.is_empty() {
        let w = word.trim_start_matches(':');
        let lead = &word[..word.len() - w.len()];
        // A whole command name comes first, as typed: `view` then `views`, and `include`
        // alone takes its space (it used to offer only the longer `views`).
        let mut items: Vec<String> = COMMANDS
            .iter()
            .map(|(c, _)| *c)
            .filter(|c| !w.is_empty() && *c == w)
            .map(|c| format!("{lead}{c}"))
            .collect();
        items.extend(
            COMMANDS
                .iter()
                .map(|(c, _)| *c)
                .filter(|c| c.starts_with(w) && *c != w)
                .map(|c| format!("{lead}{c}")),
        );
        return Completions { start, items };
    }
    let head = before.split_whitespace().next().unwrap_or("").to_string();
    // Commands of one argument offer nothing once it is there.
    let one_argument = [
        "per", "per_page", "export", "view", "save", "profile", "page",
    ];
    if before.split_whitespace().count() > 1 && one_argument.contains(&head.as_str()) {
        return Completions {
            start,
            items: Vec::new(),
        };
    }
    let active = Descriptor::of(cx.active);
    let items = if let Some(kind) = Resource::named(&head) {
        return Completions {
            start,
            items: query_word(kind, word, cx),
        };
    } else {
        match head.to_ascii_lowercase().as_str() {
            "per" | "per_page" => prefixed(PAGE_SIZES.iter().map(|p| p.to_string()).collect()),
            "include" | "includes" => {
                return Completions {
                    start,
                    items: list_item(word, active.includes),
                };
            }
            "columns" | "cols" => {
                let cols: Vec<String> = active
                    .columns
                    .iter()
                    .map(|c| column_name(c.title))
                    .collect();
                let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
                return Completions {
                    start,
                    items: list_item(word, &cols),
                };
            }
            "export" => prefixed(vec!["csv".into(), "json".into()]),
            "view" | "save" => prefixed(cx.views.clone()),
            "profile" => prefixed(cx.profiles.clone()),
            // `:import FILE` then its words (the file itself is typed).
            "import" if before.split_whitespace().count() > 1 => import_word(word),
            _ => Vec::new(),
        }
    };
    Completions { start, items }
}

/// A word after `:import FILE`: one of its words, or after `dupes=` / `existing=` a value.
fn import_word(word: &str) -> Vec<String> {
    let values: &[&str] = match word.split_once('=') {
        None => {
            return crate::app::import::WORDS
                .iter()
                .map(|(w, _)| *w)
                .filter(|w| w.starts_with(word) && *w != word)
                .map(str::to_string)
                .collect();
        }
        Some(("dupes", _)) => &["warn", "skip", "create"],
        Some(("existing", _)) => &["auto", "search", "scan"],
        Some(("delimiter", _)) => &["tab"],
        Some(_) => &[],
    };
    let (key, value) = word.split_once('=').unwrap_or_default();
    values
        .iter()
        .filter(|v| v.starts_with(value) && **v != value)
        .map(|v| format!("{key}={v}"))
        .collect()
}

/// `a,b,c` lists: completes the part after the last comma, keeping the ones before.
fn list_item(word: &str, all: &[&str]) -> Vec<String> {
    let (done, part) = match word.rfind(',') {
        Some(i) => (&word[..=i], &word[i + 1..]),
        None => ("", word),
    };
    let taken: Vec<&str> = done.split(',').collect();
    all.iter()
        .filter(|c| c.starts_with(part) && **c != part && !taken.contains(c))
        .map(|c| format!("{done}{c}"))
        .collect()
}

/// A word after `:deals`: a `key=` or, after the `=`, that key's values.
fn query_word(kind: Resource, word: &str, cx: &PaletteContext) -> Vec<String> {
    let r = Descriptor::of(kind);
    let Some((key, value)) = word.split_once('=') else {
        return views::query_keys(kind)
            .into_iter()
            .filter(|k| k.starts_with(word))
            .map(|k| format!("{k}="))
            .collect();
    };
    let with_key = |vals: Vec<String>| -> Vec<String> {
        vals.into_iter()
            .filter(|v| v.starts_with(value) && v != value)
            .map(|v| format!("{key}={v}"))
            .collect()
    };
    match key {
        "sort" | "sort_by" => {
            let mut keys: Vec<String> = r.sort_keys.iter().map(|k| k.to_string()).collect();
            if value.starts_with('-') {
                keys = keys.into_iter().map(|k| format!("-{k}")).collect();
            }
            with_key(keys)
        }
        "include" | "includes" => list_item(value, r.includes)
            .into_iter()
            .map(|v| format!("{key}={v}"))
            .collect(),
        "per" | "per_page" => with_key(PAGE_SIZES.iter().map(|p| p.to_string()).collect()),
        "columns" | "cols" => {
            let cols: Vec<String> = r.columns.iter().map(|c| column_name(c.title)).collect();
            let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
            list_item(value, &cols)
                .into_iter()
                .map(|v| format!("{key}={v}"))
                .collect()
        }
        k => match r.filters.iter().find(|f| f.key == k) {
            Some(f) if f.kind == FilterKind::Status => {
                with_key(cx.statuses.get(kind.index()).cloned().unwrap_or_default())
            }
            _ => Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> PaletteContext {
        let mut statuses = vec![Vec::new(); Resource::ALL.len()];
        statuses[Resource::Deals.index()] = vec!["lost".into(), "open".into(), "won".into()];
        PaletteContext {
            active: Resource::Deals,
            views: vec!["open-big".into(), "mine".into()],
            view_errors: Default::default(),
            profiles: vec!["default".into(), "work".into()],
            active_profile: "default".into(),
            statuses,
        }
    }

    #[test]
    fn completes_each_kind_of_word() {
        assert_eq!(complete("de", &cx()).items, ["deals"]);
        assert_eq!(
            complete(":p", &cx()).items,
            [":projects", ":page", ":per", ":profile", ":plan"]
        );
        assert_eq!(complete("deals st", &cx()).items, ["status="]);
        assert_eq!(
            complete("deals status=", &cx()).items,
            ["status=lost", "status=open", "status=won"]
        );
        assert_eq!(complete("deals sort=-v", &cx()).items, ["sort=-value"]);
        assert_eq!(
            complete("deals include=account,", &cx()).items,
            [
                "include=account,contacts",
                "include=account,assigned_user",
                "include=account,assigned_users"
            ]
        );
        assert_eq!(complete("view", &cx()).items, ["view", "views"]);
        assert_eq!(complete(":include", &cx()).items, [":include"]);
        assert_eq!(complete("view o", &cx()).items, ["open-big"]);
        assert!(complete("view open-big ", &cx()).items.is_empty());
        assert_eq!(complete("profile ", &cx()).items, ["default", "work"]);
        assert_eq!(complete("export j", &cx()).items, ["json"]);
        assert_eq!(complete(":im", &cx()).items, [":import"]);
        assert!(
            complete("import peo", &cx()).items.is_empty(),
            "the file is typed"
        );
        assert_eq!(
            complete("import people.csv d", &cx()).items,
            ["dupes=", "delimiter="]
        );
        assert_eq!(
            complete("import people.csv dupes=", &cx()).items,
            ["dupes=warn", "dupes=skip", "dupes=create"]
        );
        assert_eq!(
            complete("import people.csv existing=s", &cx()).items,
            ["existing=search", "existing=scan"]
        );
        let c = complete("deals status=open so", &cx());
        assert_eq!((c.start, c.items), (18, vec!["sort=".to_string()]));
    }
}
