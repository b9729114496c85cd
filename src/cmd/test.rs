//! `rankcheck test` (docs/CLI.md): searches for a bug over many controlled executions, spread
//! over parallel JVMs; stops at the first bug (exit 1) after replaying it, or prints what the
//! budget covered (exit 0). The work is done by `crate::driver::search`.
//!
//! Defaults: strategy `portfolio` (`driver::strategy::DEFAULT`: surw, pos, pct, rff and random
//! in turn, so that no bug one of them finds quickly costs more than five times that; see the
//! README), budget 1000
//! executions, seed 0, one JVM per core, reports in `rankcheck-out/`. `--c-mode` is passed to
//! the agent as `c-mode=…` only when given.

use crate::driver::classpath::{self, Mode};
use crate::driver::progress::Shown;
use crate::driver::report::Origin;
use crate::driver::search::{
    Program, Search, SearchResult, RANDOM_SCHEDULES, SCHEDULE_INDEPENDENT,
};
use crate::driver::search_merge;
use crate::driver::shard_file::ShardFile;
use crate::error::{bad_input, Outcome};
use serde_json::json;
use std::path::PathBuf;

use super::search_args::{default_jobs, SearchArgs};

#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The program's class path (`:`-separated), as built or already instrumented.
    #[arg(long, required_unless_present = "manifest")]
    pub cp: Option<String>,
    /// The class whose `main` runs.
    #[arg(long, required_unless_present = "manifest")]
    pub main: Option<String>,
    /// Run the program a `manifest.toml` describes (contest-bench/MANIFEST.md): its sources are
    /// compiled, and its main class, arguments and oracles used (flags given here add to them).
    #[arg(long, conflicts_with_all = ["cp", "main"])]
    pub manifest: Option<PathBuf>,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub oracles: super::search_args::OracleArgs,
    #[command(flatten)]
    pub shard: super::search_args::ShardArgs,
    #[command(flatten)]
    pub launch: super::search_args::LaunchArgs,
    /// Instrument only synchronization (no data-access scheduling points).
    #[arg(long, conflicts_with = "load_time")]
    pub sync_only: bool,
    /// Variable bounding as RankChecker does it: run the points-to analysis, then for each
    /// variable set of size v (shared variables first) instrument only the data sites that may
    /// touch it (synchronization everywhere) and search it. Needs a strategy that reads v.
    #[arg(long, conflicts_with_all = ["sync_only", "load_time"])]
    pub selective: bool,
    /// With --selective: executions per variable set before the next set is tried (default:
    /// 100 for the sampling strategies; for the exhaustive ones, icb and rankchecker-exhaustive,
    /// as many as the set's search needs within --budget).
    #[arg(long, requires = "selective")]
    pub budget_per_set: Option<u64>,
    /// The program's arguments.
    #[arg(last = true)]
    pub args: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut search = args.search.search()?;
    let info = search.strategy;
    args.oracles.check()?;
    let mut fork = args.launch.fork;
    // ICB's search state goes from JVM to JVM (the agent's `state=`); the other one-JVM
    // strategies keep theirs in memory only.
    if fork && info.session_state && !info.resumes {
        eprintln!(
            "rankcheck: note: --fork ignored: {} keeps its search state in one JVM",
            info.name
        );
        fork = false;
    }
    search.shard = args.shard.resolve()?;
    if search.shard.is_some() {
        crate::driver::shard::check_shardable(info)?;
    }
    if search.shard.is_some() && args.selective {
        return Err(bad_input(
            "--shard does not go with --selective (each variable set's search depends on the \
             sets before it)",
        ));
    }
    if search.shard.is_some() {
        ShardFile::clear(&search.out);
    }
    let mode = if args.launch.load_time {
        Mode::LoadTime
    } else if args.sync_only {
        Mode::SyncOnly
    } else {
        Mode::All
    };
    let shown = Shown::start();
    let progress = shown.handle();
    progress.phase(Some("preparing the program"));
    let program = resolve_program(&args, mode)?;
    progress.suspend(|| classpath::warn(&program.warnings));
    let program_info = program.clone();
    search.fork = fork;
    search.progress = Some(progress.clone());
    progress.begin(String::new(), Some(search.budget), search.time_limit);
    let first = if args.selective {
        selective::run(&args, &search, program)?
    } else {
        search.run(&program)?
    };
    let due = if args.selective {
        None
    } else {
        super::search_args::Escalation::due(&search, &first)
    };
    let (result, escalation) = match due {
        Some(e) => (
            e.run_again(&search, &program_info, first, String::new())?,
            Some(e),
        ),
        None => (first, None),
    };
    drop(shown);
    if let Some(shard) = search.shard {
        let file = ShardFile {
            command: "test".into(),
            shard,
            options: shard_options(&args, &search),
            body: search_merge::shard_body(&search, &result, &program_info),
        };
        let path = file.write(&search.out)?;
        eprintln!(
            "rankcheck: shard {shard}: result in {} (rankcheck merge puts the shards together)",
            path.display()
        );
    }
    print(&args, &search, &result, &program_info, escalation.as_ref());
    for n in &result.nondeterminism {
        eprintln!("rankcheck: warning: nondeterminism rankcheck does not control: {n}");
    }
    if args.search.check_determinism && !result.nondeterminism.is_empty() {
        return Err(crate::error::Inconclusive(format!(
            "{} sampled execution(s) ran differently when replayed in a fresh JVM (see \
             above): a found bug might not replay and a clean search might have missed one",
            result.nondeterminism.len()
        ))
        .into());
    }
    if let (true, Some((message, dir))) = (result.bugs.is_empty(), result.inconclusive.first()) {
        // A limit of rankcheck (a thread blocked where it cannot see, a loop without scheduling
        // points), never a bug of the program.
        let stopped = if result.inconclusive.len() as u64 == result.finished.executions
            && result.finished.executions < search.budget
        {
            " (the search stopped there: no execution gave a verdict)"
        } else {
            ""
        };
        return Err(crate::error::Inconclusive(format!(
            "{} of {} execution(s) gave no verdict{stopped}: {message}; report in {}",
            result.inconclusive.len(),
            result.finished.executions,
            dir.display()
        ))
        .into());
    }
    if !result.unreproduced.is_empty() && result.bugs.is_empty() {
        anyhow::bail!(
            "nothing is reported as a bug (a failure that does not replay, or an execution \
             rankcheck could not control, is not a finding): {}",
            result.unreproduced.join("; ")
        );
    }
    Ok(if result.bugs.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Bug
    })
}

