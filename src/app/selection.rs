//! A tab's multi-selection: the ids of the records marked with `space`, `V`, `*` or
//! `:select`, kept apart from the pages, so it survives paging, sorting and refresh.
//!
//! Sized for "every one of 100,000 contacts": an id of up to 15 bytes (`con_000123`, a
//! number, a short key) is stored inline in a 16-byte key in one sorted `Vec` whose capacity
//! is kept equal to its length, so a selection of short ids costs exactly 16 bytes per
//! record, with no per-id allocation and no hash table. Longer ids (UUIDs, URLs) are kept
//! whole in a sorted set beside it: correct for any id, compact for the usual ones.

use std::collections::BTreeSet;

/// Ids longer than this are kept whole (`Selection::long`).
pub const INLINE_ID: usize = 15;

/// An id of up to [`INLINE_ID`] bytes: its length, then its bytes, zero-padded. Ordered
/// byte-wise (by length first), which is all a sorted set needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IdKey([u8; 16]);

impl IdKey {
    /// The key of a short id; `None` for an id longer than [`INLINE_ID`] bytes.
    pub fn new(id: &str) -> Option<IdKey> {
        let b = id.as_bytes();
        if b.len() > INLINE_ID {
            return None;
        }
        let mut k = [0u8; 16];
        k[0] = b.len() as u8;
        k[1..=b.len()].copy_from_slice(b);
        Some(IdKey(k))
    }

    pub fn as_str(&self) -> &str {
        let n = usize::from(self.0[0]);
        // Built from a `&str` of `n` bytes, so the bytes are that string's.
        std::str::from_utf8(&self.0[1..=n]).unwrap_or_default()
    }
}

/// Ids gathered off the loop (a `*` over the mirror or the pages), ready to merge: the short
/// ones sorted and deduplicated, the long ones apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdBatch {
    short: Vec<IdKey>,
    long: Vec<Box<str>>,
}

impl IdBatch {
    pub fn with_capacity(n: usize) -> IdBatch {
        IdBatch {
            short: Vec::with_capacity(n),
            long: Vec::new(),
        }
    }

    pub fn push(&mut self, id: &str) {
        match IdKey::new(id) {
            Some(k) => self.short.push(k),
            None => self.long.push(id.into()),
        }
    }

    /// Sorts and deduplicates (call once, after the last `push`).
    pub fn finish(mut self) -> IdBatch {
        self.short.sort_unstable();
        self.short.dedup();
        self.short.shrink_to_fit();
        self.long.sort_unstable();
        self.long.dedup();
        self
    }

    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a> FromIterator<&'a str> for IdBatch {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut b = IdBatch::default();
        for id in iter {
            b.push(id);
        }
        b.finish()
    }
}

/// The ids marked on one tab.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Sorted, unique, `capacity == len`.
    short: Vec<IdKey>,
    long: BTreeSet<Box<str>>,
    /// The row `V` extends a range from: the last one marked by hand.
    pub anchor: Option<String>,
    /// `Esc` was pressed once on a large selection: the next `Esc` clears it.
    pub clear_asked: bool,
}

