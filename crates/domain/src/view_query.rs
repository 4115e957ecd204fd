//! One grammar for a list's query in words, shared by the dashboard's `:` palette (`:deals
//! status=open sort=-value`), saved views (`views.toml`) and the CLI's `--view`: the words are
//! checked against the resource's facts here, once, and an unknown filter, sort key, relation
//! or column is refused with the list of what the resource accepts. It sits below both the
//! dashboard and the command line, which is why it knows resources, not tabs.

use std::collections::BTreeMap;

use crate::api::SortDirection;
use crate::config::views::SavedView;
use crate::resource::Resource;

/// The page sizes a view may ask for: the ones the dashboard's `+`/`-` step through.
pub const PAGE_SIZES: [u32; 4] = [10, 25, 50, 100];

/// A query as the user wrote it (not checked yet).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryWords {
    /// Filter key -> text, as typed in the filter bar.
    pub filters: BTreeMap<String, String>,
    /// `value` or `-value` (descending).
    pub sort: Option<String>,
    pub include: Option<Vec<String>>,
    pub per_page: Option<u32>,
    pub page: Option<u32>,
    pub columns: Option<Vec<String>>,
}

/// A query checked against its resource: only names the descriptor knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewQuery {
    pub kind: Resource,
    /// Filter key -> text, in the descriptor's order (dates still as typed).
    pub filters: Vec<(&'static str, String)>,
    pub sort: Option<(&'static str, SortDirection)>,
    pub includes: Option<Vec<&'static str>>,
    pub per_page: Option<u32>,
    pub page: Option<u32>,
    /// Column titles, lower-cased (`name`, `value`), in display order.
    pub columns: Option<Vec<&'static str>>,
}

/// A column's name in views and `:columns`: its title, lower-cased.
pub fn column_name(title: &'static str) -> String {
    title.to_ascii_lowercase()
}

/// The keys a query accepts for `kind` besides its filters.
pub const QUERY_KEYS: [&str; 5] = ["sort", "include", "per", "page", "columns"];

/// The words a `key=value` may start with for `kind`: its filters, then the query keys.
pub fn query_keys(kind: Resource) -> Vec<&'static str> {
    kind.filters()
        .iter()
        .map(|f| f.key)
        .chain(QUERY_KEYS)
        .collect()
}

/// Checks `words` against the facts of `kind`.
pub fn resolve(kind: Resource, words: &QueryWords) -> Result<ViewQuery, String> {
    let r = kind;
    let noun = kind.noun();
    let mut filters = Vec::new();
    for key in words.filters.keys() {
        if !r.filters().iter().any(|f| f.key == key) {
            return Err(format!(
                "{noun} have no filter '{key}': use {}",
                query_keys(kind).join(", ")
            ));
        }
    }
    for f in r.filters() {
        if let Some(v) = words.filters.get(f.key) {
            filters.push((f.key, v.clone()));
        }
    }
    let sort = match &words.sort {
        None => None,
        Some(s) => Some(parse_sort(r, s)?),
    };
    let includes = match &words.include {
        None => None,
        Some(list) => Some(check_includes(r, list)?),
    };
    if let Some(p) = words.per_page {
        check_per_page(p)?;
    }
    if words.page == Some(0) {
        return Err("page: use 1 or more".into());
    }
    let columns = match &words.columns {
        None => None,
        Some(list) => Some(check_columns(r, list)?),
    };
    Ok(ViewQuery {
        kind,
        filters,
        sort,
        includes,
        per_page: words.per_page,
        page: words.page,
        columns,
    })
}

/// `value`, `-value` (descending) or `+value`.
pub fn parse_sort(r: Resource, text: &str) -> Result<(&'static str, SortDirection), String> {
    let t = text.trim();
    let (dir, key) = match t.strip_prefix('-') {
        Some(k) => (SortDirection::Desc, k),
        None => (SortDirection::Asc, t.strip_prefix('+').unwrap_or(t)),
    };
    r.sort_key(key).map(|k| (k, dir)).ok_or_else(|| {
        format!(
            "{} cannot sort by '{key}': use {} ('-' in front sorts descending, e.g. -{})",
            r.noun(),
            r.sort_keys().join(", "),
            r.sort_keys().last().copied().unwrap_or("name")
        )
    })
}

