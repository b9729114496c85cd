//! The numbers behind the guarantees rankcheck prints.
//!
//! - Lemma 4.1 of Bindal, Bansal, Lal (*Variable and Thread Bounding*, §4): how many uniformly
//!   random permutations of `n` elements contain every relative order of every `t`-subset with
//!   probability at least `1 − ε`: `m ≥ t! · ln(C(n, t) · t! / ε)`.
//! - PCT (Burckhardt et al., ASPLOS 2010, Theorem 9): a depth-`d` bug is hit with probability at
//!   least `1 / (n · k^(d−1))`.
//! - PCTVB (Bindal et al. §3, Theorem 3.1): with `v` of `N` variables chosen uniformly and change
//!   points among the `ΣKᵢ` accesses to them: `1 / (C(N, v) · n · (ΣKᵢ)^(d−1))`.
//!
//! Everything is computed in `f64` through logarithms, so large `n`, `k` or `N` never overflow.

use std::fmt;

/// An argument outside the domain of a bound.
#[derive(Debug, Clone, PartialEq)]
pub enum BoundError {
    /// ε must lie strictly between 0 and 1.
    Epsilon(f64),
    /// A count that must be at least one was zero.
    Zero(&'static str),
    /// The thread bound exceeds the number of elements being permuted.
    ThreadBoundTooLarge { t: u32, n: u32 },
}

impl fmt::Display for BoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundError::Epsilon(e) => write!(f, "epsilon must be in (0, 1), got {e}"),
            BoundError::Zero(what) => write!(f, "{what} must be at least 1"),
            BoundError::ThreadBoundTooLarge { t, n } => {
                write!(
                    f,
                    "thread bound t = {t} exceeds the {n} elements being ordered"
                )
            }
        }
    }
}

impl std::error::Error for BoundError {}

/// `ln(x!)`, exact summation (the arguments here are small: thread and fragment counts).
pub fn ln_factorial(x: u64) -> f64 {
    (2..=x).map(|i| (i as f64).ln()).sum()
}

/// `x!` as a float (exact up to 170!).
pub fn factorial(x: u64) -> f64 {
    (2..=x).map(|i| i as f64).product()
}

/// `ln C(n, k)`; `-inf` when `k > n` (there are no such subsets).
pub fn ln_binomial(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    let k = k.min(n - k);
    (0..k)
        .map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln())
        .sum()
}

/// `C(n, k)` as a float.
pub fn binomial(n: u64, k: u64) -> f64 {
    ln_binomial(n, k).exp().round()
}

/// Lemma 4.1: the number `m` of independent uniformly random permutations of `n` elements after
/// which every relative order of every `t`-subset has appeared with probability `≥ 1 − ε`:
/// `⌈t! · ln(C(n, t) · t! / ε)⌉`. For `t ≤ 1` a single permutation trivially suffices.
pub fn permutations_needed(n: u32, t: u32, epsilon: f64) -> Result<u64, BoundError> {
    check_epsilon(epsilon)?;
    if n == 0 {
        return Err(BoundError::Zero("the number of elements n"));
    }
    if t > n {
        return Err(BoundError::ThreadBoundTooLarge { t, n });
    }
    if t <= 1 {
        return Ok(1);
    }
    let (n, t) = (u64::from(n), u64::from(t));
    let orders_ln = ln_binomial(n, t) + ln_factorial(t);
    let m = factorial(t) * (orders_ln - epsilon.ln());
    Ok(m.ceil().max(1.0) as u64)
}

/// The ε reached after `m` random permutations (the union bound of the lemma's proof, without its
/// final approximation): `min(1, C(n, t) · t! · (1 − 1/t!)^m)`.
pub fn permutation_miss_probability(n: u32, t: u32, m: u64) -> f64 {
    if t <= 1 || t > n {
        return if m == 0 && t == 1 { 1.0 } else { 0.0 };
    }
    let (n64, t64) = (u64::from(n), u64::from(t));
    let per_order = 1.0 - 1.0 / factorial(t64);
    let ln = ln_binomial(n64, t64) + ln_factorial(t64) + (m as f64) * per_order.ln();
    ln.exp().min(1.0)
}

