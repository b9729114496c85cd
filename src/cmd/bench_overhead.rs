//! `rankcheck bench overhead [DIR]`: wall time of compute-heavy correct programs (default: the
//! bundled tests/perf-programs/) natively (`java -cp CLASSES Main`, on every CPU and pinned to
//! one CPU: a controlled execution runs one thread at a time, so the pinned run separates
//! rankcheck's own cost from the parallelism it gives up by design) against one controlled
//! execution without preemptions (the `nonpreemptive` strategy: the running thread keeps the
//! turn while it is enabled), with synchronization-only and all-sites instrumentation; the
//! columns of the RankChecker paper's Table 2. The v = 1, 2, 3 columns instrument only the sites
//! that may touch v shared variables of the points-to analysis (the mean over up to three
//! variable sets of each size). Every figure is the median of `--runs` runs, JVM start-up
//! included; a controlled run still going after `--limit` seconds is stopped and shown as
//! `> LIMIT`. `--strategy` measures another strategy's executions instead (e.g. `pct` with
//! `-d 1`: strict priority, which also switches when a higher-priority thread wakes up).

use crate::driver::baseline::{geomean, median, native, native_on_one_cpu};
use crate::driver::bench_suite;
use crate::driver::classpath::{self, Mode};
use crate::driver::jvm::{java_binary, Launch};
use crate::driver::search::Search;
use crate::driver::strategy::{self, Bounds};
use crate::error::{bad_input, Outcome};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The folder of programs (default: the bundled tests/perf-programs/).
    pub dir: Option<PathBuf>,
    /// Only these programs (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub programs: Vec<String>,
    /// Runs per figure (the median is shown).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// A controlled run still going after this many seconds is stopped and shown as "> LIMIT".
    #[arg(long, default_value_t = 120)]
    pub limit: u64,
    /// The strategy of the controlled runs.
    #[arg(long, default_value = scheduler::strategy::NONPREEMPTIVE)]
    pub strategy: String,
    /// PCT's depth, when `--strategy pct`.
    #[arg(short = 'd', default_value_t = 1)]
    pub d: u32,
}

fn cell(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.2}"))
}

/// One controlled figure.
enum Cell {
    /// Median seconds, and the steps (scheduling points, quiet ones included) of that run.
    Seconds(f64, u64),
    /// Still running at the limit (killed).
    Over,
    Failed,
}

