//! The coverage statement printed when a session ends without a bug: what was covered
//! (executions, distinct happens-before graphs when the agent reports them) and what the
//! strategy can claim, with the formulas of `scheduler::bounds`.

use super::strategy::Bounds;
use scheduler::bounds;

/// What a finished session saw.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub executions: u64,
    /// The strategy stopped on its own before the budget (an exhaustive search finished).
    pub exhausted: bool,
    /// Most application threads in one execution (PCT's n).
    pub max_threads: u32,
    /// Most scheduling steps in one execution (PCT's k).
    pub max_steps: u64,
    /// Distinct happens-before graphs, when the results carry their hashes.
    pub distinct_hb: Option<u64>,
}

/// One paragraph (a few sentences, one line) for people and for the JSON `coverage` field.
pub fn statement(strategy: &str, bounds: &Bounds, seen: &Seen) -> String {
    let mut parts = vec![format!("{} execution(s)", seen.executions)];
    match seen.distinct_hb {
        Some(n) => parts.push(format!("{n} distinct happens-before graph(s)")),
        None => parts.push("distinct happens-before graphs not reported".into()),
    }
    let n = seen.max_threads.max(1);
    let k = seen.max_steps.max(1);
    let claim = match strategy {
        "icb" => {
            let c = bounds.c.unwrap_or(2);
            if seen.exhausted {
                format!(
                    "ICB explored every schedule with at most {c} preemption(s): no bug needs {c} \
                     or fewer preemptions at the instrumented scheduling points"
                )
            } else {
                format!(
                    "ICB did not finish the schedules with at most {c} preemption(s) within the \
                     budget: no claim beyond the executions run"
                )
            }
        }
        "dfs" if seen.exhausted => {
            "depth-first search explored every schedule: the program has no bug at the \
             instrumented scheduling points"
                .into()
        }
        "nonpreemptive" if seen.exhausted => {
            "the one schedule without preemptions ran: no claim about any other interleaving".into()
        }
        "scs" if seen.exhausted => {
            "SCS tried every speed vector of its basis pairs and back-off levels".into()
        }
        "pct" => {
            let d = bounds.d.unwrap_or(3);
            match bounds::pct_probability(n, k, d) {
                Ok(p) => format!(
                    "PCT(d={d}) with n={n} threads and k={k} steps: a bug of depth {d} is hit with \
                     probability >= {p:.3e} per execution, so it was missed with probability <= {:.3}",
                    miss(p, seen.executions)
                ),
                Err(e) => format!("no PCT bound ({e})"),
            }
        }
        "rankchecker" => {
            let c = bounds.c.unwrap_or(1);
            let t = bounds.t.unwrap_or(2);
            let fragments = n + c;
            let eps = bounds::permutation_miss_probability(fragments, t, seen.executions);
            format!(
                "RankChecker(c={c}, t={t}) over {fragments} thread fragments: every relative order \
                 of every {t} fragments was drawn with probability >= {:.3} (Lemma 4.1); the change \
                 points are sampled, not enumerated",
                1.0 - eps
            )
        }
        "pctvb" => format!(
            "PCTVB(d={}, v={}): sampled; the per-execution bound needs the candidate variable \
             count, which this run does not know",
            bounds.d.unwrap_or(3),
            bounds.v.unwrap_or(1)
        ),
        other => format!("{other} samples schedules: no guarantee beyond the executions run"),
    };
    parts.push(claim);
    parts.join("; ")
}

/// `(1 − p)^m`, computed in log space.
fn miss(p: f64, m: u64) -> f64 {
    if p >= 1.0 {
        return if m == 0 { 1.0 } else { 0.0 };
    }
    ((m as f64) * (-p).ln_1p()).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icb_claims_only_when_exhausted() {
        let b = Bounds {
            c: Some(1),
            ..Bounds::default()
        };
        let mut seen = Seen {
            executions: 10,
            exhausted: true,
            ..Seen::default()
        };
        assert!(statement("icb", &b, &seen).contains("no bug needs 1 or fewer"));
        seen.exhausted = false;
        assert!(statement("icb", &b, &seen).contains("did not finish"));
    }

    #[test]
    fn pct_miss_probability_falls_with_executions() {
        let b = Bounds {
            d: Some(2),
            ..Bounds::default()
        };
        let seen = |m| Seen {
            executions: m,
            max_threads: 2,
            max_steps: 10,
            ..Seen::default()
        };
        // p = 1/(2*10) = 0.05; after 100 executions the miss bound is 0.95^100 = 0.006.
        assert!(statement("pct", &b, &seen(100)).contains("<= 0.006"));
        assert!(statement("pct", &b, &seen(0)).contains("<= 1.000"));
    }
}