/// PCT's lower bound on hitting a depth-`d` bug: `1 / (n · k^(d−1))`.
pub fn pct_probability(n: u32, k: u64, d: u32) -> Result<f64, BoundError> {
    nonzero(u64::from(n), "the thread count n")?;
    nonzero(k, "the step count k")?;
    nonzero(u64::from(d), "the depth d")?;
    let ln = (f64::from(n)).ln() + f64::from(d - 1) * (k as f64).ln();
    Ok((-ln).exp())
}

/// PCTVB's lower bound (RankChecker §3): `1 / (C(N, v) · n · (ΣKᵢ)^(d−1))`, where the bug's `v`
/// variables are among `N` candidates and `sum_k` = ΣKᵢ bounds the accesses to the chosen ones.
pub fn pctvb_probability(
    candidates: u64,
    v: u32,
    n: u32,
    sum_k: u64,
    d: u32,
) -> Result<f64, BoundError> {
    nonzero(candidates, "the candidate variable count N")?;
    nonzero(u64::from(v), "the variable bound v")?;
    nonzero(u64::from(n), "the thread count n")?;
    nonzero(sum_k, "the access count ΣKᵢ")?;
    nonzero(u64::from(d), "the depth d")?;
    let v = u64::from(v).min(candidates);
    let ln =
        ln_binomial(candidates, v) + f64::from(n).ln() + f64::from(d - 1) * (sum_k as f64).ln();
    Ok((-ln).exp())
}

/// Number of ways to place `c` change points among `k` tracked accesses: `C(k, c)`.
pub fn placements(k: u64, c: u32) -> f64 {
    binomial(k, u64::from(c))
}

fn check_epsilon(epsilon: f64) -> Result<(), BoundError> {
    if epsilon > 0.0 && epsilon < 1.0 {
        Ok(())
    } else {
        Err(BoundError::Epsilon(epsilon))
    }
}

