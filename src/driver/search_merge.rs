//! A sharded search put back together: each shard of `rankcheck test --shard I/N` records every
//! execution it counted (the facts the coverage statement needs, by global execution number)
//! and its bugs; the merge counts exactly the executions the unsharded search would have —
//! up to the lowest-numbered bug unless keep-going — and has the scheduler state the coverage
//! from their facts (`session_coverage`), as the unsharded search does across its JVMs.
//!
//! Shards of a partitioned enumeration (icb, mcr, rankchecker-exhaustive) number their
//! executions themselves; each counted execution carries its place in the unsharded order
//! (`order`), so the merge first puts them in that order, once each (every shard runs the
//! first execution or preparatory runs), up to the budget, and numbers them as the unsharded
//! search would ([`renumbered`]).

use super::search::{Program, Search, SearchResult};
use super::session::Counted;
use super::shard_file::ShardFile;
use super::strategy::{self, Bounds};
use scheduler::session_coverage::{statement, Facts};
use serde_json::{json, Value};

/// What one shard of a search leaves for the merge.
pub fn shard_body(search: &Search, result: &SearchResult, program: &Program) -> Value {
    let f = &result.finished;
    // `result.inconclusive` is `f.inconclusive` reported, in the same order.
    let inconclusive: Vec<Value> = f
        .inconclusive
        .iter()
        .zip(&result.inconclusive)
        .map(|(found, (message, dir))| {
            json!({"execution": found.index(), "message": message, "report": dir.display().to_string()})
        })
        .collect();
    json!({
        "strategy": search.strategy.name,
        "bounds": search.bounds,
        "seed": search.seed,
        "budget": search.budget,
        "keep_going": search.keep_going,
        "prune": search.prune,
        "escalate": search.escalate,
        "counted": f.counted,
        "bugs": result.bugs.iter().map(|b| b.to_json()).collect::<Vec<_>>(),
        "inconclusive": inconclusive,
        "unreproduced": result.unreproduced,
        "nondeterminism": result.nondeterminism,
        "time_limited": f.time_limited,
        "seconds": f.seconds,
        "uninstrumented_classes": program.uninstrumented_classes,
        "instrumentation_warnings": program.warnings,
    })
}

/// The merged result, shaped as `test --json` prints it (without `exit`), plus `shards`.
pub fn merge(files: &[ShardFile]) -> anyhow::Result<Value> {
    let bodies: Vec<&Value> = files.iter().map(|f| &f.body).collect();
    let mut merged = merge_bodies(&bodies)?;
    merged["shards"] = json!(files.len());
    Ok(merged)
}

