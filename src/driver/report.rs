//! Bug report folders: what `run` and `test` write for each bug, and what `replay` reads.
//!
//! A folder holds `result.json` (the agent's result line), `schedule.txt`, `stacks.txt`,
//! `stdout.txt`, `stderr.txt`, `timeline.txt` (which thread ran when, and at which source lines
//! where the site table tells), `run.json` (everything `replay` needs: class path, main,
//! arguments, agent options, oracles) and `replay.txt` with the exact command.

use super::jvm::Launch;
use java_harness::hooks::{SiteRecord, SITE_TABLE_RESOURCE};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where the classes of a run came from, so that a replay can run the *current* classes (after
/// a fix) instead of the instrumented copy in the cache: the class path the user gave, how it
/// was instrumented, and (in `run.json`) a digest of every class as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The original (uninstrumented) class-path entries, absolute.
    pub classpath: Vec<PathBuf>,
    /// `all`, `sync-only`, `load-time` (`classpath::Mode::name`) or `vars:ID,…` (a variable
    /// set of `--selective`).
    pub mode: String,
    /// The manifest the program came from (`test --manifest`): its sources are compiled again.
    pub manifest: Option<PathBuf>,
}

impl Origin {
    /// Where the classes of `cp` (`:`-separated) come from, instrumented for `mode`.
    pub fn of(cp: &str, mode: super::classpath::Mode, manifest: Option<PathBuf>) -> Origin {
        Origin {
            classpath: cp
                .split(':')
                .filter(|e| !e.is_empty())
                .map(|e| std::fs::canonicalize(e).unwrap_or_else(|_| PathBuf::from(e)))
                .collect(),
            mode: mode.name().to_string(),
            manifest,
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "classpath": self.classpath.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "mode": self.mode,
            "manifest": self.manifest.as_ref().map(|m| m.display().to_string()),
            "digests": class_digests(&self.classpath),
        })
    }

    fn from_json(v: &Value) -> Option<Origin> {
        Some(Origin {
            classpath: v["classpath"]
                .as_array()?
                .iter()
                .filter_map(|p| p.as_str().map(PathBuf::from))
                .collect(),
            mode: v["mode"].as_str()?.to_string(),
            manifest: v["manifest"].as_str().map(PathBuf::from),
        })
    }
}

/// A digest of every class file of `classpath`, keyed by `ENTRY-INDEX:NAME` (names relative to
/// a folder entry, or jar entry names). Entries that cannot be read give no keys.
pub fn class_digests(classpath: &[PathBuf]) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let digest = |bytes: &[u8]| {
        let mut h = crate::digest::Digest::new();
        h.write(bytes);
        h.hex()
    };
    for (i, entry) in classpath.iter().enumerate() {
        if entry.is_dir() {
            let mut files = Vec::new();
            list_class_files(entry, &mut files);
            for f in files {
                if let Ok(bytes) = std::fs::read(&f) {
                    let rel = f.strip_prefix(entry).unwrap_or(&f);
                    out.insert(format!("{i}:{}", rel.display()), digest(&bytes));
                }
            }
        } else if let Ok(file) = std::fs::File::open(entry) {
            let Ok(mut zip) = zip::ZipArchive::new(file) else {
                continue;
            };
            for k in 0..zip.len() {
                let Ok(mut e) = zip.by_index(k) else { continue };
                if !e.name().ends_with(".class") {
                    continue;
                }
                let name = e.name().to_string();
                let mut bytes = Vec::new();
                if e.read_to_end(&mut bytes).is_ok() {
                    out.insert(format!("{i}:{name}"), digest(&bytes));
                }
            }
        }
    }
    out
}

fn list_class_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            list_class_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "class") {
            out.push(p);
        }
    }
}

/// How many classes differ between two digest maps (changed, added or removed).
pub fn changed_classes(
    then: &std::collections::BTreeMap<String, String>,
    now: &std::collections::BTreeMap<String, String>,
) -> usize {
    let changed = then.iter().filter(|(k, v)| now.get(*k) != Some(v)).count();
    changed + now.keys().filter(|k| !then.contains_key(*k)).count()
}

