//! Damaging a mirror file the three ways a real one is found damaged; shared by the mirror
//! and dashboard test binaries.

use std::path::Path;

/// The three ways a mirror file is found damaged.
#[derive(Debug, Clone, Copy)]
pub enum Damage {
    Truncated,
    Text,
    BitFlipped,
}

/// Damages the database at `path` (closed, its journal checkpointed).
pub fn damage(path: &Path, how: Damage) {
    let bytes = std::fs::read(path).unwrap();
    let out = match how {
        Damage::Truncated => bytes[..bytes.len() / 3].to_vec(),
        Damage::Text => b"not a database: a note someone saved over the mirror\n".repeat(50),
        Damage::BitFlipped => {
            // The page-type byte of every page but the first flipped: the header still
            // opens, every table read finds a malformed page.
            let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
            let mut b = bytes.clone();
            let mut at = page;
            while at < b.len() {
                b[at] ^= 0xff;
                at += page;
            }
            b
        }
    };
    std::fs::write(path, out).unwrap();
}
