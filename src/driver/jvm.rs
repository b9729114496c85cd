//! One JVM under the agent: the `java` command line (agent options file, harness, program) and
//! the guard that reads its JSON-lines results (format: agent/src/report.rs, agent/PROTOCOL.md)
//! and kills a JVM that stops reporting. Shared by `run`, `test`, `replay`, `sweep` and the
//! benchmarks so that every command launches programs the same way.

use super::child::{wait_or_stop, Waited};
use crate::error::bad_input;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Why [`Launch::run_cancellable`] stopped a JVM.
enum Stop {
    /// The caller asked (`cancel`).
    Cancelled,
    /// No result line for the per-execution bound plus a margin.
    Silent,
}

/// One JVM under the agent: the agent options, the harness arguments and the program.
#[derive(Clone, Debug)]
pub struct Launch {
    pub java: PathBuf,
    pub jvm_args: Vec<String>,
    /// `KEY=VALUE` agent options (agent/PROTOCOL.md), passed through an options file.
    pub agent_options: Vec<(String, String)>,
    pub runtime: super::runtime::Runtime,
    pub classpath: Vec<PathBuf>,
    /// The test framework's class path (JUnit), loaded once per JVM. When it is not empty,
    /// `main` names a test method, `CLASS#METHOD`, run through the JUnit Platform Launcher in a
    /// fresh loader of `classpath` per execution (java-harness/junit).
    pub framework: Vec<PathBuf>,
    pub main: String,
    pub fail_on_output: Vec<String>,
    pub fail_on_file: Vec<String>,
    pub args: Vec<String>,
    /// Per-execution wall-clock bound, for the guard that kills a JVM that stops reporting.
    pub timeout_ms: u64,
    /// Working directory of the JVM (`None`: ours). Parallel JVMs each get their own, so
    /// `--fail-on-file` paths do not collide.
    pub cwd: Option<PathBuf>,
    /// Where the JVM's own stdout and stderr go (`None`: inherited). The program's output is
    /// captured by the harness either way.
    pub log: Option<PathBuf>,
}

/// What one JVM produced.
pub struct JvmRun {
    /// One JSON object per execution, in order.
    pub results: Vec<Value>,
    pub status: Option<i32>,
}

impl Launch {
    /// A launch of class `Main` with no options, for unit tests that never start it.
    #[cfg(test)]
    pub fn for_tests() -> Launch {
        Launch {
            java: "java".into(),
            jvm_args: vec![],
            agent_options: vec![],
            runtime: super::runtime::Runtime {
                jar: "rt.jar".into(),
                agent: "agent.so".into(),
                junit: "junit.jar".into(),
            },
            classpath: vec![],
            framework: vec![],
            main: "Main".into(),
            fail_on_output: vec![],
            fail_on_file: vec![],
            args: vec![],
            timeout_ms: 1000,
            cwd: None,
            log: None,
        }
    }

    /// Sets (or replaces) one agent option.
    pub fn set_option(&mut self, key: &str, value: impl Into<String>) {
        set_agent_option(&mut self.agent_options, key, value.into());
    }

    /// Removes one agent option.
    pub fn remove_option(&mut self, key: &str) {
        self.agent_options.retain(|(k, _)| k != key);
    }

