//! Seeded randomness, kept apart from scheduling.
//!
//! Every randomized strategy draws from one [`SeededRandom`] per execution, made by
//! [`SeededRandom::for_execution`] from the session seed and the execution index, so execution
//! `i` of seed `s` is reproducible on its own (without replaying executions `0..i`). The
//! generator is xoshiro256** seeded through SplitMix64, written here so that its output can never
//! change under a dependency upgrade: a seed printed today replays the same schedules tomorrow.

/// A source of random numbers for strategies.
pub trait RandomSource {
    /// 64 uniformly random bits.
    fn next_u64(&mut self) -> u64;

    /// A uniformly random integer in `0..n` (`0` when `n == 0`).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Lemire's multiply-shift with rejection: unbiased for every n.
        let threshold = n.wrapping_neg() % n;
        loop {
            let product = u128::from(self.next_u64()) * u128::from(n);
            if (product as u64) >= threshold {
                return (product >> 64) as u64;
            }
        }
    }

    /// A uniformly random index into a slice of length `len` (`0` when `len == 0`).
    fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// A uniformly random number in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The project's seeded generator (xoshiro256**).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededRandom {
    state: [u64; 4],
}

/// SplitMix64's increment (the golden ratio's 64-bit fraction).
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function: a stable 64-bit mix, the one the generator's seeding, the
/// happens-before hashes ([`crate::hb::mix`]) and the agent's hash helpers share. Its values are
/// part of what seeds, schedules and executions compute, so it never changes.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One step of SplitMix64 over `state`.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN_GAMMA);
    mix64(*state)
}

impl SeededRandom {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> SeededRandom {
        let mut x = seed;
        let state = [
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
        ];
        SeededRandom { state }
    }

    /// The generator of execution `index` of a session seeded with `seed`.
    pub fn for_execution(seed: u64, index: u64) -> SeededRandom {
        let mut x = seed ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03);
        SeededRandom::new(splitmix64(&mut x))
    }
}

impl RandomSource for SeededRandom {
    fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64's published first outputs from state 0, so the shared mix never drifts.
    #[test]
    fn splitmix64_is_splitmix64() {
        let mut s = 0;
        assert_eq!(splitmix64(&mut s), 0xe220_a839_7b1d_cdaf);
        assert_eq!(splitmix64(&mut s), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(s, GOLDEN_GAMMA.wrapping_mul(2));
    }

    #[test]
    fn same_seed_same_numbers_and_executions_differ() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = SeededRandom::for_execution(7, 3);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = SeededRandom::for_execution(7, 3);
        assert_eq!(a, (0..8).map(|_| r.next_u64()).collect::<Vec<_>>());
        let mut other = SeededRandom::for_execution(7, 4);
        assert_ne!(a[0], other.next_u64());
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = SeededRandom::new(1);
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[r.below(3) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        assert_eq!(r.below(0), 0);
        let u = r.unit();
        assert!((0.0..1.0).contains(&u));
    }
}
