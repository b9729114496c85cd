//! Replaying a recorded bug: the report folder's `run.json` names the program, its oracles and
//! the agent options; the schedule file drives a fresh JVM through the same choices (a failure
//! of the non-preemptive strategy is reproduced by running its one schedule again).

use super::jvm::{java_binary, Launch};
use super::report::{difference, Recorded};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a replay showed.
#[derive(Debug)]
pub struct Replayed {
    /// The replayed execution's result line.
    pub result: Value,
    /// It failed the way the report says.
    pub reproduced: bool,
    /// What differs when it did not (`report::difference`).
    pub difference: Option<String>,
}

/// The launch a report records for execution `index` of the JVM that `search` started: that
/// one execution, after a warm-up (`warm-from`) of the executions the search's JVM ran before
/// it, at most [`CHUNK`](super::strategy::CHUNK) of them: from the start of its chunk when the
/// JVM ran several (each began with a fresh strategy, so the warm-up's schedules are the
/// search's). A JVM is not the same after its first execution (the JDK's caches and classes,
/// loaded and linked on first use, some of it through scheduling points), so an execution
/// found after others replays alone only if that history is run first ([`replay`] tries the
/// last of them alone first: usually the JVM's first-use work is all that matters).
pub fn recorded_launch(search: &Launch, index: u64) -> Launch {
    let mut launch = search.clone();
    let jvm_first = launch
        .option("first-execution")
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(index)
        .min(index);
    let chunk = launch
        .option("chunk")
        .and_then(|c| c.parse::<u64>().ok())
        .filter(|&c| c > 0);
    let warm_from = match chunk {
        Some(chunk) => jvm_first.max(index - index % chunk),
        None => jvm_first.max(index.saturating_sub(super::strategy::CHUNK)),
    };
    for key in ["chunk", "stride", "end"] {
        launch.remove_option(key);
    }
    launch.set_option("first-execution", index.to_string());
    if warm_from < index {
        launch.set_option("warm-from", warm_from.to_string());
    } else {
        launch.remove_option("warm-from");
    }
    launch
}

/// The launch that re-runs `recorded` once under its schedule.
pub fn launch_for(recorded: &Recorded, work: &Path) -> anyhow::Result<Launch> {
    let runtime = super::runtime::runtime()?;
    let mut launch = Launch {
        java: java_binary(),
        jvm_args: recorded.jvm_args.clone(),
        agent_options: recorded.agent_options.clone(),
        runtime,
        classpath: recorded.classpath.clone(),
        framework: recorded.framework.clone(),
        main: recorded.main.clone(),
        fail_on_output: recorded.fail_on_output.clone(),
        fail_on_file: recorded.fail_on_file.clone(),
        args: recorded.args.clone(),
        timeout_ms: 20_000,
        cwd: None,
        log: Some(work.join("replay-jvm.log")),
    };
    if let Some(t) = launch.option("timeout-ms").and_then(|t| t.parse().ok()) {
        launch.timeout_ms = t;
    }
    let schedule = check_schedule(&recorded.schedule)?;
    // The non-preemptive strategy lets a thread pass data accesses in Java (quiet stretches),
    // and such a pass counts steps the agent would not count one by one (the JDK's own
    // first-time work), so its recorded choices do not line up with a replay that asks at
    // every access. Its schedule is the one without preemptions: run that again instead.
    if launch.option("strategy") != Some(scheduler::strategy::NONPREEMPTIVE) {
        launch.set_option("replay", schedule.display().to_string());
        // An execution the strategy pruned (icb, Algorithm 1) ended where its schedule ends;
        // its replay ends there too, the rest of the program not run.
        if recorded.expected.kind == "pruned" {
            launch.set_option("replay-cut-short", "on");
        } else {
            launch.remove_option("replay-cut-short");
        }
    } else {
        launch.remove_option("warm-from");
    }
    launch.set_option("executions", "1");
    launch.set_option("first-execution", recorded.execution.to_string());
    launch.set_option("keep-going", "off");
    launch.remove_option("time-limit-ms");
    // The recorded run may have had a private working directory that is gone by now: a fresh
    // one does as well (the file oracles' files are removed before each execution anyway).
    launch.cwd = match &recorded.cwd {
        Some(dir) if dir.is_dir() => Some(dir.clone()),
        Some(_) => {
            let dir = work.join("cwd");
            std::fs::create_dir_all(&dir)?;
            Some(dir)
        }
        None => None,
    };
    Ok(launch)
}

