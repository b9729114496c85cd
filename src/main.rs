//! `rankcheck`: the command line. Parses and validates flags, calls the library crates, and turns
//! their results into the exit codes of `docs/CLI.md` (0 clean, 1 bug, 2 bad input, 3 failure).
//!
//! **Architecture invariant:** no algorithm lives here; each subcommand is one module under
//! `cmd/` (in the root library, `src/lib.rs`) that wires crates together.

use clap::{Parser, Subcommand};
use rankcheck::{cmd, error};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rankcheck",
    version,
    about = "Finds concurrency bugs in JVM programs by ranked, controlled scheduling"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Instrument a jar or a directory of classes.
    Instrument(cmd::instrument::Args),
    /// Print the paths of the runtime jar and the agent library.
    Rt(cmd::rt::Args),
    /// Run the points-to analysis and write variables and access sites.
    Analyze(cmd::analyze::Args),
    /// One controlled execution.
    Run(cmd::run::Args),
    /// Search for a bug over many controlled executions.
    Test(cmd::test::Args),
    /// Search every selected JUnit test method for a bug, one search per test.
    Junit(cmd::junit::Args),
    /// Re-run a recorded schedule.
    Replay(cmd::replay::Args),
    /// Sweep strategies and bounds over a benchmark suite.
    Sweep(cmd::sweep::Args),
    /// Merge the results of the shards of one `test`, `junit` or `sweep` run (`--shard I/N`).
    Merge(cmd::merge::Args),
    /// Benchmarks.
    Bench(cmd::bench::Args),
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, which turns a closed pipe (`rankcheck rt | head -1`) into a panic in
    // println!. A command-line tool should end quietly then, as other Unix tools do.
    // SAFETY: called once, before any other thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `--json` (of `test` and `junit`) asks for one JSON object on stdout whatever the exit code, usage
    // errors included.
    let json_asked = std::env::args()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            if json_asked && code == 2 {
                let rendered = e.render().to_string();
                let first = rendered
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                let message = first.trim_start_matches("error: ").to_string();
                error::print_json(code, Some((message, "bad-input")));
            }
            return ExitCode::from(code);
        }
    };
    let json = match &cli.command {
        Command::Test(a) => a.search.json,
        Command::Junit(a) => a.search.json,
        Command::Merge(a) => a.json,
        _ => false,
    };
    let result = match cli.command {
        Command::Instrument(a) => cmd::instrument::run(a),
        Command::Rt(a) => cmd::rt::run(a),
        Command::Analyze(a) => cmd::analyze::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Test(a) => cmd::test::run(a),
        Command::Junit(a) => cmd::junit::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Bench(a) => cmd::bench::run(a),
    };
    error::exit_code(result, json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// clap's own checks of the whole command line (ids named by `conflicts_with`, `requires`
    /// and flattened groups exist, no flag defined twice in one subcommand), which release
    /// builds skip at run time.
    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// The groups `run` and `test` share parse into both, and their cross-group conflicts hold.
    #[test]
    fn run_and_test_share_the_report_and_launch_flags() {
        let shared = ["--out", "o", "--keep-going", "--fork", "--load-time"];
        for sub in ["run", "test"] {
            let argv = [&["rankcheck", sub, "--cp", "c", "--main", "M"][..], &shared].concat();
            let cli = Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{sub}: {e}"));
            let (report, launch) = match cli.command {
                Command::Run(a) => (a.report, a.launch),
                Command::Test(a) => (a.search.report, a.launch),
                _ => unreachable!(),
            };
            assert_eq!(report.out, std::path::Path::new("o"), "{sub}");
            assert!(
                report.keep_going && launch.fork && launch.load_time,
                "{sub}"
            );
        }
        let both = ["rankcheck", "test", "--cp", "c", "--main", "M"];
        assert!(
            Cli::try_parse_from([&both[..], &["--sync-only", "--load-time"]].concat()).is_err()
        );
        assert!(
            Cli::try_parse_from([&both[..], &["--selective", "--load-time"]].concat()).is_err()
        );
    }
}
