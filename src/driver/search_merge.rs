//! A sharded search put back together: each shard of `rankcheck test --shard I/N` records every
//! execution it counted (the facts the coverage statement needs, by global execution number)
//! and its bugs; the merge counts exactly the executions the unsharded search would have —
//! up to the lowest-numbered bug unless keep-going — and has the scheduler state the coverage
//! from their facts (`session_coverage`), as the unsharded search does across its JVMs.

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
    for body in &bodies {
        let part: Vec<Counted> = serde_json::from_value(body["counted"].clone())?;
        counted.extend(part.into_iter().filter(|c| counts(c.index)));
    }
    counted.sort_by_key(|c| c.index);
    let mut facts = Facts::default();
    for c in &counted {
        c.add_to(&mut facts);
    }
    let coverage = statement(info.name, &bounds.to_scheduler(), &facts);
    let mut inconclusive = all("inconclusive");
    inconclusive.retain(|i| counts(i["execution"].as_u64().unwrap_or(0)));
    inconclusive.sort_by_key(|i| i["execution"].as_u64().unwrap_or(0));
    let seconds = bodies
        .iter()
        .filter_map(|b| b["seconds"].as_f64())
        .fold(0.0, f64::max);
    let first_report = bugs.first().cloned().unwrap_or(Value::Null);
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
        "unreproduced": all("unreproduced"),
        "inconclusive": inconclusive,
        "time_limited": bodies.iter().any(|b| b["time_limited"] == true),
        "nondeterminism": all("nondeterminism"),
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