    /// The value of one agent option.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.agent_options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The `java` command, with the agent reading its options from `options_file` (written by
    /// [`Launch::options_text`]).
    pub fn command(&self, options_file: &Path) -> Command {
        let mut cmd = Command::new(&self.java);
        // Assertions are on, as most tests expect; first, so that a `-da` (or `-da:PACKAGE...`)
        // among the user's JVM arguments turns them off again.
        cmd.arg("-ea");
        cmd.args(&self.jvm_args);
        cmd.arg(format!(
            "-agentpath:{}=options-file={}",
            self.runtime.agent.display(),
            options_file.display()
        ));
        cmd.arg("-cp").arg(&self.runtime.jar);
        cmd.arg("rankcheck.harness.Main");
        for r in &self.fail_on_output {
            cmd.arg("--fail-on-output").arg(r);
        }
        for f in &self.fail_on_file {
            cmd.arg("--fail-on-file").arg(f);
        }
        cmd.arg("--cp").arg(join_paths(&self.classpath));
        if self.framework.is_empty() {
            cmd.arg("--main").arg(&self.main);
            cmd.arg("--");
            cmd.args(&self.args);
        } else {
            let framework: Vec<PathBuf> = std::iter::once(self.runtime.junit.clone())
                .chain(self.framework.iter().cloned())
                .collect();
            cmd.arg("--framework").arg(join_paths(&framework));
            cmd.arg("--test").arg(&self.main);
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        cmd
    }

    /// The agent's options file text (one `KEY=VALUE` per line).
    pub fn options_text(&self, results: &Path) -> String {
        let mut text = String::new();
        for (k, v) in &self.agent_options {
            text.push_str(&format!("{k}={v}\n"));
        }
        text.push_str(&format!("out={}\n", results.display()));
        text
    }

    /// Runs the JVM to the end and reads its results. A JVM that writes no result for the
    /// per-execution bound plus 20 s is killed (the agent's own watchdog should have ended
    /// the execution long before). `cancel` is polled: when it turns true the JVM is killed and
    /// the results so far are returned.
    pub fn run_cancellable(
        &self,
        results: &Path,
        cancel: &dyn Fn() -> bool,
    ) -> anyhow::Result<JvmRun> {
        let results = absolute(results);
        let options_file = results.with_extension("options");
        std::fs::write(&options_file, self.options_text(&results))?;
        let mut command = self.command(&options_file);
        command.stdin(Stdio::null());
        if let Some(log) = &self.log {
            let file = std::fs::File::create(log)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", log.display()))?;
            command.stdout(file.try_clone()?).stderr(file);
        }
        let started = Instant::now();
        let mut child = command
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", self.java.display()))?;
        // The agent's watchdog ends an execution after `timeout_ms`; a JVM silent for that
        // long plus a margin for JVM start-up and a loaded machine is stuck.
        let patience = Duration::from_millis(self.timeout_ms) + Duration::from_secs(20);
        let mut last_len = 0;
        let mut last_change = Instant::now();
        let waited = wait_or_stop(&mut child, || {
            if cancel() {
                return Some(Stop::Cancelled);
            }
            let len = std::fs::metadata(&results).map_or(0, |m| m.len());
            if len != last_len {
                last_len = len;
                last_change = Instant::now();
            } else if last_change.elapsed() > patience {
                return Some(Stop::Silent);
            }
            None
        })?;
        let (status, cancelled) = match waited {
            Waited::Exited(status) => (Some(status), false),
            Waited::Stopped(Stop::Cancelled) => (None, true),
            Waited::Stopped(Stop::Silent) => anyhow::bail!(
                "the JVM reported nothing for {} s and was killed (an agent failure){}",
                patience.as_secs(),
                self.log_tail_text()
            ),
        };
        let text = std::fs::read_to_string(&results).unwrap_or_default();
        let mut parsed = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Value>(line) {
                Ok(v) => parsed.push(v),
                // A JVM killed mid-write leaves half a line; anything else is the agent's fault.
                Err(_) if cancelled => break,
                Err(e) => anyhow::bail!("bad result line from the agent: {e}"),
            }
        }
        let code = status.and_then(|s| s.code());
        if cancelled {
            return Ok(JvmRun {
                results: parsed,
                status: None,
            });
        }
        let said = self.log_excerpt();
        if code == Some(2) && parsed.is_empty() {
            return Err(bad_input(match said {
                Some(line) => line,
                None => "the JVM rejected the program (see the harness's message above)".into(),
            }));
        }
        let how = match (code, status) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(s)) => match std::os::unix::process::ExitStatusExt::signal(&s) {
                Some(sig) => format!("killed by signal {sig}"),
                None => "killed by a signal".to_string(),
            },
            (None, None) => "killed".to_string(),
        };
        if parsed.is_empty() {
            // The JVM's own words first: they name the cause.
            let first = match said {
                Some(s) => format!("{s} (the JVM ended, {how}, without reporting an execution)"),
                None => format!("the JVM ended ({how}) without reporting an execution"),
            };
            anyhow::bail!("{first}{}", self.log_tail_text());
        }
        let asked = self
            .option("executions")
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(1);
        if parsed.len() < asked && !self.stopped_on_purpose(&parsed, started.elapsed()) {
            // The program (an uncontrolled thread calling System.exit, a crash) or the system
            // (a kill) ended the JVM in the middle: the executions it did not run are no verdict.
            anyhow::bail!(
                "the JVM ended ({how}) after {} of {asked} execution(s) without saying why \
                 (a thread rankcheck does not control called System.exit or halt, the JVM \
                 crashed, or it was killed){}",
                parsed.len(),
                self.log_tail_text()
            );
        }
        Ok(JvmRun {
            results: parsed,
            status: code,
        })
    }

    /// True when the last result says why the JVM ran fewer executions than asked
    /// (agent/PROTOCOL.md, "Result lines"): a bug without keep-going, the strategy exhausted,
    /// the time limit, or the cap on inconclusive executions.
    fn stopped_on_purpose(&self, results: &[Value], ran_for: Duration) -> bool {
        let Some(last) = results.last() else {
            return false;
        };
        let keep_going = self.option("keep-going") == Some("on");
        if last["outcome"] == "bug" && !keep_going {
            return true;
        }
        if last["exhausted"] == true {
            return true;
        }
        let limit = self
            .option("time-limit-ms")
            .and_then(|t| t.parse::<u64>().ok());
        if limit.is_some_and(|ms| ran_for >= Duration::from_millis(ms)) {
            return true;
        }
        let cap = self
            .option("max-inconclusive")
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(3)
            .max(1);
        results
            .iter()
            .filter(|r| r["outcome"] == "inconclusive")
            .count()
            >= cap
    }

    /// The last lines of the JVM's log, as a block to append to an error message.
    fn log_tail_text(&self) -> String {
        let Some(log) = &self.log else {
            return String::new();
        };
        let lines = log_tail(log, LOG_TAIL_LINES);
        if lines.is_empty() {
            return format!("; its log {} is empty", log.display());
        }
        format!(
            "; its log {} ends with ({} line(s)):\n{}",
            log.display(),
            lines.len(),
            lines
                .iter()
                .map(|l| format!("  | {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    }

    /// [`Launch::run_cancellable`] without cancellation.
    pub fn run(&self, results: &Path) -> anyhow::Result<JvmRun> {
        self.run_cancellable(results, &|| false)
    }

    /// The most telling line of the captured JVM log: a harness or agent error, else the
    /// first non-empty line.
    fn log_excerpt(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.log.as_ref()?).ok()?;
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines
            .iter()
            .find(|l| l.contains("error") || l.contains("Error"))
            .or(lines.first())
            .map(|l| {
                l.trim()
                    .trim_start_matches("rankcheck harness: error: ")
                    .to_string()
            })
    }
}

/// How many lines of a JVM's log an error shows.
pub const LOG_TAIL_LINES: usize = 20;

/// The last `n` non-empty lines of the file `log` (none when it cannot be read).
pub fn log_tail(log: &Path, n: usize) -> Vec<String> {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

/// JVM options that make what a program observes the same in every execution and in replays
/// (agent/PROTOCOL.md, "Pinned nondeterminism"): identity hash codes the JVM computes itself
/// (`new Object()`, arrays, JDK classes; the program's classes get pinned ones), no compiler threads started halfway
/// through a run (each would take a thread id), and the processor count: the agent keeps the
/// controlled threads on one CPU, which must not make `availableProcessors()` say 1 (parallel
/// streams and pools sized by it would not split); `cpus` overrides the machine's count
/// (`--cpus`).
pub fn determinism_args(cpus: Option<usize>) -> Vec<String> {
    let cpus = cpus.unwrap_or_else(machine_cpus);
    vec![
        "-XX:+UnlockExperimentalVMOptions".to_string(),
        "-XX:hashCode=2".to_string(),
        "-XX:-UseDynamicNumberOfCompilerThreads".to_string(),
        format!("-XX:ActiveProcessorCount={cpus}"),
    ]
}

/// The processor count the program sees by default: the machine's.
pub fn machine_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `on` or `off`, as the agent's switches want them.
pub fn on_off(b: bool) -> String {
    if b { "on" } else { "off" }.to_string()
}

/// Class-path entries joined with `:`.
pub fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// `$JAVA_HOME/bin/java`, or `java` from the PATH.
pub fn java_binary() -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin").join("java"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("java"))
}

/// Sets agent option `key` in `options` (the agent's `key=value` list), replacing its value.
pub fn set_agent_option(options: &mut Vec<(String, String)>, key: &str, value: String) {
    match options.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => options.push((key.to_string(), value)),
    }
}