/// The shards' parts of one search ([`shard_body`]) as one search's result.
pub fn merge_bodies(bodies: &[&Value]) -> anyhow::Result<Value> {
    let partitioned = bodies.iter().any(|b| {
        b["counted"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["order"].is_array()))
    });
    let owned = if partitioned {
        Some(renumbered(bodies)?)
    } else {
        None
    };
    let bodies: Vec<&Value> = match &owned {
        Some(owned) => owned.iter().collect(),
        None => bodies.to_vec(),
    };
    let bodies = &bodies[..];
    let first = bodies[0];
    let info = strategy::lookup(first["strategy"].as_str().unwrap_or(""))?;
    let bounds: Bounds = serde_json::from_value(first["bounds"].clone())?;
    let keep_going = first["keep_going"] == true;
    let all = |key: &str| -> Vec<Value> {
        bodies
            .iter()
            .flat_map(|b| b[key].as_array().cloned().unwrap_or_default())
            .collect()
    };
    let mut bugs = all("bugs");
    bugs.sort_by_key(|b| b["execution"].as_u64().unwrap_or(u64::MAX));
    let first_bug = bugs.first().and_then(|b| b["execution"].as_u64());
    // The unsharded search counts nothing after its first bug (unless keep-going).
    let counts = |index: u64| keep_going || first_bug.is_none_or(|b| index <= b);
    let mut counted: Vec<Counted> = Vec::new();
    for body in bodies {
        let part: Vec<Counted> = serde_json::from_value(body["counted"].clone())?;
        counted.extend(part.into_iter().filter(|c| counts(c.index)));
    }
    counted.sort_by_key(|c| c.index);
    let mut facts = Facts::default();
    for c in &counted {
        c.add_to(&mut facts);
    }
    let scheduler_bounds = scheduler::strategy::Bounds {
        prune: first["prune"] != false,
        ..bounds.to_scheduler()
    };
    let coverage = statement(info.name, &scheduler_bounds, &facts);
    let mut inconclusive = all("inconclusive");
    inconclusive.retain(|i| counts(i["execution"].as_u64().unwrap_or(0)));
    inconclusive.sort_by_key(|i| i["execution"].as_u64().unwrap_or(0));
    let seconds = bodies
        .iter()
        .filter_map(|b| b["seconds"].as_f64())
        .fold(0.0, f64::max);
    let first_report = bugs.first().cloned().unwrap_or(Value::Null);
    let unreproduced = all("unreproduced");
    let time_limited = bodies.iter().any(|b| b["time_limited"] == true);
    let clean = bugs.is_empty() && inconclusive.is_empty() && unreproduced.is_empty();
    let escalation_due = (clean && !time_limited && bodies.iter().all(|b| b["escalate"] == true))
        .then(|| escalation_due(&counted))
        .flatten();
    Ok(json!({
        "bug": !bugs.is_empty(),
        "executions": counted.len(),
        "seconds": seconds,
        "strategy": info.name,
        "bounds": bounds,
        "seed": first["seed"],
        "budget": first["budget"],
        "report": first_report["report"],
        "coverage": coverage,
        "minimal": first_report["minimal"],
        "schedule_independent": first_report["schedule_independent"],
        "bugs": bugs,
        "uninstrumented_classes": first["uninstrumented_classes"],
        "instrumentation_warnings": first["instrumentation_warnings"],
        "unreproduced": unreproduced,
        "inconclusive": inconclusive,
        "time_limited": time_limited,
        "nondeterminism": all("nondeterminism"),
        "alone_then_shared": super::session::alone_then_shared_warning(&counted),
        "timeouts_withheld": super::session::timeouts_withheld_note(&counted),
        "escalation_due": escalation_due,
    }))
}

/// What the unsharded search would do after a clean first search whose executions used a
/// collection alone while another thread ran (`cmd::search_args::Escalation`): search again
/// with `--jdk-collections all`. No shard can decide that from its own part, so the merge says
/// it, and how to run that second search in shards.
fn escalation_due(counted: &[Counted]) -> Option<String> {
    let hit = super::session::alone_then_shared(counted);
    (hit > 0).then(|| {
        format!(
            "in {hit} of the {} execution(s) a thread used a JDK collection alone while a thread \
             that touched it later was running, so the unsharded search would now search again \
             with --jdk-collections all (the same budget); a shard sees only its part and cannot: \
             run every shard again with --jdk-collections all and merge those folders for that \
             search's verdict",
            counted.len()
        )
    })
}

/// The bodies of a partitioned enumeration's shards with every execution numbered as the
/// unsharded search would number it: all counted executions sorted by their order key, each
/// key once, cut at the budget; bugs and inconclusive executions renumbered through their
/// shard's keys. Exhaustion is the last kept execution's, and only when every shard exhausted
/// its part and the budget cut nothing.
fn renumbered(bodies: &[&Value]) -> anyhow::Result<Vec<Value>> {
    let budget = bodies[0]["budget"].as_u64().unwrap_or(u64::MAX);
    let parts: Vec<Vec<Counted>> = bodies
        .iter()
        .map(|b| serde_json::from_value(b["counted"].clone()))
        .collect::<Result<_, _>>()?;
    let mut keys: Vec<&Vec<u64>> = Vec::new();
    for c in parts.iter().flatten() {
        keys.push(c.order.as_ref().ok_or_else(|| {
            crate::error::bad_input(
                "merge: some shards' executions have no order key (shards of different rankcheck versions?)",
            )
        })?);
    }
    keys.sort();
    keys.dedup();
    let all = keys.len() as u64;
    let global = |key: &Vec<u64>| keys.binary_search(&key).ok().map(|i| i as u64);
    let every_part_done = parts.iter().all(|p| p.iter().any(|c| c.exhausted));
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (body, part) in bodies.iter().zip(&parts) {
        let mut body = (*body).clone();
        let local: std::collections::HashMap<u64, u64> = part
            .iter()
            .filter_map(|c| Some((c.index, global(c.order.as_ref()?)?)))
            .collect();
        let mut counted = Vec::new();
        for c in part {
            let index = local[&c.index];
            if index < budget && seen.insert(index) {
                let exhausted = every_part_done && all <= budget && index + 1 == all;
                counted.push(Counted {
                    index,
                    exhausted,
                    ..c.clone()
                });
            }
        }
        body["counted"] = serde_json::to_value(counted)?;
        for key in ["bugs", "inconclusive"] {
            if let Some(list) = body[key].as_array_mut() {
                for entry in list.iter_mut() {
                    let index = entry["execution"].as_u64().and_then(|i| local.get(&i));
                    entry["execution"] = json!(index);
                }
            }
        }
        out.push(body);
    }
    // The first execution's bug (or lack of control), which every shard ran, is said once.
    for key in ["bugs", "inconclusive"] {
        let mut said = std::collections::HashSet::new();
        for body in &mut out {
            if let Some(list) = body[key].as_array_mut() {
                list.retain(|b| said.insert(b["execution"].as_u64()));
            }
        }
    }
    Ok(out)
}