impl Cell {
    fn show(&self, limit: Duration) -> String {
        match self {
            Cell::Seconds(s, _) => format!("{s:.2}"),
            Cell::Over => format!("> {}", limit.as_secs()),
            Cell::Failed => "failed".into(),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if args.runs == 0 {
        return Err(bad_input("--runs must be at least 1"));
    }
    let root = bench_suite::locate(args.dir.as_deref(), "tests/perf-programs")?;
    let programs = bench_suite::load(&root, &args.programs)?;
    let work = std::env::temp_dir().join(format!("rankcheck-overhead-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let info = strategy::lookup(&args.strategy)?;
    let bounds = Bounds {
        d: (info.name == scheduler::strategy::PCT).then_some(args.d),
        ..Bounds::default()
    };
    strategy::check(info, &bounds, None)?;
    println!(
        "Overhead (wall seconds, median of {} run(s), JVM start-up included; controlled = one execution, strategy {}{})\n",
        args.runs,
        info.name,
        bounds.d.map_or(String::new(), |d| format!(" d={d}"))
    );
    println!("| Program | Threads | Data sites (v = 1 / all) | Dynamic accesses (all) | Native | Native, 1 CPU | Sync only | v = 1 | v = 2 | v = 3 | All sites | All / v = 1 | v = 1 / native | v = 1 / native 1 CPU | All / native 1 CPU |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut slowdowns = Vec::new();
    let (mut v1_native, mut v1_single) = (Vec::new(), Vec::new());
    let limit = Duration::from_secs(args.limit.max(1));
    for p in &programs {
        let original =
            crate::suite::compile(p, &crate::driver::classpath::cache_dir()?.join("javac"))
                .map_err(|e| bad_input(e.to_string()))?;
        let m = &p.manifest;
        let mut natives = Vec::new();
        let mut singles = Vec::new();
        for _ in 0..args.runs {
            natives.extend(native(
                std::slice::from_ref(&original),
                &m.main,
                &m.args,
                &work,
                Duration::from_secs(600),
            )?);
            singles.extend(native_on_one_cpu(
                std::slice::from_ref(&original),
                &m.main,
                &m.args,
                &work,
                Duration::from_secs(600),
            )?);
        }
        let single = median(singles);
        let controlled = |program: crate::driver::search::Program| -> anyhow::Result<Cell> {
            let search = Search {
                max_steps: u64::MAX / 4,
                timeout_ms: limit.as_millis() as u64 + 60_000,
                ..Search::quiet(info, bounds, 0, 1, work.join("reports"))
            };
            let mut launch = Launch {
                java: java_binary(),
                jvm_args: crate::driver::jvm::determinism_args(None),
                agent_options: search.agent_options(&program),
                runtime: crate::driver::runtime::runtime()?,
                classpath: program.classpath.clone(),
                framework: program.framework.clone(),
                main: program.main.clone(),
                fail_on_output: program.fail_on_output.clone(),
                fail_on_file: program.fail_on_file.clone(),
                args: program.args.clone(),
                timeout_ms: search.timeout_ms,
                cwd: Some(work.clone()),
                log: Some(work.join("jvm.log")),
            };
            launch.set_option("executions", "1");
            let mut times = Vec::new();
            let mut steps = 0;
            for _ in 0..args.runs {
                let started = Instant::now();
                let cancel = || started.elapsed() > limit;
                let run = launch.run_cancellable(&work.join("results.jsonl"), &cancel);
                let seconds = started.elapsed().as_secs_f64();
                match run {
                    Ok(r) if r.status.is_none() => return Ok(Cell::Over),
                    Ok(r) if r.results.first().is_some_and(|x| x["outcome"] == "pass") => {
                        times.push(seconds);
                        steps = r.results[0]["steps"].as_u64().unwrap_or(0);
                    }
                    Ok(r) => {
                        let first = r.results.first().cloned().unwrap_or_default();
                        eprintln!(
                            "rankcheck: {}: the controlled run ended {} ({}): {}",
                            p.name(),
                            first["outcome"].as_str().unwrap_or("?"),
                            first["kind"].as_str().unwrap_or("?"),
                            first["message"].as_str().unwrap_or("")
                        );
                        return Ok(Cell::Failed);
                    }
                    Err(e) => {
                        eprintln!("rankcheck: {}: {e:#}", p.name());
                        return Ok(Cell::Failed);
                    }
                }
            }
            Ok(median(times).map_or(Cell::Failed, |t| Cell::Seconds(t, steps)))
        };
        let nat = median(natives);
        let sync = controlled(crate::driver::program::program_of(p, Mode::SyncOnly)?)?;
        let all = controlled(crate::driver::program::program_of(p, Mode::All)?)?;
        // v = 1, 2, 3: the mean over up to three sets of shared variables of that size.
        let cp = original.display().to_string();
        // v = 1, 2, 3: mean seconds (or the worst cell) and mean selected data sites.
        let mut by_v: Vec<String> = vec!["n/a".into(); 3];
        let mut v1 = None;
        let mut sites = "-".to_string();
        match classpath::analysis(&cp, &m.main) {
            Ok(analysis) => {
                for v in 1..=3 {
                    let mut times = Vec::new();
                    let mut selected = Vec::new();
                    let mut worst = None;
                    for vars in bench_suite::variable_sets(&analysis, v, 3) {
                        if let Ok(sel) = analysis.select(&vars) {
                            selected.push(sel.data_sites.len() as f64);
                        }
                        let program = crate::driver::program::program_from(
                            p,
                            classpath::prepare_vars(&cp, &analysis, &vars)?,
                        );
                        match controlled(program)? {
                            Cell::Seconds(s, _) => times.push(s),
                            other => worst = Some(other),
                        }
                    }
                    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
                    if v == 1 && !selected.is_empty() {
                        sites = format!("{:.1} / {}", mean(&selected), analysis.sites.len());
                    }
                    by_v[v - 1] = match (worst, times.is_empty()) {
                        (Some(w), _) => w.show(limit),
                        (None, true) => "-".into(),
                        (None, false) => {
                            if v == 1 {
                                v1 = Some(mean(&times));
                            }
                            format!("{:.2}", mean(&times))
                        }
                    };
                }
            }
            Err(e) => {
                eprintln!("rankcheck: {}: {e:#}", p.name());
                by_v[0] = "n/a (analysis failed)".into();
            }
        }
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        let all_seconds = match all {
            Cell::Seconds(a, _) => Some(a),
            _ => None,
        };
        let slow = ratio(all_seconds, single);
        slowdowns.extend(slow);
        v1_native.extend(ratio(v1, nat));
        v1_single.extend(ratio(v1, single));
        let times = |x: Option<f64>| x.map_or("-".into(), |s| format!("{s:.1}x"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.name(),
            m.threads,
            sites,
            match all {
                Cell::Seconds(_, steps) => steps.to_string(),
                _ => "-".into(),
            },
            cell(nat),
            cell(single),
            sync.show(limit),
            by_v[0],
            by_v[1],
            by_v[2],
            all.show(limit),
            times(ratio(all_seconds, v1)),
            times(ratio(v1, nat)),
            times(ratio(v1, single)),
            times(slow)
        );
    }
    let mean = |xs: &[f64]| geomean(xs).map_or("-".into(), |s| format!("{s:.1}x"));
    println!(
        "| geometric mean | | | | | | | | | | | | {} | {} | {} |",
        mean(&v1_native),
        mean(&v1_single),
        mean(&slowdowns)
    );
    let _ = std::fs::remove_dir_all(&work);
    Ok(Outcome::Clean)
}
