//! `rankcheck instrument` (docs/CLI.md): a jar or a directory of classes in, the same shape
//! out, with hooks at every selected site and the site table as a resource.

use crate::error::{bad_input, Outcome};
use rewriter::jar::{instrument_dir, instrument_jar, JarError, JarOptions, Summary};
use rewriter::Config;
use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// A jar, or a directory of classes.
    input: PathBuf,
    /// Where to write the instrumented jar or directory.
    #[arg(short, long)]
    output: PathBuf,
    /// Every field, static and array access site (the default).
    #[arg(long, conflicts_with_all = ["sync_only", "analysis"])]
    all: bool,
    /// Only synchronization and thread operations.
    #[arg(long, conflicts_with = "analysis")]
    sync_only: bool,
    /// The analysis file of `rankcheck analyze`; with --vars, only the sites that may touch
    /// those variables.
    #[arg(long, requires = "vars")]
    analysis: Option<PathBuf>,
    /// Variable ids from the analysis file (comma-separated).
    #[arg(long, value_delimiter = ',', requires = "analysis")]
    vars: Vec<u32>,
    /// Only classes whose name starts with this prefix (`com/foo/` or `com.foo.`); repeatable.
    #[arg(long)]
    include: Vec<String>,
    /// Never classes whose name starts with this prefix; repeatable.
    #[arg(long)]
    exclude: Vec<String>,
    /// Put the runtime classes into OUTPUT.
    #[arg(long)]
    self_contained: bool,
    /// Copy entries that are not valid classes through unchanged, with a warning.
    #[arg(long)]
    skip_bad: bool,
    /// Do not call the Allocated hook after allocations.
    #[arg(long)]
    no_alloc: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut config = if args.sync_only {
        Config::sync_only()
    } else {
        Config::all()
    };
    if args.no_alloc {
        config.allocations = false;
    }
    // The variable set's tracked table, added to the output's site table (agent/src/naming.rs).
    let mut tracked = None;
    if let Some(analysis) = &args.analysis {
        // Only the data sites that may touch the chosen variables, and the allocation sites of
        // those variables; sync and calls stay everywhere.
        let selection = alias::selected_sites(analysis, &args.vars)
            .map_err(|e| bad_input(format!("{}: {e}", analysis.display())))?;
        let keys = |set: std::collections::BTreeSet<alias::SiteKey>| {
            Arc::new(
                set.into_iter()
                    .map(|k| (k.class, k.method, k.descriptor, k.bci))
                    .collect::<HashSet<_>>(),
            )
        };
        let file = alias::AnalysisFile::read(analysis)
            .map_err(|e| bad_input(format!("{}: {e}", analysis.display())))?;
        let hooked =
            crate::driver::classpath::hooked_alloc_sites(&file, &args.vars, selection.alloc_sites);
        config.data_sites = Some(keys(selection.data_sites));
        config.alloc_sites = Some(keys(hooked));
        tracked = Some(crate::driver::classpath::tracked_table(&file, &args.vars));
    }
    if !args.input.exists() {
        return Err(bad_input(format!(
            "{}: no such file or directory",
            args.input.display()
        )));
    }
    let options = JarOptions {
        config,
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        runtime_jar: args.self_contained.then_some(java_harness::RUNTIME_JAR),
        skip_bad: args.skip_bad,
    };
    let started = Instant::now();
    let bar = ProgressBar::new();
    let report = |done: usize, total: usize| bar.update(done, total);
    let result = if args.input.is_dir() {
        instrument_dir(&args.input, &args.output, &options, &report)
    } else {
        let bytes = std::fs::read(&args.input)
            .map_err(|e| bad_input(format!("{}: {e}", args.input.display())))?;
        instrument_jar(&bytes, &options, &report).and_then(|(out, summary)| {
            write_file(&args.output, &out)?;
            Ok(summary)
        })
    };
    bar.finish();
    // Unreadable input and unwritable output are both the user's to fix: exit 2.
    let summary = result.map_err(|e| match e {
        JarError::Io(_) => bad_input(e.to_string()),
        _ => bad_input(format!("{}: {e}", args.input.display())),
    })?;
    if let Some(table) = &tracked {
        crate::driver::classpath::add_tracked_table(&args.output, table).map_err(|e| {
            bad_input(format!(
                "{}: cannot add the tracked table: {e}",
                args.output.display()
            ))
        })?;
    }
    print_summary(&summary, started.elapsed().as_secs_f64());
    Ok(Outcome::Clean)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), JarError> {
    std::fs::write(path, bytes).map_err(|e| JarError::Io(format!("{}: {e}", path.display())))
}

fn print_summary(summary: &Summary, seconds: f64) {
    for w in &summary.warnings {
        eprintln!("rankcheck: warning: {w}");
    }
    println!(
        "{} classes, {} methods, {} sites, {:.2} s",
        summary.classes, summary.methods, summary.sites, seconds
    );
}

/// An indicatif bar on stderr, only when stderr is a terminal and the input is large.
struct ProgressBar(std::cell::OnceCell<Option<indicatif::ProgressBar>>);

impl ProgressBar {
    fn new() -> Self {
        ProgressBar(std::cell::OnceCell::new())
    }

    fn update(&self, done: usize, total: usize) {
        let bar = self.0.get_or_init(|| {
            (total >= 2000 && std::io::stderr().is_terminal()).then(|| {
                let b = indicatif::ProgressBar::new(total as u64);
                b.set_style(
                    indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} entries {eta}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                b
            })
        });
        if let Some(b) = bar {
            if done % 64 == 0 || done == total {
                b.set_position(done as u64);
            }
        }
    }

    fn finish(&self) {
        if let Some(Some(b)) = self.0.get() {
            b.finish_and_clear();
        }
    }
}
