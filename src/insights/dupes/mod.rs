//! Near duplicate contacts: the same person entered twice, written differently. A pure
//! matcher: normal forms of emails, phones and names (`normalise`), candidates found through
//! blocking keys (never every pair), a score with the reasons that make it, and clusters of
//! the pairs above a threshold. The CLI's `contacts dupes` and the import call it.
//!
//! The evidence, strongest first: the same mailbox (case, Unicode form and Gmail's dots and
//! `+tags` aside), the same phone in E.164, and a close name (Jaro–Winkler on folded names)
//! together with a shared account. A close name alone is not evidence: two people of the same
//! name at different companies are different people.

pub mod mirrored;
pub mod normalise;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::api::Contact;
use normalise::{email_key, email_reason, fold_name, phone_e164};

/// `[dupes]` in the config file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DupesSettings {
    /// A pair scoring at least this is a near duplicate (0 to 1).
    pub threshold: f64,
    /// Names at least this close (Jaro–Winkler, 0 to 1) count as the same name.
    pub name_similarity: f64,
}

/// Chosen on the sandbox's labelled set (docs/duplicates.md): every planted kind scores 0.95
/// or more, the different people who look alike score at most 0.5.
pub const DEFAULT_THRESHOLD: f64 = 0.85;
pub const DEFAULT_NAME_SIMILARITY: f64 = 0.9;

impl Default for DupesSettings {
    fn default() -> Self {
        DupesSettings {
            threshold: DEFAULT_THRESHOLD,
            name_similarity: DEFAULT_NAME_SIMILARITY,
        }
    }
}

/// A blocking key shared by more contacts than this (a switchboard number, `info@` of a big
/// company) is not used to find candidates: its pairs would be most of the work and little of
/// the finding. Such keys are counted in [`Found::crowded_keys`].
pub const MAX_BLOCK: usize = 500;

/// The facts of one contact the matcher compares.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Person {
    pub id: String,
    /// The name as shown (`full_name`, else first and last name).
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    /// Account ids.
    pub accounts: Vec<String>,
    /// When it was created, if known: a cluster lists its oldest member first.
    #[serde(skip)]
    pub created_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl Person {
    pub fn from_contact(c: &Contact) -> Person {
        let accounts = c
            .accounts
            .iter()
            .flatten()
            .filter_map(|r| r.id.clone())
            .collect();
        Person {
            id: c.id.clone(),
            name: c.full_name(),
            email: c.email.clone().filter(|e| !e.trim().is_empty()),
            phone: c.phone.clone().filter(|p| !p.trim().is_empty()),
            accounts,
            created_at: c
                .created_at
                .as_ref()
                .and_then(crate::api::Timestamp::instant),
        }
    }
}

/// A person in normal form, kept for every person while pairs are scored: three short
/// strings (the name's folded words joined by single spaces), made once.
#[derive(Debug, Clone, Default)]
struct Prepared {
    email: Option<Box<str>>,
    phone: Option<Box<str>>,
    name: Box<str>,
}

impl Prepared {
    fn words(&self) -> impl Iterator<Item = &str> + Clone {
        self.name.split(' ').filter(|w| !w.is_empty())
    }

    /// The words sorted and joined (`smith john` for `john smith`).
    fn sorted(&self) -> String {
        let mut w: Vec<&str> = self.words().collect();
        w.sort_unstable();
        w.join(" ")
    }
}

fn prepare(p: &Person, region: Option<phonenumber::country::Id>) -> Prepared {
    Prepared {
        email: p
            .email
            .as_deref()
            .and_then(email_key)
            .map(String::into_boxed_str),
        phone: p
            .phone
            .as_deref()
            .and_then(|t| phone_e164(t, region))
            .map(String::into_boxed_str),
        name: fold_name(&p.name).join(" ").into_boxed_str(),
    }
}

/// Two people who look like one, with how sure and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    /// Indexes into the people given to [`find`].
    pub a: usize,
    pub b: usize,
    pub score: f64,
    pub reasons: Vec<String>,
}

/// People linked by pairs above the threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// Indexes into the people, oldest first (then by id).
    pub members: Vec<usize>,
    /// The best pair's score.
    pub score: f64,
    /// The pairs that link them, best first.
    pub pairs: Vec<Pair>,
}

/// What [`find`] found.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Every candidate pair scoring at least the minimum asked for, best first.
    pub pairs: Vec<Pair>,
    /// Candidate pairs compared.
    pub compared: usize,
    /// Blocking keys left out for being shared by more than [`MAX_BLOCK`] people.
    pub crowded_keys: usize,
}