fn nonzero(x: u64, what: &'static str) -> Result<(), BoundError> {
    if x == 0 {
        Err(BoundError::Zero(what))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn binomials_and_factorials() {
        assert_eq!(binomial(10, 2), 45.0);
        assert_eq!(binomial(10, 4), 210.0);
        assert_eq!(binomial(5, 0), 1.0);
        assert_eq!(binomial(3, 5), 0.0);
        assert_eq!(factorial(4), 24.0);
        assert!((ln_factorial(5) - 120f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn lemma_4_1_formula() {
        // 2·ln(45·2/0.01) = 18.21…, 6·ln(120·6/0.01) = 67.1…, 24·ln(210·24/0.01) = 315.1…
        assert_eq!(permutations_needed(10, 2, 0.01), Ok(19));
        assert_eq!(permutations_needed(10, 3, 0.01), Ok(68));
        assert_eq!(permutations_needed(10, 4, 0.01), Ok(316));
        assert_eq!(permutations_needed(10, 1, 0.01), Ok(1));
        // Logarithmic growth in n: 1000 threads need far fewer than 1000! permutations.
        assert!(permutations_needed(1000, 2, 0.01).unwrap() < 40);
    }

    #[test]
    fn lemma_4_1_rejects_bad_input() {
        assert_eq!(
            permutations_needed(10, 2, 0.0),
            Err(BoundError::Epsilon(0.0))
        );
        assert_eq!(
            permutations_needed(10, 2, 1.0),
            Err(BoundError::Epsilon(1.0))
        );
        assert!(permutations_needed(0, 0, 0.5).is_err());
        assert_eq!(
            permutations_needed(3, 4, 0.5),
            Err(BoundError::ThreadBoundTooLarge { t: 4, n: 3 })
        );
    }

    #[test]
    fn miss_probability_reaches_epsilon_at_m() {
        for t in 2..=4 {
            let m = permutations_needed(10, t, 0.01).unwrap();
            assert!(permutation_miss_probability(10, t, m) <= 0.01);
            assert!(permutation_miss_probability(10, t, m / 2) > 0.01);
        }
    }

    #[test]
    fn pct_and_pctvb_probabilities() {
        assert!((pct_probability(2, 10, 3).unwrap() - 1.0 / 200.0).abs() < 1e-12);
        assert!((pct_probability(4, 1000, 1).unwrap() - 0.25).abs() < 1e-12);
        // C(10, 2) = 45, n = 3, ΣK = 20, d = 2: 1 / (45 · 3 · 20).
        let p = pctvb_probability(10, 2, 3, 20, 2).unwrap();
        assert!((p - 1.0 / 2700.0).abs() < 1e-12);
        assert!(pct_probability(0, 10, 2).is_err());
        assert!(pctvb_probability(10, 0, 3, 20, 2).is_err());
    }

    /// Index of the relative order of `subset` (sorted element ids) in a permutation given as
    /// `position[element]`: the Lehmer code of the ranks, in `0 .. t!`.
    fn order_index(subset: &[usize], position: &[usize]) -> usize {
        let mut index = 0;
        for (i, &a) in subset.iter().enumerate() {
            let smaller_after = subset[i + 1..]
                .iter()
                .filter(|&&b| position[b] < position[a])
                .count();
            index = index * (subset.len() - i) + smaller_after;
        }
        index
    }

    fn subsets(n: usize, t: usize) -> Vec<Vec<usize>> {
        fn go(start: usize, n: usize, t: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if cur.len() == t {
                out.push(cur.clone());
                return;
            }
            for x in start..n {
                cur.push(x);
                go(x + 1, n, t, cur, out);
                cur.pop();
            }
        }
        let mut out = Vec::new();
        go(0, n, t, &mut Vec::new(), &mut out);
        out
    }

    /// Monte-Carlo check of Lemma 4.1: with n = 10 and ε = 0.01, the predicted number of random
    /// permutations covers every order of every t-subset in at least 99 % of trials.
    #[test]
    fn lemma_4_1_monte_carlo() {
        let n = 10;
        let mut rng = ChaCha8Rng::seed_from_u64(0x4_1);
        for (t, trials) in [(2usize, 400u32), (3, 300), (4, 100)] {
            let m = permutations_needed(n as u32, t as u32, 0.01).unwrap();
            let subsets = subsets(n, t);
            let orders = factorial(t as u64) as usize;
            let mut covered_trials = 0;
            let mut perm: Vec<usize> = (0..n).collect();
            let mut position = vec![0; n];
            for _ in 0..trials {
                let mut seen = vec![false; subsets.len() * orders];
                for _ in 0..m {
                    perm.shuffle(&mut rng);
                    for (p, &e) in perm.iter().enumerate() {
                        position[e] = p;
                    }
                    for (s, subset) in subsets.iter().enumerate() {
                        seen[s * orders + order_index(subset, &position)] = true;
                    }
                }
                if seen.iter().all(|&x| x) {
                    covered_trials += 1;
                }
            }
            let rate = f64::from(covered_trials) / f64::from(trials);
            println!(
                "lemma 4.1: n={n} t={t} m={m}: all orders covered in {rate:.3} of {trials} trials"
            );
            assert!(rate >= 0.99, "t={t}: coverage rate {rate}");
            // And the bound is not vacuous: far fewer permutations do miss some order.
            let few = (m / 8).max(1);
            let mut seen = vec![false; subsets.len() * orders];
            for _ in 0..few {
                perm.shuffle(&mut rng);
                for (p, &e) in perm.iter().enumerate() {
                    position[e] = p;
                }
                for (s, subset) in subsets.iter().enumerate() {
                    seen[s * orders + order_index(subset, &position)] = true;
                }
            }
            assert!(
                !seen.iter().all(|&x| x),
                "t={t}: {few} permutations covered everything"
            );
        }
    }
}
