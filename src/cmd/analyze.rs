//! `rankcheck analyze` (docs/CLI.md): the points-to analysis, written as `analysis.json`
//! (layout: `alias::format`).

use std::path::PathBuf;

use crate::error::{bad_input, Outcome};

#[derive(clap::Args)]
pub struct Args {
    /// The program's class path (directories and jars, separated by `:`).
    #[arg(long)]
    cp: String,
    /// The main class (`pkg.Main`).
    #[arg(long)]
    main: String,
    /// Where to write the analysis.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// The JDK `jmods/` directory to read the library from (default: `$JAVA_HOME/jmods`, else
    /// the JDK 17 of /usr/lib/jvm).
    #[arg(long)]
    jmods: Option<PathBuf>,
    /// Analyse without the JDK: every library call is unknown code (sound, much less precise).
    #[arg(long, conflicts_with = "jmods")]
    no_jdk: bool,
    /// Which JDK method bodies to analyse: `default` (java.util, java.util.concurrent[.atomic,
    /// .locks], java.util.function), `none` (the whole JDK is unknown code that may call back
    /// application methods), `all` (every reachable JDK body; slow), or a comma-separated list of
    /// packages (`default,java.util.stream`). Outside the scope JDK code is unknown code.
    #[arg(long, value_name = "SCOPE", default_value = "default")]
    jdk: String,
    /// The same as `--jdk all`.
    #[arg(long, conflicts_with = "jdk")]
    jdk_bodies: bool,
}

/// The JDK scope of `--jdk SCOPE` / `--jdk-bodies`, or a bad-input error.
pub fn jdk_scope(jdk: &str, jdk_bodies: bool) -> anyhow::Result<alias::JdkScope> {
    if jdk_bodies {
        return Ok(alias::JdkScope::All);
    }
    alias::JdkScope::parse(jdk).map_err(|e| bad_input(e.to_string()))
}

/// Splits a `:`-separated class path, dropping empty entries.
pub fn split_class_path(cp: &str) -> Vec<PathBuf> {
    cp.split(':')
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect()
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let scope = jdk_scope(&args.jdk, args.jdk_bodies)?;
    let config = alias::Config {
        class_path: split_class_path(&args.cp),
        main: args.main.clone(),
        jdk_bodies: scope == alias::JdkScope::All,
        jmods: if args.no_jdk {
            None
        } else {
            Some(args.jmods.unwrap_or_else(alias::classpath::default_jmods))
        },
    };
    if config.class_path.is_empty() {
        return Err(bad_input("--cp is empty"));
    }
    let mut analysis = alias::analyze_with(&config, &scope).map_err(|e| match e {
        alias::Error::BadInput(m) => bad_input(m),
        other => anyhow::anyhow!(other),
    })?;
    if let Some(kib) = peak_rss_kib() {
        analysis.stats.insert("peak_rss_kib".into(), kib as f64);
    }
    for w in analysis.warnings.iter().take(20) {
        eprintln!("rankcheck: warning: {w}");
    }
    if analysis.warnings.len() > 20 {
        eprintln!(
            "rankcheck: warning: … and {} more (see the analysis file)",
            analysis.warnings.len() - 20
        );
    }
    std::fs::write(&args.output, analysis.to_json())
        .map_err(|e| bad_input(format!("cannot write {}: {e}", args.output.display())))?;
    let reached = analysis.sites.iter().filter(|s| s.reached).count();
    eprintln!(
        "analysis: {} variables ({} shared), {} sites ({} reached), {:.2}s{}",
        analysis.variables.len(),
        analysis.variables.iter().filter(|v| v.shared).count(),
        analysis.sites.len(),
        reached,
        analysis.stats.get("total_seconds").copied().unwrap_or(0.0),
        if analysis.complete {
            ""
        } else {
            " (incomplete: unresolved sites may touch any variable)"
        }
    );
    Ok(Outcome::Clean)
}

/// This process's peak resident memory (`VmHWM` of /proc/self/status), in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
