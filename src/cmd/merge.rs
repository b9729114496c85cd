//! `rankcheck merge DIR… [--json] [--out DIR]` (docs/CLI.md): the `--out` folders of the shards
//! of one `test`, `junit` or `sweep` run (`--shard I/N`), put together into the result of the unsharded
//! run: for a search its executions, first bug, every shard's bugs and coverage statement
//! (`driver::search_merge`); for a sweep its tables and plots. Folders of different commands,
//! options or shard counts, and a missing or repeated shard, are bad input (exit 2): a partial
//! result would look like the whole run's.

use crate::driver::shard_file::{self, ShardFile};
use crate::driver::{search_merge, sweep, tables};
use crate::error::{bad_input, Inconclusive, Outcome};
use serde_json::Value;
use std::path::PathBuf;

#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The shards' --out folders (each holds rankcheck-shard.json), every shard once.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// For a search: one JSON object on stdout, as `test --json` prints it (with `shards`).
    #[arg(long)]
    pub json: bool,
    /// Where the merged result goes: `result.json` for a search; results.json, results.csv,
    /// the tables and the plots for a sweep.
    #[arg(long, default_value = "rankcheck-merged")]
    pub out: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let files = shard_file::read_all(&args.dirs)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| bad_input(format!("cannot create {}: {e}", args.out.display())))?;
    match files[0].command.as_str() {
        "test" => merge_search(&args, &files),
        "sweep" => merge_sweep(&args, &files),
        "junit" => merge_junit(&args, &files),
        other => Err(bad_input(format!(
            "merge: shards of `{other}` cannot be merged"
        ))),
    }
}

fn merge_search(args: &Args, files: &[ShardFile]) -> anyhow::Result<Outcome> {
    let merged = search_merge::merge(files)?;
    std::fs::write(
        args.out.join("result.json"),
        serde_json::to_string_pretty(&merged)?,
    )?;
    let say = |line: String| {
        if args.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    let bugs = merged["bugs"].as_array().cloned().unwrap_or_default();
    for bug in &bugs {
        say(format!(
            "rankcheck: BUG in execution {} ({}): {}",
            bug["execution"],
            text(&bug["kind"]),
            text(&bug["message"])
        ));
        say(format!("  report: {}", text(&bug["report"])));
        say(format!("  replay: {}", text(&bug["replay"])));
    }
    let verdict = if bugs.is_empty() {
        "no bug found"
    } else {
        "bug found"
    };
    say(format!(
        "rankcheck: {} execution(s) over {} shards in at most {:.2} s each, strategy {}, seed {}: {verdict}",
        merged["executions"],
        files.len(),
        merged["seconds"].as_f64().unwrap_or(0.0),
        text(&merged["strategy"]),
        merged["seed"]
    ));
    let inconclusive = merged["inconclusive"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if bugs.is_empty() && inconclusive.is_empty() {
        say(format!("coverage: {}", text(&merged["coverage"])));
    }
    if let Some(w) = merged["escalation_due"].as_str() {
        eprintln!("rankcheck: warning: {w}");
    } else if let Some(w) = merged["alone_then_shared"]
        .as_str()
        .filter(|_| bugs.is_empty())
    {
        eprintln!("rankcheck: warning: {w}");
    }
    if let Some(n) = merged["timeouts_withheld"]
        .as_str()
        .filter(|_| bugs.is_empty())
    {
        eprintln!("rankcheck: note: {n}");
    }
    if args.json {
        crate::error::set_json_report(merged.clone());
    }
    if !bugs.is_empty() {
        return Ok(Outcome::Bug);
    }
    if let Some(first) = inconclusive.first() {
        return Err(Inconclusive(format!(
            "{} execution(s) gave no verdict: {}; report in {}",
            inconclusive.len(),
            text(&first["message"]),
            text(&first["report"])
        ))
        .into());
    }
    if let Some(u) = merged["unreproduced"].as_array().and_then(|u| u.first()) {
        anyhow::bail!("nothing is reported as a bug: {}", text(u));
    }
    Ok(Outcome::Clean)
}

fn merge_junit(args: &Args, files: &[ShardFile]) -> anyhow::Result<Outcome> {
    let merged = search_merge::merge_tests(files)?;
    std::fs::write(
        args.out.join("result.json"),
        serde_json::to_string_pretty(&merged)?,
    )?;
    let tests = merged["tests"].as_array().cloned().unwrap_or_default();
    for t in &tests {
        let verdict = text(&t["verdict"]);
        let word = if verdict == "found" {
            "FOUND"
        } else {
            &verdict
        };
        let mut line = format!(
            "rankcheck: {word:<12} {}: {} execution(s)",
            text(&t["test"]),
            t["executions"]
        );
        match verdict.as_str() {
            "found" => {
                line += &format!(
                    ": {} ({})\n  report: {}\n  replay: {}",
                    text(&t["message"]),
                    text(&t["kind"]),
                    text(&t["report"]),
                    text(&t["replay"])
                )
            }
            "inconclusive" => line += &format!(": {}", text(&t["error"])),
            _ => {}
        }
        if let Some(w) = t["escalation_due"].as_str() {
            line += &format!("\n  warning: {w}");
        }
        if args.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    let summary = format!(
        "rankcheck junit: {} test(s) over {} shards: {} found, {} clean, {} inconclusive",
        tests.len(),
        files.len(),
        merged["found"],
        merged["clean"],
        merged["inconclusive"]
    );
    if args.json {
        eprintln!("{summary}");
        crate::error::set_json_report(merged.clone());
    } else {
        println!("{summary}");
    }
    if merged["found"].as_u64().unwrap_or(0) > 0 {
        return Ok(Outcome::Bug);
    }
    if merged["inconclusive"].as_u64().unwrap_or(0) > 0 {
        return Err(Inconclusive(format!(
            "{} of {} test(s) gave no verdict (see above)",
            merged["inconclusive"],
            tests.len()
        ))
        .into());
    }
    Ok(Outcome::Clean)
}

fn merge_sweep(args: &Args, files: &[ShardFile]) -> anyhow::Result<Outcome> {
    let out = std::fs::canonicalize(&args.out)?;
    let (config, programs, rows) = sweep::merge_shards(files, out.clone())?;
    let text = tables::write_all(&config, &programs, &rows, &out)?;
    println!("{text}");
    let seconds = rows.iter().map(|r| r.seconds).sum::<f64>();
    super::sweep::sweep_verdict(&rows, seconds, &out)
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}
