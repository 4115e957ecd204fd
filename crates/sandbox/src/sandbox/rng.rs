//! A tiny deterministic random generator (SplitMix64) for the seed data: the committed data set
//! must come out byte-identical on every machine and with every version of `rand`.

/// SplitMix64: small, fast, and good enough for plausible fake data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRng(u64);

impl SeedRng {
    /// An independent stream per record, so record `i` does not depend on how many come after.
    pub fn for_record(seed: u64, kind: u64, index: u64) -> Self {
        let mut r = SeedRng(
            seed ^ kind.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03),
        );
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A number in `lo..hi` (`hi` > `lo`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo).max(1) as u64) as i64
    }

    /// True `percent` times out of a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    pub fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len() as u64) as usize]
    }

    /// A random digit for each `#` in `pattern`.
    pub fn digits(&mut self, pattern: &str) -> String {
        pattern
            .chars()
            .map(|c| {
                if c == '#' {
                    char::from(b'0' + self.below(10) as u8)
                } else {
                    c
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let a: Vec<u64> = (0..5)
            .map(|i| SeedRng::for_record(7, 1, i).next_u64())
            .collect();
        let b: Vec<u64> = (0..5)
            .map(|i| SeedRng::for_record(7, 1, i).next_u64())
            .collect();
        assert_eq!(a, b);
        assert_ne!(a[0], a[1]);
        assert_eq!(SeedRng::for_record(1, 1, 1).digits("+49 ###").len(), 7);
    }
}
