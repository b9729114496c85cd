//! `rankcheck bench throughput [SUITE_DIR…] [--programs …]`: executions per second over suites
//! (default: the correct programs of the bundled contest-bench/, so every execution runs to
//! the end), side by side in one run: the original classes repeated in one JVM without the
//! agent (`driver::baseline`), and rankcheck (random walk, one JVM running every chunk) with
//! synchronization-only instrumentation and with every site. Each figure is executions divided
//! by the wall time of the JVMs, start-up included; slowdowns are baseline / rankcheck, summed
//! up by geometric means. The v = 1 column instruments, per program, only the sites
//! that may touch one shared variable of the points-to analysis (up to three such variables,
//! mean rate). The load-time column runs the plain classes with the agent instrumenting every
//! site as classes load (`--load-time`); its cost is given per JVM start over the all-sites
//! figure (the JVMs of both run the same executions, so the difference is the load-time
//! rewriting: class parsing, the JDK's java.util.concurrent included in both). A second table
//! (`bench_whole`) shows what a user measures: the simplest repetition loop against the whole
//! `rankcheck test` command, warm and cold.

use crate::driver::baseline::{geomean, repeat, Repetition};
use crate::driver::classpath::{self, Mode};
use crate::driver::search::Search;
use crate::driver::strategy::Bounds;
use crate::driver::{bench_suite, strategy};
use crate::error::{bad_input, Outcome};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Suite folders (default: the bundled contest-bench/); geometric means run over all.
    pub suites: Vec<PathBuf>,
    /// Only these programs (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub programs: Vec<String>,
    /// Buggy programs too (rankcheck stops at their first bug, so their figures say less).
    #[arg(long)]
    pub all: bool,
    /// Executions per measurement.
    #[arg(long, default_value_t = 200)]
    pub executions: u64,
}

