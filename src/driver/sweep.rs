//! The sweep: every program × strategy × bounds × seed of a suite, as RankChecker's evaluation
//! runs it. For each (program, strategy, seed) the bound settings run in increasing order and,
//! unless every setting is asked for, stop at the first that finds the bug — so "(c, v, t) of
//! the first find" is the smallest setting that finds it. Correct programs run every setting and
//! must never get a report. Table 4's runs without v and t bounding follow, at the c of each
//! first find. Units run in parallel; each is deterministic, so the same seeds give the same
//! rows whatever the parallelism (seconds aside).

use super::classpath::Mode;
use super::progress::Progress;
use super::search::{Program as Runnable, Search};
use super::strategy::{Bounds, StrategyInfo};
use crate::suite::Program;
use scheduler::strategy::RANKCHECKER;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// An inclusive range of one bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub lo: u32,
    pub hi: u32,
}

impl Range {
    /// `A..B` (inclusive) or `N`.
    pub fn parse(text: &str) -> Result<Range, String> {
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("bad range {text:?}: want A..B or N (whole numbers)"))
        };
        let r = match text.split_once("..") {
            Some((a, b)) => Range {
                lo: num(a)?,
                hi: num(b.trim_start_matches('='))?,
            },
            None => {
                let n = num(text)?;
                Range { lo: n, hi: n }
            }
        };
        if r.lo > r.hi {
            return Err(format!("bad range {text:?}: {} is above {}", r.lo, r.hi));
        }
        if r.hi - r.lo > 16 {
            return Err(format!("bad range {text:?}: more than 17 values"));
        }
        Ok(r)
    }

    pub fn values(&self) -> impl Iterator<Item = u32> {
        self.lo..=self.hi
    }
}

/// What to sweep.
#[derive(Clone, Debug)]
pub struct Config {
    pub strategies: Vec<&'static StrategyInfo>,
    pub c: Range,
    pub v: Range,
    pub t: Range,
    pub seeds: u64,
    pub budget: u64,
    pub jobs: usize,
    /// Run every bound setting, not only up to the first find.
    pub all_bounds: bool,
    pub out: PathBuf,
    /// Run only this shard's units (`driver::shard`).
    pub shard: Option<super::shard::Shard>,
}

impl Config {
    /// What the sweep ran, as `results.json` states it (and the shards of one sweep agree on).
    pub fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "strategies": self.strategies.iter().map(|s| s.name).collect::<Vec<_>>(),
            "c": self.c, "v": self.v, "t": self.t,
            "seeds": self.seeds, "budget": self.budget, "all_bounds": self.all_bounds,
        })
    }

    /// The bound settings of one strategy, in the order they run (only the bounds it reads
    /// vary).
    pub fn settings(&self, strategy: &StrategyInfo) -> Vec<Bounds> {
        let uses = |b: &str| strategy.bounds_used.contains(&b);
        let pick = |b: &str, r: Range| -> Vec<Option<u32>> {
            if uses(b) {
                r.values().map(Some).collect()
            } else {
                vec![None]
            }
        };
        let mut out = Vec::new();
        for c in pick("c", self.c) {
            for v in pick("v", self.v) {
                for t in pick("t", self.t) {
                    out.push(Bounds {
                        c,
                        v,
                        t,
                        ..Bounds::default()
                    });
                }
            }
        }
        out
    }
}

/// A program of the sweep, ready to run, with its table figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProgramInfo {
    pub name: String,
    pub correct: bool,
    pub sloc: u64,
    pub threads: u32,
    pub variables: usize,
    pub sites: usize,
    /// The manifest's expected (c, v, t), as `c=1 v=1 t=2`.
    pub expected: String,
    #[serde(skip)]
    pub runnable: Option<Runnable>,
    /// Why the program could not be prepared (compile or instrument error).
    pub error: Option<String>,
}

/// One search of the sweep.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The (program, strategy, seed) unit it belongs to, by its place in the sweep's order
    /// (a table-4 run: the unit whose find it follows): the order of rows, sharded or not.
    pub unit: usize,
    pub program: String,
    pub correct: bool,
    pub strategy: String,
    pub c: Option<u32>,
    pub v: Option<u32>,
    pub t: Option<u32>,
    pub seed: u64,
    /// A table-4 run: rankchecker at the first find's c, with v and t at their largest value
    /// (every variable, every thread order).
    pub unbounded: bool,
    pub found: bool,
    pub kind: Option<String>,
    /// Executions to the first bug, or every execution run.
    pub executions: u64,
    pub seconds: f64,
    pub report: Option<String>,
    pub error: Option<String>,
}

