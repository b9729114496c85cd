//! The uninstrumented baseline of the benchmarks: the original classes repeated in one JVM
//! without the agent, the way the harness repeats them (a fresh class loader per execution,
//! `main` in a thread named main, then every other non-daemon thread of the program joined), and
//! plain `java` runs for the native wall time. The repeat runner is a small Java class written
//! here and compiled with `javac` on first use (cached by its source hash).

use super::classpath::cache_dir;
use super::jvm::{java_binary, join_paths};
use crate::digest::Digest;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SOURCE: &str = r#"package rankcheck.bench;

import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs a program's main N times, each in a fresh class loader, output discarded. */
public final class Repeat {
    public static void main(String[] a) throws Exception {
        List<URL> urls = new ArrayList<>();
        String mainClass = null;
        int n = 1;
        boolean plain = false;
        List<String> args = new ArrayList<>();
        for (int i = 0; i < a.length; i++) {
            switch (a[i]) {
                case "--cp":
                    for (String e : a[++i].split(":")) urls.add(new File(e).toURI().toURL());
                    break;
                case "--main": mainClass = a[++i]; break;
                case "--executions": n = Integer.parseInt(a[++i]); break;
                case "--plain": plain = true; break;
                case "--": args.addAll(Arrays.asList(a).subList(i + 1, a.length)); i = a.length; break;
                default: throw new IllegalArgumentException("unknown argument " + a[i]);
            }
        }
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        String[] argv = args.toArray(new String[0]);
        int failures = 0;
        long start = System.nanoTime();
        for (int k = 0; k < n; k++) {
            URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), Repeat.class.getClassLoader());
            Method m = Class.forName(mainClass, true, loader).getMethod("main", String[].class);
            if (plain) {
                // The simplest loop a user writes: main called directly, output discarded, the
                // program's threads joined by the program itself.
                System.setOut(sink);
                System.setErr(sink);
                try {
                    m.invoke(null, (Object) argv);
                } catch (Throwable e) {
                    failures++;
                }
                System.setOut(out);
                System.setErr(err);
                loader.close();
                continue;
            }
            ThreadGroup group = new ThreadGroup("execution-" + k);
            Throwable[] thrown = new Throwable[1];
            Thread main = new Thread(group, () -> {
                try {
                    m.invoke(null, (Object) argv);
                } catch (Throwable e) {
                    thrown[0] = e;
                }
            }, "main");
            main.setContextClassLoader(loader);
            System.setOut(sink);
            System.setErr(sink);
            main.start();
            main.join();
            Thread[] live = new Thread[64];
            while (true) {
                int count = group.enumerate(live, true);
                if (count == live.length) { live = new Thread[live.length * 2]; continue; }
                boolean joined = false;
                for (int i = 0; i < count; i++) {
                    if (!live[i].isDaemon()) { live[i].join(); joined = true; }
                }
                if (!joined) break;
            }
            System.setOut(out);
            System.setErr(err);
            if (thrown[0] != null) failures++;
            loader.close();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        out.println("executions " + n + " seconds " + seconds + " failures " + failures);
    }
}
"#;

