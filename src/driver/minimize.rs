//! Minimal failing schedules (docs/CLI.md, "minimal schedule"): after a bug replayed, its
//! schedule is shrunk by `scheduler::minimize` — fewest preemptions, then fewest threads
//! involved, then shortest — with candidates run in batches, one JVM per batch (one candidate
//! per execution, `guide=FILE`), each kept only when it fails the same way
//! (`report::same_bug`: at whatever step, a throwable whatever its text). The smallest is proven like every reported bug: a
//! replay of its ordinary schedule in a fresh JVM, with `trace=on`, whose steps then make the
//! report's explanation, timeline and picture. The original schedule stays in the report.

use super::explain::{html, story, Story};
use super::jvm::Launch;
use super::replay::replay;
use super::report::{
    annotate, load_recorded, readable_first_line, same_bug, site_table, timeline, Expected,
};
use scheduler::minimize::{describe, minimize, Guide, Limits, Place, Tested, TracedStep};
use scheduler::{Schedule, ThreadId};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// The file of the minimal schedule in a report folder.
pub const MINIMAL_SCHEDULE: &str = "minimal-schedule.txt";

/// How long and how far a minimization may go.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Wall-clock cap (no new batch starts after it).
    pub time: Duration,
    /// Candidates at most.
    pub candidates: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            time: Duration::from_secs(20),
            candidates: 2000,
        }
    }
}

/// What a minimization found (also in `run.json` under `minimal`).
#[derive(Clone, Debug)]
pub struct Minimal {
    pub preemptions: usize,
    /// The threads the preemptions involve (preempted or preempting), by rankcheck id.
    pub threads: Vec<u32>,
    /// Steps of the minimal execution.
    pub length: u64,
    pub preemptions_before: usize,
    pub length_before: u64,
    pub candidates: usize,
    pub seconds: f64,
    /// Every pass ran to its end (false: the time cap or the candidate cap stopped it).
    pub complete: bool,
    /// "fails with 1 preemption between t1 and t2 at Foo.java:12", and when the shrinking's
    /// limits stopped it, that a smaller schedule may exist.
    pub summary: String,
    /// The explanation of the minimal execution (empty when unknown).
    pub cause: Vec<String>,
    /// The minimal run's failure message, when its first line differs from the search's (the
    /// same bug, `report::same_bug`, with other values in its text): the report's cause,
    /// timeline, picture and replay are of that run.
    pub message: Option<String>,
}

impl Minimal {
    pub fn to_json(&self) -> Value {
        json!({
            "preemptions": self.preemptions,
            "threads": self.threads,
            "length": self.length,
            "preemptions_before": self.preemptions_before,
            "length_before": self.length_before,
            "candidates": self.candidates,
            "seconds": self.seconds,
            "complete": self.complete,
            "summary": self.summary,
            "message": self.message,
        })
    }

    /// The line that says the minimal run failed with another message, if it did.
    pub fn other_message_line(&self) -> Option<String> {
        self.message.as_ref().map(|m| {
            format!(
                "the minimal schedule's run fails with: {m} (the cause above, timeline.txt, \
                 report.html and `rankcheck replay` are of that run; the search's run: \
                 original-explanation.txt, original-timeline.txt, `rankcheck replay --original`)"
            )
        })
    }
}

/// The minimal run's message when its first line is not the search's (the same bug with other
/// values in its text, `bad counts {to=3}` against `bad counts {to=2}`; names and hashes a JVM
/// gives differently do not count, `report::readable_first_line`).
fn other_message(search: &str, minimal: &str) -> Option<String> {
    (readable_first_line(minimal) != readable_first_line(search))
        .then(|| minimal.lines().next().unwrap_or("").to_string())
}