impl Row {
    /// A row of one search at default bounds and seed 0, for the tests of what reads rows
    /// (tables, plots).
    #[cfg(test)]
    pub fn for_test(
        program: &str,
        strategy: &str,
        executions: u64,
        found: bool,
        error: bool,
    ) -> Row {
        Row {
            unit: 0,
            program: program.into(),
            correct: false,
            strategy: strategy.into(),
            c: None,
            v: None,
            t: None,
            seed: 0,
            unbounded: false,
            found,
            kind: found.then(|| "uncaught".into()),
            executions,
            seconds: 0.1,
            report: None,
            error: error.then(|| "compiling: javac failed".into()),
        }
    }

    pub fn bounds(&self) -> Bounds {
        Bounds {
            c: self.c,
            v: self.v,
            t: self.t,
            ..Bounds::default()
        }
    }
}

/// Prepares every program (compile, instrument every site, count), `jobs` at a time.
pub fn prepare(programs: &[Program], jobs: usize) -> Vec<ProgramInfo> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<(usize, ProgramInfo)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(programs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(p) = programs.get(i) else { break };
                let info = prepare_one(p);
                out.lock().unwrap().push((i, info));
            });
        }
    });
    let mut out = out.into_inner().unwrap();
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, p)| p).collect()
}

fn prepare_one(p: &Program) -> ProgramInfo {
    let m = &p.manifest;
    let expected = m
        .expected
        .as_ref()
        .map(|e| {
            Bounds {
                c: e.c,
                v: e.v,
                t: e.t,
                ..Bounds::default()
            }
            .label()
        })
        .unwrap_or_else(|| "-".into());
    let prepared = super::program::program_of(p, Mode::All);
    let (sites, variables) = prepared
        .as_ref()
        .map(|r| super::bench_suite::sites_and_variables(&r.classpath))
        .unwrap_or((0, 0));
    ProgramInfo {
        name: p.name().to_string(),
        correct: m.correct,
        sloc: super::bench_suite::sloc(p),
        threads: m.threads,
        variables,
        sites,
        expected,
        error: prepared.as_ref().err().map(|e| format!("{e:#}")),
        runnable: prepared.ok(),
    }
}

/// One unit of work: a program, a strategy, a seed, and the settings to try in order.
struct Unit {
    order: usize,
    /// `order` of the unit a table-4 run follows; its own `order` otherwise.
    base: usize,
    program: usize,
    strategy: &'static StrategyInfo,
    seed: u64,
    settings: Vec<Bounds>,
    unbounded: bool,
}

/// Prepares `programs` and runs their searches (with Table 4's when `table4`), showing progress
/// on stderr: the programs, the rows and the seconds the searches took (preparing excluded).
pub fn run_shown(
    config: &Config,
    programs: &[Program],
    table4: bool,
) -> (Vec<ProgramInfo>, Vec<Row>, f64) {
    let shown = super::progress::Shown::start();
    let progress = shown.handle();
    progress.phase(Some("compiling and instrumenting the programs"));
    let prepared = prepare(programs, config.jobs);
    let started = std::time::Instant::now();
    progress.begin(String::new(), None, None);
    let rows = if table4 {
        run(config, &prepared, &progress)
    } else {
        run_searches(config, &prepared, &progress)
    };
    (prepared, rows, started.elapsed().as_secs_f64())
}

/// Runs the sweep, counting searches, executions and bugs on `progress`.
pub fn run(config: &Config, programs: &[ProgramInfo], progress: &Progress) -> Vec<Row> {
    let mut rows = run_searches(config, programs, progress);
    rows.extend(run_table4(config, programs, &rows, progress));
    rows
}