impl Selection {
    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, id: &str) -> bool {
        match IdKey::new(id) {
            Some(k) => self.short.binary_search(&k).is_ok(),
            None => self.long.contains(id),
        }
    }

    /// Marks `id`; true when it was not marked before.
    pub fn insert(&mut self, id: &str) -> bool {
        match IdKey::new(id) {
            Some(k) => match self.short.binary_search(&k) {
                Ok(_) => false,
                Err(at) => {
                    // Grown by one, never doubled: the 16 bytes per id hold.
                    self.short.reserve_exact(1);
                    self.short.insert(at, k);
                    true
                }
            },
            None => self.long.insert(id.into()),
        }
    }

    /// Unmarks `id`; true when it was marked.
    pub fn remove(&mut self, id: &str) -> bool {
        match IdKey::new(id) {
            Some(k) => match self.short.binary_search(&k) {
                Ok(at) => {
                    self.short.remove(at);
                    true
                }
                Err(_) => false,
            },
            None => self.long.remove(id),
        }
    }

    /// Marks or unmarks `id`; true when it is now marked.
    pub fn toggle(&mut self, id: &str) -> bool {
        if self.remove(id) {
            false
        } else {
            self.insert(id);
            true
        }
    }

    /// Marks every id of the batch (a linear merge of two sorted runs); how many were new.
    pub fn add_batch(&mut self, batch: IdBatch) -> usize {
        let before = self.len();
        if self.short.is_empty() {
            self.short = batch.short;
        } else {
            let mut merged = Vec::with_capacity(self.short.len() + batch.short.len());
            let (mut a, mut b) = (self.short.iter().peekable(), batch.short.iter().peekable());
            loop {
                let next = match (a.peek(), b.peek()) {
                    (Some(x), Some(y)) if x < y => a.next(),
                    (Some(x), Some(y)) if x > y => b.next(),
                    (Some(_), Some(_)) => {
                        b.next();
                        a.next()
                    }
                    (Some(_), None) => a.next(),
                    (None, Some(_)) => b.next(),
                    (None, None) => break,
                };
                merged.extend(next.copied());
            }
            self.short = merged;
        }
        self.short.shrink_to_fit();
        self.long.extend(batch.long);
        self.len() - before
    }

    /// Unmarks every id of the batch; how many were marked.
    pub fn remove_batch(&mut self, batch: &IdBatch) -> usize {
        let before = self.len();
        let mut drop = batch.short.iter().peekable();
        self.short.retain(|k| {
            while drop.next_if(|d| *d < k).is_some() {}
            drop.peek() != Some(&k)
        });
        self.short.shrink_to_fit();
        for id in &batch.long {
            self.long.remove(id);
        }
        before - self.len()
    }

    pub fn clear(&mut self) {
        *self = Selection::default();
    }

    /// Every marked id (short ones in byte order, then the long ones).
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.short
            .iter()
            .map(IdKey::as_str)
            .chain(self.long.iter().map(|s| &**s))
    }

    /// The heap the selection holds, in bytes (the bench and the docs' figure).
    pub fn heap_bytes(&self) -> usize {
        self.short.capacity() * std::mem::size_of::<IdKey>()
            + self
                .long
                .iter()
                .map(|s| s.len() + std::mem::size_of::<Box<str>>() * 2)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_short_ids_whole() {
        for id in ["", "7", "con_000123", "exactly15bytes!"] {
            assert_eq!(IdKey::new(id).unwrap().as_str(), id);
        }
        assert!(IdKey::new("0123456789abcdef").is_none());
        assert_eq!(std::mem::size_of::<IdKey>(), 16);
    }

    #[test]
    fn toggles_merges_and_removes() {
        let long = "3f2504e0-4f89-11d3-9a0c-0305e82c3301";
        let mut s = Selection::default();
        assert!(s.toggle("b"));
        assert!(s.toggle(long));
        assert!(s.contains("b") && s.contains(long) && !s.contains("a"));
        assert_eq!(s.add_batch(["a", "b", "c"].into_iter().collect()), 2);
        assert_eq!(s.ids().collect::<Vec<_>>(), ["a", "b", "c", long]);
        assert_eq!(s.remove_batch(&["b", long, "zz"].into_iter().collect()), 2);
        assert_eq!(s.ids().collect::<Vec<_>>(), ["a", "c"]);
        assert!(!s.toggle("a"));
        assert_eq!(s.len(), 1);
        s.clear();
        assert!(s.is_empty());
    }

    #[test]
    fn sixteen_bytes_per_short_id() {
        let mut b = IdBatch::with_capacity(1000);
        for i in 0..1000 {
            b.push(&format!("con_{i:06}"));
        }
        let mut s = Selection::default();
        s.add_batch(b.finish());
        s.insert("con_999999");
        s.add_batch(["con_000001", "x"].into_iter().collect());
        assert_eq!(s.len(), 1002);
        assert_eq!(s.heap_bytes(), 1002 * 16);
    }
}
