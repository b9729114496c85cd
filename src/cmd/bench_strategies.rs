//! `rankcheck bench strategies [SUITE…] [--strategies S,…] [--seeds N] [--budget N]`: which
//! strategy reaches bugs in the fewest executions, measured side by side in one run. Every
//! buggy program of the suites (default: the bundled contest-bench/) is searched by every
//! strategy with seeds 0..N (the sweep's machinery, `driver::sweep`, at each strategy's default
//! bounds); the table (`driver::strategy_table`) gives executions to the first bug per program
//! and strategy and, per strategy, the programs found within 100 / 1,000 / 10,000 executions,
//! the geometric mean and median over programs, the time to the bug and the searches' time.

use crate::driver::sweep::{self, Config, Range};
use crate::driver::{bench_suite, strategy, strategy_table};
use crate::error::{bad_input, Outcome};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Suite folders (default: the bundled contest-bench/); their buggy programs are searched.
    pub suites: Vec<PathBuf>,
    /// Only these programs (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub programs: Vec<String>,
    /// Strategies compared (comma-separated), each at its default bounds.
    #[arg(long, value_delimiter = ',', default_value = "pos,surw,portfolio")]
    pub strategies: Vec<String>,
    /// Seeds 0..N per program and strategy.
    #[arg(long, default_value_t = 3)]
    pub seeds: u64,
    /// Executions per search at most.
    #[arg(long, default_value_t = 1000)]
    pub budget: u64,
    /// Searches run at once (each one JVM; default: the number of cores).
    #[arg(short = 'j', long = "jobs")]
    pub jobs: Option<usize>,
    /// Print the table as one JSON object instead of markdown.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let strategies = strategy::lookup_list(&args.strategies)?;
    if args.seeds == 0 || args.budget == 0 || args.jobs == Some(0) {
        return Err(bad_input("--seeds, --budget and -j must be at least 1"));
    }
    if let Some(s) = strategies.iter().find(|s| s.exhaustive) {
        return Err(bad_input(format!(
            "{} is exhaustive: executions to the first bug compare sampling strategies",
            s.name
        )));
    }
    let roots = bench_suite::locate_all(&args.suites, "contest-bench")?;
    let mut programs = Vec::new();
    for root in &roots {
        programs.extend(
            bench_suite::load(root, &[])?
                .into_iter()
                .filter(|p| !p.manifest.correct)
                .filter(|p| {
                    args.programs.is_empty() || args.programs.iter().any(|n| n == p.name())
                }),
        );
    }
    if let Some(missing) = args
        .programs
        .iter()
        .find(|n| !programs.iter().any(|p| p.name() == n.as_str()))
    {
        return Err(bad_input(format!(
            "no buggy program {missing:?} in the suite(s)"
        )));
    }
    if programs.is_empty() {
        return Err(bad_input("the suite(s) hold no buggy program"));
    }
    let work =
        std::env::temp_dir().join(format!("rankcheck-bench-strategies-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    // The sweep with one bound setting per strategy, its defaults, and no Table 4.
    let config = Config {
        strategies,
        c: Range { lo: 2, hi: 2 },
        v: Range { lo: 1, hi: 1 },
        t: Range { lo: 2, hi: 2 },
        seeds: args.seeds,
        budget: args.budget,
        jobs: args.jobs.unwrap_or_else(super::search_args::default_jobs),
        all_bounds: false,
        out: work.clone(),
        shard: None,
    };
    let names: Vec<&str> = config.strategies.iter().map(|s| s.name).collect();
    eprintln!(
        "rankcheck bench strategies: {} buggy program(s), strategies {}, {} seed(s), budget {}",
        programs.len(),
        names.join(","),
        config.seeds,
        config.budget
    );
    let (_, rows, wall) = sweep::run_shown(&config, &programs, false);
    let _ = std::fs::remove_dir_all(&work);
    let table = strategy_table::table(&rows, &names, config.budget);
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "strategies": names,
                "seeds": config.seeds,
                "budget": config.budget,
                "table": table,
                "searches": rows.len(),
                "wall_seconds": wall,
            })
        );
    } else {
        println!(
            "Executions to the first bug: mean over the seeds that found it (found/seeds); \
             found within N: programs every seed found in at most N executions; geometric mean \
             and median over programs of the mean per seed, a missed seed counted at its budget \
             (then marked ≥); seconds to the bug: mean over the searches that found it \
             ({} seed(s), budget {})\n",
            config.seeds, config.budget
        );
        print!("{}", strategy_table::markdown(&table));
        println!(
            "\nrankcheck bench strategies: {} search(es) in {wall:.1} s",
            rows.len()
        );
    }
    let errors: Vec<&sweep::Row> = rows.iter().filter(|r| r.error.is_some()).collect();
    if let Some(first) = errors.first() {
        // An errored search gave no figure: the table is incomplete.
        anyhow::bail!(
            "{} search(es) failed; first: {} {}: {}",
            errors.len(),
            first.program,
            first.strategy,
            first.error.as_deref().unwrap_or("")
        );
    }
    Ok(Outcome::Clean)
}
