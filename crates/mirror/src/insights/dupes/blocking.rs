//! Candidates through blocking keys, and the score of each: the matcher's inner loop over a
//! [`Table`].
//!
//! A blocking key is a hash (its text is never kept); each person's keys are sorted, and
//! `(key, person)` sorted by key makes the blocks. Two people sharing several keys are
//! compared once, in the block of the first key they share: no list of candidate pairs is
//! ever built or deduplicated.

use super::normalise::{self, email_reason};
use super::table::{Table, View};
use super::{DupesSettings, Found, MAX_BLOCK, Pair};

/// A name's similarity written as a reason (`0.94`), rounded down so `0.999` is not `1.00`.
fn two_places(x: f64) -> String {
    format!("{:.2}", (x * 100.0).floor() / 100.0)
}

/// Scores one pair: `None` when nothing links them.
pub(super) fn score(a: View<'_>, b: View<'_>, s: &DupesSettings) -> Option<(f64, Vec<String>)> {
    let same_email = a.email_key.is_some() && a.email_key == b.email_key;
    let same_phone = a.phone_key.is_some() && a.phone_key == b.phone_key;
    let named = !a.folded.is_empty() && !b.folded.is_empty();
    // Word by word first: the cheapest measure, and an upper bound of the name's. Without a
    // shared mailbox or phone only a close name can link two people (most candidates from
    // the name+account keys share one word and no more).
    let words = named.then(|| normalise::word_similarity_of(a.words(), b.words()));
    if !same_email && !same_phone && words.is_none_or(|w| w < s.name_similarity) {
        return None;
    }
    let name = words.map(|w| {
        let as_is = normalise::jaro_winkler(a.folded, b.folded);
        if as_is >= 1.0 {
            return as_is;
        }
        let (sa, sb) = (a.sorted(), b.sorted());
        let whole = if sa == a.folded && sb == b.folded {
            as_is
        } else {
            as_is.max(normalise::jaro_winkler(&sa, &sb))
        };
        whole.min(w)
    });
    let close = name.is_some_and(|n| n >= s.name_similarity);
    // Both named, and clearly not the same name: one mailbox or phone shared by two people.
    let differ = name.is_some_and(|n| n < 0.75);
    let shared_account = a.accounts.iter().any(|x| b.accounts.contains(x));
    let mut reasons = Vec::new();
    let mut scores = Vec::new();
    if same_email {
        let (ea, eb) = (a.email.unwrap_or(""), b.email.unwrap_or(""));
        reasons.push(email_reason(ea, eb).to_string());
        scores.push(if differ {
            0.8
        } else if close {
            1.0
        } else {
            0.95
        });
    }
    if same_phone {
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

/// The blocking keys of row `i`, sorted and unique: its mailbox, its phone, and each name
/// word together with each of its accounts (a close name counts only with a shared account).
fn keys(t: &Table, i: usize, out: &mut Vec<u64>) {
    let v = t.view(i);
    let start = out.len();
    if let Some(e) = v.email_key {
        out.push(key_hash(&["e", e]));
    }
    if let Some(p) = v.phone_key {
        out.push(key_hash(&["p", p]));
    }
    for &acc in v.accounts {
        for w in v.words().filter(|w| w.chars().count() >= 2) {
            out.push(key_hash(&["n", t.account(acc), w]));
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

/// Whether `k` is the first key `a` and `b` (sorted) share that is not crowded.
fn first_shared(a: &[u64], b: &[u64], k: u64, crowded: &[u64]) -> bool {
    let (mut x, mut y) = (0, 0);
    while x < a.len() && y < b.len() {
        let (ka, kb) = (a[x], b[y]);
        if ka >= k || kb >= k {
            return true;
        }
        if ka < kb {
            x += 1;
        } else if kb < ka {
            y += 1;
        } else {
            if crowded.binary_search(&ka).is_err() {
                return false;
            }
            x += 1;
            y += 1;
        }
    }
    true
}

/// Every pair of the table's rows scoring at least `min_score`, found through blocking
/// keys, unsorted (the caller sorts them).
pub(super) fn pairs(t: &Table, s: &DupesSettings, min_score: f64) -> Found {
    // Each row's keys, back to back.
    let mut own: Vec<u64> = Vec::with_capacity(t.len() * 4);
    let mut at: Vec<u32> = Vec::with_capacity(t.len() + 1);
    at.push(0);
    for i in 0..t.len() {
        keys(t, i, &mut own);
        at.push(own.len() as u32);
    }
    own.shrink_to_fit();
    let keys_of = |i: u32| &own[at[i as usize] as usize..at[i as usize + 1] as usize];
    // (key, row) sorted by key: each run of one key is a block.
    let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(own.len());
    for i in 0..t.len() as u32 {
        keyed.extend(keys_of(i).iter().map(|&k| (k, i)));
    }
    keyed.sort_unstable();
    let blocks = || keyed.chunk_by(|x, y| x.0 == y.0);
    let crowded: Vec<u64> = blocks()
        .filter(|b| b.len() > MAX_BLOCK)
        .map(|b| b[0].0)
        .collect();
    let mut found = Found {
        crowded_keys: crowded.len(),
        ..Found::default()
    };
    for block in blocks().filter(|b| b.len() <= MAX_BLOCK) {
        let k = block[0].0;
        for (x, &(_, i)) in block.iter().enumerate() {
            let vi = t.view(i as usize);
            for &(_, j) in &block[x + 1..] {
                if !first_shared(keys_of(i), keys_of(j), k, &crowded) {
                    continue;
                }
                found.compared += 1;
                let (i, j) = (i as usize, j as usize);
                let Some((score, reasons)) = score(vi, t.view(j), s) else {
                    continue;
                };
                if score >= min_score {
                    found.pairs.push(Pair {
                        a: i,
                        b: j,
                        score,
                        reasons,
                    });
                }
            }
        }
    }
    found
}
