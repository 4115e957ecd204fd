//! Near duplicates of the import's rows: rows that look like an earlier row of the file or a
//! contact in the local mirror (the duplicate finder of `contacts dupes`), beyond the exact
//! email matches the import already skips. `--dupes` says what becomes of them.

use std::collections::HashMap;

use crate::api::NewContact;
use crate::cli::context::Ctx;
use crate::insights::dupes::mirrored::Finder;
use crate::insights::dupes::normalise::region;
use crate::insights::dupes::{self, Person};
use crate::mirror::{Mirror, MirrorLocation};

/// `--dupes`: what the import does with a row that looks like a contact it already has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DupesPolicy {
    /// Skip the row.
    Skip,
    /// Create it, and name the near duplicate in the report.
    Warn,
    /// Create it without looking.
    Create,
}

/// What a row looks like.
#[derive(Debug, Clone, PartialEq)]
pub struct Near {
    /// `line 12` or `contact con_000041`.
    pub of: String,
    pub score: f64,
    pub reasons: Vec<String>,
}

impl Near {
    /// `near duplicate of contact con_000041 (0.97: name 0.94 + same account)`.
    pub fn text(&self) -> String {
        format!(
            "near duplicate of {} ({:.2}: {})",
            self.of,
            self.score,
            self.reasons.join(", ")
        )
    }
}

/// A row to send as the finder sees it; its id is `line N`.
pub fn person_of_row(line: u64, c: &NewContact) -> Person {
    let name = [c.first_name.as_deref(), c.last_name.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let accounts = c
        .extra
        .get("account_ids")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(crate::api::value_to_string)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    Person {
        id: format!("line {line}"),
        name,
        email: c.email.clone(),
        phone: c.phone.clone(),
        accounts,
        created_at: None,
    }
}

/// The mirror's contacts, or `None` (and why) when the profile has none to read.
pub async fn mirror_people(ctx: &Ctx) -> Result<Vec<Person>, String> {
    let location = if ctx.demo() {
        MirrorLocation::demo(&ctx.settings.cache).map_err(|e| e.to_string())?
    } else {
        let client = ctx.client().await.map_err(|e| e.to_string())?;
        let profile = ctx.profile().await.map_err(|e| e.to_string())?;
        MirrorLocation::for_settings(&ctx.settings.cache, profile, client.base_url().as_str())
            .map_err(|e| e.to_string())?
    };
    let path = location.db_path();
    tokio::task::spawn_blocking(move || {
        let opened = Mirror::open_existing(&path)
            .map_err(|e| e.for_read().to_string())?
            .ok_or_else(|| "no local mirror (`crmdash sync` makes one)".to_string())?;
        dupes::mirrored::people(&opened.mirror).map_err(|e| e.for_read().to_string())
    })
    .await
    .map_err(|e| e.to_string())?
}

/// For each row that has one, its best near duplicate: an earlier row, or a mirrored contact.
/// Pairs whose emails are the same but for case are left out: the import's own email check
/// already decides those rows.
/// (`finder`: `[dupes]` and `[ui] region`.)
pub fn find_with(rows: Vec<Person>, mirrored: Vec<Person>, finder: &Finder) -> HashMap<u64, Near> {
    let file_rows = rows.len();
    let mut people = rows;
    people.extend(mirrored);
    let s = &finder.settings;
    let found = dupes::find(&people, region(finder.region.as_deref()), s, s.threshold);
    let line_of = |i: usize| {
        people[i]
            .id
            .strip_prefix("line ")
            .and_then(|n| n.parse::<u64>().ok())
    };
    let same_email = |a: &Person, b: &Person| match (&a.email, &b.email) {
        (Some(x), Some(y)) => x.trim().to_lowercase() == y.trim().to_lowercase(),
        _ => false,
    };
    let mut out: HashMap<u64, Near> = HashMap::new();
    for p in &found.pairs {
        let (a, b) = (p.a.min(p.b), p.a.max(p.b));
        if a >= file_rows || same_email(&people[a], &people[b]) {
            continue;
        }
        // Two rows: the later one is the near duplicate of the earlier one.
        let (row, other) = match (line_of(a), b < file_rows) {
            (Some(la), true) => match line_of(b) {
                Some(lb) if lb > la => (lb, format!("line {la}")),
                Some(lb) => (la, format!("line {lb}")),
                None => continue,
            },
            (Some(la), false) => (la, format!("contact {}", people[b].id)),
            (None, _) => continue,
        };
        // Pairs come best first: the first one found for a row is its best.
        out.entry(row).or_insert_with(|| Near {
            of: other,
            score: p.score,
            reasons: p.reasons.clone(),
        });
    }
    out
}
