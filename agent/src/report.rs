//! Execution results, one JSON object per line (the format is in agent/PROTOCOL.md).

use scheduler::coverage::Shortfall;
use serde_json::{json, Value};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// One application thread's stack when a bug was found.
#[derive(Clone, Debug)]
pub struct ThreadStack {
    pub thread: u32,
    pub name: String,
    pub state: String,
    /// Innermost first, `at pkg.Cls.method(File.java:12)`.
    pub frames: Vec<String>,
}

/// At most this many steps (the last ones) go into a result's `steps_trace`.
pub const TRACE_STEPS: usize = 50_000;

/// One step of a traced execution (`trace=on`), or an operation a deadlocked thread waits to
/// perform. The JSON shape is in agent/PROTOCOL.md ("Traces").
#[derive(Clone, Debug)]
pub struct TracedStep {
    pub step: u64,
    pub thread: u32,
    pub kind: scheduler::OpKind,
    /// The location of an access, the object of a monitor operation, a thread (scheduler's
    /// `Event::target`).
    pub target: u64,
    /// The object touched (an instance field's or array's owner, a monitor), by execution id.
    pub obj: Option<u64>,
    /// Its class, when the object was still alive at the end.
    pub class: Option<String>,
    /// The array index of an element access.
    pub index: Option<i32>,
    pub site: i64,
    pub preempted: bool,
    /// Not a step of the schedule: a monitor hold the model learnt when another thread found
    /// the monitor taken (agent/src/control/real_monitors.rs), shown where it became known.
    pub learnt: bool,
    /// An access a library made for its own bookkeeping (`juc::library_internal`).
    pub library: bool,
    /// For a step at a JDK site: the program's frame that called into the JDK.
    pub caller: Option<TracedCaller>,
}

/// The program's frame under a step at a JDK site (`juc::program_caller`): the class as Java
/// writes it, the method, and the source place when the class file has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedCaller {
    pub class: String,
    pub method: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl From<crate::jvmti::FrameParts> for TracedCaller {
    fn from(f: crate::jvmti::FrameParts) -> Self {
        TracedCaller {
            class: f.class,
            method: f.method,
            file: f.file,
            line: f.line,
        }
    }
}

impl TracedStep {
    fn to_json(&self) -> Value {
        json!({
            "step": self.step,
            "thread": self.thread,
            "op": self.kind.as_str(),
            "target": self.target,
            "obj": self.obj,
            "class": self.class,
            "index": self.index,
            "site": self.site,
            "preempted": self.preempted,
            "learnt": self.learnt,
            "library": self.library,
            "caller": self.caller.as_ref().map(|c| json!({
                "class": c.class,
                "method": c.method,
                "file": c.file,
                "line": c.line,
            })),
        })
    }
}

/// Every step of one execution, for reports.
#[derive(Clone, Debug, Default)]
pub struct StepsTrace {
    /// Every application thread's name, by thread id (finished threads too).
    pub threads: Vec<String>,
    /// Steps left out at the start (only the last [`TRACE_STEPS`] are kept).
    pub omitted: u64,
    pub steps: Vec<TracedStep>,
    /// For a deadlock: every thread blocked for ever and the operation it waits to perform.
    pub blocked: Vec<TracedStep>,
    /// The site-table lines of the sites the steps name (the CLI has the program's, not those
    /// of JDK classes rewritten at load time or of monitors met inside JDK methods).
    pub site_records: Vec<String>,
    /// Tasks whose throwable their future kept, in order.
    pub task_failures: Vec<TracedTaskFailure>,
}

/// A task that failed into its future (`RC.taskFailed`): its thread, the number of the last
/// step performed before it failed (0: none), and the throwable (its text, then its innermost
/// frames, a line each), with its first line and its innermost frame outside the JDK.
#[derive(Clone, Debug)]
pub struct TracedTaskFailure {
    pub thread: u32,
    pub after_step: u64,
    pub failure: String,
    pub what: String,
    pub at: Option<String>,
}

