//! Which part of a search or a sweep this process does when a batch engine (Kubernetes Indexed
//! Jobs, Slurm job arrays) runs it N times: shard I of N takes every N-th piece of the same
//! deterministic work list one unsharded run would go through (the session's chunks of
//! executions, the sweep's units), so that N shards together run exactly that run's schedules.

use crate::error::bad_input;
use std::fmt;

/// Shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// Kubernetes Indexed Jobs: the pod's 0-based completion index.
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
/// The shard count for Kubernetes, which has no variable of its own for it: the manifest sets
/// it (or `--shards N` gives it).
pub const SHARDS_VAR: &str = "RANKCHECK_SHARDS";
/// Slurm job arrays: the task's id, the array's lowest id and its task count.
pub const SLURM_ID: &str = "SLURM_ARRAY_TASK_ID";
pub const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
pub const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// Slurm's step between ids (`--array=0-15:4`); only 1 numbers the tasks without gaps.
pub const SLURM_STEP: &str = "SLURM_ARRAY_TASK_STEP";

/// Bad input when `strategy` cannot be sharded: its search state spans the whole search (an
/// enumeration, SCS's walk) and does not split into parts, so its executions are neither a
/// list of independent chunks nor a partition of a frontier.
pub fn check_shardable(strategy: &super::strategy::StrategyInfo) -> anyhow::Result<()> {
    if strategy.session_state && !strategy.partitions {
        return Err(bad_input(format!(
            "--shard: {} keeps one search state over the whole search (it runs in one JVM) that \
             does not split into parts, so its work cannot be spread over shards; shard a \
             sampling strategy or icb, or run it unsharded",
            strategy.name
        )));
    }
    Ok(())
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// `I/N` with 1 ≤ I ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        // The syntax is the scheduler's partition's (the agent reads the same text).
        let part = scheduler::strategy::partition::Partition::parse(text)
            .map_err(|e| format!("--shard wants I/N (e.g. 2/4) or auto: {e}"))?;
        Ok(Shard {
            index: u64::from(part.index) + 1,
            count: u64::from(part.count),
        })
    }

    /// The shard the batch engine's environment names (`env` reads a variable); `shards` is
    /// `--shards N`. Missing or inconsistent variables are an error saying which.
    pub fn from_env(
        env: impl Fn(&str) -> Option<String>,
        shards: Option<u64>,
    ) -> Result<Shard, String> {
        let num = |name: &str| -> Result<Option<u64>, String> {
            match env(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| format!("--shard auto: {name}={v:?} is not a whole number")),
            }
        };
        let k8s = num(K8S_INDEX)?;
        let slurm = num(SLURM_ID)?;
        let shard = match (k8s, slurm) {
            (Some(_), Some(_)) => {
                return Err(format!(
                    "--shard auto: both {K8S_INDEX} (Kubernetes) and {SLURM_ID} (Slurm) are set; \
                     give --shard I/N"
                ))
            }
            (None, None) => {
                return Err(format!(
                    "--shard auto: neither {K8S_INDEX} (a Kubernetes Indexed Job) nor {SLURM_ID} \
                     (a Slurm job array) is set; give --shard I/N"
                ))
            }
            (Some(index0), None) => {
                let count = match (shards, num(SHARDS_VAR)?) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(format!("--shard auto: --shards {a} but {SHARDS_VAR}={b}"))
                    }
                    (Some(n), _) | (None, Some(n)) => n,
                    (None, None) => {
                        return Err(format!(
                            "--shard auto: {K8S_INDEX} is set but not the shard count: give \
                             --shards N (the Job's completions) or set {SHARDS_VAR}"
                        ))
                    }
                };
                Shard {
                    index: index0 + 1,
                    count,
                }
            }
            (None, Some(id)) => {
                let (Some(min), Some(count)) = (num(SLURM_MIN)?, num(SLURM_COUNT)?) else {
                    return Err(format!(
                        "--shard auto: {SLURM_ID} is set but not {SLURM_MIN} and {SLURM_COUNT}"
                    ));
                };
                if let Some(step) = num(SLURM_STEP)?.filter(|&s| s != 1) {
                    return Err(format!(
                        "--shard auto: {SLURM_STEP}={step}: the array's ids must be consecutive \
                         (--array=A-B without :STEP)"
                    ));
                }
                if let Some(n) = shards.filter(|&n| n != count) {
                    return Err(format!(
                        "--shard auto: --shards {n} but {SLURM_COUNT}={count}"
                    ));
                }
                if id < min {
                    return Err(format!(
                        "--shard auto: {SLURM_ID}={id} is below {SLURM_MIN}={min}"
                    ));
                }
                Shard {
                    index: id - min + 1,
                    count,
                }
            }
        };
        if shard.count == 0 || shard.index > shard.count {
            return Err(format!(
                "--shard auto: the environment names shard {} of {}, which is not one",
                shard.index, shard.count
            ));
        }
        Ok(shard)
    }

    /// Whether the piece at `position` (0-based, in the unsharded run's order) is this
    /// shard's: every N-th one, so that the shards' work is about even.
    pub fn owns(&self, position: u64) -> bool {
        position % self.count == self.index - 1
    }
}

