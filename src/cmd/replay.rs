//! `rankcheck replay <REPORT_DIR | SCHEDULE_FILE>` (shared/CLI.md): re-runs a recorded schedule
//! in a fresh JVM; exit 1 if the recorded failure reproduces (same kind and, where the message
//! names the failure, the same message), 0 if not.

use crate::driver::replay::replay;
use crate::driver::report::load_recorded;
use crate::error::{bad_input, Outcome};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A report folder written by `rankcheck test` or `run`, or the `schedule.txt` inside one.
    pub report: PathBuf,
    /// Print the replayed execution's output.
    #[arg(long)]
    pub show_output: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let dir = if args.report.is_dir() {
        args.report.clone()
    } else if args.report.is_file() {
        let parent = args
            .report
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    p.to_path_buf()
                }
            })
            .unwrap_or_else(|| PathBuf::from("."));
        if !parent.join("run.json").is_file() {
            return Err(bad_input(format!(
                "{}: a schedule file alone does not say which program ran; give its report folder, \
                 or use `rankcheck run --replay {} --cp … --main …`",
                args.report.display(),
                args.report.display()
            )));
        }
        parent
    } else {
        return Err(bad_input(format!(
            "{}: no such report folder or schedule file",
            args.report.display()
        )));
    };
    let mut recorded = load_recorded(&dir).map_err(bad_input)?;
    if args.report.is_file() {
        recorded.schedule = args.report.clone();
    }
    if !recorded.schedule.is_file() {
        return Err(bad_input(format!(
            "{}: no schedule recorded",
            recorded.schedule.display()
        )));
    }
    let work = std::env::temp_dir().join(format!("rankcheck-replay-{}", std::process::id()));
    let replayed = replay(&recorded, &work);
    let _ = std::fs::remove_dir_all(&work);
    let replayed = replayed?;
    let r = &replayed.result;
    if args.show_output {
        for stream in ["stdout", "stderr"] {
            let text = r[stream].as_str().unwrap_or("");
            if !text.is_empty() {
                println!("--- {stream} ---\n{}", text.trim_end());
            }
        }
    }
    if !replayed.reproduced && r["outcome"] == "inconclusive" {
        // A limit of rankcheck (the watchdog, the wall-clock bound), not an answer: exit 3.
        anyhow::bail!(
            "the replay could not be controlled ({}): {}",
            r["kind"].as_str().unwrap_or("?"),
            r["message"].as_str().unwrap_or("")
        );
    }
    if replayed.reproduced {
        println!(
            "rankcheck: reproduced: execution {} fails again ({}): {}",
            recorded.execution,
            r["kind"].as_str().unwrap_or("?"),
            r["message"].as_str().unwrap_or("")
        );
        Ok(Outcome::Bug)
    } else {
        println!(
            "rankcheck: NOT reproduced: expected {} ({}); {}",
            recorded.expected.kind,
            recorded.expected.message.lines().next().unwrap_or(""),
            replayed.difference.as_deref().unwrap_or("")
        );
        Ok(Outcome::Clean)
    }
}