/// Adds (or replaces) one top-level field of the report's `run.json`.
pub fn annotate(dir: &Path, key: &str, value: Value) -> anyhow::Result<()> {
    let path = dir.join("run.json");
    let mut run: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    if let Some(map) = run.as_object_mut() {
        map.insert(key.to_string(), value);
    }
    std::fs::write(&path, serde_json::to_string_pretty(&run)?)?;
    Ok(())
}

/// Writes one bug's report folder under `out` and returns it. `origin` (the program's classes
/// before instrumentation) lets `replay` run the current classes.
pub fn write_report(
    out: &Path,
    launch: &Launch,
    result: &Value,
    origin: Option<&Origin>,
) -> anyhow::Result<PathBuf> {
    let simple = short_name(&launch.main);
    // An earlier report of the same name is never overwritten: `NAME-2`, `NAME-3`, … instead.
    let dir = super::folder::create_fresh(
        out,
        &format!(
            "{simple}-{}-{}",
            result["kind"].as_str().unwrap_or("bug"),
            result["index"]
        ),
    )?;
    let dir = std::fs::canonicalize(&dir)?;
    std::fs::write(
        dir.join("result.json"),
        serde_json::to_string_pretty(result)?,
    )?;
    if let Some(schedule) = result["schedule"].as_str() {
        std::fs::write(dir.join("schedule.txt"), schedule)?;
    }
    std::fs::write(dir.join("stacks.txt"), stacks_text(result))?;
    std::fs::write(
        dir.join("stdout.txt"),
        result["stdout"].as_str().unwrap_or(""),
    )?;
    std::fs::write(
        dir.join("stderr.txt"),
        result["stderr"].as_str().unwrap_or(""),
    )?;
    let sites = site_table(&launch.classpath);
    let fields = super::field_flags::field_flags(&launch.classpath);
    std::fs::write(dir.join("timeline.txt"), timeline(result, &sites, &fields))?;
    let options: serde_json::Map<String, Value> = launch
        .agent_options
        .iter()
        .filter(|(k, _)| {
            !matches!(
                k.as_str(),
                "executions"
                    | "first-execution"
                    | "keep-going"
                    | "time-limit-ms"
                    | "pin"
                    | "record-at"
                    | "trace"
            )
        })
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let run = json!({
        "classpath": launch.classpath.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()).display().to_string()).collect::<Vec<_>>(),
        "main": launch.main,
        "framework": launch.framework.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "args": launch.args,
        "jvm_args": launch.jvm_args,
        "cwd": launch.cwd.as_ref().map(|d| d.display().to_string()),
        "agent_options": options,
        "fail_on_output": launch.fail_on_output,
        "fail_on_file": launch.fail_on_file,
        "execution": result["index"],
        "schedule": "schedule.txt",
        "expected": {"outcome": result["outcome"], "kind": result["kind"], "message": result["message"], "steps": result["steps"]},
        "origin": origin.map(Origin::to_json),
    });
    std::fs::write(dir.join("run.json"), serde_json::to_string_pretty(&run)?)?;
    std::fs::write(
        dir.join("replay.txt"),
        format!("{}\n", replay_command(&dir)),
    )?;
    Ok(dir)
}

