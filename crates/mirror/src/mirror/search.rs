//! Search across everything mirrored: an FTS5 index per resource over every text field of a
//! record and its included relations (accent-insensitive: `muller` finds `Müller`), matched by
//! word prefixes as you type; phone numbers also by any run of 3+ of their digits. Where that
//! finds nothing, a trigram index of the records' names offers near matches (typos).

use rusqlite::params;
use serde::Serialize;

use super::doc::{Mirrored, Shown};
use super::{Mirror, MirrorError, Resource};
use crate::api::{Contact, Deal, Project};

/// What to look for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    pub text: String,
    /// Empty: all three.
    pub resources: Vec<Resource>,
    /// At most this many hits per resource.
    pub limit: usize,
}

/// One record found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub resource: Resource,
    pub id: String,
    /// What a person calls it (name, else email, else id).
    pub label: String,
    /// One line: contacts email · phone · accounts; deals status · value · account; projects
    /// status · dates · owner.
    pub detail: String,
    /// A near match from the tolerant fallback, not a word match.
    pub near: bool,
    /// Why it matched, in words: `name`, `assignee: Jörg Müller`, `email: j.kang@gmail.com`
    /// (reasons for several words joined by `; `), `name (near match)`.
    pub why: String,
    /// The record as the server sent it.
    #[serde(skip)]
    pub raw: String,
    /// The record as stored, until the hit is kept and `raw` read from it.
    #[serde(skip)]
    raw_packed: String,
}

/// The hits of one resource, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchGroup {
    pub resource: Resource,
    pub hits: Vec<SearchHit>,
    /// More matched than the limit.
    pub more: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResults {
    /// One group per resource searched, in the order contacts, deals, projects.
    pub groups: Vec<SearchGroup>,
    /// The resources searched whose records wait for their search entries (a first sync
    /// under way or stopped half way, `index_pending`): search cannot find them yet.
    #[serde(skip)]
    pub unsearchable: Vec<Resource>,
}

impl SearchResults {
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|g| g.hits.is_empty())
    }
}

/// Typed text that reads as a phone number: digits and phone punctuation, 3+ digits.
pub(super) fn phone_digits(text: &str) -> Option<String> {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let phone_like = text
        .chars()
        .all(|c| c.is_ascii_digit() || " +-()./".contains(c));
    (phone_like && digits.len() >= 3).then_some(digits)
}

/// The FTS5 query for typed text: every word as a prefix, all required. `None` for text
/// without a letter or digit.
pub fn match_expression(text: &str) -> Option<String> {
    if let Some(d) = phone_digits(text) {
        return Some(format!("\"{d}\"*"));
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\"*"))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Letters without their accents (the common Latin ones), lower-cased: for judging near matches.
pub(super) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let base = match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ą' => 'a',
            'ç' | 'ć' | 'č' => 'c',
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => 'e',
            'ì' | 'í' | 'î' | 'ï' | 'ī' => 'i',
            'ñ' | 'ń' | 'ň' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
            'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
            'ý' | 'ÿ' => 'y',
            'ś' | 'š' | 'ş' => 's',
            'ź' | 'ż' | 'ž' => 'z',
            'ł' => 'l',
            'ř' => 'r',
            other => other,
        };
        out.push(base);
    }
    out
}

