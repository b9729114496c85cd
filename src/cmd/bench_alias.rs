//! `rankcheck bench alias`: for each bundled program, the points-to analysis' time and peak
//! memory (a child `rankcheck analyze` per program, so each one's memory is its own), and its
//! precision: the data sites instrumented for one variable (mean over variables) against all
//! data sites.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::error::{bad_input, Outcome};
use crate::suite::{compile, Program};

/// Targets for ConTest-size programs (issue 5).
const TARGET_SECONDS: f64 = 5.0;
const TARGET_MIB: f64 = 2048.0;

#[derive(clap::Args)]
pub struct Args {
    /// Folders of program folders (default: contest-bench, tests/programs and
    /// tests/java/alias, where they exist).
    suites: Vec<PathBuf>,
    /// Only these programs (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    programs: Vec<String>,
    /// Which JDK bodies to analyse (as `rankcheck analyze --jdk`: default, none, all, or
    /// packages).
    #[arg(long, value_name = "SCOPE", default_value = "default")]
    jdk: String,
    /// The same as `--jdk all` (slow; for comparison).
    #[arg(long, conflicts_with = "jdk")]
    jdk_bodies: bool,
    /// Give up on one program's analysis after this many seconds.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
}

struct Row {
    name: String,
    seconds: f64,
    peak_mib: f64,
    variables: usize,
    shared: usize,
    sites: usize,
    mean_selected: f64,
    methods: f64,
    complete: bool,
}

fn load_programs(args: &Args) -> anyhow::Result<Vec<Program>> {
    let suites: Vec<PathBuf> = if args.suites.is_empty() {
        ["contest-bench", "tests/programs", "tests/java/alias"]
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_dir())
            .collect()
    } else {
        args.suites.clone()
    };
    if suites.is_empty() {
        return Err(bad_input(
            "no program folders: run in the rankcheck checkout or name suite folders",
        ));
    }
    let mut programs = Vec::new();
    for suite in &suites {
        let entries =
            std::fs::read_dir(suite).map_err(|e| bad_input(format!("{}: {e}", suite.display())))?;
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("manifest.toml").is_file())
            .collect();
        dirs.sort();
        for d in dirs {
            let p = Program::load(&d).map_err(|e| bad_input(e.to_string()))?;
            if args.programs.is_empty() || args.programs.iter().any(|n| n == p.name()) {
                programs.push(p);
            }
        }
    }
    if programs.is_empty() {
        return Err(bad_input("no programs selected"));
    }
    Ok(programs)
}

fn measure(program: &Program, work: &Path, args: &Args) -> anyhow::Result<Row> {
    let classes = compile(program, &work.join("javac"))?;
    let out = work.join(format!("{}.json", program.name()));
    // /proc/self/exe still runs this very binary if a rebuild replaced the file meanwhile.
    let exe = if Path::new("/proc/self/exe").exists() {
        PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe()?
    };
    let mut cmd = Command::new(exe);
    cmd.arg("analyze")
        .arg("--cp")
        .arg(&classes)
        .arg("--main")
        .arg(&program.manifest.main)
        .arg("-o")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if args.jdk_bodies {
        cmd.arg("--jdk-bodies");
    } else {
        cmd.arg("--jdk").arg(&args.jdk);
    }
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    let limit = std::time::Duration::from_secs(args.timeout);
    let Some(status) = crate::driver::child::wait_within(&mut child, limit)? else {
        anyhow::bail!("analysis took more than {} s", args.timeout);
    };
    let seconds = started.elapsed().as_secs_f64();
    if !status.success() {
        anyhow::bail!("rankcheck analyze failed ({status})");
    }
    let file = alias::AnalysisFile::read(&out)?;
    let sites = file.sites.len();
    let mut total = 0usize;
    for v in &file.variables {
        total += file.select(&[v.id])?.data_sites.len();
    }
    let n = file.variables.len().max(1);
    Ok(Row {
        name: program.name().to_string(),
        seconds,
        peak_mib: file.stats.get("peak_rss_kib").copied().unwrap_or(0.0) / 1024.0,
        variables: file.variables.len(),
        shared: file.variables.iter().filter(|v| v.shared).count(),
        sites,
        mean_selected: total as f64 / n as f64,
        methods: file.stats.get("methods_reached").copied().unwrap_or(0.0),
        complete: file.complete,
    })
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let scope = super::analyze::jdk_scope(&args.jdk, args.jdk_bodies)?;
    let programs = load_programs(&args)?;
    println!("JDK bodies analysed: {}", scope.describe());
    let work = std::env::temp_dir().join(format!("rankcheck-bench-alias-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    println!(
        "{:<30} {:>8} {:>9} {:>8} {:>9} {:>6} {:>10} {:>7} {:>8}",
        "program",
        "seconds",
        "peak MiB",
        "methods",
        "vars",
        "sites",
        "sites@v=1",
        "share",
        "complete"
    );
    let mut rows = Vec::new();
    for p in &programs {
        match measure(p, &work, &args) {
            Ok(r) => {
                println!(
                    "{:<30} {:>8.3} {:>9.1} {:>8.0} {:>4} ({:>2}) {:>6} {:>10.1} {:>6.1}% {:>8}",
                    r.name,
                    r.seconds,
                    r.peak_mib,
                    r.methods,
                    r.variables,
                    r.shared,
                    r.sites,
                    r.mean_selected,
                    100.0 * r.mean_selected / r.sites.max(1) as f64,
                    if r.complete { "yes" } else { "no" }
                );
                rows.push(r);
            }
            Err(e) => println!("{:<30} failed: {e:#}", p.name()),
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    if rows.is_empty() {
        anyhow::bail!("no program could be analysed");
    }
    let max_s = rows.iter().map(|r| r.seconds).fold(0.0, f64::max);
    let max_mib = rows.iter().map(|r| r.peak_mib).fold(0.0, f64::max);
    let share: f64 = rows
        .iter()
        .map(|r| r.mean_selected / r.sites.max(1) as f64)
        .sum::<f64>()
        / rows.len() as f64;
    println!(
        "{} programs: max {:.3} s (target {TARGET_SECONDS} s), max {:.1} MiB peak (target {TARGET_MIB} MiB), mean share of data sites instrumented at v=1: {:.1}%{}",
        rows.len(),
        max_s,
        max_mib,
        100.0 * share,
        if max_s <= TARGET_SECONDS && max_mib <= TARGET_MIB {
            " — within targets"
        } else {
            " — OVER TARGET"
        }
    );
    Ok(Outcome::Clean)
}
