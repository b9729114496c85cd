//! The agent's hash helpers, in one place (the floor: every layer may use them). Their values
//! are part of what an execution computes (locations, field keys, pinned hash codes, class
//! cache keys), so they never change.

/// One step of SplitMix64 (the scheduler's, so the agent and the scheduler share one mix).
pub use scheduler::splitmix64 as splitmix;

/// The first state of a hash folded with [`mix`] (FNV's offset basis, any odd constant would do;
/// the values are part of what executions compute, so it never changes).
pub const FOLD_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// A 64-bit mix of two words (for locations and pinned hash codes).
pub fn mix(a: u64, b: u64) -> u64 {
    let mut s = a ^ b.rotate_left(32) ^ 0x517c_c1b7_2722_0a95;
    splitmix(&mut s)
}

/// FNV-1a (64 bits) of `bytes`, by the workspace's one hasher crate.
pub fn fnv(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixing_is_deterministic_and_spreads() {
        assert_eq!(mix(1, 2), mix(1, 2));
        assert_eq!(
            mix(1, 2),
            0x034e_880e_0df8_0f5c,
            "mix's values never change"
        );
        assert_ne!(mix(1, 2), mix(2, 1));
        let mut s = 7;
        let a = splitmix(&mut s);
        assert_ne!(a, splitmix(&mut s));
    }

    #[test]
    fn fnv_is_fnv1a() {
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