/// The distinct trigrams of each word of 3+ characters.
fn trigrams(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in fold(text).split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = word.chars().collect();
        for w in chars.windows(3) {
            let t: String = w.iter().collect();
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// Share of the query's trigrams found in `label`.
fn similarity(query_grams: &[String], label: &str) -> f64 {
    if query_grams.is_empty() {
        return 0.0;
    }
    let label = fold(label);
    let found = query_grams
        .iter()
        .filter(|g| label.contains(g.as_str()))
        .count();
    found as f64 / query_grams.len() as f64
}

/// A near match needs this share of the query's trigrams.
const NEAR_MIN: f64 = 0.5;
/// Candidates the trigram index hands over for judging.
const NEAR_CANDIDATES: usize = 200;

/// What a hit shows of a record, derived from the server's text.
pub(super) fn shown(r: Resource, raw: &str) -> Shown {
    fn of<T: Mirrored>(raw: &str) -> Option<Shown> {
        let raw = serde_json::value::RawValue::from_string(raw.to_string()).ok()?;
        T::from_raw(raw).ok().map(|t| t.shown())
    }
    match r {
        Resource::Contacts => of::<Contact>(raw),
        Resource::Deals => of::<Deal>(raw),
        Resource::Projects => of::<Project>(raw),
    }
    .unwrap_or_default()
}

impl Mirror {
    /// Searches the mirror. Blocks on disk (typically well under 10 ms). Every path reads an
    /// index (word prefixes, phone digits, trigrams) and stops at the hits it shows: no
    /// record is read that is not shown (`plans` tests check each statement).
    pub fn search(&self, q: &SearchQuery) -> Result<SearchResults, MirrorError> {
        let resources = if q.resources.is_empty() {
            Resource::ALL.to_vec()
        } else {
            Resource::ALL
                .into_iter()
                .filter(|r| q.resources.contains(r))
                .collect()
        };
        let limit = q.limit.max(1);
        let expr = match_expression(&q.text);
        let grams = trigrams(&q.text);
        let phone = phone_digits(&q.text);
        let mut groups = Vec::new();
        let mut unsearchable = Vec::new();
        for r in resources {
            let mut hits = Vec::new();
            let mut more = false;
            // A phone number: any run of its digits, from the trigrams of contacts' phones,
            // then numbers elsewhere in the records (word prefixes).
            if let (Some(digits), Resource::Contacts) = (&phone, r) {
                hits = self.phone_hits(r, digits, limit + 1)?;
            }
            if let Some(expr) = &expr
                && hits.len() <= limit
            {
                for h in self.name_first_hits(r, expr, limit + 1)? {
                    if hits.len() > limit {
                        break;
                    }
                    if !hits.iter().any(|x| x.id == h.id) {
                        hits.push(h);
                    }
                }
            }
            more = more || hits.len() > limit;
            hits.truncate(limit);
            // Near matches only where no word matched: they are for typos, not to pad a list.
            if hits.is_empty() && !grams.is_empty() {
                let near = self.near_hits(r, &grams)?;
                more = near.len() > limit;
                hits.extend(near.into_iter().take(limit));
            }
            for h in &mut hits {
                if h.raw.is_empty() {
                    self.fill(r, h)?;
                }
                h.why = super::why::explain(&h.raw, &q.text, h.near);
            }
            groups.push(SearchGroup {
                resource: r,
                hits,
                more,
            });
            if self.index_pending(r)? {
                unsearchable.push(r);
            }
        }
        Ok(SearchResults {
            groups,
            unsearchable,
        })
    }

    /// A hit's record, label and detail, read when it is kept.
    fn fill(&self, r: Resource, h: &mut SearchHit) -> Result<(), MirrorError> {
        h.raw = self.unpack(&h.raw_packed)?;
        let s = shown(r, &h.raw);
        h.label = s.label;
        h.detail = s.detail;
        h.raw_packed = String::new();
        Ok(())
    }

    /// Records whose name holds every word first, then the others, each in the index's
    /// order: the index hands over its first matches and stops. (Ranking by bm25 would read
    /// every match, about a microsecond each, and FTS5 cannot rank a contentless index
    /// without positions; a name match is what a person searching by name expects first.)
    fn name_first_hits(
        &self,
        r: Resource,
        expr: &str,
        n: usize,
    ) -> Result<Vec<SearchHit>, MirrorError> {
        let mut hits = self.word_hits(r, &format!("name : ({expr})"), n)?;
        if hits.len() < n {
            let rest = self.word_hits(r, expr, n + hits.len())?;
            for h in rest {
                if hits.len() >= n {
                    break;
                }
                if !hits.iter().any(|x| x.id == h.id) {
                    hits.push(h);
                }
            }
        }
        Ok(hits)
    }

    /// Records (id and stored text) an index query hands over, in its order.
    fn candidates(
        &self,
        r: Resource,
        sql: &str,
        expr: &str,
        n: usize,
        near: bool,
    ) -> Result<Vec<SearchHit>, MirrorError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![expr, n as i64], |row| {
                Ok(SearchHit {
                    resource: r,
                    id: row.get(0)?,
                    label: String::new(),
                    detail: String::new(),
                    near,
                    why: String::new(),
                    raw: String::new(),
                    raw_packed: row.get(1)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    fn word_hits(&self, r: Resource, expr: &str, n: usize) -> Result<Vec<SearchHit>, MirrorError> {
        let sql = format!(
            "SELECT r.id, r.packed FROM fts_{r} f JOIN records r ON r.rid = f.rowid
             WHERE fts_{r} MATCH ?1 ORDER BY f.rowid LIMIT ?2"
        );
        self.candidates(r, &sql, expr, n, false)
    }

    /// Contacts whose phone holds `digits` in a row (a substring, through its trigrams).
    fn phone_hits(
        &self,
        r: Resource,
        digits: &str,
        n: usize,
    ) -> Result<Vec<SearchHit>, MirrorError> {
        let sql = "SELECT r.id, r.packed FROM phones p JOIN records r ON r.rid = p.rowid
             WHERE phones MATCH ?1 ORDER BY p.rowid LIMIT ?2";
        self.candidates(r, sql, &format!("\"{digits}\""), n, false)
    }

    fn near_hits(&self, r: Resource, grams: &[String]) -> Result<Vec<SearchHit>, MirrorError> {
        let expr = grams
            .iter()
            .map(|g| format!("\"{}\"", g.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ");
        let sql = format!(
            "SELECT r.id, r.packed FROM fuzzy_{r} f JOIN records r ON r.rid = f.rowid
             WHERE fuzzy_{r} MATCH ?1 ORDER BY rank LIMIT ?2"
        );
        let mut scored: Vec<(f64, SearchHit)> = Vec::new();
        for mut hit in self.candidates(r, &sql, &expr, NEAR_CANDIDATES, true)? {
            self.fill(r, &mut hit)?;
            let score = similarity(grams, &hit.label);
            if score >= NEAR_MIN {
                scored.push((score, hit));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        Ok(scored.into_iter().map(|(_, h)| h).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_become_required_prefixes() {
        assert_eq!(
            match_expression("Ada lov").as_deref(),
            Some("\"Ada\"* \"lov\"*")
        );
        assert_eq!(
            match_expression("o'brien").as_deref(),
            Some("\"o\"* \"brien\"*")
        );
        assert_eq!(match_expression("  ,; ").as_deref(), None);
        assert_eq!(
            match_expression("\"x\" OR y").as_deref(),
            Some("\"x\"* \"OR\"* \"y\"*")
        );
    }

    #[test]
    fn phone_like_text_is_one_run_of_digits() {
        assert_eq!(
            match_expression("+49 (30) 12-34").as_deref(),
            Some("\"49301234\"*")
        );
        assert_eq!(match_expression("12").as_deref(), Some("\"12\"*"));
    }

    #[test]
    fn near_matches_are_judged_without_accents() {
        let g = trigrams("mulller");
        assert!(similarity(&g, "Jonas Müller") >= NEAR_MIN);
        assert!(similarity(&g, "Ada Lovelace") < NEAR_MIN);
    }
}