/// `--selective`: the search over variable sets, each instrumented for itself.
mod selective {
    use super::Args;
    use crate::driver::classpath;
    use crate::driver::jvm::join_paths;
    use crate::driver::program::{compiled_classpath, load_manifest};
    use crate::driver::search::{Program, Search, SearchResult};
    use crate::error::bad_input;
    use scheduler::strategy::rankchecker::next_combination;

    pub fn run(args: &Args, search: &Search, mut program: Program) -> anyhow::Result<SearchResult> {
        if !search.strategy.bounds_variables() {
            return Err(bad_input(format!(
                "--selective needs a strategy that bounds v (pctvb, rankchecker, \
                 rankchecker-exhaustive), not {}",
                search.strategy.name
            )));
        }
        let original = match &args.manifest {
            Some(path) => join_paths(&compiled_classpath(&load_manifest(path)?)?),
            None => args.cp.clone().unwrap_or_default(),
        };
        let analysis = classpath::analysis(&original, &program.main)?;
        let candidates: Vec<(u32, String)> = analysis
            .candidates()
            .iter()
            .map(|v| (v.id, v.name.clone()))
            .collect();
        let v = search.bounds.v.unwrap_or(1).max(1) as usize;
        if candidates.len() < v {
            return Err(bad_input(format!(
                "--selective: the analysis found {} candidate variable(s), fewer than v = {v}",
                candidates.len()
            )));
        }
        let all_sites = analysis.sites.len();
        let per_set = args
            .budget_per_set
            .unwrap_or(if search.strategy.exhaustive {
                u64::MAX
            } else {
                100
            });
        let mut used = 0u64;
        let mut seconds = 0f64;
        let mut tried = 0u64;
        let mut set: Vec<usize> = (0..v).collect();
        loop {
            let ids: Vec<u32> = set.iter().map(|&i| candidates[i].0).collect();
            let names: Vec<&str> = set.iter().map(|&i| candidates[i].1.as_str()).collect();
            let sites = analysis
                .select(&ids)
                .map_err(|e| bad_input(format!("variables {ids:?}: {e}")))?
                .data_sites
                .len();
            program.classpath = classpath::prepare_vars(&original, &analysis, &ids)?;
            if let Some(origin) = program.origin.as_mut() {
                let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
                origin.mode = format!("vars:{}", ids.join(","));
            }
            let mut part = search.clone();
            part.budget = per_set.min(search.budget - used);
            part.seed = search.seed.wrapping_add(tried);
            search.note(&format!(
                "rankcheck: variables {{{}}}: {sites} of {all_sites} data sites instrumented",
                names.join(", ")
            ));
            let mut result = part.run(&program)?;
            used += result.finished.executions;
            seconds += result.finished.seconds;
            tried += 1;
            let found = !result.bugs.is_empty() || !result.inconclusive.is_empty();
            let more = next_combination(&mut set, candidates.len());
            result.finished.executions = used;
            result.finished.seconds = seconds;
            let each = if per_set == u64::MAX {
                "each searched to its end or the budget".to_string()
            } else {
                format!("{per_set} executions each at most")
            };
            result.coverage = format!(
                "{tried} variable set(s) of size {v} searched (of the {} candidates, shared first), \
                 {each}; last set {{{}}}: {}",
                candidates.len(),
                names.join(", "),
                result.coverage
            );
            if found || !more || used >= search.budget {
                return Ok(result);
            }
        }
    }
}

