//! `rankcheck junit` (docs/CLI.md): discovers JUnit test methods through the JUnit Platform
//! Launcher (`driver::junit`), searches each one as a program of its own (`driver::search`,
//! with `test`'s flags: `search_args`), and prints one line per test and a summary. Exit codes
//! as `test`: 1 when a test's bug replayed, 3 when a test gave no verdict and none had a bug, 2
//! for bad input, 0 when every test is clean.
//!
//! A test's `@RankcheckTest` settings (executions, strategy, seed, bounds) win over the flags
//! for that test; the flags give the rest.

use super::search_args::SearchArgs;
use crate::driver::junit::{discover, TestCase};
use crate::driver::progress::Shown;
use crate::driver::report::replay_command;
use crate::driver::search::{Program, Reported, Search, SCHEDULE_INDEPENDENT};
use crate::driver::search_merge;
use crate::driver::shard_file::ShardFile;
use crate::driver::strategy::{self, Bounds};
use crate::error::{bad_input, BadInput, Outcome};
use serde_json::json;
use std::time::Instant;

#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The test class path (`:`-separated): the compiled tests, the code they test and their
    /// JUnit jars (JUnit 5; JUnit 4 tests run through the vintage engine).
    #[arg(long)]
    pub cp: String,
    /// A test class, or one test method as CLASS#METHOD (repeatable; default: every test on the
    /// class path's non-JUnit entries).
    #[arg(long)]
    pub select: Vec<String>,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub shard: super::search_args::ShardArgs,
}