/// Relations by name (empty: none); each must be one the resource has.
pub fn check_includes(r: Resource, list: &[String]) -> Result<Vec<&'static str>, String> {
    let mut out = Vec::new();
    for name in list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        match r.include(name) {
            Some(i) => out.push(i),
            None => {
                return Err(format!(
                    "{} cannot include '{name}': use {}",
                    r.noun(),
                    r.includes().join(", ")
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// One of [`PAGE_SIZES`].
pub fn check_per_page(p: u32) -> Result<u32, String> {
    if PAGE_SIZES.contains(&p) {
        Ok(p)
    } else {
        Err(format!(
            "page size {p}: use {}",
            PAGE_SIZES.map(|s| s.to_string()).join(", ")
        ))
    }
}

/// Column names, each one the resource has, at most once each, at least one.
pub fn check_columns(r: Resource, list: &[String]) -> Result<Vec<&'static str>, String> {
    let mut out: Vec<&'static str> = Vec::new();
    for name in list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let Some(title) = r
            .columns()
            .iter()
            .map(|c| c.title())
            .find(|t| t.eq_ignore_ascii_case(name))
        else {
            let all: Vec<String> = r.columns().iter().map(|c| column_name(c.title())).collect();
            return Err(format!(
                "{} have no column '{name}': use {}",
                r.noun(),
                all.join(", ")
            ));
        };
        if !out.contains(&title) {
            out.push(title);
        }
    }
    if out.is_empty() {
        return Err("columns: name at least one".into());
    }
    Ok(out)
}

/// The words of a saved view (its resource checked by the caller).
pub fn words_of(view: &SavedView) -> QueryWords {
    QueryWords {
        filters: view.filters.clone(),
        sort: view.sort.clone(),
        include: view.include.clone(),
        per_page: view.per_page,
        page: None,
        columns: view.columns.clone(),
    }
}

/// A saved view checked: its resource, then its words. The message names the view.
pub fn resolve_view(name: &str, view: &SavedView) -> Result<ViewQuery, String> {
    let kind = Resource::named(&view.resource).ok_or_else(|| {
        format!(
            "view '{name}': unknown resource '{}': use {}",
            view.resource,
            Resource::nouns().join(", ")
        )
    })?;
    resolve(kind, &words_of(view)).map_err(|e| format!("view '{name}': {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(pairs: &[(&str, &str)]) -> QueryWords {
        QueryWords {
            filters: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..QueryWords::default()
        }
    }

    #[test]
    fn checks_every_name_against_the_descriptor() {
        let mut w = words(&[("status", "open")]);
        w.sort = Some("-value".into());
        w.include = Some(vec!["account".into()]);
        w.columns = Some(vec!["Value".into(), "name".into()]);
        let q = resolve(Resource::Deals, &w).unwrap();
        assert_eq!(q.filters, [("status", "open".to_string())]);
        assert_eq!(q.sort, Some(("value", SortDirection::Desc)));
        assert_eq!(q.columns.unwrap(), ["Value", "Name"]);

        let e = resolve(Resource::Deals, &words(&[("emial", "x")])).unwrap_err();
        assert!(e.contains("no filter 'emial': use name, status"), "{e}");
        let w = QueryWords {
            sort: Some("valu".into()),
            ..QueryWords::default()
        };
        let e = resolve(Resource::Deals, &w).unwrap_err();
        assert!(e.contains("cannot sort by 'valu'"), "{e}");
        assert!(e.contains("value"), "{e}");
        let w = QueryWords {
            per_page: Some(30),
            ..QueryWords::default()
        };
        assert!(resolve(Resource::Deals, &w).unwrap_err().contains("10, 25"));
    }

    #[test]
    fn resources_by_plural_or_singular() {
        assert_eq!(Resource::named("Deals"), Some(Resource::Deals));
        assert_eq!(Resource::named("contact"), Some(Resource::Contacts));
        assert_eq!(Resource::named("leads"), None);
    }
}
