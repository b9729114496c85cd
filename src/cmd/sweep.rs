//! `rankcheck sweep` (docs/CLI.md): every program × strategy × (c, v, t) × seed of a suite
//! (default: the bundled `contest-bench/`); writes JSON, CSV, markdown tables shaped like
//! RankChecker's Tables 1 and 4, and SVG plots, and prints the tables.
//!
//! Defaults, chosen so that the whole bundled suite finishes in a few minutes on 2 cores:
//! strategies random, pct, pos, rankchecker and icb; c 0..2, v 1..1, t 2..2 (each strategy varies
//! only the bounds it reads, and stops at the first setting that finds the bug); 1 seed;
//! budget 300 executions per setting. The work is done by `crate::driver::sweep`.

use crate::driver::shard_file::ShardFile;
use crate::driver::sweep::{self, Config, Range, Row};
use crate::driver::{bench_suite, strategy, tables};
use crate::error::{bad_input, Outcome};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The suite folder (default: the bundled contest-bench/).
    pub suite: Option<PathBuf>,
    /// Only these programs (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub programs: Vec<String>,
    /// Context bounds A..B (inclusive) or N.
    #[arg(long, default_value = "0..2")]
    pub c: String,
    /// Variable bounds A..B or N.
    #[arg(long, default_value = "1..1")]
    pub v: String,
    /// Thread bounds A..B or N.
    #[arg(long, default_value = "2..2")]
    pub t: String,
    /// Strategies (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "random,pct,pos,rankchecker,icb"
    )]
    pub strategies: Vec<String>,
    /// Seeds 0..N per setting.
    #[arg(long, default_value_t = 1)]
    pub seeds: u64,
    /// Executions per setting.
    #[arg(long, default_value_t = 300)]
    pub budget: u64,
    /// Where results go.
    #[arg(long, default_value = "rankcheck-sweep")]
    pub out: PathBuf,
    /// Searches run at once (each one JVM; default: the number of cores).
    #[arg(short = 'j', long = "jobs")]
    pub jobs: Option<usize>,
    /// Run every bound setting, not only up to the first that finds the bug.
    #[arg(long)]
    pub all_bounds: bool,
    #[command(flatten)]
    pub shard: super::search_args::ShardArgs,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let range = |name: &str, text: &str| {
        Range::parse(text).map_err(|e| bad_input(format!("--{name}: {e}")))
    };
    let strategies = strategy::lookup_list(&args.strategies)?;
    if args.seeds == 0 || args.budget == 0 || args.jobs == Some(0) {
        return Err(bad_input("--seeds, --budget and -j must be at least 1"));
    }
    let config = Config {
        strategies,
        c: range("c", &args.c)?,
        v: range("v", &args.v)?,
        t: range("t", &args.t)?,
        seeds: args.seeds,
        budget: args.budget,
        jobs: args.jobs.unwrap_or_else(super::search_args::default_jobs),
        all_bounds: args.all_bounds,
        out: args.out.clone(),
        shard: args.shard.resolve()?,
    };
    for s in &config.strategies {
        for bounds in config.settings(s) {
            strategy::check(s, &bounds, None)
                .map_err(|e| bad_input(format!("{} with {}: {e}", s.name, bounds.label())))?;
        }
    }
    let root = bench_suite::locate(args.suite.as_deref(), "contest-bench")?;
    let programs = bench_suite::load(&root, &args.programs)?;
    let program_names: Vec<&str> = programs.iter().map(|p| p.name()).collect();
    let options = serde_json::json!({"config": config.describe(), "programs": program_names});
    std::fs::create_dir_all(&config.out)
        .map_err(|e| bad_input(format!("cannot create {}: {e}", config.out.display())))?;
    let config = Config {
        out: std::fs::canonicalize(&config.out)?,
        ..config
    };
    ShardFile::clear(&config.out);
    // Fresh reports each time: a stale folder must not look like this sweep's.
    let _ = std::fs::remove_dir_all(config.out.join("reports"));
    eprintln!(
        "rankcheck sweep: {} program(s) from {}, strategies {}, c {}..{}, v {}..{}, t {}..{}, {} seed(s), budget {}{}",
        programs.len(),
        root.display(),
        config.strategies.iter().map(|s| s.name).collect::<Vec<_>>().join(","),
        config.c.lo, config.c.hi, config.v.lo, config.v.hi, config.t.lo, config.t.hi,
        config.seeds,
        config.budget,
        config.shard.map_or(String::new(), |s| format!(", shard {s}")),
    );
    let (prepared, rows, seconds) = sweep::run_shown(&config, &programs, true);
    let text = tables::write_all(&config, &prepared, &rows, &config.out)?;
    println!("{text}");
    if let Some(shard) = config.shard {
        let file = ShardFile {
            command: "sweep".into(),
            shard,
            options,
            body: serde_json::json!({"programs": prepared, "rows": rows}),
        };
        let path = file.write(&config.out)?;
        eprintln!(
            "rankcheck sweep: shard {shard}: its part of the tables above; result in {} \
             (rankcheck merge puts the shards together)",
            path.display()
        );
    }
    sweep_verdict(&rows, seconds, &config.out)
}

/// Prints the sweep's last line and says how it ended: exit 3 when a search reported a bug in
/// a correct program or failed (shared with `rankcheck merge` of a sweep's shards).
pub fn sweep_verdict(rows: &[Row], seconds: f64, out: &Path) -> anyhow::Result<Outcome> {
    let alarms = rows.iter().filter(|r| r.correct && r.found).count();
    let errors = rows.iter().filter(|r| r.error.is_some()).count();
    println!(
        "rankcheck sweep: {} search(es) in {seconds:.1} s; results in {} (results.json, results.csv, table1.md, table4.md, summary.md, *.svg)",
        rows.len(),
        out.display()
    );
    let mut failures = Vec::new();
    if alarms > 0 {
        failures.push(format!(
            "{alarms} search(es) reported a bug in a correct program (see summary.md)"
        ));
    }
    if errors > 0 {
        // A search that ended in an error gave no verdict: the sweep's tables are incomplete.
        let first = rows
            .iter()
            .find_map(|r| {
                r.error
                    .as_ref()
                    .map(|e| format!("{} {}: {e}", r.program, r.strategy))
            })
            .unwrap_or_default();
        failures.push(format!(
            "{errors} search(es) failed (see the error column of results.csv); first: {first}"
        ));
    }
    if !failures.is_empty() {
        anyhow::bail!("{}", failures.join("; "));
    }
    Ok(Outcome::Clean)
}