/// A name's similarity written as a reason (`0.94`), rounded down so `0.999` is not `1.00`.
fn two_places(x: f64) -> String {
    format!("{:.2}", (x * 100.0).floor() / 100.0)
}

/// Scores one pair: `None` when nothing links them.
fn score(
    pa: &Person,
    pb: &Person,
    a: &Prepared,
    b: &Prepared,
    s: &DupesSettings,
) -> Option<(f64, Vec<String>)> {
    let linked =
        (a.email.is_some() && a.email == b.email) || (a.phone.is_some() && a.phone == b.phone);
    let named = !a.name.is_empty() && !b.name.is_empty();
    // Word by word first: the cheapest measure, and an upper bound of the name's. Without a
    // shared mailbox or phone only a close name can link two people (most candidates from
    // the name+account keys share one word and no more).
    let words = named.then(|| normalise::word_similarity_of(a.words(), b.words()));
    if !linked && words.is_none_or(|w| w < s.name_similarity) {
        return None;
    }
    let name = words.map(|w| {
        let as_is = strsim::jaro_winkler(&a.name, &b.name);
        if as_is >= 1.0 {
            return as_is;
        }
        let (sa, sb) = (a.sorted(), b.sorted());
        let whole = if sa == *a.name && sb == *b.name {
            as_is
        } else {
            as_is.max(strsim::jaro_winkler(&sa, &sb))
        };
        whole.min(w)
    });
    let close = name.is_some_and(|n| n >= s.name_similarity);
    // Both named, and clearly not the same name: one mailbox or phone shared by two people.
    let differ = name.is_some_and(|n| n < 0.75);
    let shared_account = pa.accounts.iter().any(|x| pb.accounts.contains(x));
    let mut reasons = Vec::new();
    let mut scores = Vec::new();
    if a.email.is_some() && a.email == b.email {
        let (ea, eb) = (
            pa.email.as_deref().unwrap_or(""),
            pb.email.as_deref().unwrap_or(""),
        );
        reasons.push(email_reason(ea, eb).to_string());
        scores.push(if differ {
            0.8
        } else if close {
            1.0
        } else {
            0.95
        });
    }
    if a.phone.is_some() && a.phone == b.phone {
        reasons.push("same phone".to_string());
        scores.push(if differ {
            0.75
        } else if close {
            1.0
        } else {
            0.9
        });
    }
    if let Some(n) = name {
        if close && shared_account {
            reasons.push(format!("name {} + same account", two_places(n)));
            scores.push(0.5 + 0.5 * n);
        } else if close && !scores.is_empty() {
            reasons.push(format!("name {}", two_places(n)));
        } else if differ && !scores.is_empty() {
            reasons.push(format!("names differ ({})", two_places(n)));
        } else if close {
            // A close name with nothing else: listed only below the threshold.
            reasons.push(format!("name {} only", two_places(n)));
            scores.push(0.5 * n);
        }
    }
    let best = scores.iter().copied().fold(f64::NAN, f64::max);
    if best.is_nan() {
        return None;
    }
    // Two independent links are stronger than either.
    let bonus = if scores.len() > 1 { 0.05 } else { 0.0 };
    Some(((best + bonus).min(1.0), reasons))
}

/// A blocking key as a number (`DefaultHasher::new` has fixed keys). Two keys that collide
/// only add comparisons, never lose one.
fn key_hash(parts: &[&str]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}

/// The blocking keys of one person: its mailbox, its phone, and each name word together
/// with each of its accounts (a close name counts only with a shared account).
fn keys(p: &Person, prep: &Prepared, i: u32, out: &mut Vec<(u64, u32)>) {
    let start = out.len();
    if let Some(e) = &prep.email {
        out.push((key_hash(&["e", e]), i));
    }
    if let Some(t) = &prep.phone {
        out.push((key_hash(&["p", t]), i));
    }
    for acc in &p.accounts {
        for w in prep.words().filter(|w| w.chars().count() >= 2) {
            out.push((key_hash(&["n", acc, w]), i));
        }
    }
    out[start..].sort_unstable();
    let mut seen = start;
    for k in start..out.len() {
        if k == start || out[k] != out[seen - 1] {
            out[seen] = out[k];
            seen += 1;
        }
    }
    out.truncate(seen);
}