/// The absolute path of the schedule file at `path`, once it reads as a schedule of this
/// rankcheck's format version: bad input otherwise, before any JVM starts (a schedule of an
/// older version says so, and to run the search again).
pub fn check_schedule(path: &Path) -> anyhow::Result<PathBuf> {
    let bad =
        |e: &dyn std::fmt::Display| crate::error::bad_input(format!("{}: {e}", path.display()));
    let schedule = std::fs::canonicalize(path).map_err(|e| bad(&e))?;
    let text = std::fs::read_to_string(&schedule).map_err(|e| bad(&e))?;
    scheduler::Schedule::parse(&text).map_err(|e| bad(&e))?;
    Ok(schedule)
}

/// Replays `recorded` in a fresh JVM (scratch files in `work`). With `trace`, the result
/// carries every step (`steps_trace`, agent option `trace=on`): the replay that proves a bug
/// is where a report's steps come from (one execution: worth the cost).
pub fn replay(recorded: &Recorded, work: &Path, trace: bool) -> anyhow::Result<Replayed> {
    std::fs::create_dir_all(work)?;
    for entry in recorded.classpath.iter().chain(&recorded.framework) {
        if !entry.exists() {
            return Err(crate::error::bad_input(format!(
                "the recorded class path entry {} is gone (was the cache cleared?)",
                entry.display()
            )));
        }
    }
    let mut launch = launch_for(recorded, work)?;
    if trace {
        launch.set_option("trace", "on");
    }
    let index = recorded.execution;
    let run = |launch: &Launch| -> anyhow::Result<Option<Value>> {
        let run = launch.run(&work.join("replay.jsonl"))?;
        Ok(run
            .results
            .into_iter()
            .find(|r| r["index"].as_u64() == Some(index)))
    };
    let mut last = None;
    for warm_from in warm_ups(launch.option("warm-from"), index) {
        match warm_from {
            Some(w) => launch.set_option("warm-from", w.to_string()),
            None => launch.remove_option("warm-from"),
        }
        let mut result = run(&launch)?;
        if result.is_none() && warm_from.is_some() {
            // The warm-up never reached the recorded execution (the JVM died in it): the
            // replay alone still proves what it proves.
            launch.remove_option("warm-from");
            result = run(&launch)?;
        }
        let result =
            result.ok_or_else(|| anyhow::anyhow!("the replay JVM reported no execution"))?;
        let difference = difference(&recorded.expected, &result);
        if difference.is_none() {
            return Ok(Replayed {
                result,
                reproduced: true,
                difference,
            });
        }
        last = Some((result, difference));
    }
    let (result, difference) = last.expect("at least one replay is tried");
    Ok(Replayed {
        result,
        reproduced: false,
        difference,
    })
}

/// The warm-ups a replay of execution `index` tries, in order (`recorded`: the report's
/// `warm-from`): the one execution before it, which redoes the JVM's first-use work for the
/// price of one execution; then, only if that did not reproduce, the whole recorded history.
fn warm_ups(recorded: Option<&str>, index: u64) -> Vec<Option<u64>> {
    match recorded.and_then(|w| w.parse::<u64>().ok()) {
        Some(w) if w + 1 < index => vec![Some(index - 1), Some(w)],
        Some(w) if w < index => vec![Some(w)],
        _ => vec![None],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search_jvm(first: u64) -> Launch {
        let mut launch = Launch::for_tests();
        launch.set_option("first-execution", first.to_string());
        launch
    }

    #[test]
    fn a_report_warms_up_with_its_jvms_history_up_to_a_chunk() {
        let at = |first, index| {
            let l = recorded_launch(&search_jvm(first), index);
            assert_eq!(
                l.option("first-execution"),
                Some(index.to_string().as_str())
            );
            l.option("warm-from").map(str::to_string)
        };
        assert_eq!(at(400, 400), None);
        assert_eq!(at(400, 457).as_deref(), Some("400"));
        assert_eq!(at(0, 1000).as_deref(), Some("800"));
    }

    #[test]
    fn a_jvm_of_several_chunks_warms_up_from_the_chunk_of_the_execution() {
        let mut search = search_jvm(200);
        for (key, value) in [("chunk", "200"), ("stride", "400"), ("end", "2000")] {
            search.set_option(key, value);
        }
        let l = recorded_launch(&search, 1057);
        assert_eq!(l.option("warm-from"), Some("1000"));
        assert_eq!(l.option("first-execution"), Some("1057"));
        assert_eq!((l.option("chunk"), l.option("stride")), (None, None));
        assert_eq!(l.option("end"), None);
        assert_eq!(recorded_launch(&search, 1000).option("warm-from"), None);
    }

    #[test]
    fn a_replay_tries_one_warm_up_execution_before_the_whole_history() {
        assert_eq!(warm_ups(Some("400"), 457), vec![Some(456), Some(400)]);
        assert_eq!(warm_ups(Some("456"), 457), vec![Some(456)]);
        assert_eq!(warm_ups(None, 457), vec![None]);
        assert_eq!(warm_ups(Some("457"), 457), vec![None]);
    }
}
