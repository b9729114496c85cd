//! The user's view of throughput, for `rankcheck bench throughput`: executions per second of the
//! simplest repetition loop a user writes (a fresh class loader per execution, `main` called
//! directly, on one CPU) against the whole `rankcheck test` command as a user types it
//! (`--cp CLASSES --main CLASS`, the default strategy, JVM start, instrumentation and the
//! determinism sample included) at `-j 1` with a warm and a cold cache and at the default `-j`.
//! The cold run gets an empty `XDG_CACHE_HOME`, so it unpacks the runtime and instruments the
//! class path anew, as a first run on a class path does.

use crate::driver::baseline::{geomean, repeat, run_bounded, Repetition};
use crate::driver::jvm::join_paths;
use crate::suite::Program;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// One program's figures (executions per second; `None` when a run failed or timed out).
#[derive(Default)]
pub struct Row {
    pub name: String,
    pub plain: Option<f64>,
    pub warm_j1: Option<f64>,
    pub cold_j1: Option<f64>,
    pub warm_default_j: Option<f64>,
    /// Seconds the cold run took over the warm one.
    pub cold_extra: Option<f64>,
}

const LIMIT: Duration = Duration::from_secs(300);

/// Wall seconds of `rankcheck test --cp CP --main M --budget n -j jobs [-- ARGS]` in `cwd`,
/// with `cache` as `XDG_CACHE_HOME` when given; `None` unless it ended clean (exit 0).
fn whole(
    cp: &[PathBuf],
    p: &Program,
    n: u64,
    jobs: Option<u32>,
    cache: Option<&Path>,
    cwd: &Path,
) -> anyhow::Result<Option<f64>> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("test")
        .arg("--cp")
        .arg(join_paths(cp))
        .arg("--main")
        .arg(&p.manifest.main)
        .arg("--budget")
        .arg(n.to_string())
        .arg("--seed")
        .arg("1")
        .current_dir(cwd);
    if let Some(j) = jobs {
        cmd.arg("-j").arg(j.to_string());
    }
    if let Some(dir) = cache {
        cmd.env("XDG_CACHE_HOME", dir);
    }
    if !p.manifest.args.is_empty() {
        cmd.arg("--").args(&p.manifest.args);
    }
    Ok(run_bounded(cmd, LIMIT)?.map(|(s, _)| s))
}

/// Measures one program: the plain loop, then the command warm (after one run that warms the
/// cache), cold and at the default `-j`.
pub fn measure(p: &Program, original: &Path, n: u64, work: &Path) -> anyhow::Result<Row> {
    let cp: Vec<PathBuf> = std::iter::once(original.to_path_buf())
        .chain(p.libraries())
        .collect();
    let rate = |s: Option<f64>| s.filter(|s| *s > 0.0).map(|s| n as f64 / s);
    let plain = repeat(
        &cp,
        &p.manifest.main,
        &p.manifest.args,
        n,
        work,
        LIMIT,
        Repetition::PlainOnOneCpu,
    )?;
    whole(&cp, p, n, Some(1), None, work)?;
    let warm = whole(&cp, p, n, Some(1), None, work)?;
    let cold_cache = work.join(format!("cold-cache-{}", p.name()));
    let _ = std::fs::remove_dir_all(&cold_cache);
    std::fs::create_dir_all(&cold_cache)?;
    let cold = whole(&cp, p, n, Some(1), Some(&cold_cache), work)?;
    let _ = std::fs::remove_dir_all(&cold_cache);
    let default_j = whole(&cp, p, n, None, None, work)?;
    Ok(Row {
        name: p.name().to_string(),
        plain: rate(plain),
        warm_j1: rate(warm),
        cold_j1: rate(cold),
        warm_default_j: rate(default_j),
        cold_extra: cold.zip(warm).map(|(c, w)| c - w),
    })
}

fn cell(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.1}"))
}

fn ratio(plain: Option<f64>, r: Option<f64>) -> Option<f64> {
    plain.zip(r).filter(|(_, r)| *r > 0.0).map(|(p, r)| p / r)
}

/// Prints the table, one row per program and the geometric means; the worst ratio of the warm
/// `-j 1` command below it.
pub fn print(rows: &[Row], n: u64, cpus: usize) {
    println!(
        "\nWhat a user measures (executions/s, {n} executions per figure, wall time of the whole command; \
         ratio = plain loop / rankcheck; default -j = {cpus})\n"
    );
    println!(
        "| Program | Plain loop, 1 CPU | test -j 1 warm | Ratio | test -j 1 cold | Cold − warm (s) | test default -j warm | Ratio |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut col: [Vec<f64>; 6] = Default::default();
    for r in rows {
        let (rw, rd) = (ratio(r.plain, r.warm_j1), ratio(r.plain, r.warm_default_j));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            cell(r.plain),
            cell(r.warm_j1),
            rw.map_or("-".into(), |x| format!("{x:.2}")),
            cell(r.cold_j1),
            r.cold_extra.map_or("-".into(), |x| format!("{x:.2}")),
            cell(r.warm_default_j),
            rd.map_or("-".into(), |x| format!("{x:.2}")),
        );
        for (c, v) in col
            .iter_mut()
            .zip([r.plain, r.warm_j1, rw, r.cold_j1, r.warm_default_j, rd])
        {
            c.extend(v);
        }
    }
    let g =
        |i: usize, digits: usize| geomean(&col[i]).map_or("-".into(), |x| format!("{x:.digits$}"));
    let worst_cold = rows.iter().filter_map(|r| r.cold_extra).reduce(f64::max);
    println!(
        "| geometric mean | {} | {} | {} | {} | max {} | {} | {} |",
        g(0, 1),
        g(1, 1),
        g(2, 2),
        g(3, 1),
        worst_cold.map_or("-".into(), |x| format!("{x:.2}")),
        g(4, 1),
        g(5, 2),
    );
    if let Some(worst) = col[2].iter().copied().reduce(f64::max) {
        println!("\nWorst ratio of the warm -j 1 command to the plain loop: {worst:.2}.");
    }
}
