//! `rankcheck run` (shared/CLI.md): controlled executions of a program in a JVM under the agent;
//! prints each execution's outcome and, on a bug, writes a report folder with the exact
//! `rankcheck replay …` command.
//!
//! The pieces are public so that `test` and `replay` launch JVMs the same way: [`prepare_classpath`]
//! (instrument what is not instrumented yet, cached), [`Launch`] (the `java` command line with
//! the agent and the harness) and [`write_report`]. The agent's option string and the result
//! lines are documented in `agent/PROTOCOL.md`.

use crate::error::{bad_input, Outcome};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The program's class path (jars and directories, `:`-separated), as built or already
    /// instrumented.
    #[arg(long)]
    pub cp: String,
    /// The class whose `main` runs.
    #[arg(long)]
    pub main: String,
    /// random | pct | icb | dfs (and whatever else the agent's scheduler offers).
    #[arg(long, default_value = "random")]
    pub strategy: String,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(short = 'c')]
    pub c: Option<u32>,
    #[arg(short = 'v')]
    pub v: Option<u32>,
    #[arg(short = 't')]
    pub t: Option<u32>,
    #[arg(short = 'd')]
    pub d: Option<u32>,
    #[arg(short = 'l')]
    pub l: Option<u32>,
    /// Executions to run (in one JVM unless --fork).
    #[arg(long, default_value_t = 1)]
    pub executions: u64,
    /// Step bound of one execution (a livelock beyond it).
    #[arg(long, default_value_t = 100_000)]
    pub max_steps: u64,
    /// Wall-clock bound of one execution, in milliseconds.
    #[arg(long, default_value_t = 20_000)]
    pub timeout_ms: u64,
    /// The exit status of a correct run.
    #[arg(long, default_value_t = 0)]
    pub expect_exit: i32,
    /// A bug when an execution's stdout or stderr matches (java.util.regex, `find`).
    #[arg(long)]
    pub fail_on_output: Vec<String>,
    /// A bug when the file the execution writes matches (PATH=REGEX; removed before each
    /// execution).
    #[arg(long)]
    pub fail_on_file: Vec<String>,
    /// Let the scheduler choose spurious wake-ups.
    #[arg(long)]
    pub spurious: bool,
    /// Go on after a bug.
    #[arg(long)]
    pub keep_going: bool,
    /// One JVM per execution.
    #[arg(long)]
    pub fork: bool,
    /// Follow this recorded schedule (one execution) instead of a strategy.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// Index of the first execution: to replay execution N of an earlier run, give N (pinned
    /// hash codes, clocks and random numbers depend on it).
    #[arg(long, default_value_t = 0)]
    pub first_execution: u64,
    /// Where bug reports go.
    #[arg(long, default_value = "rankcheck-out")]
    pub out: PathBuf,
    /// Pin the JVM to one CPU: auto | off | N.
    #[arg(long, default_value = "auto")]
    pub pin: String,
    /// An extra JVM option (repeatable), e.g. --jvm-arg=-Xmx256m.
    #[arg(long, allow_hyphen_values = true)]
    pub jvm_arg: Vec<String>,
    /// Print the program's output of every execution.
    #[arg(long)]
    pub show_output: bool,
    /// The program's arguments.
    #[arg(last = true)]
    pub args: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if args.executions == 0 {
        return Err(bad_input("--executions must be at least 1"));
    }
    if let Some(r) = &args.replay {
        if !r.is_file() {
            return Err(bad_input(format!("{}: no such schedule file", r.display())));
        }
    }
    for f in &args.fail_on_file {
        if !f.contains('=') {
            return Err(bad_input(format!(
                "--fail-on-file wants PATH=REGEX, not {f:?}"
            )));
        }
    }
    let cp = prepare_classpath(&args.cp)?;
    let rt = super::rt::runtime()?;
    let work = scratch_dir(&args.out)?;
    let mut any_bug = false;
    let jvms: Vec<(u64, u64)> = if args.fork && args.replay.is_none() {
        (0..args.executions)
            .map(|i| (args.first_execution + i, 1))
            .collect()
    } else {
        vec![(
            0,
            if args.replay.is_some() {
                1
            } else {
                args.executions
            },
        )]
        .into_iter()
        .map(|(i, n)| (i + args.first_execution, n))
        .collect()
    };
    let started = Instant::now();
    let mut executions = 0u64;
    for (first, count) in jvms {
        let launch = Launch::new(&args, &cp, &rt, first, count);
        let results_path = work.join(format!("results-{first}.jsonl"));
        let ran = launch.run(&results_path)?;
        for result in &ran.results {
            executions += 1;
            print_result(result, args.show_output);
            if result["outcome"] == "bug" {
                any_bug = true;
                let dir = write_report(&args.out, &launch, result)?;
                println!("  report: {}", dir.display());
                println!("  replay: rankcheck replay {}", dir.display());
            }
        }
        if any_bug && !args.keep_going {
            break;
        }
    }
    println!(
        "rankcheck: {executions} execution(s) in {:.2} s, {}",
        started.elapsed().as_secs_f64(),
        if any_bug { "bug found" } else { "no bug found" }
    );
    let _ = std::fs::remove_dir_all(&work);
    Ok(if any_bug {
        Outcome::Bug
    } else {
        Outcome::Clean
    })
}