/// `--shard`'s value (`I/N` or `auto`) and `--shards` as the command line gives them, checked:
/// bad input in one line.
pub fn resolve(shard: Option<&str>, shards: Option<u64>) -> anyhow::Result<Option<Shard>> {
    let result = match shard {
        None if shards.is_some() => Err("--shards N goes with --shard auto".to_string()),
        None => return Ok(None),
        Some("auto") => Shard::from_env(|k| std::env::var(k).ok(), shards),
        Some(_) if shards.is_some() => Err("--shards N goes with --shard auto".to_string()),
        Some(text) => Shard::parse(text),
    };
    result.map(Some).map_err(bad_input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn i_of_n_parses_and_nonsense_does_not() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "1/0", "a/b", "3", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_shards_own_every_piece_once() {
        let shards: Vec<Shard> = (1..=4).map(|index| Shard { index, count: 4 }).collect();
        for position in 0..41 {
            let owners = shards.iter().filter(|s| s.owns(position)).count();
            assert_eq!(owners, 1, "piece {position}");
        }
    }

    #[test]
    fn kubernetes_counts_from_zero_and_needs_the_count() {
        let k = |pairs: &[(&str, &str)], n| Shard::from_env(env(pairs), n);
        assert_eq!(
            k(&[(K8S_INDEX, "0")], Some(4)),
            Ok(Shard { index: 1, count: 4 })
        );
        assert_eq!(
            k(&[(K8S_INDEX, "3"), (SHARDS_VAR, "4")], None),
            Ok(Shard { index: 4, count: 4 })
        );
        assert!(k(&[(K8S_INDEX, "3")], None)
            .unwrap_err()
            .contains("--shards"));
        assert!(
            k(&[(K8S_INDEX, "4")], Some(4)).is_err(),
            "index past the count"
        );
        assert!(k(&[(K8S_INDEX, "x")], Some(4)).is_err());
        assert!(k(&[(K8S_INDEX, "1"), (SHARDS_VAR, "3")], Some(4)).is_err());
    }

    #[test]
    fn slurm_counts_from_the_arrays_lowest_id() {
        let s = |pairs: &[(&str, &str)]| Shard::from_env(env(pairs), None);
        let array = |id| [(SLURM_ID, id), (SLURM_MIN, "5"), (SLURM_COUNT, "4")];
        assert_eq!(s(&array("5")), Ok(Shard { index: 1, count: 4 }));
        assert_eq!(s(&array("8")), Ok(Shard { index: 4, count: 4 }));
        assert!(s(&array("9")).is_err(), "past the last task");
        assert!(s(&array("4")).is_err(), "below the first");
        assert!(s(&[(SLURM_ID, "1")]).unwrap_err().contains(SLURM_MIN));
        let mut stepped = array("5").to_vec();
        stepped.push((SLURM_STEP, "2"));
        assert!(s(&stepped).unwrap_err().contains(SLURM_STEP));
        assert!(Shard::from_env(env(&array("5")), Some(3)).is_err());
    }

    #[test]
    fn no_engine_or_both_is_an_error() {
        assert!(Shard::from_env(env(&[]), Some(4)).is_err());
        let both = [
            (K8S_INDEX, "0"),
            (SLURM_ID, "0"),
            (SLURM_MIN, "0"),
            (SLURM_COUNT, "2"),
        ];
        assert!(Shard::from_env(env(&both), Some(2))
            .unwrap_err()
            .contains("both"));
    }
}
