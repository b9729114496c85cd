//! The stable digest of bytes that rankcheck persists (cache keys, class digests in reports):
//! FNV-1a 64 (the `fnv` crate) over length-prefixed chunks, so that `["ab", "c"]` and
//! `["a", "bc"]` differ. Std's hashers promise no stability across Rust versions.

use std::hash::Hasher;

/// A digest being built, one chunk at a time.
#[derive(Default)]
pub struct Digest(fnv::FnvHasher);

impl Digest {
    pub fn new() -> Digest {
        Digest::default()
    }

    /// Adds one chunk: its length (a little-endian `u64`), then its bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        self.0.write(&(bytes.len() as u64).to_le_bytes());
        self.0.write(bytes);
    }

    /// The digest of the chunks written so far.
    pub fn finish(&self) -> u64 {
        self.0.finish()
    }

    /// [`Digest::finish`] as 16 hex digits, the form in folder names and reports.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.finish())
    }
}

/// Plain FNV-1a 64 of the concatenation of `parts` (no length prefixes).
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h = fnv::FnvHasher::default();
    for part in parts {
        h.write(part);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_the_ones_persisted_before_the_fnv_crate() {
        // Computed by the hand-written FNV-1a these functions replaced: cache folders and the
        // class digests of existing reports keep their names.
        assert_eq!(fnv1a(&[]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(&[b"rankcheck/", b"Account"]), 0xd848_8a02_e644_eedd);
        let mut d = Digest::new();
        d.write(b"ab");
        d.write(b"c");
        assert_eq!(d.finish(), 0x7e60_470b_f599_cad6);
        assert_eq!(d.hex(), "7e60470bf599cad6");
    }

    #[test]
    fn chunk_boundaries_count() {
        let mut a = Digest::new();
        a.write(b"ab");
        a.write(b"c");
        let mut b = Digest::new();
        b.write(b"a");
        b.write(b"bc");
        assert_ne!(a.finish(), b.finish());
    }
}