/// Every option that decides which schedules a search runs and how they count: the shards of
/// one run must agree on all of them (`rankcheck merge` checks).
fn shard_options(args: &Args, search: &Search) -> serde_json::Value {
    let mut options = args.search.shard_options(search);
    options["program"] = json!({
        "cp": args.cp, "main": args.main, "manifest": args.manifest, "args": args.args,
        "fail_on_output": args.oracles.fail_on_output, "fail_on_file": args.oracles.fail_on_file,
        "expect_exit": args.oracles.expect_exit, "sync_only": args.sync_only,
        "load_time": args.launch.load_time, "fork": search.fork,
    });
    options
}

/// The program from `--cp/--main` or from `--manifest`, with the command line's oracles added.
fn resolve_program(args: &Args, mode: Mode) -> anyhow::Result<Program> {
    let mut program = match &args.manifest {
        Some(path) => crate::driver::program::manifest_program(path, mode)?,
        None => {
            let cp = args.cp.as_deref().unwrap_or_default();
            let main = args.main.clone().unwrap_or_default();
            if main.trim().is_empty() {
                return Err(bad_input("--main is empty"));
            }
            let prepared = classpath::prepare_report(cp, mode)?;
            Program {
                classpath: prepared.entries.clone(),
                framework: Vec::new(),
                main,
                args: Vec::new(),
                fail_on_output: Vec::new(),
                fail_on_file: Vec::new(),
                expect_exit: 0,
                private_cwd: false,
                load_time: mode == Mode::LoadTime,
                origin: Some(Origin::of(cp, mode, None)),
                uninstrumented_classes: prepared.uninstrumented.len(),
                warnings: prepared.warning_lines(),
            }
        }
    };
    if !args.args.is_empty() {
        program.args = args.args.clone();
    }
    program
        .fail_on_output
        .extend(args.oracles.fail_on_output.iter().cloned());
    program
        .fail_on_file
        .extend(args.oracles.fail_on_file.iter().cloned());
    if let Some(e) = args.oracles.expect_exit {
        program.expect_exit = e;
    }
    // Parallel JVMs must not write the same checked file.
    if !program.fail_on_file.is_empty() && args.search.jobs.unwrap_or_else(default_jobs) > 1 {
        program.private_cwd = true;
    }
    Ok(program)
}