/// Every program × strategy × seed, each over its bound settings, without Table 4's extra runs.
pub fn run_searches(config: &Config, programs: &[ProgramInfo], progress: &Progress) -> Vec<Row> {
    let mut units = Vec::new();
    for (pi, _) in programs.iter().enumerate() {
        for s in &config.strategies {
            for seed in 0..config.seeds {
                units.push(Unit {
                    order: units.len(),
                    base: units.len(),
                    program: pi,
                    strategy: s,
                    seed,
                    settings: config.settings(s),
                    unbounded: false,
                });
            }
        }
    }
    // A shard runs every N-th unit; a table-4 run follows from its unit's rows, so it stays in
    // that unit's shard.
    if let Some(shard) = config.shard {
        units.retain(|u| shard.owns(u.order as u64));
    }
    run_units(config, programs, &units, progress)
}

/// Table 4: rankchecker at each first find's c of `rows`, without v and t bounding.
fn run_table4(
    config: &Config,
    programs: &[ProgramInfo],
    rows: &[Row],
    progress: &Progress,
) -> Vec<Row> {
    // Table 4's runs come after every unit of the unsharded sweep.
    let before = programs.len() * config.strategies.len() * config.seeds as usize;
    let mut extra = Vec::new();
    for row in rows
        .iter()
        .filter(|r| r.strategy == RANKCHECKER && r.found && !r.correct)
    {
        let first = rows
            .iter()
            .filter(|r| {
                r.program == row.program
                    && r.seed == row.seed
                    && r.strategy == RANKCHECKER
                    && r.found
            })
            .min_by_key(|r| bound_key(&r.bounds()))
            .unwrap();
        if !std::ptr::eq(first, row) {
            continue;
        }
        let program = programs.iter().position(|p| p.name == row.program).unwrap();
        extra.push(Unit {
            order: before + extra.len(),
            base: row.unit,
            program,
            strategy: super::strategy::lookup(RANKCHECKER).unwrap(),
            seed: row.seed,
            // "Without v and t bounding": every variable and every thread order (the scheduler
            // defaults an absent bound to v = 1, t = 2, so the largest bound stands for "all").
            settings: vec![Bounds {
                c: row.c,
                v: Some(scheduler::strategy::by_name::MAX_BOUND),
                t: Some(scheduler::strategy::by_name::MAX_BOUND),
                ..Bounds::default()
            }],
            unbounded: true,
        });
    }
    run_units(config, programs, &extra, progress)
}

/// The sweep the shards in `files` (every shard of one sweep, `shard_file::read_all`) ran
/// together, writing to `out`: its configuration, programs and rows in the unsharded sweep's
/// order (units in their order, then the table-4 runs).
pub fn merge_shards(
    files: &[super::shard_file::ShardFile],
    out: PathBuf,
) -> anyhow::Result<(Config, Vec<ProgramInfo>, Vec<Row>)> {
    let described = &files[0].options["config"];
    let range = |k: &str| serde_json::from_value::<Range>(described[k].clone());
    let number = |k: &str| described[k].as_u64().unwrap_or(0);
    let strategies = described["strategies"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| super::strategy::lookup(s.as_str().unwrap_or("")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let config = Config {
        strategies,
        c: range("c")?,
        v: range("v")?,
        t: range("t")?,
        seeds: number("seeds"),
        budget: number("budget"),
        jobs: 1,
        all_bounds: described["all_bounds"] == true,
        out,
        shard: None,
    };
    let programs: Vec<ProgramInfo> = serde_json::from_value(files[0].body["programs"].clone())?;
    let mut rows = Vec::new();
    for f in files {
        rows.extend(serde_json::from_value::<Vec<Row>>(f.body["rows"].clone())?);
    }
    // Stable: a unit's rows keep their order (its settings), and each unit ran in one shard.
    rows.sort_by_key(|r| (r.unbounded, r.unit));
    Ok((config, programs, rows))
}

/// Orders settings: smaller c first, then v, then t (an absent bound is the largest).
pub fn bound_key(b: &Bounds) -> (u32, u32, u32) {
    (
        b.c.unwrap_or(u32::MAX),
        b.v.unwrap_or(u32::MAX),
        b.t.unwrap_or(u32::MAX),
    )
}

fn run_units(
    config: &Config,
    programs: &[ProgramInfo],
    units: &[Unit],
    progress: &Progress,
) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let rows: Mutex<Vec<(usize, usize, Row)>> = Mutex::new(Vec::new());
    // Table 4's units come after the others (their `order` goes on): the count goes on too.
    let before = units.first().map_or(0, |u| u.order) as u64;
    let total = before + units.len() as u64;
    progress.searches(before, total);
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.max(1).min(units.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(unit) = units.get(i) else { break };
                for (k, row) in run_unit(config, &programs[unit.program], unit, progress)
                    .into_iter()
                    .enumerate()
                {
                    rows.lock().unwrap().push((unit.order, k, row));
                }
                let done = done.fetch_add(1, Ordering::SeqCst) + 1;
                progress.searches(before + done as u64, total);
            });
        }
    });
    let mut rows = rows.into_inner().unwrap();
    rows.sort_by_key(|(o, k, _)| (*o, *k));
    rows.into_iter().map(|(_, _, r)| r).collect()
}

