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

fn median_seconds(runs: usize, mut f: impl FnMut() -> anyhow::Result<()>) -> anyhow::Result<f64> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
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
    println!("| stage                              | seconds | classes/s |");
    println!("|------------------------------------|--------:|----------:|");
    for (stage, s) in [
        ("parse + write (Code re-encoded)", round),
        ("instrument, every hook", instrument),
        ("instrument jar (zip in and out)", whole),
    ] {
        println!("| {stage:<34} | {s:>7.3} | {:>9.0} |", n as f64 / s);
    }
    Ok(Outcome::Clean)
}
