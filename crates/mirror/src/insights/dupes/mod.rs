//! Near duplicate contacts: the same person entered twice, written differently. A pure
//! matcher: normal forms of emails, phones and names (`normalise`), candidates found through
//! blocking keys (never every pair), a score with the reasons that make it, and clusters of
//! the pairs above a threshold. The CLI's `contacts dupes` and the import call it.
//!
//! The evidence, strongest first: the same mailbox (case, Unicode form and Gmail's dots and
//! `+tags` aside), the same phone in E.164, and a close name (Jaro–Winkler on folded names)
//! together with a shared account. A close name alone is not evidence: two people of the same
//! name at different companies are different people.

mod blocking;
pub mod mirrored;
pub mod output;
pub use crmdash_api::normalise;
mod table;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use serde::Serialize;

use crate::api::Contact;
pub use table::Table;

pub use crate::config::{DEFAULT_NAME_SIMILARITY, DEFAULT_THRESHOLD, DupesSettings};

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

/// Every pair of `people` scoring at least `min_score`, found through blocking keys, best
/// first.
pub fn find(
    people: &[Person],
    region: Option<phonenumber::country::Id>,
    s: &DupesSettings,
    min_score: f64,
) -> Found {
    find_in(&Table::of(people, region), s, min_score)
}

/// [`find`] over people already in a [`Table`] (the mirror's 100,000 contacts are read
/// straight into one).
pub fn find_in(table: &Table, s: &DupesSettings, min_score: f64) -> Found {
    let mut found = blocking::pairs(table, s, min_score);
    sort_pairs(&mut found.pairs, table);
    found
}

/// How alike two people are: the score and its reasons, `None` when nothing links them
/// (the form's check, which found its candidates through the mirror's indexes).
pub fn compare(
    a: &Person,
    b: &Person,
    region: Option<phonenumber::country::Id>,
    s: &DupesSettings,
) -> Option<(f64, Vec<String>)> {
    let mut t = Table::new(region);
    let (i, j) = (t.push_person(a), t.push_person(b));
    blocking::score(t.view(i), t.view(j), s)
}

/// The ids and creation times of the people pairs and clusters point at: a list of
/// [`Person`]s or a [`Table`].
pub trait Members {
    fn count(&self) -> usize;
    fn id(&self, i: usize) -> &str;
    fn created(&self, i: usize) -> Option<chrono::DateTime<chrono::Utc>>;
}

impl Members for [Person] {
    fn count(&self) -> usize {
        self.len()
    }
    fn id(&self, i: usize) -> &str {
        &self[i].id
    }
    fn created(&self, i: usize) -> Option<chrono::DateTime<chrono::Utc>> {
        self[i].created_at
    }
}

impl Members for Vec<Person> {
    fn count(&self) -> usize {
        self.len()
    }
    fn id(&self, i: usize) -> &str {
        &self[i].id
    }
    fn created(&self, i: usize) -> Option<chrono::DateTime<chrono::Utc>> {
        self[i].created_at
    }
}

impl Members for Table {
    fn count(&self) -> usize {
        self.len()
    }
    fn id(&self, i: usize) -> &str {
        Table::id(self, i)
    }
    fn created(&self, i: usize) -> Option<chrono::DateTime<chrono::Utc>> {
        Table::created(self, i)
    }
}

/// Best first, then by the ids (so the order does not depend on the input's order).
fn sort_pairs<M: Members + ?Sized>(pairs: &mut [Pair], people: &M) {
    for p in pairs.iter_mut() {
        if people.id(p.b) < people.id(p.a) {
            std::mem::swap(&mut p.a, &mut p.b);
        }
    }
    pairs.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| people.id(x.a).cmp(people.id(y.a)))
            .then_with(|| people.id(x.b).cmp(people.id(y.b)))
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
pub fn clusters<M: Members + ?Sized>(people: &M, pairs: &[Pair], threshold: f64) -> Vec<Cluster> {
    let linked = pairs.iter().filter(|p| p.score >= threshold).cloned();
    clusters_of(people, linked.collect())
}

/// [`clusters`] of pairs handed over (all of them link), so none is copied: 100,000
/// contacts make tens of thousands of pairs.
pub fn clusters_of<M: Members + ?Sized>(people: &M, linked: Vec<Pair>) -> Vec<Cluster> {
    let mut up: Vec<usize> = (0..people.count()).collect();
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
        c.pairs.push(p);
    }
    let mut out: Vec<Cluster> = groups.into_values().collect();
    for c in &mut out {
        c.members.sort_unstable();
        c.members.dedup();
        c.members.sort_by(|&x, &y| {
            let (cx, cy) = (people.created(x), people.created(y));
            (cx.is_none(), cx, people.id(x)).cmp(&(cy.is_none(), cy, people.id(y)))
        });
        sort_pairs(&mut c.pairs, people);
    }
    let first_id = |c: &Cluster| {
        c.members
            .iter()
            .map(|&i| people.id(i))
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