impl StepsTrace {
    pub fn to_json(&self) -> Value {
        json!({
            "threads": self.threads,
            "omitted": self.omitted,
            "steps": self.steps.iter().map(TracedStep::to_json).collect::<Vec<_>>(),
            "blocked": self.blocked.iter().map(TracedStep::to_json).collect::<Vec<_>>(),
            "sites": self.site_records,
            "task_failures": self.task_failures.iter().map(|f| json!({
                "thread": f.thread,
                "after_step": f.after_step,
                "failure": f.failure,
                "what": f.what,
                "at": f.at,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Everything known about one execution when it is over.
#[derive(Clone, Debug)]
pub struct ExecutionResult {
    pub index: u64,
    pub seed: u64,
    pub outcome: &'static str,
    pub kind: String,
    pub message: String,
    pub bound: Option<&'static str>,
    pub exit_status: Option<i32>,
    pub steps: u64,
    pub threads: u32,
    pub millis: u64,
    pub stacks: Vec<ThreadStack>,
    pub trace: Option<String>,
    pub stdout: String,
    pub stderr: String,
    pub schedule: Option<String>,
    pub notes: Vec<String>,
    /// The strategy's statement of what the executions so far cover.
    pub coverage: String,
    /// The strategy has nothing left to explore (ICB, exhaustive strategies).
    pub exhausted: bool,
    /// The execution's happens-before graph hash, when the strategy computes it.
    pub hb: Option<u64>,
    /// A partitioned search: the execution's place in the whole search's order.
    pub order: Option<Vec<u64>>,
    /// What the execution leaves out of the strategy's claim.
    pub shortfall: Shortfall,
    /// Every step, with `trace=on`.
    pub steps_trace: Option<StepsTrace>,
    /// Collections a thread used alone, with no scheduling point, while a thread that touched
    /// them later was running (confinement.rs's blind spot).
    pub alone_then_shared: u32,
    /// Steps at which a timed wait could have timed out but other threads went on
    /// (`timeouts=idle`).
    pub timeouts_withheld: u64,
}

impl ExecutionResult {
    pub fn to_json(&self) -> Value {
        json!({
            "index": self.index,
            "seed": self.seed,
            "outcome": self.outcome,
            "kind": self.kind,
            "message": self.message,
            "bound": self.bound,
            "exit_status": self.exit_status,
            "steps": self.steps,
            "threads": self.threads,
            "millis": self.millis,
            "stacks": self.stacks.iter().map(|s| json!({
                "thread": s.thread,
                "name": s.name,
                "state": s.state,
                "frames": s.frames,
            })).collect::<Vec<_>>(),
            "trace": self.trace,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "schedule": self.schedule,
            "notes": self.notes,
            "coverage": self.coverage,
            "exhausted": self.exhausted,
            "hb": self.hb,
            "order": self.order,
            "left_prefix": self.shortfall.left_prefix,
            "undecided": self.shortfall.undecided,
            "order_kept": self.shortfall.order_kept,
            "steps_trace": self.steps_trace.as_ref().map(StepsTrace::to_json),
            "alone_then_shared": self.alone_then_shared,
            "timeouts_withheld": self.timeouts_withheld,
        })
    }

    /// One line for people.
    pub fn summary(&self) -> String {
        format!(
            "rankcheck: execution {}: {} ({}) in {} steps, {} ms: {}",
            self.index, self.outcome, self.kind, self.steps, self.millis, self.message
        )
    }
}

/// Where results go: a JSON-lines file, or summary lines on stderr.
pub enum Sink {
    File(BufWriter<File>),
    Stderr,
}

impl Sink {
    pub fn open(path: Option<&Path>) -> std::io::Result<Sink> {
        Ok(match path {
            Some(p) => Sink::File(BufWriter::new(File::create(p)?)),
            None => Sink::Stderr,
        })
    }

    pub fn write(&mut self, result: &ExecutionResult, verbose: bool) {
        match self {
            Sink::File(f) => {
                let _ = writeln!(f, "{}", result.to_json());
                let _ = f.flush();
                if verbose {
                    eprintln!("{}", result.summary());
                }
            }
            Sink::Stderr => eprintln!("{}", result.summary()),
        }
    }

    pub fn flush(&mut self) {
        if let Sink::File(f) = self {
            let _ = f.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_line_has_every_documented_field() {
        let r = ExecutionResult {
            index: 3,
            seed: 9,
            outcome: "bug",
            kind: "deadlock".into(),
            message: "deadlock: …".into(),
            bound: None,
            exit_status: None,
            steps: 13,
            threads: 3,
            millis: 6,
            stacks: vec![ThreadStack {
                thread: 1,
                name: "ab".into(),
                state: "running".into(),
                frames: vec!["at A.b(A.java:1)".into()],
            }],
            trace: None,
            stdout: "out".into(),
            stderr: String::new(),
            schedule: Some("rankcheck-schedule 15\nt0\n".into()),
            notes: vec![],
            coverage: "12 executions".into(),
            exhausted: false,
            hb: Some(7),
            order: None,
            shortfall: Shortfall::default(),
            steps_trace: None,
            alone_then_shared: 0,
            timeouts_withheld: 0,
        };
        let line = r.to_json().to_string();
        assert!(!line.contains('\n'), "one line per execution");
        let v: Value = serde_json::from_str(&line).unwrap();
        for field in [
            "index",
            "seed",
            "outcome",
            "kind",
            "message",
            "bound",
            "exit_status",
            "steps",
            "threads",
            "millis",
            "stacks",
            "trace",
            "stdout",
            "stderr",
            "schedule",
            "notes",
            "alone_then_shared",
            "timeouts_withheld",
            "left_prefix",
            "undecided",
            "order_kept",
        ] {
            assert!(v.get(field).is_some(), "{field} missing");
        }
        assert_eq!(v["stacks"][0]["frames"][0], "at A.b(A.java:1)");
        assert!(r
            .summary()
            .contains("execution 3: bug (deadlock) in 13 steps"));
    }
}
