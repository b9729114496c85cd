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
    let run = launch.run(&work.join("replay.jsonl"))?;
    let result = run
        .results
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("the replay JVM reported no execution"))?;
    let difference = difference(&recorded.expected, &result);
    Ok(Replayed {
        result,
        reproduced: difference.is_none(),
        difference,
    })
}