/// The steps of a traced result (`steps_trace`), whether they start at step 1, and how many
/// preempted.
fn traced_steps(result: &Value) -> (Vec<TracedStep>, bool, usize) {
    let trace = &result["steps_trace"];
    let steps: Vec<TracedStep> = trace["steps"]
        .as_array()
        .into_iter()
        .flatten()
        // A learnt monitor hold is no choice of the schedule.
        .filter(|s| s["learnt"].as_bool() != Some(true))
        .filter_map(|s| {
            let op = s["op"].as_str()?;
            Some(TracedStep {
                step: s["step"].as_u64()?,
                thread: ThreadId(s["thread"].as_u64()? as u32),
                site: (!matches!(op, "begin" | "end" | "wait-return"))
                    .then(|| s["site"].as_i64())
                    .flatten(),
                preempted: s["preempted"].as_bool() == Some(true),
            })
        })
        .collect();
    let preempted = steps.iter().filter(|s| s.preempted).count();
    (
        steps,
        trace["omitted"].as_u64().unwrap_or(0) == 0,
        preempted,
    )
}

/// The preemptions of a traced execution in words, with where the last one stopped its thread:
/// "1 preemption between t1 and t2 at Foo.java:12", and the threads involved.
fn words(story: &Story) -> (usize, Vec<u32>, String) {
    let mut threads = BTreeSet::new();
    let mut count = 0;
    let mut place = None;
    for (i, named) in story.steps.iter().enumerate() {
        if !named.step.preempted || i == 0 {
            continue;
        }
        count += 1;
        let from = story.steps[i - 1].step.thread;
        threads.insert(from);
        threads.insert(named.step.thread);
        // Where the preempted thread stood: its next step.
        place = story.steps[i..]
            .iter()
            .find(|s| s.step.thread == from)
            .map(|s| s.place());
    }
    let ids: BTreeSet<ThreadId> = threads.iter().map(|&t| ThreadId(t)).collect();
    let mut text = format!("fails with {}", describe(count, &ids));
    if let Some(place) = place.filter(|p| !p.is_empty()) {
        text.push_str(&format!(" at {place}"));
    }
    (count, threads.into_iter().collect(), text)
}

