//! `rankcheck bench rewrite [JAR]`: rewriter speed in classes per second on one core — the
//! parse+write round trip, instrumentation with every hook, and the whole jar pipeline (zip in
//! and out) — each the median of several runs.

use crate::error::{bad_input, Outcome};
use rewriter::jar::{instrument_jar, read_classes, JarOptions};
use rewriter::{instrument_class, round_trip, Config, Hierarchy};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The jar to rewrite.
    #[arg(default_value = "/usr/share/java/guava.jar")]
    jar: PathBuf,
    /// Runs per figure (the median is printed).
    #[arg(long, default_value_t = 5)]
    runs: usize,
}

/// CPU time this thread has run, in seconds (Linux's per-thread schedstat), so that figures
/// hold on a machine shared with other work; `None` where it is not available.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Median wall and CPU seconds of `runs` runs of `f`.
fn median_seconds(
    runs: usize,
    mut f: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<(f64, Option<f64>)> {
    let mut wall = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let c = thread_cpu_seconds();
        let t = Instant::now();
        f()?;
        wall.push(t.elapsed().as_secs_f64());
        if let (Some(before), Some(after)) = (c, thread_cpu_seconds()) {
            cpu.push(after - before);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let cpu = (cpu.len() == wall.len()).then(|| median(&mut cpu));
    Ok((median(&mut wall), cpu))
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let bytes =
        std::fs::read(&args.jar).map_err(|e| bad_input(format!("{}: {e}", args.jar.display())))?;
    let classes =
        read_classes(&bytes).map_err(|e| bad_input(format!("{}: {e}", args.jar.display())))?;
    if classes.is_empty() {
        return Err(bad_input(format!("{}: no classes", args.jar.display())));
    }
    let n = classes.len();

    let round = median_seconds(args.runs, || {
        for (name, c) in &classes {
            let out = round_trip(c).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            std::hint::black_box(out);
        }
        Ok(())
    })?;
    let mut sites = 0;
    let instrument = median_seconds(args.runs, || {
        let hierarchy = Hierarchy::new();
        for (_, c) in &classes {
            hierarchy.add_class_bytes(c);
        }
        let config = Config {
            hierarchy: Arc::new(hierarchy),
            ..Config::all()
        };
        sites = 0;
        for (name, c) in &classes {
            let out = instrument_class(c, &config).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            sites += out.sites.len();
        }
        Ok(())
    })?;
    let options = JarOptions {
        config: Config::all(),
        include: Vec::new(),
        exclude: Vec::new(),
        runtime_jar: None,
        skip_bad: true,
    };
    let whole = median_seconds(args.runs, || {
        let (out, _) = instrument_jar(&bytes, &options, &|_, _| {})?;
        std::hint::black_box(out);
        Ok(())
    })?;

    println!(
        "rewrite benchmark: {} ({n} classes, {sites} sites, median of {} runs, one core)",
        args.jar.display(),
        args.runs.max(1)
    );
    println!("| stage                              | wall s | classes/s (wall) | CPU s | classes/CPU-s |");
    println!("|------------------------------------|-------:|-----------------:|------:|--------------:|");
    for (stage, (wall, cpu)) in [
        ("parse + write (Code re-encoded)", round),
        ("instrument, every hook", instrument),
        ("instrument jar (zip in and out)", whole),
    ] {
        let (cpu_s, per_cpu) = match cpu {
            Some(c) => (format!("{c:.3}"), format!("{:.0}", n as f64 / c)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {stage:<34} | {wall:>6.3} | {:>16.0} | {cpu_s:>5} | {per_cpu:>13} |",
            n as f64 / wall
        );
    }
    Ok(Outcome::Clean)
}