fn rate(executions: u64, seconds: Option<f64>) -> Option<f64> {
    seconds.filter(|s| *s > 0.0).map(|s| executions as f64 / s)
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

fn cell(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.1}"))
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if args.executions == 0 {
        return Err(bad_input("--executions must be at least 1"));
    }
    let roots = bench_suite::locate_all(&args.suites, "contest-bench")?;
    let mut programs = Vec::new();
    for root in &roots {
        // A name given with --programs needs to be in one suite only.
        let suite = bench_suite::load(root, &[])?;
        programs.extend(suite.into_iter().filter(|p| {
            if args.programs.is_empty() {
                args.all || p.manifest.correct
            } else {
                args.programs.iter().any(|n| n == p.name())
            }
        }));
    }
    if let Some(missing) = args
        .programs
        .iter()
        .find(|n| !programs.iter().any(|p| p.name() == n.as_str()))
    {
        return Err(bad_input(format!(
            "no program {missing:?} in {}",
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let n = args.executions;
    let work = std::env::temp_dir().join(format!("rankcheck-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    println!(
        "Throughput (executions/s, {n} executions per figure, wall time of the JVMs incl. start-up; slowdown = uninstrumented / rankcheck)\n"
    );
    println!(
        "| Program | Uninstrumented | Sync only | Slowdown | v = 1 | All sites | Slowdown | Load time | Load-time cost (s per JVM) |"
    );
    println!("|---|---:|---:|---:|---|---:|---:|---:|---:|");
    // A quiet search runs one JVM (it takes every chunk in turn).
    let jvms = 1.0;
    let (mut load_rates, mut load_costs) = (Vec::new(), Vec::new());
    let (mut slow_sync, mut slow_all) = (Vec::new(), Vec::new());
    let (mut base_rates, mut sync_rates, mut all_rates) = (Vec::new(), Vec::new(), Vec::new());
    let mut v1_rates = Vec::new();
    let mut whole_rows = Vec::new();
    for p in &programs {
        let original =
            crate::suite::compile(p, &crate::driver::classpath::cache_dir()?.join("javac"))
                .map_err(|e| bad_input(e.to_string()))?;
        let base = rate(
            n,
            repeat(
                std::slice::from_ref(&original),
                &p.manifest.main,
                &p.manifest.args,
                n,
                &work,
                Duration::from_secs(120),
                Repetition::HarnessShaped,
            )?,
        );
        whole_rows.push(super::bench_whole::measure(p, &original, n, &work)?);
        let controlled = |program: crate::driver::search::Program| -> anyhow::Result<Option<f64>> {
            let search = Search::quiet(
                strategy::lookup(scheduler::strategy::RANDOM)?,
                Bounds::default(),
                0,
                n,
                work.join("reports"),
            );
            Ok(match search.run(&program) {
                Ok(r) => rate(r.finished.executions, Some(r.finished.seconds)),
                Err(e) => {
                    eprintln!("rankcheck: {}: {e:#}", p.name());
                    None
                }
            })
        };
        let sync = controlled(crate::driver::program::program_of(p, Mode::SyncOnly)?)?;
        let all = controlled(crate::driver::program::program_of(p, Mode::All)?)?;
        let load = controlled(crate::driver::program::program_of(p, Mode::LoadTime)?)?;
        let load_cost = match (all, load) {
            (Some(a), Some(l)) if a > 0.0 && l > 0.0 => Some((n as f64 / l - n as f64 / a) / jvms),
            _ => None,
        };
        load_rates.extend(load);
        load_costs.extend(load_cost);
        // v = 1: the mean rate over up to three single shared variables.
        let v1 = match classpath::analysis(&original.display().to_string(), &p.manifest.main) {
            Ok(analysis) => {
                let mut rates = Vec::new();
                for vars in bench_suite::variable_sets(&analysis, 1, 3) {
                    let cp =
                        classpath::prepare_vars(&original.display().to_string(), &analysis, &vars)?;
                    rates.extend(controlled(crate::driver::program::program_from(p, cp))?);
                }
                v1_rates.extend(mean(&rates));
                let label = format!("{} ({} set(s))", cell(mean(&rates)), rates.len());
                if rates.is_empty() {
                    "-".to_string()
                } else {
                    label
                }
            }
            Err(e) => format!(
                "n/a ({})",
                format!("{e:#}").chars().take(40).collect::<String>()
            ),
        };
        let ratio = |b: Option<f64>, r: Option<f64>| match (b, r) {
            (Some(b), Some(r)) if r > 0.0 => Some(b / r),
            _ => None,
        };
        let (rs, ra) = (ratio(base, sync), ratio(base, all));
        slow_sync.extend(rs);
        slow_all.extend(ra);
        base_rates.extend(base);
        sync_rates.extend(sync);
        all_rates.extend(all);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.name(),
            cell(base),
            cell(sync),
            cell(rs),
            v1,
            cell(all),
            cell(ra),
            cell(load),
            load_cost.map_or("-".into(), |c| format!("{c:.2}"))
        );
    }
    println!(
        "| geometric mean | {} | {} | {} | {} | {} | {} | {} | {} |",
        cell(geomean(&base_rates)),
        cell(geomean(&sync_rates)),
        cell(geomean(&slow_sync)),
        cell(geomean(&v1_rates)),
        cell(geomean(&all_rates)),
        cell(geomean(&slow_all)),
        cell(geomean(&load_rates)),
        mean(&load_costs).map_or("-".into(), |c| format!("{c:.2} (mean)"))
    );
    if let Some(worst) = load_costs.iter().copied().reduce(f64::max) {
        println!(
            "\nLoad-time instrumentation costs at most {worst:.2} s per JVM start over offline instrumentation."
        );
    }
    super::bench_whole::print(
        &whole_rows,
        n,
        std::thread::available_parallelism().map_or(1, |c| c.get()),
    );
    super::bench_junit::rows(n, &work)?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(Outcome::Clean)
}