/// The shards of one `junit` run as its result, shaped as `junit --json` prints it: each test's
/// search merged ([`merge_bodies`]), its verdict decided as `junit` decides it.
pub fn merge_tests(files: &[ShardFile]) -> anyhow::Result<Value> {
    let check_determinism = files[0].options["check_determinism"] == true;
    let tests = |f: &ShardFile| f.body["tests"].as_array().cloned().unwrap_or_default();
    let count = tests(&files[0]).len();
    if files.iter().any(|f| tests(f).len() != count) {
        return Err(crate::error::bad_input(
            "merge: the shards discovered different tests (did the class path change between them?)",
        ));
    }
    let mut rows = Vec::new();
    let (mut found, mut clean, mut inconclusive) = (0, 0, 0);
    for i in 0..count {
        let parts: Vec<Value> = files.iter().map(|f| tests(f)[i].clone()).collect();
        let first = &parts[0];
        if parts.iter().any(|p| p["test"] != first["test"]) {
            return Err(crate::error::bad_input(
                "merge: the shards discovered the tests in different orders",
            ));
        }
        let mut row = json!({"test": first["test"], "display_name": first["display_name"]});
        let error = parts.iter().find_map(|p| p["error"].as_str());
        let searches: Vec<&Value> = parts.iter().map(|p| &p["search"]).collect();
        let merged = match error {
            Some(_) => None,
            None => Some(merge_bodies(&searches)?),
        };
        let verdict = match (&merged, error) {
            (_, Some(e)) => json!({"verdict": "inconclusive", "error": e}),
            (Some(m), None) if m["bug"] == true => {
                let bug = &m["bugs"][0];
                json!({"verdict": "found", "kind": bug["kind"], "message": bug["message"],
                       "execution": bug["execution"], "report": bug["report"],
                       "replay": bug["replay"], "schedule_independent": bug["schedule_independent"],
                       "minimal": bug["minimal"]})
            }
            (Some(m), None) => {
                let no_verdict = m["inconclusive"][0]["message"]
                    .as_str()
                    .or(m["unreproduced"][0].as_str())
                    .map(str::to_string)
                    .or_else(|| {
                        (check_determinism && m["nondeterminism"][0].is_string())
                            .then(|| "a sampled execution ran differently when replayed".into())
                    });
                match no_verdict {
                    Some(why) => json!({"verdict": "inconclusive", "error": why}),
                    None => json!({"verdict": "clean", "coverage": m["coverage"]}),
                }
            }
            (None, None) => unreachable!("no error means a merged search"),
        };
        match verdict["verdict"].as_str() {
            Some("found") => found += 1,
            Some("clean") => clean += 1,
            _ => inconclusive += 1,
        }
        if let (Some(row), Some(verdict)) = (row.as_object_mut(), verdict.as_object()) {
            row.extend(verdict.clone());
        }
        let m = merged.unwrap_or_default();
        row["executions"] = m["executions"].clone();
        row["seconds"] = m["seconds"].clone();
        if m["escalation_due"].is_string() {
            row["escalation_due"] = m["escalation_due"].clone();
        }
        for key in ["strategy", "bounds", "seed"] {
            row[key] = searches[0][key].clone();
        }
        rows.push(row);
    }
    let seconds = rows
        .iter()
        .filter_map(|r| r["seconds"].as_f64())
        .sum::<f64>();
    Ok(json!({
        "bug": found > 0, "tests": rows, "found": found, "clean": clean,
        "inconclusive": inconclusive, "seconds": seconds,
        "uninstrumented_classes": files[0].body["uninstrumented_classes"],
        "instrumentation_warnings": files[0].body["instrumentation_warnings"],
        "shards": files.len(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::shard::Shard;

    fn counted(index: u64, hb: u64) -> Value {
        json!({"index": index, "threads": 2, "steps": 10 + index, "hb": hb, "exhausted": false})
    }

    fn shard(index: u64, executions: &[u64], bug: Option<u64>) -> ShardFile {
        ShardFile {
            command: "test".into(),
            shard: Shard { index, count: 2 },
            options: json!({}),
            body: json!({
                "strategy": "pos", "bounds": {}, "seed": 0, "budget": 400, "keep_going": false,
                "counted": executions.iter().map(|&i| counted(i, i % 3)).collect::<Vec<_>>(),
                "bugs": bug.map(|b| vec![json!({"execution": b, "report": format!("r{b}")})])
                    .unwrap_or_default(),
                "inconclusive": [], "unreproduced": [], "nondeterminism": [],
                "time_limited": false, "seconds": index as f64,
            }),
        }
    }

    /// A shard of a partitioned ICB search: `(own index, order key, exhausted)` per execution.
    fn part(index: u64, runs: &[(u64, Vec<u64>, bool)], bug: Option<u64>) -> ShardFile {
        let mut file = shard(index, &[], bug);
        file.body["strategy"] = json!("icb");
        file.body["budget"] = json!(100);
        file.body["counted"] = runs
            .iter()
            .map(|(i, key, exhausted)| {
                json!({"index": i, "threads": 2, "steps": 5, "hb": key.len(),
                       "exhausted": exhausted, "order": key})
            })
            .collect();
        file
    }

    #[test]
    fn partitioned_shards_are_numbered_in_the_unsharded_order() {
        let m = u64::MAX;
        // Both ran the first execution ([0]); one took the cells 0 and 2, the other cell 1.
        let a = part(
            1,
            &[
                (0, vec![0], false),
                (1, vec![0, m], false),
                (2, vec![1, 0, 0, 0], true),
            ],
            None,
        );
        let b = part(
            2,
            &[
                (0, vec![0], false),
                (1, vec![0, m - 1], false),
                (2, vec![0, m - 1, m], true),
            ],
            None,
        );
        let merged = merge(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(merged["executions"], 5, "{merged}");
        assert!(
            merged["coverage"]
                .as_str()
                .unwrap()
                .contains("ICB explored"),
            "{merged}"
        );
        // A shard that has not exhausted its part: no exhaustion claim.
        let mut unfinished = b.clone();
        unfinished.body["counted"][2]["exhausted"] = json!(false);
        let merged = merge(&[a.clone(), unfinished]).unwrap();
        assert!(
            merged["coverage"]
                .as_str()
                .unwrap()
                .contains("did not finish"),
            "{merged}"
        );
        // b's bug at its own execution 2 is the unsharded search's execution 2.
        let buggy = part(
            2,
            &[
                (0, vec![0], false),
                (1, vec![0, m - 1], false),
                (2, vec![0, m - 1, m], false),
            ],
            Some(2),
        );
        let merged = merge(&[a, buggy]).unwrap();
        assert_eq!(merged["executions"], 3, "{merged}");
        assert_eq!(merged["bugs"][0]["execution"], 2, "{merged}");
    }

    #[test]
    fn the_lowest_bug_decides_what_counts() {
        // Shard 1 ran 0..3 and found a bug at 2; shard 2 ran 3..6 and found one at 5.
        let merged =
            merge(&[shard(1, &[0, 1, 2], Some(2)), shard(2, &[3, 4, 5], Some(5))]).unwrap();
        assert_eq!(merged["executions"], 3);
        assert_eq!(merged["report"], "r2");
        assert_eq!(
            merged["bugs"].as_array().unwrap().len(),
            2,
            "merge keeps all"
        );
        assert_eq!(merged["seconds"], 2.0);
        let clean = merge(&[shard(1, &[0, 1, 2], None), shard(2, &[3, 4, 5], None)]).unwrap();
        assert_eq!(clean["executions"], 6);
        assert!(clean["coverage"].as_str().unwrap().contains("3 distinct"));
    }
}