fn print_result(r: &Value, show_output: bool) {
    let bound = r["bound"]
        .as_str()
        .map(|b| format!(" [bound: {b}]"))
        .unwrap_or_default();
    println!(
        "execution {}: {} ({}) in {} steps, {} ms{bound}: {}",
        r["index"],
        r["outcome"].as_str().unwrap_or("?"),
        r["kind"].as_str().unwrap_or("?"),
        r["steps"],
        r["millis"],
        r["message"].as_str().unwrap_or("")
    );
    for note in r["notes"].as_array().into_iter().flatten() {
        println!("  note: {}", note.as_str().unwrap_or(""));
    }
    if show_output {
        for stream in ["stdout", "stderr"] {
            let text = r[stream].as_str().unwrap_or("");
            if !text.is_empty() {
                println!("  --- {stream} ---\n{}", text.trim_end());
            }
        }
    }
}

/// A directory for one rankcheck process's temporary files, inside `out`.
fn scratch_dir(out: &Path) -> anyhow::Result<PathBuf> {
    let dir = out.join(format!(".work-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

// ---- the class path ---------------------------------------------------------------------------

/// Each class-path entry, instrumented: entries that already carry a site table are used as
/// they are; the others are instrumented (every access site) into a cache directory keyed by
/// their path, size and modification time, so repeated runs instrument once.
pub fn prepare_classpath(cp: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in cp.split(':').filter(|e| !e.is_empty()) {
        let path = PathBuf::from(entry);
        if !path.exists() {
            return Err(bad_input(format!(
                "class path entry {entry}: no such file or directory"
            )));
        }
        if is_instrumented(&path) {
            out.push(path);
            continue;
        }
        out.push(instrument_cached(&path)?);
    }
    if out.is_empty() {
        return Err(bad_input("--cp is empty"));
    }
    Ok(out)
}

fn is_instrumented(path: &Path) -> bool {
    let resource = java_harness::hooks::SITE_TABLE_RESOURCE;
    if path.is_dir() {
        return path.join(resource).is_file();
    }
    // Entry names sit uncompressed in a jar's headers.
    std::fs::read(path).is_ok_and(|bytes| {
        bytes
            .windows(resource.len())
            .any(|w| w == resource.as_bytes())
    })
}

fn instrument_cached(path: &Path) -> anyhow::Result<PathBuf> {
    use rewriter::jar::{instrument_dir, instrument_jar, JarOptions};
    let abs = std::fs::canonicalize(path)?;
    let stamp = newest_mtime(&abs);
    // The rewriter is part of this binary: a rebuilt rankcheck instruments afresh.
    let exe = std::env::current_exe()
        .ok()
        .map(|p| newest_mtime(&p))
        .unwrap_or_default();
    let key = format!("{}|{stamp}|{exe}", abs.display());
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let rt = super::rt::runtime()?;
    let cache = rt
        .jar
        .parent()
        .unwrap()
        .join("instrumented")
        .join(format!("{hash:016x}"));
    let is_jar = abs.is_file();
    let target = if is_jar {
        cache.join("app.jar")
    } else {
        cache.join("classes")
    };
    if cache.join("done").exists() {
        return Ok(target);
    }
    std::fs::create_dir_all(&cache)?;
    let options = JarOptions {
        config: rewriter::Config::all(),
        include: Vec::new(),
        exclude: Vec::new(),
        runtime_jar: None,
        skip_bad: true,
    };
    let quiet = |_: usize, _: usize| {};
    if is_jar {
        let bytes = std::fs::read(&abs)?;
        let (out, _) = instrument_jar(&bytes, &options, &quiet)
            .map_err(|e| bad_input(format!("{}: cannot instrument: {e}", path.display())))?;
        std::fs::write(&target, out)?;
    } else {
        let _ = std::fs::remove_dir_all(&target);
        instrument_dir(&abs, &target, &options, &quiet)
            .map_err(|e| bad_input(format!("{}: cannot instrument: {e}", path.display())))?;
    }
    std::fs::write(cache.join("done"), key)?;
    Ok(target)
}

/// The newest modification time under `path` (seconds and nanoseconds), as a cache key.
fn newest_mtime(path: &Path) -> String {
    fn walk(p: &Path, best: &mut (u64, u32, u64)) {
        if let Ok(m) = std::fs::metadata(p) {
            if let Ok(t) = m.modified() {
                let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                if (d.as_secs(), d.subsec_nanos()) > (best.0, best.1) {
                    best.0 = d.as_secs();
                    best.1 = d.subsec_nanos();
                }
            }
            best.2 += m.len();
            if m.is_dir() {
                for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
                    walk(&e.path(), best);
                }
            }
        }
    }
    let mut best = (0, 0, 0);
    walk(path, &mut best);
    format!("{}.{}:{}", best.0, best.1, best.2)
}

// ---- the JVM ----------------------------------------------------------------------------------

/// One JVM under the agent: the agent options, the harness arguments and the program.
#[derive(Clone, Debug)]
pub struct Launch {
    pub java: PathBuf,
    pub jvm_args: Vec<String>,
    /// `KEY=VALUE` agent options (agent/PROTOCOL.md), passed through an options file.
    pub agent_options: Vec<(String, String)>,
    pub runtime: super::rt::Runtime,
    pub classpath: Vec<PathBuf>,
    pub main: String,
    pub fail_on_output: Vec<String>,
    pub fail_on_file: Vec<String>,
    pub args: Vec<String>,
    /// Per-execution wall-clock bound, for the guard that kills a JVM that stops reporting.
    pub timeout_ms: u64,
}

/// What one JVM produced.
pub struct JvmRun {
    /// One JSON object per execution, in order.
    pub results: Vec<Value>,
    pub status: Option<i32>,
}

impl Launch {
    /// The launch `rankcheck run` makes for executions `first .. first + count`.
    pub fn new(
        args: &Args,
        cp: &[PathBuf],
        rt: &super::rt::Runtime,
        first: u64,
        count: u64,
    ) -> Launch {
        let mut o: Vec<(String, String)> = vec![
            ("strategy".into(), args.strategy.clone()),
            ("seed".into(), args.seed.to_string()),
            ("executions".into(), count.to_string()),
            ("first-execution".into(), first.to_string()),
            ("max-steps".into(), args.max_steps.to_string()),
            ("timeout-ms".into(), args.timeout_ms.to_string()),
            ("expect-exit".into(), args.expect_exit.to_string()),
            ("spurious".into(), on_off(args.spurious)),
            ("keep-going".into(), on_off(args.keep_going)),
            ("pin".into(), args.pin.clone()),
        ];
        for (key, value) in [
            ("c", args.c),
            ("v", args.v),
            ("t", args.t),
            ("d", args.d),
            ("l", args.l),
        ] {
            if let Some(v) = value {
                o.push((key.into(), v.to_string()));
            }
        }
        if let Some(r) = &args.replay {
            let abs = std::fs::canonicalize(r).unwrap_or_else(|_| r.clone());
            o.push(("replay".into(), abs.display().to_string()));
        }
        Launch {
            java: java_binary(),
            jvm_args: args.jvm_arg.clone(),
            agent_options: o,
            runtime: rt.clone(),
            classpath: cp.to_vec(),
            main: args.main.clone(),
            fail_on_output: args.fail_on_output.clone(),
            fail_on_file: args.fail_on_file.clone(),
            args: args.args.clone(),
            timeout_ms: args.timeout_ms,
        }
    }

    /// The `java` command, with the agent reading its options from `options_file` (written by
    /// [`Launch::options_text`]).
    pub fn command(&self, options_file: &Path) -> Command {
        let mut cmd = Command::new(&self.java);
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
        cmd.arg("--main").arg(&self.main);
        cmd.arg("--");
        cmd.args(&self.args);
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
    /// per-execution bound plus a minute is killed (the agent's own watchdog should have ended
    /// the execution long before).
    pub fn run(&self, results: &Path) -> anyhow::Result<JvmRun> {
        let options_file = results.with_extension("options");
        std::fs::write(&options_file, self.options_text(results))?;
        let mut child = self
            .command(&options_file)
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", self.java.display()))?;
        let patience = Duration::from_millis(self.timeout_ms) + Duration::from_secs(60);
        let mut last_len = 0;
        let mut last_change = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            let len = std::fs::metadata(results).map_or(0, |m| m.len());
            if len != last_len {
                last_len = len;
                last_change = Instant::now();
            } else if last_change.elapsed() > patience {
                let _ = child.kill();
                let _ = child.wait();
                anyhow::bail!(
                    "the JVM reported nothing for {} s and was killed (an agent failure)",
                    patience.as_secs()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let text = std::fs::read_to_string(results).unwrap_or_default();
        let mut parsed = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            parsed.push(
                serde_json::from_str::<Value>(line)
                    .map_err(|e| anyhow::anyhow!("bad result line from the agent: {e}"))?,
            );
        }
        let code = status.code();
        if code == Some(2) {
            return Err(bad_input(
                "the JVM rejected the program (see the harness's message above)",
            ));
        }
        if parsed.is_empty() {
            anyhow::bail!(
                "the JVM ended ({}) without reporting an execution",
                code.map_or("killed by a signal".to_string(), |c| format!(
                    "exit status {c}"
                ))
            );
        }
        Ok(JvmRun {
            results: parsed,
            status: code,
        })
    }
}

fn on_off(b: bool) -> String {
    if b { "on" } else { "off" }.to_string()
}

fn join_paths(paths: &[PathBuf]) -> String {
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

// ---- bug reports ------------------------------------------------------------------------------

/// Writes one bug's report folder under `out`: `result.json` (the agent's result line),
/// `schedule.txt`, `stacks.txt`, `stdout.txt`, `stderr.txt`, `run.json` (everything `replay`
/// needs: class path, main, arguments, agent options, harness oracles) and `replay.txt` with
/// the exact command. Returns the folder.
pub fn write_report(out: &Path, launch: &Launch, result: &Value) -> anyhow::Result<PathBuf> {
    let simple = launch.main.rsplit('.').next().unwrap_or("Main");
    let dir = out.join(format!(
        "{simple}-{}-{}",
        result["kind"].as_str().unwrap_or("bug"),
        result["index"]
    ));
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let dir = std::fs::canonicalize(&dir)?;
    std::fs::write(
        dir.join("result.json"),
        serde_json::to_string_pretty(result)?,
    )?;
    if let Some(schedule) = result["schedule"].as_str() {
        std::fs::write(dir.join("schedule.txt"), schedule)?;
    }
    let mut stacks = String::new();
    stacks.push_str(result["message"].as_str().unwrap_or(""));
    stacks.push_str("\n\n");
    if let Some(trace) = result["trace"].as_str() {
        stacks.push_str(trace);
        stacks.push('\n');
    }
    for s in result["stacks"].as_array().into_iter().flatten() {
        stacks.push_str(&format!(
            "thread t{} \"{}\" ({})\n",
            s["thread"],
            s["name"].as_str().unwrap_or(""),
            s["state"].as_str().unwrap_or("")
        ));
        for f in s["frames"].as_array().into_iter().flatten() {
            stacks.push_str(&format!("\t{}\n", f.as_str().unwrap_or("")));
        }
        stacks.push('\n');
    }
    std::fs::write(dir.join("stacks.txt"), stacks)?;
    std::fs::write(
        dir.join("stdout.txt"),
        result["stdout"].as_str().unwrap_or(""),
    )?;
    std::fs::write(
        dir.join("stderr.txt"),
        result["stderr"].as_str().unwrap_or(""),
    )?;
    let options: serde_json::Map<String, Value> = launch
        .agent_options
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "executions" | "first-execution" | "keep-going"))
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let run = json!({
        "classpath": launch.classpath.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()).display().to_string()).collect::<Vec<_>>(),
        "main": launch.main,
        "args": launch.args,
        "jvm_args": launch.jvm_args,
        "agent_options": options,
        "fail_on_output": launch.fail_on_output,
        "fail_on_file": launch.fail_on_file,
        "execution": result["index"],
        "schedule": "schedule.txt",
        "expected": {"kind": result["kind"], "message": result["message"]},
    });
    std::fs::write(dir.join("run.json"), serde_json::to_string_pretty(&run)?)?;
    std::fs::write(
        dir.join("replay.txt"),
        format!("rankcheck replay {}\n", dir.display()),
    )?;
    Ok(dir)
}