/// A main class or test method (`pkg.Cls#method(Types)`) in a few characters for folder names:
/// `Cls` or `Cls.method`.
pub fn short_name(main: &str) -> String {
    let head = main.split('(').next().unwrap_or(main);
    head.rsplit('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("Main")
        .replace('#', ".")
}

/// The exact command that replays the report in `dir`.
pub fn replay_command(dir: &Path) -> String {
    format!(
        "rankcheck replay {}",
        shell_word(&dir.display().to_string())
    )
}

fn shell_word(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The bug message, the throwable's trace and every thread's stack.
fn stacks_text(result: &Value) -> String {
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
    stacks
}

/// Every site-table row of the class path's entries, by site id.
pub fn site_table(classpath: &[PathBuf]) -> HashMap<i64, SiteRecord> {
    let mut sites = HashMap::new();
    for entry in classpath {
        let text = if entry.is_dir() {
            std::fs::read_to_string(entry.join(SITE_TABLE_RESOURCE)).ok()
        } else {
            read_jar_entry(entry, SITE_TABLE_RESOURCE)
        };
        for line in text.unwrap_or_default().lines() {
            if let Ok(record) = SiteRecord::parse_line(line) {
                sites.insert(record.id, record);
            }
        }
    }
    sites
}

fn read_jar_entry(jar: &Path, name: &str) -> Option<String> {
    let file = std::fs::File::open(jar).ok()?;
    let mut zip = zip::ZipArchive::new(file).ok()?;
    let mut entry = zip.by_name(name).ok()?;
    let mut text = String::new();
    entry.read_to_string(&mut text).ok()?;
    Some(text)
}

/// One site as people read it: `pkg/Cls.method (Cls.java line 12): write owner.f:I`.
pub fn describe_site(site: &SiteRecord) -> String {
    let line = site.line.map_or_else(|| "?".to_string(), |l| l.to_string());
    let detail = if site.detail.is_empty() || site.detail == "-" {
        String::new()
    } else {
        format!(" {}", site.detail)
    };
    format!(
        "{}.{} line {line}: {}{detail}",
        site.class.replace('/', "."),
        site.method,
        site.kind.as_str()
    )
}

/// A readable timeline of the execution. With the steps of a traced replay (`steps_trace`):
/// the cause on top (`explain::Story::explanation`), then every step folded into rows of one
/// thread with method, source lines, operations and objects. Without: the runs of the schedule.
pub fn timeline(
    result: &Value,
    sites: &HashMap<i64, SiteRecord>,
    fields: &super::field_flags::FieldFlags,
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{}\n\n",
        result["message"].as_str().unwrap_or("(no message)")
    ));
    if let Some(story) = super::explain::story(result, sites, fields) {
        for line in story.explanation() {
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&story.timeline());
        return out;
    }
    let names: HashMap<u64, String> = result["stacks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| Some((s["thread"].as_u64()?, s["name"].as_str()?.to_string())))
        .collect();
    let who = |t: u64| match names.get(&t) {
        Some(n) => format!("t{t} ({n})"),
        None => format!("t{t}"),
    };
    let Some(text) = result["schedule"].as_str() else {
        out.push_str("(no schedule recorded)\n");
        return out;
    };
    let Ok(schedule) = scheduler::Schedule::parse(text) else {
        out.push_str("(the schedule cannot be read)\n");
        return out;
    };
    out.push_str("steps        thread\n");
    let mut step = 1u64;
    for &(choice, n) in schedule.runs() {
        let range = if n == 1 {
            format!("{step}")
        } else {
            format!("{step}-{}", step + u64::from(n) - 1)
        };
        let what = match choice {
            scheduler::Choice::Thread(t) => who(u64::from(t.0)),
            scheduler::Choice::Waiter(t) => format!("notify wakes {}", who(u64::from(t.0))),
        };
        out.push_str(&format!("{range:<12} {what}\n"));
        step += u64::from(n);
    }
    out.push_str(&format!(
        "\n{} site(s) in the site table; the stacks in stacks.txt show where each thread stopped.\n",
        sites.len()
    ));
    out
}

/// Adds the steps of the replay that proved the bug (`replayed`, a result line with
/// `steps_trace`) to the report in `dir`: into `result.json`, and `timeline.txt`,
/// `explanation.txt` and `report.html` written from them. Returns the explanation's lines
/// (empty when the replay carried no steps).
pub fn add_steps(
    dir: &Path,
    classpath: &[PathBuf],
    replayed: &Value,
) -> anyhow::Result<Vec<String>> {
    let path = dir.join("result.json");
    let mut result: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let Some(trace) = replayed.get("steps_trace").filter(|t| t.is_object()) else {
        return Ok(Vec::new());
    };
    result["steps_trace"] = trace.clone();
    std::fs::write(&path, serde_json::to_string_pretty(&result)?)?;
    let sites = site_table(classpath);
    let fields = super::field_flags::field_flags(classpath);
    let Some(story) = super::explain::story(&result, &sites, &fields) else {
        return Ok(Vec::new());
    };
    let explanation = story.explanation();
    std::fs::write(dir.join("explanation.txt"), explanation.join("\n") + "\n")?;
    std::fs::write(dir.join("timeline.txt"), timeline(&result, &sites, &fields))?;
    std::fs::write(
        dir.join("report.html"),
        super::explain::html(
            &story,
            result["message"].as_str().unwrap_or(""),
            &result["stacks"],
        ),
    )?;
    Ok(explanation)
}

/// What `replay` reads back from a report folder (`run.json`).
#[derive(Clone, Debug)]
pub struct Recorded {
    pub dir: Option<PathBuf>,
    pub classpath: Vec<PathBuf>,
    /// The test framework's class path of a JUnit test (`Launch::framework`).
    pub framework: Vec<PathBuf>,
    pub main: String,
    pub args: Vec<String>,
    pub jvm_args: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub agent_options: Vec<(String, String)>,
    pub fail_on_output: Vec<String>,
    pub fail_on_file: Vec<String>,
    pub execution: u64,
    pub schedule: PathBuf,
    pub expected: Expected,
    /// Where the classes came from (reports written before origins were recorded have none).
    pub origin: Option<Origin>,
    /// The class digests of `origin` when the report was written.
    pub digests: std::collections::BTreeMap<String, String>,
    /// The minimal schedule of the report (`driver::minimize`): its file, execution index,
    /// failure and warm-up, when the search's schedule was shrunk.
    pub minimal: Option<Minimal>,
}

/// A report's minimal schedule, as a replay needs it.
#[derive(Clone, Debug)]
pub struct Minimal {
    pub schedule: PathBuf,
    pub execution: u64,
    pub expected: Expected,
    /// The execution its warm-up starts at (reports written before warm-ups have none).
    pub warm_from: Option<u64>,
}

impl Recorded {
    /// The same report, replaying its minimal schedule when it has one (and its file is there).
    pub fn minimal(mut self) -> Recorded {
        if let Some(m) = self.minimal.take().filter(|m| m.schedule.is_file()) {
            self.schedule = m.schedule;
            self.execution = m.execution;
            self.expected = m.expected;
            match m.warm_from {
                Some(w) => self.set_warm_from(w),
                None => self.agent_options.retain(|(k, _)| k != "warm-from"),
            }
        }
        self
    }

    /// Replays warm up from execution `from` (the agent's `warm-from`).
    pub fn set_warm_from(&mut self, from: u64) {
        super::jvm::set_agent_option(&mut self.agent_options, "warm-from", from.to_string());
    }
}

/// Reads `dir/run.json`; errors are one line naming the file.
pub fn load_recorded(dir: &Path) -> Result<Recorded, String> {
    let path = dir.join("run.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let strings = |key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let main = v["main"]
        .as_str()
        .ok_or_else(|| format!("{}: no main class recorded", path.display()))?
        .to_string();
    let agent_options: Vec<(String, String)> = v["agent_options"]
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    // Reports of 0.5.0 and before (no `timeouts` option: they could fire at any step) need no
    // shim: their schedules are of version 2, which `replay::check_schedule` refuses.
    Ok(Recorded {
        dir: Some(dir.to_path_buf()),
        classpath: strings("classpath")
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        framework: strings("framework")
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        main,
        args: strings("args"),
        jvm_args: strings("jvm_args"),
        cwd: v["cwd"].as_str().map(PathBuf::from),
        agent_options,
        fail_on_output: strings("fail_on_output"),
        fail_on_file: strings("fail_on_file"),
        execution: v["execution"].as_u64().unwrap_or(0),
        schedule: dir.join(v["schedule"].as_str().unwrap_or("schedule.txt")),
        expected: Expected {
            outcome: v["expected"]["outcome"]
                .as_str()
                .unwrap_or("bug")
                .to_string(),
            kind: v["expected"]["kind"].as_str().unwrap_or("").to_string(),
            message: v["expected"]["message"].as_str().unwrap_or("").to_string(),
            steps: v["expected"]["steps"].as_u64(),
        },
        origin: Origin::from_json(&v["origin"]),
        digests: v["origin"]["digests"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default(),
        minimal: v["minimal"]["schedule"].as_str().map(|file| {
            let m = &v["minimal"];
            Minimal {
                schedule: dir.join(file),
                execution: m["execution"].as_u64().unwrap_or(0),
                expected: Expected::of(&m["expected"]),
                warm_from: m["warm_from"].as_u64(),
            }
        }),
    })
}

/// The failure a report recorded, as a replay must show it again.
#[derive(Clone, Debug, Default)]
pub struct Expected {
    /// `bug`, or `pass` for the determinism check's samples.
    pub outcome: String,
    pub kind: String,
    pub message: String,
    /// The step at which the recorded execution ended (reports written before 0.4.0 lack it).
    pub steps: Option<u64>,
}

impl Expected {
    /// The failure of an agent result line.
    pub fn of(result: &Value) -> Expected {
        Expected {
            outcome: result["outcome"].as_str().unwrap_or("bug").to_string(),
            kind: result["kind"].as_str().unwrap_or("").to_string(),
            message: result["message"].as_str().unwrap_or("").to_string(),
            steps: result["steps"].as_u64(),
        }
    }
}

/// `None` when a replayed result shows the recorded failure, else what differs, in a few words.
///
/// The same failure is the same kind, at the same step, with the same message once rankcheck's
/// own decorations are set aside (thread names after rankcheck's thread ids: `t1 (Thread-0)`
/// compares as `t1`). For a thrown throwable that is the failing thread, the throwable's class
/// and its message (the first line); for a deadlock the blocked threads with what each waits
/// for; for a livelock the spinning threads and their sites; for an oracle the oracle.
pub fn difference(expected: &Expected, result: &Value) -> Option<String> {
    let outcome = result["outcome"].as_str().unwrap_or("?");
    let kind = result["kind"].as_str().unwrap_or("?");
    let message = result["message"].as_str().unwrap_or("");
    if outcome == "inconclusive" {
        // An execution rankcheck could not control reproduces nothing, whatever was recorded.
        return Some(format!(
            "the replay gave no verdict ({kind}): {}",
            first_line(message)
        ));
    }
    if outcome != expected.outcome || kind != expected.kind {
        return Some(format!(
            "the replay ended otherwise: {outcome} ({kind}): {}",
            first_line(message)
        ));
    }
    if outcome != "bug" {
        // A passing sample: the same ending at the same step is all there is to compare.
        return match (expected.steps, result["steps"].as_u64()) {
            (Some(want), Some(got)) if want != got => Some(format!(
                "the replay ended at step {got}, the recorded run at step {want}"
            )),
            _ => None,
        };
    }
    let compared = |m: &str| -> String {
        let m = if kind == "uncaught" { first_line(m) } else { m };
        without_jvm_run_names(&without_thread_names(m))
    };
    if compared(message) != compared(&expected.message) {
        return Some(format!(
            "the replay failed differently: {} instead of {}",
            first_line(message),
            first_line(&expected.message)
        ));
    }
    match (expected.steps, result["steps"].as_u64()) {
        (Some(want), Some(got)) if want != got => Some(format!(
            "the replay failed the same way but {} (at step {got}, the recording at step {want})",
            if got < want { "earlier" } else { "later" }
        )),
        _ => None,
    }
}

/// Whether `result` shows the bug `found` showed, at whatever step and whatever data its
/// message carries: what a shorter schedule must show to stand for it. A thrown throwable is
/// the same bug when the same thread (by rankcheck's id) fails with the same throwable
/// classes (its cause chain) thrown at the same places: "count is 1998" and "count is 1999"
/// are one lost update, and a garbled date is garbled whatever the date. Any other failure
/// (a deadlock's blocked threads, an oracle, an exit status) compares as [`difference`] does.
pub fn same_bug(found: &Value, result: &Value) -> bool {
    let expected = Expected {
        steps: None,
        ..Expected::of(found)
    };
    if difference(&expected, result).is_none() {
        return true;
    }
    let kind = found["kind"].as_str();
    kind == Some("uncaught")
        && result["kind"].as_str() == kind
        && result["outcome"] == found["outcome"]
        && throwable_shape(found).is_some_and(|shape| throwable_shape(result) == Some(shape))
}

/// The failing thread of an uncaught throwable, and for the throwable and each cause its class
/// and its first frame (the JVM's run-time class names made alike).
fn throwable_shape(result: &Value) -> Option<(String, Vec<(String, String)>)> {
    static THREAD: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let thread =
        THREAD.get_or_init(|| regex::Regex::new(r"^uncaught in thread (t\d+)\b").expect("valid"));
    let failing = thread
        .captures(result["message"].as_str()?)?
        .get(1)?
        .as_str()
        .to_string();
    let mut chain = Vec::new();
    let mut lines = result["trace"].as_str()?.lines().peekable();
    while let Some(line) = lines.next() {
        let header = match line.strip_prefix("Caused by: ") {
            Some(h) => h,
            None if chain.is_empty() => line,
            None => continue,
        };
        let class = header
            .split(':')
            .next()
            .unwrap_or(header)
            .trim()
            .to_string();
        let frame = lines
            .peek()
            .and_then(|l| l.trim_start().strip_prefix("at "))
            .map(without_jvm_run_names)
            .unwrap_or_default();
        chain.push((class, frame));
    }
    (!chain.is_empty()).then_some((failing, chain))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// A failure message's first line as a reader tells two apart: without thread names, the
/// names the JVM gives the classes it spins, and the identity hashes `Object.toString` prints
/// (`Main$$Lambda$13/0x…@52a0abfc`): what is left differs only where the program's values
/// do.
pub fn readable_first_line(message: &str) -> String {
    static HASH: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let hash = HASH.get_or_init(|| regex::Regex::new(r"@[0-9a-f]{1,8}\b").expect("valid"));
    let line = without_jvm_run_names(&without_thread_names(first_line(message)));
    hash.replace_all(&line, "@").into_owned()
}

/// `t3 (pool-1-thread-2)` becomes `t3`: rankcheck's ids name threads; their Java names are a
/// decoration.
fn without_thread_names(message: &str) -> String {
    static NAMED: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let named = NAMED.get_or_init(|| regex::Regex::new(r"\b(t\d+) \([^()]*\)").expect("valid"));
    named.replace_all(message, "$1").into_owned()
}

/// The names a JVM gives classes it spins at run time, made the same in every JVM run:
/// `Main$$Lambda$14/0x00007f…` becomes `Main$$Lambda` (the counter runs on across a JVM's
/// executions and the address differs in every JVM), another hidden class loses its `/0x…`
/// address, and `jdk.proxy2.$Proxy12` becomes `jdk.proxy.$Proxy` (numbered per JVM). A
/// failure whose message names a task (`RejectedExecutionException: Task
/// Main$$Lambda$14/0x…@3 rejected`) then replays.
fn without_jvm_run_names(message: &str) -> String {
    static RULES: std::sync::OnceLock<Vec<(regex::Regex, &str)>> = std::sync::OnceLock::new();
    let rules = RULES.get_or_init(|| {
        // In this order: a lambda's address goes with its name before any other `/0x…`.
        [
            (r"\$\$Lambda(?:\$\d+)?/0x[0-9a-fA-F]+", "$$Lambda"),
            (r"/0x[0-9a-fA-F]{8,16}\b", ""),
            (r"\$Proxy\d+", "$Proxy"),
            (r"\bjdk\.proxy\d+", "jdk.proxy"),
        ]
        .into_iter()
        .map(|(pattern, with)| (regex::Regex::new(pattern).expect("valid"), with))
        .collect()
    });
    rules
        .iter()
        .fold(message.to_string(), |m, (pattern, with)| {
            pattern.replace_all(&m, regex::NoExpand(with)).into_owned()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_lists_the_runs_of_the_schedule() {
        let result = json!({
            "message": "boom",
            "schedule": "rankcheck-schedule 15\nt0*3\nt1\nt0*2\n",
            "stacks": [{"thread": 0, "name": "main", "frames": []}],
        });
        let text = timeline(&result, &HashMap::new(), &Default::default());
        assert!(text.contains("1-3          t0 (main)"), "{text}");
        assert!(text.contains("4            t1\n"), "{text}");
        assert!(text.contains("5-6          t0 (main)"), "{text}");
    }

    #[test]
    fn a_replay_must_fail_the_same_way_at_the_same_step() {
        let recorded = json!({"outcome": "bug", "kind": "uncaught", "steps": 40,
            "message": "uncaught in thread t1 (Thread-13): x: boom\nat A.run"});
        let want = Expected::of(&recorded);
        let same = json!({"outcome": "bug", "kind": "uncaught", "steps": 40,
            "message": "uncaught in thread t1 (Thread-0): x: boom\nat B.run"});
        assert_eq!(difference(&want, &same), None);
        let other_thread = json!({"outcome": "bug", "kind": "uncaught", "steps": 40,
            "message": "uncaught in thread t2 (Thread-13): x: boom"});
        assert!(difference(&want, &other_thread)
            .unwrap()
            .contains("differently"));
        let other_text = json!({"outcome": "bug", "kind": "uncaught", "steps": 40,
            "message": "uncaught in thread t1 (Thread-13): x: bang"});
        assert!(difference(&want, &other_text).is_some());
        let later = json!({"outcome": "bug", "kind": "uncaught", "steps": 41,
            "message": "uncaught in thread t1 (Thread-13): x: boom"});
        assert!(difference(&want, &later).unwrap().contains("later"));
        let passed = json!({"outcome": "pass", "kind": "finished", "steps": 40, "message": ""});
        assert!(difference(&want, &passed).unwrap().contains("otherwise"));
    }

    #[test]
    fn the_same_bug_is_the_same_throwables_thrown_at_the_same_places_whatever_their_text() {
        let failed = |thread: &str, text: &str, line: u32| {
            json!({"outcome": "bug", "kind": "uncaught", "steps": 400,
                "message": format!("uncaught in thread {thread} (pool-1-thread-1): \
                    java.util.concurrent.ExecutionException: java.lang.IllegalStateException: {text}"),
                "trace": format!("java.util.concurrent.ExecutionException: java.lang.IllegalStateException: {text}\n\
                    \tat java.base/java.util.concurrent.FutureTask.report(FutureTask.java:122)\n\
                    Caused by: java.lang.IllegalStateException: {text}\n\
                    \tat bench.Main.lambda$main$0(Main.java:{line})\n\
                    \t... 1 more\n")})
        };
        let found = failed("t0", "garbled 1971-02-05", 10);
        assert!(same_bug(&found, &failed("t0", "garbled 1970-01-01", 10)));
        assert!(!same_bug(&found, &failed("t1", "garbled 1970-01-01", 10)));
        assert!(!same_bug(&found, &failed("t0", "garbled 1970-01-01", 11)));
        let mut other_class = failed("t0", "garbled", 10);
        other_class["trace"] = json!(other_class["trace"].as_str().unwrap().replace(
            "Caused by: java.lang.IllegalStateException",
            "Caused by: java.lang.NullPointerException"
        ));
        assert!(!same_bug(&found, &other_class));
        // Other kinds compare their whole message.
        let deadlock =
            |m: &str| json!({"outcome": "bug", "kind": "deadlock", "steps": 9, "message": m});
        assert!(same_bug(
            &deadlock("deadlock: t1 (a) blocked"),
            &deadlock("deadlock: t1 (b) blocked")
        ));
        assert!(!same_bug(
            &deadlock("deadlock: t1 (a) blocked"),
            &deadlock("deadlock: t2 (a) blocked")
        ));
    }

    #[test]
    fn names_of_classes_the_jvm_spins_do_not_tell_failures_apart() {
        let message = |lambda: &str, proxy: &str| {
            format!(
                "uncaught in thread t1 (pool-1-thread-1): java.util.concurrent.\
                 RejectedExecutionException: Task {lambda}@3 rejected from \
                 java.util.concurrent.ThreadPoolExecutor@2[Shutting down, pool size = 2] \
                 by {proxy} and java.lang.invoke.LambdaForm$MH/0x0000000800c0c400"
            )
        };
        let want = Expected::of(&json!({"outcome": "bug", "kind": "uncaught", "steps": 70,
            "message": message("Crawler$$Lambda$14/0x0000000800c0b448", "jdk.proxy2.$Proxy12")}));
        let replayed = |lambda: &str| {
            json!({"outcome": "bug", "kind": "uncaught", "steps": 70,
                "message": message(lambda, "jdk.proxy1.$Proxy3")})
        };
        assert_eq!(
            difference(&want, &replayed("Crawler$$Lambda$1/0x00007fb2b4000a08")),
            None
        );
        // JDK 21 names lambdas without the counter.
        assert_eq!(
            difference(&want, &replayed("Crawler$$Lambda/0x00007fb2b4000a08")),
            None
        );
        // Another task is another failure.
        assert!(difference(&want, &replayed("Crawler$Fetch@3")).is_some());
    }

    #[test]
    fn a_deadlock_must_block_the_same_threads_at_the_same_operations() {
        let want = Expected::of(&json!({"outcome": "bug", "kind": "deadlock", "steps": 9,
            "message": "deadlock: t1 (a) blocked at monitorenter on object #3; t2 (b) blocked at monitorenter on object #2"}));
        let same = json!({"outcome": "bug", "kind": "deadlock", "steps": 9,
            "message": "deadlock: t1 (Thread-0) blocked at monitorenter on object #3; t2 (Thread-1) blocked at monitorenter on object #2"});
        assert_eq!(difference(&want, &same), None);
        let other = json!({"outcome": "bug", "kind": "deadlock", "steps": 9,
            "message": "deadlock: t1 (a) blocked at join of t2; t2 (b) blocked at monitorenter on object #2"});
        assert!(difference(&want, &other).is_some());
    }

    #[test]
    fn changed_classes_counts_changed_added_and_removed() {
        let map = |pairs: &[(&str, &str)]| -> std::collections::BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let then = map(&[
            ("0:a/A.class", "1"),
            ("0:a/B.class", "2"),
            ("0:a/C.class", "3"),
        ]);
        assert_eq!(changed_classes(&then, &then), 0);
        let now = map(&[
            ("0:a/A.class", "1"),
            ("0:a/B.class", "9"),
            ("0:a/D.class", "4"),
        ]);
        // B changed, C removed, D added.
        assert_eq!(changed_classes(&then, &now), 3);
    }

    #[test]
    fn short_names_of_classes_and_test_methods() {
        assert_eq!(short_name("com.example.Main"), "Main");
        assert_eq!(short_name("Main"), "Main");
        assert_eq!(short_name("shop.CartTest#racy"), "CartTest.racy");
        assert_eq!(
            short_name("shop.CartTest#add(java.lang.String, int)"),
            "CartTest.add"
        );
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("/tmp/a-b"), "/tmp/a-b");
        assert_eq!(shell_word("/tmp/a b"), "'/tmp/a b'");
    }
}