fn print(
    args: &Args,
    search: &Search,
    result: &SearchResult,
    program: &Program,
    escalation: Option<&super::search_args::Escalation>,
) {
    let f = &result.finished;
    let say = |line: String| {
        if args.search.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    for bug in &result.bugs {
        say(format!(
            "rankcheck: BUG in execution {} ({}): {}",
            bug.execution, bug.kind, bug.message
        ));
        say("  replayed: the recorded schedule reproduces it".into());
        if let Some(member) = bug.member {
            say(format!(
                "  found by {member}, the {} member that ran this execution",
                search.strategy.name
            ));
        }
        for line in &bug.cause {
            say(format!("  {}", line.trim_start()));
        }
        if bug.schedule_independent {
            say(format!(
                "  note: it {SCHEDULE_INDEPENDENT}: one run without preemptions and \
                 {RANDOM_SCHEDULES} random schedules fail the same way (under rankcheck a sleep \
                 ends at once and a timed wait may run out at once)"
            ));
        }
        for note in &bug.notes {
            say(format!("  note: {note}"));
        }
        if let Some(m) = &bug.minimal {
            say(format!(
                "  minimal schedule: {} ({} steps; the search's had {} preemption(s), {} steps)",
                m.summary, m.length, m.preemptions_before, m.length_before
            ));
        } else if let Some(line) = bug.minimal_summary() {
            say(format!("  minimal schedule: {line}"));
        }
        if let Some(l) = bug.minimal.as_ref().and_then(|m| m.other_message_line()) {
            say(format!("  {l}"));
        }
        say(format!("  report: {}", bug.dir.display()));
        say(format!(
            "  replay: {}",
            crate::driver::report::replay_command(&bug.dir)
        ));
    }
    for u in &result.unreproduced {
        eprintln!("rankcheck: internal failure: {u}");
    }
    let verdict = if !result.bugs.is_empty() {
        "bug found"
    } else if f.time_limited {
        "no bug found (time limit reached)"
    } else {
        "no bug found"
    };
    say(format!(
        "rankcheck: {} execution(s) in {:.2} s, strategy {} {}, seed {}: {verdict}",
        f.executions,
        f.seconds,
        search.strategy.name,
        search.bounds.label(),
        search.seed
    ));
    if result.bugs.is_empty() && result.inconclusive.is_empty() {
        say(format!("coverage: {}", result.coverage));
    } else if result.bugs.is_empty() {
        say(format!(
            "coverage (not valid for the {} execution(s) rankcheck could not control): {}",
            result.inconclusive.len(),
            result.coverage
        ));
    }
    if let Some(e) = escalation {
        say(format!(
            "rankcheck: that was the second search, with --jdk-collections all: the first, with \
             on, ran {} execution(s) in {:.2} s and found nothing, but {}",
            e.executions, e.seconds, e.warning
        ));
    }
    if result.bugs.is_empty() && !program.warnings.is_empty() {
        // Said again at the end, where the verdict is read: the warnings sit above the progress.
        eprintln!(
            "rankcheck: warning: the coverage leaves out what the {} warning(s) at the start name",
            program.warnings.len()
        );
    }
    let alone_then_shared = crate::driver::session::alone_then_shared_warning(&f.counted);
    if let Some(w) = alone_then_shared
        .as_ref()
        .filter(|_| result.bugs.is_empty())
    {
        eprintln!("rankcheck: warning: {w}");
    }
    let timeouts_withheld = crate::driver::session::timeouts_withheld_note(&f.counted);
    if let Some(n) = timeouts_withheld
        .as_ref()
        .filter(|_| result.bugs.is_empty())
    {
        eprintln!("rankcheck: note: {n}");
    }
    if args.search.json {
        let report = result.bugs.first().map(|b| b.dir.display().to_string());
        let value = json!({
            "bug": !result.bugs.is_empty(),
            "executions": f.executions,
            "seconds": f.seconds,
            "strategy": search.strategy.name,
            "bounds": search.bounds,
            "seed": search.seed,
            "budget": search.budget,
            "report": report,
            "coverage": result.coverage,
            "bugs": result.bugs.iter().map(|b| b.to_json()).collect::<Vec<_>>(),
            "member": result.bugs.first().and_then(|b| b.member),
            "minimal": result.bugs.first().and_then(|b| b.minimal.as_ref()).map(|m| m.to_json()),
            "schedule_independent": result.bugs.first().map(|b| b.schedule_independent),
            "uninstrumented_classes": program.uninstrumented_classes,
            "instrumentation_warnings": program.warnings,
            "unreproduced": result.unreproduced,
            "inconclusive": result.inconclusive.iter().map(|(m, d)| json!({
                "message": m,
                "report": d.display().to_string(),
            })).collect::<Vec<_>>(),
            "time_limited": f.time_limited,
            "nondeterminism": result.nondeterminism,
            "alone_then_shared": alone_then_shared,
            "timeouts_withheld": timeouts_withheld,
            "escalated_from": escalation.map(|e| json!({
                "jdk_collections": "on",
                "executions": e.executions,
                "seconds": e.seconds,
                "alone_then_shared": e.warning,
            })),
        });
        // Printed by `main` once the exit code is known (`error::exit_code`).
        crate::error::set_json_report(value);
    }
}