fn run_unit(config: &Config, program: &ProgramInfo, unit: &Unit, progress: &Progress) -> Vec<Row> {
    let mut rows = Vec::new();
    for bounds in &unit.settings {
        let mut row = Row {
            unit: unit.base,
            program: program.name.clone(),
            correct: program.correct,
            strategy: unit.strategy.name.to_string(),
            c: bounds.c,
            v: bounds.v,
            t: bounds.t,
            seed: unit.seed,
            unbounded: unit.unbounded,
            found: false,
            kind: None,
            executions: 0,
            seconds: 0.0,
            report: None,
            error: None,
        };
        let Some(runnable) = &program.runnable else {
            row.error = program.error.clone();
            rows.push(row);
            break;
        };
        let slug = format!(
            "{}-{}-{}-s{}{}",
            program.name,
            unit.strategy.name,
            bounds.label().replace(['=', ' '], ""),
            unit.seed,
            if unit.unbounded { "-nobound" } else { "" }
        );
        let search = Search {
            progress: Some(progress.clone()),
            ..Search::quiet(
                unit.strategy,
                *bounds,
                unit.seed,
                config.budget,
                config.out.join("reports").join(slug),
            )
        };
        let outcome = search.run(runnable);
        // Only searches that found something keep a folder.
        let _ = std::fs::remove_dir(&search.out);
        match outcome {
            Ok(result) => {
                row.executions = result.finished.executions;
                row.seconds = result.finished.seconds;
                if let Some(bug) = result.bugs.first() {
                    row.found = true;
                    row.kind = Some(bug.kind.clone());
                    row.report = Some(bug.dir.display().to_string());
                } else if let Some(u) = result.unreproduced.first() {
                    row.error = Some(format!("not reproduced: {u}"));
                } else if let Some((message, dir)) = result.inconclusive.first() {
                    // Not a clean row: rankcheck could not control some execution.
                    row.error = Some(format!(
                        "{} execution(s) could not be controlled: {message}; report in {}",
                        result.inconclusive.len(),
                        dir.display()
                    ));
                }
            }
            Err(e) => row.error = Some(format!("{e:#}").lines().next().unwrap_or("").to_string()),
        }
        let stop = (row.found && !config.all_bounds && !program.correct) || row.error.is_some();
        rows.push(row);
        if stop {
            break;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_and_reject_nonsense() {
        assert_eq!(Range::parse("1..3").unwrap(), Range { lo: 1, hi: 3 });
        assert_eq!(Range::parse("2").unwrap(), Range { lo: 2, hi: 2 });
        assert!(Range::parse("3..1").unwrap_err().contains("above"));
        assert!(Range::parse("a..b").is_err());
        assert!(Range::parse("0..100").is_err());
    }

    #[test]
    fn settings_vary_only_the_bounds_a_strategy_reads() {
        let config = Config {
            strategies: vec![],
            c: Range { lo: 0, hi: 1 },
            v: Range { lo: 1, hi: 2 },
            t: Range { lo: 2, hi: 2 },
            seeds: 1,
            budget: 1,
            jobs: 1,
            all_bounds: false,
            out: PathBuf::new(),
            shard: None,
        };
        let rc = config.settings(super::super::strategy::lookup("rankchecker").unwrap());
        assert_eq!(rc.len(), 4);
        assert_eq!(rc[0].label(), "c=0 v=1 t=2");
        assert_eq!(
            config
                .settings(super::super::strategy::lookup("icb").unwrap())
                .len(),
            2
        );
        assert_eq!(
            config
                .settings(super::super::strategy::lookup("random").unwrap())
                .len(),
            1
        );
    }
}
