//! `rankcheck bench …`: one module per benchmark, each printing a table of figures measured side
//! by side in one run.

use crate::error::Outcome;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    which: Which,
}

#[derive(clap::Subcommand)]
enum Which {
    /// Wall time native against controlled runs at v = 1, 2, 3 and all sites (paper Table 2).
    Overhead(super::bench_overhead::Args),
    /// Executions per second, uninstrumented in-JVM repetition against rankcheck.
    Throughput(super::bench_throughput::Args),
    /// Rewriter speed in classes per second.
    Rewrite(super::bench_rewrite::Args),
    /// Points-to analysis time and peak memory per program.
    Alias(super::bench_alias::Args),
    /// Executions to the first bug per buggy program and strategy, side by side.
    Strategies(super::bench_strategies::Args),
}

impl Which {
    fn name(&self) -> &'static str {
        match self {
            Which::Overhead(_) => "overhead",
            Which::Throughput(_) => "throughput",
            Which::Rewrite(_) => "rewrite",
            Which::Alias(_) => "alias",
            Which::Strategies(_) => "strategies",
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    // A benchmark runs for minutes before its table: a line on stderr at least every 10 s
    // (docs/CLI.md, "Progress"); its figures go to stdout.
    let shown = crate::driver::progress::Shown::start();
    shown.handle().task(&format!("bench {}", args.which.name()));
    match args.which {
        Which::Overhead(a) => super::bench_overhead::run(a),
        Which::Throughput(a) => super::bench_throughput::run(a),
        Which::Rewrite(a) => super::bench_rewrite::run(a),
        Which::Alias(a) => super::bench_alias::run(a),
        Which::Strategies(a) => super::bench_strategies::run(a),
    }
}