/// Every pair of `people` scoring at least `min_score`, found through blocking keys.
///
/// Each person's normal forms are made once (E.164 parsing is the dearest step) and kept
/// compact; a blocking key is a hash and an index (12 bytes); a candidate pair two indexes.
pub fn find(
    people: &[Person],
    region: Option<phonenumber::country::Id>,
    s: &DupesSettings,
    min_score: f64,
) -> Found {
    let prepared: Vec<Prepared> = people.iter().map(|p| prepare(p, region)).collect();
    // (key, person) sorted by key: each run of one key is a block.
    let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(people.len() * 3);
    for (i, (p, prep)) in people.iter().zip(&prepared).enumerate() {
        keys(p, prep, i as u32, &mut keyed);
    }
    keyed.sort_unstable();
    let mut candidates: Vec<(u32, u32)> = Vec::new();
    // Two people sharing several keys come once per key: the list is made unique whenever
    // it doubles, so it never holds many times the pairs it keeps.
    let mut compact_at = 1 << 20;
    let mut crowded = 0;
    for block in keyed.chunk_by(|x, y| x.0 == y.0) {
        if block.len() > MAX_BLOCK {
            crowded += 1;
            continue;
        }
        for (x, &(_, i)) in block.iter().enumerate() {
            for &(_, j) in &block[x + 1..] {
                candidates.push((i.min(j), i.max(j)));
            }
        }
        if candidates.len() >= compact_at {
            candidates.sort_unstable();
            candidates.dedup();
            compact_at = (candidates.len() * 2).max(1 << 20);
        }
    }
    drop(keyed);
    candidates.sort_unstable();
    candidates.dedup();
    let mut pairs: Vec<Pair> = candidates
        .iter()
        .filter_map(|&(i, j)| {
            let (i, j) = (i as usize, j as usize);
            let (score, reasons) = score(&people[i], &people[j], &prepared[i], &prepared[j], s)?;
            (score >= min_score).then_some(Pair {
                a: i,
                b: j,
                score,
                reasons,
            })
        })
        .collect();
    sort_pairs(&mut pairs, people);
    Found {
        compared: candidates.len(),
        pairs,
        crowded_keys: crowded,
    }
}

/// How alike two people are: the score and its reasons, `None` when nothing links them
/// (the form's check, which found its candidates through the mirror's indexes).
pub fn compare(
    a: &Person,
    b: &Person,
    region: Option<phonenumber::country::Id>,
    s: &DupesSettings,
) -> Option<(f64, Vec<String>)> {
    score(a, b, &prepare(a, region), &prepare(b, region), s)
}

/// Best first, then by the ids (so the order does not depend on the input's order).
fn sort_pairs(pairs: &mut [Pair], people: &[Person]) {
    for p in pairs.iter_mut() {
        if people[p.b].id < people[p.a].id {
            std::mem::swap(&mut p.a, &mut p.b);
        }
    }
    pairs.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| people[x.a].id.cmp(&people[y.a].id))
            .then_with(|| people[x.b].id.cmp(&people[y.b].id))
    });
}

/// Union-find root with path halving.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The clusters the pairs scoring at least `threshold` make: best first, ties by the first
/// member's id; members oldest first. The same people give the same clusters in any order.
pub fn clusters(people: &[Person], pairs: &[Pair], threshold: f64) -> Vec<Cluster> {
    let linked: Vec<&Pair> = pairs.iter().filter(|p| p.score >= threshold).collect();
    let mut up: Vec<usize> = (0..people.len()).collect();
    for p in &linked {
        let (ra, rb) = (root(&mut up, p.a), root(&mut up, p.b));
        if ra != rb {
            up[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut groups: HashMap<usize, Cluster> = HashMap::new();
    for p in linked {
        let c = groups.entry(root(&mut up, p.a)).or_insert_with(|| Cluster {
            members: Vec::new(),
            score: 0.0,
            pairs: Vec::new(),
        });
        c.score = c.score.max(p.score);
        c.members.extend([p.a, p.b]);
        c.pairs.push(p.clone());
    }
    let mut out: Vec<Cluster> = groups.into_values().collect();
    for c in &mut out {
        c.members.sort_unstable();
        c.members.dedup();
        c.members.sort_by(|&x, &y| {
            let (px, py) = (&people[x], &people[y]);
            (px.created_at.is_none(), &px.created_at, &px.id).cmp(&(
                py.created_at.is_none(),
                &py.created_at,
                &py.id,
            ))
        });
        sort_pairs(&mut c.pairs, people);
    }
    let first_id = |c: &Cluster| {
        c.members
            .iter()
            .map(|&i| people[i].id.as_str())
            .min()
            .unwrap_or("")
            .to_string()
    };
    out.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| first_id(x).cmp(&first_id(y)))
    });
    out
}