/// What the search of one test came to.
enum Verdict {
    /// A failure that replayed in a fresh JVM.
    Found(Reported),
    /// The budget ran out without a failure; what was covered.
    Clean(String),
    /// No verdict: why.
    Inconclusive(String),
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut base = args.search.search()?;
    base.shard = args.shard.resolve()?;
    if base.shard.is_some() {
        ShardFile::clear(&base.out);
    }
    let started = Instant::now();
    let shown = Shown::start();
    let progress = shown.handle();
    progress.phase(Some("discovering the tests"));
    let found = discover(&args.cp, &args.select)?;
    for note in &found.notes {
        progress.suspend(|| eprintln!("rankcheck: note: {note}"));
    }
    progress.phase(Some("preparing the program"));
    let program = found.program()?;
    progress.suspend(|| crate::driver::classpath::warn(&program.warnings));
    let say = |line: String| {
        progress.suspend(|| {
            if args.search.json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        })
    };
    let mut rows = Vec::new();
    // A shard's part of each test's search (`driver::search_merge`).
    let mut parts = Vec::new();
    let (mut bugs, mut clean, mut undecided) = (0, 0, 0);
    for (i, test) in found.tests.iter().enumerate() {
        let mut search = search_for(&base, &args, test)?;
        if search.shard.is_some() {
            crate::driver::shard::check_shardable(search.strategy)
                .map_err(|e| bad_input(format!("{}: {e}", test.id)))?;
        }
        search.progress = Some(progress.clone());
        let progress_label = |i: usize| format!("test {}/{} {}", i + 1, found.tests.len(), test.id);
        progress.begin(progress_label(i), Some(search.budget), search.time_limit);
        let program = Program {
            main: test.id.clone(),
            ..program.clone()
        };
        let began = Instant::now();
        let mut part = json!({"test": test.id, "display_name": test.display_name});
        let ran =
            search.run(&program).and_then(|first| {
                match super::search_args::Escalation::due(&search, &first) {
                    Some(e) => e.run_again(&search, &program, first, progress_label(i)),
                    None => Ok(first),
                }
            });
        let (verdict, executions) = match ran {
            Ok(result) => {
                if search.shard.is_some() {
                    part["search"] = search_merge::shard_body(&search, &result, &program);
                }
                for n in &result.nondeterminism {
                    progress.suspend(|| {
                        eprintln!(
                            "rankcheck: warning: {}: nondeterminism rankcheck does not control: \
                             {n}",
                            test.id
                        )
                    });
                }
                let executions = result.finished.executions;
                let verdict = if let Some(bug) = result.bugs.first() {
                    Verdict::Found(bug.clone())
                } else if let Some((message, dir)) = result.inconclusive.first() {
                    Verdict::Inconclusive(format!("{message}; report in {}", dir.display()))
                } else if let Some(why) = result.unreproduced.first() {
                    Verdict::Inconclusive(format!("a failure did not replay: {why}"))
                } else if args.search.check_determinism && !result.nondeterminism.is_empty() {
                    Verdict::Inconclusive(
                        "a sampled execution ran differently when replayed in a fresh JVM".into(),
                    )
                } else {
                    Verdict::Clean(result.coverage.clone())
                };
                (verdict, executions)
            }
            Err(e) if e.downcast_ref::<BadInput>().is_some() => {
                return Err(bad_input(format!("{}: {e}", test.id)))
            }
            Err(e) => {
                part["error"] = json!(format!("{e:#}"));
                (Verdict::Inconclusive(format!("{e:#}")), 0)
            }
        };
        parts.push(part);
        let seconds = began.elapsed().as_secs_f64();
        let head = |word: &str| {
            format!(
                "rankcheck: {word:<12} {}: {executions} execution(s), {seconds:.2} s",
                test.id
            )
        };
        let row = match &verdict {
            Verdict::Found(bug) => {
                bugs += 1;
                say(format!("{}: {} ({})", head("FOUND"), bug.message, bug.kind));
                say("  replayed: the recorded schedule reproduces it".into());
                for line in &bug.cause {
                    say(format!("  {}", line.trim_start()));
                }
                if bug.schedule_independent {
                    say(format!("  note: it {SCHEDULE_INDEPENDENT}"));
                }
                for note in &bug.notes {
                    say(format!("  note: {note}"));
                }
                if let Some(m) = bug.minimal_summary() {
                    say(format!("  minimal schedule: {}", m));
                }
                if let Some(l) = bug.minimal.as_ref().and_then(|m| m.other_message_line()) {
                    say(format!("  {l}"));
                }
                say(format!("  report: {}", bug.dir.display()));
                say(format!("  replay: {}", replay_command(&bug.dir)));
                json!({"verdict": "found", "kind": bug.kind, "message": bug.message,
                       "execution": bug.execution, "report": bug.dir.display().to_string(),
                       "replay": replay_command(&bug.dir),
                       "schedule_independent": bug.schedule_independent,
                       "minimal": bug.minimal.as_ref().map(|m| m.to_json())})
            }
            Verdict::Clean(coverage) => {
                clean += 1;
                say(head("clean"));
                json!({"verdict": "clean", "coverage": coverage})
            }
            Verdict::Inconclusive(why) => {
                undecided += 1;
                say(format!("{}: {why}", head("inconclusive")));
                json!({"verdict": "inconclusive", "error": why})
            }
        };
        let mut row = row;
        row["test"] = json!(test.id);
        row["display_name"] = json!(test.display_name);
        row["executions"] = json!(executions);
        row["seconds"] = json!(seconds);
        row["strategy"] = json!(search.strategy.name);
        row["bounds"] = json!(search.bounds);
        row["seed"] = json!(search.seed);
        rows.push(row);
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(shard) = base.shard {
        let mut options = args.search.shard_options(&base);
        options["program"] = json!({"cp": args.cp, "select": args.select});
        let file = ShardFile {
            command: "junit".into(),
            shard,
            options,
            body: json!({"tests": parts, "uninstrumented_classes": program.uninstrumented_classes,
                         "instrumentation_warnings": program.warnings}),
        };
        let path = file.write(&base.out)?;
        progress.suspend(|| {
            eprintln!(
                "rankcheck: shard {shard}: result in {} (rankcheck merge puts the shards \
                 together)",
                path.display()
            )
        });
    }
    say(format!(
        "rankcheck junit: {} test(s) in {seconds:.2} s: {bugs} found, {clean} clean, {undecided} inconclusive",
        rows.len()
    ));
    if args.search.json {
        crate::error::set_json_report(json!({
            "bug": bugs > 0,
            "tests": rows,
            "found": bugs,
            "clean": clean,
            "inconclusive": undecided,
            "seconds": seconds,
            "uninstrumented_classes": program.uninstrumented_classes,
            "instrumentation_warnings": program.warnings,
        }));
    }
    if bugs > 0 {
        return Ok(Outcome::Bug);
    }
    if undecided > 0 {
        return Err(crate::error::Inconclusive(format!(
            "{undecided} of {} test(s) gave no verdict (see above)",
            rows.len()
        ))
        .into());
    }
    Ok(Outcome::Clean)
}

/// The search of one test: the flags', with its `@RankcheckTest` settings in their place.
fn search_for(base: &Search, args: &Args, test: &TestCase) -> anyhow::Result<Search> {
    let mut search = base.clone();
    let mut bounds: Bounds = args.search.strategy.bounds();
    let bad = |key: &str, value: &str, why: String| {
        bad_input(format!("{}: @RankcheckTest {key}={value}: {why}", test.id))
    };
    for (key, value) in &test.settings {
        let number = || -> anyhow::Result<u64> {
            value
                .parse::<u64>()
                .map_err(|_| bad(key, value, "not a number".into()))
        };
        let small = || -> anyhow::Result<Option<u32>> {
            Ok(Some(
                u32::try_from(number()?).map_err(|_| bad(key, value, "too large".into()))?,
            ))
        };
        match key.as_str() {
            "executions" => search.budget = number()?.max(1),
            "strategy" => {
                search.strategy =
                    strategy::lookup(value).map_err(|e| bad(key, value, e.to_string()))?
            }
            "seed" => search.seed = number()?,
            "c" => bounds.c = small()?,
            "v" => bounds.v = small()?,
            "t" => bounds.t = small()?,
            "d" => bounds.d = small()?,
            "l" => bounds.l = small()?,
            _ => {}
        }
    }
    strategy::check(search.strategy, &bounds, search.c_mode.as_deref())
        .map_err(|e| bad_input(format!("{}: {e}", test.id)))?;
    search.bounds = bounds.used_by(search.strategy);
    Ok(search)
}