/// The compiled repeat runner's class folder.
fn runner() -> anyhow::Result<PathBuf> {
    let mut key = Digest::new();
    key.write(SOURCE.as_bytes());
    let dir = cache_dir()?.join(format!("baseline-{}", key.hex()));
    if dir.join("rankcheck/bench/Repeat.class").is_file() {
        return Ok(dir);
    }
    let staging = super::runtime::unique_sibling(&dir);
    std::fs::create_dir_all(staging.join("src"))?;
    let src = staging.join("src/Repeat.java");
    std::fs::write(&src, SOURCE)?;
    let javac = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/javac"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("javac"));
    let out = Command::new(javac)
        .args(["--release", "17", "-nowarn", "-d"])
        .arg(&staging)
        .arg(&src)
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run javac: {e}"))?;
    if !out.status.success() {
        anyhow::bail!(
            "javac failed on the baseline runner: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(staging.join("src"));
    if std::fs::rename(&staging, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    Ok(dir)
}

/// Runs a child to the end within `limit`; `None` when it had to be killed.
pub fn run_bounded(mut cmd: Command, limit: Duration) -> anyhow::Result<Option<(f64, String)>> {
    let started = Instant::now();
    let out_file = std::env::temp_dir().join(format!(
        "rankcheck-baseline-{}-{:?}.out",
        std::process::id(),
        std::thread::current().id()
    ));
    let file = std::fs::File::create(&out_file)?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot run java: {e}"))?;
    let Some(status) = super::child::wait_within(&mut child, limit)? else {
        let _ = std::fs::remove_file(&out_file);
        return Ok(None);
    };
    let seconds = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(&out_file).unwrap_or_default();
    let _ = std::fs::remove_file(&out_file);
    if !status.success() {
        return Ok(None);
    }
    Ok(Some((seconds, text)))
}

/// How the repeat runner calls a program's `main`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Repetition {
    /// As the harness does: `main` in a thread named main, then every other non-daemon thread
    /// of the program joined, on every CPU.
    HarnessShaped,
    /// The simplest loop a user writes: `main` called directly, the program's threads joined by
    /// the program itself, the JVM pinned to one CPU (`taskset -c 0`, when present), as a
    /// controlled execution runs one thread at a time.
    PlainOnOneCpu,
}

/// Wall seconds of one JVM running the original program `executions` times without the agent
/// (start-up included, as for the controlled runs); `None` when it did not finish in `limit`
/// or exited abnormally (e.g. the program calls `System.exit`).
pub fn repeat(
    classpath: &[PathBuf],
    main: &str,
    args: &[String],
    executions: u64,
    cwd: &Path,
    limit: Duration,
    how: Repetition,
) -> anyhow::Result<Option<f64>> {
    let runner = runner()?;
    let taskset = Path::new("/usr/bin/taskset");
    let mut cmd = if how == Repetition::PlainOnOneCpu && taskset.is_file() {
        let mut c = Command::new(taskset);
        c.args(["-c", "0"]).arg(java_binary());
        c
    } else {
        Command::new(java_binary())
    };
    cmd.arg("-cp")
        .arg(&runner)
        .arg("rankcheck.bench.Repeat")
        .arg("--cp")
        .arg(join_paths(classpath))
        .arg("--main")
        .arg(main)
        .arg("--executions")
        .arg(executions.to_string())
        .args((how == Repetition::PlainOnOneCpu).then_some("--plain"))
        .arg("--")
        .args(args)
        .current_dir(cwd);
    Ok(run_bounded(cmd, limit)?
        .filter(|(_, out)| out.contains("executions "))
        .map(|(s, _)| s))
}

/// Wall seconds of `java -cp CP MAIN ARGS` (the native run), `None` on a failure or timeout.
pub fn native(
    classpath: &[PathBuf],
    main: &str,
    args: &[String],
    cwd: &Path,
    limit: Duration,
) -> anyhow::Result<Option<f64>> {
    let mut cmd = Command::new(java_binary());
    cmd.arg("-cp")
        .arg(join_paths(classpath))
        .arg(main)
        .args(args)
        .current_dir(cwd);
    Ok(run_bounded(cmd, limit)?.map(|(s, _)| s))
}

/// Like [`native`], with the JVM pinned to one CPU (`taskset -c 0`): a controlled execution runs
/// one thread at a time, so this is the baseline that shows rankcheck's own cost apart from the
/// parallelism it gives up by design. `None` when `taskset` is missing or the run failed.
pub fn native_on_one_cpu(
    classpath: &[PathBuf],
    main: &str,
    args: &[String],
    cwd: &Path,
    limit: Duration,
) -> anyhow::Result<Option<f64>> {
    let taskset = Path::new("/usr/bin/taskset");
    if !taskset.is_file() {
        return Ok(None);
    }
    let mut cmd = Command::new(taskset);
    cmd.args(["-c", "0"])
        .arg(java_binary())
        .arg("-cp")
        .arg(join_paths(classpath))
        .arg(main)
        .args(args)
        .current_dir(cwd);
    Ok(run_bounded(cmd, limit)?.map(|(s, _)| s))
}

/// The median of some numbers (`None` when empty).
pub fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    let m = xs.len() / 2;
    Some(if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    })
}

/// The geometric mean of positive numbers (`None` when empty).
pub fn geomean(xs: &[f64]) -> Option<f64> {
    let xs: Vec<f64> = xs
        .iter()
        .copied()
        .filter(|x| *x > 0.0 && x.is_finite())
        .collect();
    if xs.is_empty() {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_geomean() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
        assert!((geomean(&[1.0, 4.0]).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(geomean(&[]), None);
    }
}
