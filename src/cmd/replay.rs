//! `rankcheck replay <REPORT_DIR | SCHEDULE_FILE>` (docs/CLI.md): re-runs a recorded schedule
//! in a fresh JVM; exit 1 if the recorded failure reproduces (same kind and, where the message
//! names the failure, the same message), 0 if not.

use crate::driver::classpath::{self, Mode};
use crate::driver::replay::replay;
use crate::driver::report::{changed_classes, class_digests, load_recorded, Origin, Recorded};
use crate::error::{bad_input, Outcome};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A report folder written by `rankcheck test` or `run`, or the `schedule.txt` inside one.
    pub report: PathBuf,
    /// Print the replayed execution's output.
    #[arg(long)]
    pub show_output: bool,
    /// Replay the schedule the search found (`schedule.txt`), not the minimal one
    /// (`minimal-schedule.txt`, replayed by default when the report has one).
    #[arg(long)]
    pub original: bool,
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
    // The minimal schedule by default (or when named); the search's with --original or when
    // another schedule file is named.
    let named_minimal = args.report.is_file()
        && recorded
            .minimal
            .as_ref()
            .is_some_and(|m| same_file(&m.schedule, &args.report));
    let search_execution = recorded.execution;
    let mut which = format!("execution {search_execution}");
    if (!args.original && !args.report.is_file()) || named_minimal {
        if recorded
            .minimal
            .as_ref()
            .is_some_and(|m| m.schedule.is_file())
        {
            which = format!("the minimal schedule of execution {search_execution}");
        }
        recorded = recorded.minimal();
    } else if args.report.is_file() {
        recorded.schedule = args.report.clone();
    }
    if !recorded.schedule.is_file() {
        return Err(bad_input(format!(
            "{}: no schedule recorded",
            recorded.schedule.display()
        )));
    }
    crate::driver::replay::check_schedule(&recorded.schedule)?;
    // The current classes of the recorded program, instrumented as the report's were (through
    // the same cache as `test`): after a fix, the replay runs the fixed code, and a cleared
    // cache costs one instrumentation, not the report.
    let changed = match recorded.origin.clone() {
        Some(origin) => match current_classes(&origin, &recorded) {
            Ok((classpath, changed)) => {
                recorded.classpath = classpath;
                changed
            }
            // The program's classes are gone but the instrumented copy the report ran is
            // still there: replay that.
            Err(e) if recorded.classpath.iter().all(|p| p.exists()) => {
                eprintln!("rankcheck: note: {e:#}; replaying the instrumented copy the report ran");
                0
            }
            Err(e) => return Err(e),
        },
        None => 0,
    };
    if changed > 0 {
        println!("rankcheck: {changed} class(es) changed since the report");
    }
    let work = std::env::temp_dir().join(format!("rankcheck-replay-{}", std::process::id()));
    let replayed = replay(&recorded, &work, false);
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
            "rankcheck: reproduced: {which} fails again ({}): {}",
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

/// The class path to replay: the recorded program's current classes (a manifest's sources
/// compiled again), instrumented the way `origin.mode` says; and how many classes differ from
/// the digests the report recorded.
fn current_classes(origin: &Origin, recorded: &Recorded) -> anyhow::Result<(Vec<PathBuf>, usize)> {
    let entries = match &origin.manifest {
        Some(manifest) => {
            let program = crate::driver::program::load_manifest(manifest)?;
            crate::driver::program::compiled_classpath(&program)?
        }
        None => origin.classpath.clone(),
    };
    for entry in &entries {
        if !entry.exists() {
            return Err(bad_input(format!(
                "the recorded class path entry {} is gone",
                entry.display()
            )));
        }
    }
    let cp = crate::driver::jvm::join_paths(&entries);
    let classpath = match origin.mode.as_str() {
        "all" => classpath::prepare(&cp, Mode::All)?,
        "sync-only" => classpath::prepare(&cp, Mode::SyncOnly)?,
        "load-time" => classpath::prepare(&cp, Mode::LoadTime)?,
        vars => {
            let ids = vars
                .strip_prefix("vars:")
                .map(|list| {
                    list.split(',')
                        .filter(|v| !v.is_empty())
                        .map(str::parse::<u32>)
                        .collect::<Result<Vec<_>, _>>()
                })
                .and_then(Result::ok)
                .ok_or_else(|| bad_input(format!("run.json: unknown instrumentation {vars:?}")))?;
            let analysis = classpath::analysis(&cp, &recorded.main)?;
            classpath::prepare_vars(&cp, &analysis, &ids)?
        }
    };
    let changed = changed_classes(&recorded.digests, &class_digests(&entries));
    Ok((classpath, changed))
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
