//! The JUnit rows of `rankcheck bench throughput`: executions per second of a small correct
//! JUnit test (one that stays correct when repeated in one JVM, so that the baseline runs it
//! whole) (the bundled `tests/junit/` classes, compiled with javac against Debian's junit5)
//! run by `rankcheck junit`'s machinery (random walk, all sites instrumented, a fresh loader and
//! a discovery per execution) against the same test repeated by the plain JUnit launcher in one
//! JVM without the agent. Both figures are executions divided by the wall time of the JVMs,
//! start-up included; the slowdown is plain / rankcheck.

use crate::driver::bench_suite;
use crate::driver::junit::{discover, repeat_plain};
use crate::driver::search::{Program, Search};
use crate::driver::strategy::{self, Bounds};
use crate::error::bad_input;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `(suite folder under tests/junit, test, JUnit jars of /usr/share/java)`.
const TESTS: &[(&str, &str, &[&str])] = &[
    (
        "jupiter",
        "shop.CheckoutTest#lockedCartCountsEveryAdd",
        &[
            "junit-jupiter-api.jar",
            "junit-jupiter-engine.jar",
            "junit-platform-engine.jar",
            "junit-platform-launcher.jar",
            "junit-platform-commons.jar",
            "opentest4j.jar",
            "apiguardian-api.jar",
        ],
    ),
    (
        "vintage",
        "bank.AccountTest#lockedDepositsAddUp",
        &[
            "junit4.jar",
            "hamcrest-core.jar",
            "junit-vintage-engine.jar",
            "junit-platform-engine.jar",
            "junit-platform-launcher.jar",
            "junit-platform-commons.jar",
            "opentest4j.jar",
            "apiguardian-api.jar",
        ],
    ),
];

/// Prints the JUnit table: `n` executions per figure, scratch files in `work`.
pub fn rows(n: u64, work: &Path) -> anyhow::Result<()> {
    let sources = bench_suite::locate(None, "tests/junit")?;
    let library = crate::driver::runtime::runtime()?.junit;
    println!(
        "\nJUnit (executions/s, {n} executions per figure, wall time of the JVMs incl. start-up; slowdown = plain launcher / rankcheck)\n"
    );
    println!("| Test | Plain launcher, one JVM | rankcheck junit | Slowdown |");
    println!("|---|---:|---:|---:|");
    for (suite, test, jars) in TESTS {
        let jars: Vec<PathBuf> = jars
            .iter()
            .map(|j| Path::new("/usr/share/java").join(j))
            .chain(std::iter::once(library.clone()))
            .collect();
        let classes = compile(&sources.join(suite), &jars, &work.join(suite))?;
        let cp = std::iter::once(classes)
            .chain(jars)
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
        let found = discover(&cp, &[test.to_string()])?;
        let plain = repeat_plain(&found.framework, &found.app, test, n)?;
        let program = Program {
            main: test.to_string(),
            ..found.program()?
        };
        let search = Search::quiet(
            strategy::lookup(scheduler::strategy::RANDOM)?,
            Bounds::default(),
            0,
            n,
            work.join("reports"),
        );
        let result = search.run(&program)?;
        if plain.failures > 0 {
            anyhow::bail!("{test} failed under the plain launcher: the baseline would say nothing");
        }
        if !result.bugs.is_empty() || !result.inconclusive.is_empty() {
            anyhow::bail!("{test} did not run clean under rankcheck: its figure would say nothing");
        }
        let plain_rate = n as f64 / plain.seconds;
        let controlled = result.finished.executions as f64 / result.finished.seconds;
        println!(
            "| {test} | {plain_rate:.1} | {controlled:.1} | {:.1}× |",
            plain_rate / controlled
        );
    }
    Ok(())
}

/// Compiles the `.java` files below `src` against `classpath` into `out`.
fn compile(src: &Path, classpath: &[PathBuf], out: &Path) -> anyhow::Result<PathBuf> {
    let files = crate::suite::java_sources(src).map_err(|e| bad_input(e.to_string()))?;
    std::fs::create_dir_all(out)?;
    let status = Command::new(crate::suite::javac())
        .args(["--release", "11", "-d"])
        .arg(out)
        .arg("-cp")
        .arg(crate::driver::jvm::join_paths(classpath))
        .args(&files)
        .status()
        .map_err(|e| anyhow::anyhow!("cannot run javac: {e}"))?;
    if !status.success() {
        return Err(bad_input(format!("javac failed on {}", src.display())));
    }
    Ok(out.to_path_buf())
}
