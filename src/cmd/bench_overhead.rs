//! `rankcheck bench overhead [DIR]`: wall time of compute-heavy correct programs (default: the
//! bundled tests/perf-programs/) natively (`java -cp CLASSES Main`) against one controlled
//! execution under strict priority with no forced preemptions (PCT with d = 1), with
//! synchronization-only and all-sites instrumentation; the columns of the RankChecker paper's
//! Table 2. The v = 1, 2, 3 columns instrument only the sites that may touch v shared variables
//! of the points-to analysis (the mean over up to three variable sets of each size). Every figure is the median of `--runs` runs, JVM start-up included; a controlled run still
//! going after `--limit` seconds is stopped and shown as `> LIMIT`.

use crate::driver::baseline::{geomean, median, native};
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
}

fn cell(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.2}"))
}

/// One controlled figure.
enum Cell {
    Seconds(f64),
    /// Still running at the limit (killed).
    Over,
    Failed,
}

impl Cell {
    fn show(&self, limit: Duration) -> String {
        match self {
            Cell::Seconds(s) => format!("{s:.2}"),
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
    println!(
        "Overhead (wall seconds, median of {} run(s), JVM start-up included; controlled = one execution, strict priority, no forced preemptions)\n",
        args.runs
    );
    println!("| Program | Threads | Native | Sync only | v = 1 | v = 2 | v = 3 | All sites | Slowdown (all) |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut slowdowns = Vec::new();
    let limit = Duration::from_secs(args.limit.max(1));
    for p in &programs {
        let original =
            crate::suite::compile(p, &crate::driver::classpath::cache_dir()?.join("javac"))
                .map_err(|e| bad_input(e.to_string()))?;
        let m = &p.manifest;
        let mut natives = Vec::new();
        for _ in 0..args.runs {
            natives.extend(native(
                std::slice::from_ref(&original),
                &m.main,
                &m.args,
                &work,
                Duration::from_secs(600),
            )?);
        }
        let controlled = |program: crate::driver::search::Program| -> anyhow::Result<Cell> {
            let search = Search {
                max_steps: u64::MAX / 4,
                timeout_ms: limit.as_millis() as u64 + 60_000,
                ..Search::quiet(
                    strategy::lookup("pct")?,
                    Bounds {
                        d: Some(1),
                        ..Bounds::default()
                    },
                    0,
                    1,
                    work.join("reports"),
                )
            };
            let mut launch = Launch {
                java: java_binary(),
                jvm_args: crate::driver::jvm::identity_hash_args(),
                agent_options: search.agent_options(&program),
                runtime: crate::cmd::rt::runtime()?,
                classpath: program.classpath.clone(),
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
            for _ in 0..args.runs {
                let started = Instant::now();
                let cancel = || started.elapsed() > limit;
                let run = launch.run_cancellable(&work.join("results.jsonl"), &cancel);
                let seconds = started.elapsed().as_secs_f64();
                match run {
                    Ok(r) if r.status.is_none() => return Ok(Cell::Over),
                    Ok(r) if r.results.first().is_some_and(|x| x["outcome"] == "pass") => {
                        times.push(seconds)
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
            Ok(median(times).map_or(Cell::Failed, Cell::Seconds))
        };
        let nat = median(natives);
        let sync = controlled(super::test::program_of(p, Mode::SyncOnly)?)?;
        let all = controlled(super::test::program_of(p, Mode::All)?)?;
        // v = 1, 2, 3: the mean over up to three sets of shared variables of that size.
        let cp = original.display().to_string();
        let by_v: Vec<String> = match classpath::analysis(&cp, &m.main) {
            Ok(analysis) => {
                let mut cells = Vec::new();
                for v in 1..=3 {
                    let mut times = Vec::new();
                    let mut worst = None;
                    for vars in bench_suite::variable_sets(&analysis, v, 3) {
                        let program = super::test::program_from(
                            p,
                            classpath::prepare_vars(&cp, &analysis, &vars)?,
                        );
                        match controlled(program)? {
                            Cell::Seconds(s) => times.push(s),
                            other => worst = Some(other),
                        }
                    }
                    cells.push(match (worst, times.is_empty()) {
                        (Some(w), _) => w.show(limit),
                        (None, true) => "-".into(),
                        (None, false) => {
                            format!("{:.2}", times.iter().sum::<f64>() / times.len() as f64)
                        }
                    });
                }
                cells
            }
            Err(e) => {
                eprintln!("rankcheck: {}: {e:#}", p.name());
                vec!["n/a (analysis failed)".into(), "n/a".into(), "n/a".into()]
            }
        };
        let slow = match (nat, &all) {
            (Some(n), Cell::Seconds(a)) if n > 0.0 => Some(a / n),
            _ => None,
        };
        slowdowns.extend(slow);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.name(),
            m.threads,
            cell(nat),
            sync.show(limit),
            by_v[0],
            by_v[1],
            by_v[2],
            all.show(limit),
            slow.map_or("-".into(), |s| format!("{s:.1}x"))
        );
    }
    println!(
        "| geometric mean | | | | | | | | {} |",
        geomean(&slowdowns).map_or("-".into(), |s| format!("{s:.1}x"))
    );
    let _ = std::fs::remove_dir_all(&work);
    Ok(Outcome::Clean)
}