/// Minimizes the bug reported in `dir` (found by `launch`, its result `found`, proven by the
/// traced replay `proven`) within `settings`; scratch files in `work`. Writes
/// `minimal-schedule.txt`, `minimal-result.json` and the minimal run's explanation, timeline
/// and picture, and records it in `run.json`. `None` when nothing smaller was proven (the
/// report stays as it was).
pub fn minimize_report(
    dir: &Path,
    launch: &Launch,
    found: &Value,
    proven: &Value,
    work: &Path,
    settings: Settings,
) -> anyhow::Result<Result<Minimal, String>> {
    let started = Instant::now();
    let deadline = started + settings.time;
    let Some(schedule) = found["schedule"]
        .as_str()
        .and_then(|t| Schedule::parse(t).ok())
    else {
        return Ok(Err("the search's schedule could not be read".into()));
    };
    if proven["steps_trace"].is_null() {
        return Ok(Err("the replay kept no steps to shrink".into()));
    }
    if found["kind"].as_str() == Some("livelock") {
        // Every candidate would spin to the step bound, a million steps each.
        return Ok(Err(
            "a livelock is not shrunk (every candidate would run to the step bound)".into(),
        ));
    }
    std::fs::create_dir_all(work)?;
    let index = found["index"].as_u64().unwrap_or(0);
    let (steps, complete, preempted) = traced_steps(proven);
    let original = Guide::from_schedule(&schedule, &steps, complete);
    // Every candidate runs after one warm-up execution in its JVM, and its replay likewise:
    // a JVM is not the same after its first execution (the JDK's caches, some filled through
    // scheduling points inside its formats and collections), so a candidate that ran first
    // in its JVM would not replay after a warm-up, nor one that ran later without. Candidate
    // k of a batch is execution `first + k` (execution indices only label them).
    let first = index.max(1);
    let mut batches = 0usize;
    let mut oracle = |batch: &[Guide]| -> Option<Vec<Tested<Value>>> {
        if batch.is_empty() || Instant::now() >= deadline {
            return None;
        }
        batches += 1;
        let file = work.join(format!("guides-{batches}.txt"));
        std::fs::write(&file, Guide::many_to_text(batch)).ok()?;
        let mut run = launch.clone();
        for key in [
            "replay",
            "state",
            "time-limit-ms",
            "record-at",
            "trace",
            "c-mode",
        ] {
            run.remove_option(key);
        }
        run.set_option("guide", file.display().to_string());
        run.set_option("executions", batch.len().to_string());
        run.set_option("first-execution", first.to_string());
        run.set_option("warm-from", (first - 1).to_string());
        run.set_option("keep-going", "on");
        run.set_option("max-inconclusive", batch.len().to_string());
        let left = deadline.saturating_duration_since(Instant::now());
        run.set_option("time-limit-ms", left.as_millis().max(1).to_string());
        run.log = Some(work.join(format!("guides-{batches}-jvm.log")));
        let results = run
            .run(&work.join(format!("guides-{batches}.jsonl")))
            .ok()?
            .results;
        let mut tested: Vec<Tested<Value>> = vec![None; batch.len()];
        for r in results {
            let Some(k) = r["index"].as_u64().and_then(|i| i.checked_sub(first)) else {
                continue;
            };
            if let Some(slot) = tested.get_mut(k as usize) {
                if same_bug(found, &r) && r["schedule"].is_string() {
                    *slot = Some((r["steps"].as_u64().unwrap_or(u64::MAX), r));
                }
            }
        }
        Some(tested)
    };
    let limits = Limits {
        candidates: settings.candidates,
    };
    let result = minimize(&original, &Place::of_steps(&steps), limits, &mut oracle);
    let Some((_, smallest)) = result.found else {
        return Ok(Err(format!(
            "none of {} candidate schedule(s) tried in {:.0} s failed the same way{}",
            result.tried,
            started.elapsed().as_secs_f64(),
            if result.complete {
                ""
            } else {
                " before the shrinking's limit"
            }
        )));
    };
    // Proven like every reported bug: its ordinary schedule, replayed in a fresh JVM.
    let text = smallest["schedule"].as_str().unwrap_or("").to_string();
    std::fs::write(dir.join(MINIMAL_SCHEDULE), &text)?;
    let execution = smallest["index"].as_u64().unwrap_or(index);
    let mut recorded = load_recorded(dir).map_err(|e| anyhow::anyhow!(e))?;
    let search_message = recorded.expected.message.clone();
    recorded.schedule = dir.join(MINIMAL_SCHEDULE);
    recorded.execution = execution;
    recorded.expected = Expected::of(&smallest);
    recorded.set_warm_from(execution - 1);
    let replayed = replay(&recorded, &work.join("minimal-replay"), true)?;
    if !replayed.reproduced {
        std::fs::remove_file(dir.join(MINIMAL_SCHEDULE))?;
        return Ok(Err(format!(
            "the smallest candidate did not replay in a fresh JVM ({})",
            replayed.difference.unwrap_or_default()
        )));
    }
    let minimal_result = &replayed.result;
    std::fs::write(
        dir.join("minimal-result.json"),
        serde_json::to_string_pretty(minimal_result)?,
    )?;
    let sites = site_table(&launch.classpath);
    let fields = super::field_flags::field_flags(&launch.classpath);
    let Some(told) = story(minimal_result, &sites, &fields) else {
        std::fs::remove_file(dir.join(MINIMAL_SCHEDULE))?;
        return Ok(Err("the smallest candidate's replay kept no steps".into()));
    };
    let (preemptions, threads, summary) = words(&told);
    // A shrinking its limits stopped found a smaller schedule, not necessarily the smallest.
    // No preemption at all was among the first candidates, so one is the fewest there are.
    let summary = if result.complete || preemptions == 0 {
        summary
    } else if preemptions == 1 {
        format!(
            "{summary} (shrinking stopped at its limit after {} candidate(s): a shorter \
             schedule may exist)",
            result.tried
        )
    } else {
        format!(
            "{summary} (shrinking stopped at its limit after {} candidate(s): a schedule with \
             fewer preemptions may exist)",
            result.tried
        )
    };
    // The explanation, timeline and picture show the minimal run; the original's timeline stays.
    if dir.join("timeline.txt").is_file() {
        std::fs::rename(dir.join("timeline.txt"), dir.join("original-timeline.txt"))?;
    }
    if dir.join("explanation.txt").is_file() {
        std::fs::rename(
            dir.join("explanation.txt"),
            dir.join("original-explanation.txt"),
        )?;
    }
    let cause = told.explanation();
    let message = other_message(
        &search_message,
        minimal_result["message"].as_str().unwrap_or(""),
    );
    if let Some(out) = minimal_result["stdout"].as_str().filter(|o| !o.is_empty()) {
        std::fs::write(dir.join("minimal-stdout.txt"), out)?;
    }
    let minimal = Minimal {
        preemptions,
        threads,
        length: minimal_result["steps"].as_u64().unwrap_or(0),
        preemptions_before: preempted,
        length_before: schedule.len(),
        candidates: result.tried,
        seconds: started.elapsed().as_secs_f64(),
        complete: result.complete,
        summary,
        cause,
        message,
    };
    let other = minimal
        .other_message_line()
        .map_or_else(String::new, |l| format!("{l}\n"));
    std::fs::write(
        dir.join("explanation.txt"),
        format!(
            "{}\nminimal schedule: {}\n{other}",
            minimal.cause.join("\n"),
            minimal.summary
        ),
    )?;
    std::fs::write(
        dir.join("timeline.txt"),
        timeline(minimal_result, &sites, &fields),
    )?;
    std::fs::write(
        dir.join("report.html"),
        html(
            &told,
            minimal_result["message"].as_str().unwrap_or(""),
            &minimal_result["stacks"],
        ),
    )?;
    let mut record = minimal.to_json();
    record["schedule"] = json!(MINIMAL_SCHEDULE);
    record["execution"] = json!(execution);
    record["warm_from"] = json!(execution - 1);
    record["expected"] = json!({
        "outcome": minimal_result["outcome"],
        "kind": minimal_result["kind"],
        "message": minimal_result["message"],
        "steps": minimal_result["steps"],
    });
    annotate(dir, "minimal", record)?;
    Ok(Ok(minimal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minimal_run_failing_with_other_values_says_so() {
        let search = "uncaught in thread t0 (main): java.lang.AssertionError: bad counts {to=3}";
        let minimal = "uncaught in thread t0 (main): java.lang.AssertionError: bad counts {to=2}";
        assert_eq!(other_message(search, minimal).as_deref(), Some(minimal));
        // Only the first line counts (a trace below it may differ in frames).
        assert_eq!(other_message(search, &format!("{search}\n\tat x")), None);
        // Nor do the names and hashes the JVM gives a lambda.
        let rejected = |lambda: &str| {
            format!("uncaught in thread t1 (Thread-0): RejectedExecutionException: Task {lambda} rejected")
        };
        assert_eq!(
            other_message(
                &rejected("p.Main$$Lambda$13/0x00007f23dc001a28@52a0abfc"),
                &rejected("p.Main$$Lambda$15/0x00007fdf6c002430@1737a825")
            ),
            None
        );
        let m = Minimal {
            preemptions: 1,
            threads: vec![1, 2],
            length: 10,
            preemptions_before: 3,
            length_before: 12,
            candidates: 5,
            seconds: 0.5,
            complete: true,
            summary: "fails with 1 preemption".into(),
            cause: Vec::new(),
            message: other_message(search, minimal),
        };
        let line = m.other_message_line().unwrap();
        assert!(
            line.starts_with("the minimal schedule's run fails with: "),
            "{line}"
        );
        assert!(line.contains("{to=2}") && line.contains("rankcheck replay --original"));
        assert_eq!(m.to_json()["message"], minimal);
    }
}
