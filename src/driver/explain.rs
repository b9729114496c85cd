//! A failing execution as people read it: every step named (thread, operation, object, field,
//! source line), the cause on top, and the same as a picture (`report.html`).
//!
//! Reads the agent's `steps_trace` (agent/PROTOCOL.md, "Traces") and the site table; the cause
//! itself is chosen by `scheduler::cause` — this module only words and draws it.

use super::field_flags::FieldFlags;
use java_harness::hooks::SiteRecord;
use scheduler::cause::{self, Blocked, Cause, Step};
use scheduler::OpKind;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// One step with everything a reader needs.
#[derive(Clone, Debug)]
pub struct Named {
    pub step: Step,
    /// `Account#1` (class simple name and execution id), `Account.balance` for a static,
    /// `int[]#4[2]` for an array element; empty when the step touches no object.
    pub object: String,
    /// The field's name (`balance`), empty for non-field steps.
    pub field: String,
    /// The method (`Account.deposit`), `?` when the site is unknown.
    pub method: String,
    /// Source file and line (`Account.java`, 12).
    pub file: String,
    pub line: Option<u32>,
    /// The site lies in the JDK (`AbstractQueuedSynchronizer.java:715` says little to the
    /// program's author).
    pub jdk: bool,
    /// For a step at a JDK site whose trace names the program's frame that called into the JDK:
    /// the JDK method and place of the site itself (`AtomicInteger.get`,
    /// `AtomicInteger.java:90`); `method`, `file` and `line` are then the program's.
    pub inside: Option<(String, String)>,
}

impl Named {
    /// `Account#1.balance`, `Account.count` (a static), `int[]#4[2]`, `Object#3`.
    pub fn what(&self) -> String {
        match (self.object.is_empty(), self.field.is_empty()) {
            (false, false) => format!("{}.{}", self.object, self.field),
            (false, true) => self.object.clone(),
            (true, false) => self.field.clone(),
            (true, true) => String::new(),
        }
    }

    /// `Account.java:12`, or the method when the line is unknown.
    pub fn place(&self) -> String {
        match self.line {
            Some(l) => format!("{}:{l}", self.file),
            None => self.method.clone(),
        }
    }
}

/// A traced execution with its cause.
pub struct Story {
    /// Thread names by id.
    pub threads: Vec<String>,
    pub steps: Vec<Named>,
    pub blocked: Vec<Named>,
    pub cause: Cause,
    /// Steps left out at the start of a very long execution.
    pub omitted: u64,
    /// Per thread, the innermost frame of its last stack that is the program's, not the JDK's
    /// (`Main.java:20`): where a thread blocked inside the JDK called it.
    pub program_frames: HashMap<u32, String>,
    /// Threads whose last stack is a thread pool's worker waiting for its next task.
    pub idle_workers: HashSet<u32>,
    /// A task that failed into its future and whose failure the cause explains, when the
    /// failure that ended the execution had no cause of its own (the program went on without
    /// the task's work).
    pub failed_task: Option<FailedTask>,
}

/// A task whose throwable its future kept (the trace's `task_failures`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedTask {
    pub thread: u32,
    /// The last step performed before it failed.
    pub after_step: u64,
    /// The throwable's first line (`java.lang.NullPointerException: …`).
    pub what: String,
    /// Its innermost frame outside the JDK, as `Main.java:14`.
    pub at: Option<String>,
}

impl FailedTask {
    /// From the trace's entry (the agent picked the first line and the program's frame).
    fn of(v: &Value) -> Option<FailedTask> {
        let at = v["at"]
            .as_str()
            .and_then(|f| f.split_once('(')?.1.strip_suffix(')'))
            .map(str::to_string);
        Some(FailedTask {
            thread: v["thread"].as_u64()? as u32,
            after_step: v["after_step"].as_u64()?,
            what: v["what"].as_str()?.to_string(),
            at,
        })
    }
}

/// When the failure has no cause of its own: the first failed task whose failure has one, with
/// that cause (found in the steps up to the task's failure, the task's thread failing).
fn failed_task_cause(trace: &Value, steps: &[Step]) -> Option<(FailedTask, Cause)> {
    trace["task_failures"]
        .as_array()?
        .iter()
        .filter_map(FailedTask::of)
        .find_map(|task| {
            let cut = steps.partition_point(|s| s.step <= task.after_step);
            match cause::explain(&steps[..cut], &[], Some(task.thread)) {
                Cause::Unknown => None,
                c => Some((task, c)),
            }
        })
}

fn simple_class(internal: &str) -> &str {
    internal.rsplit(['/', '.']).next().unwrap_or(internal)
}

fn source_file(internal: &str) -> String {
    let outer = simple_class(internal).split('$').next().unwrap_or("");
    format!("{outer}.java")
}

fn name(v: &Value, sites: &HashMap<i64, SiteRecord>, fields: &FieldFlags) -> Option<Named> {
    let kind = OpKind::parse(v["op"].as_str()?)?;
    let site = v["site"].as_i64().unwrap_or(0);
    let rec = sites.get(&site);
    // `owner.name:descriptor` for field sites.
    let (owner, field) = rec
        .and_then(|r| {
            let (head, _) = r.detail.split_once(':')?;
            let (owner, f) = head.rsplit_once('.')?;
            Some((owner.to_string(), f.to_string()))
        })
        .filter(|_| matches!(kind, OpKind::Read | OpKind::Write))
        .unwrap_or_default();
    let object = match (v["obj"].as_u64(), v["class"].as_str()) {
        (Some(id), Some(class)) => {
            let short = if class.replace('.', "/") == CONDITION_CLASS {
                "Condition".to_string()
            } else {
                simple_class(class).to_string()
            };
            let base = if let Some(elem) = class.strip_prefix('[') {
                format!("{}[]", array_element(elem))
            } else {
                short
            };
            match v["index"].as_i64() {
                Some(i) => format!("{base}#{id}[{i}]"),
                None => format!("{base}#{id}"),
            }
        }
        (Some(id), None) => match v["index"].as_i64() {
            Some(i) => format!("array#{id}[{i}]"),
            None => format!("object#{id}"),
        },
        // A static field: named by its class.
        (None, _) if !owner.is_empty() => simple_class(&owner).to_string(),
        (None, _) => String::new(),
    };
    // A read of a JDK class's static (an enum constant, `TimeUnit.MINUTES`) looks a constant
    // up: never the state a thread behind should have set, so never offered as a cause.
    let jdk_constant = kind == OpKind::Read
        && v["obj"].is_null()
        && !owner.is_empty()
        && is_jdk_frame_class(&owner);
    // Likewise a program's `static final` field: written once, by its class's initializer,
    // which the JVM publishes to every thread before any reads it.
    let constant = kind == OpKind::Read
        && v["obj"].is_null()
        && fields.constants.contains(&format!("{owner}.{field}"));
    let mut method = rec.map_or_else(
        || "?".to_string(),
        |r| format!("{}.{}", simple_class(&r.class), r.method),
    );
    let mut file = rec.map_or_else(String::new, |r| source_file(&r.class));
    let mut line = rec.and_then(|r| r.line);
    let jdk = rec.is_some_and(|r| is_jdk_frame_class(&r.class));
    let mut inside = None;
    if let Some((m, f, l)) = caller(&v["caller"]).filter(|_| jdk) {
        let own = match line {
            Some(l) => format!("{file}:{l}"),
            None => method.clone(),
        };
        inside = Some((std::mem::replace(&mut method, m), own));
        (file, line) = (f, l);
    }
    Some(Named {
        step: Step {
            step: v["step"].as_u64().unwrap_or(0),
            thread: v["thread"].as_u64().unwrap_or(0) as u32,
            kind: rec.and_then(|r| condition_op(r, kind)).unwrap_or(kind),
            target: v["target"].as_u64().unwrap_or(0),
            site,
            preempted: v["preempted"].as_bool().unwrap_or(false),
            library: v["library"].as_bool().unwrap_or(false) || jdk_constant || constant,
            sync: rec.is_some_and(synchronizing)
                || (!field.is_empty() && fields.volatile.contains(&format!("{owner}.{field}"))),
        },
        object,
        field,
        method,
        file,
        line,
        jdk,
        inside,
    })
}

/// The class whose `await`/`signal` are a `Condition`'s (of a `ReentrantLock`, a
/// `ReentrantReadWriteLock`'s write lock).
const CONDITION_CLASS: &str =
    "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject";

/// How a step names a `Condition` object (`Condition#9`).
const CONDITION: &str = "Condition#";

/// A `Condition`'s operation as the monitor operation it mirrors: the announcement of an
/// `await` as it is called is a wait, the one as it returns a wait's return, `signal` a
/// notify, `signalAll` a notify-all; so a condition's lost or wasted signal is told as a
/// monitor's is (the agent announces them as writes of the condition).
fn condition_op(rec: &SiteRecord, kind: OpKind) -> Option<OpKind> {
    if rec.class != CONDITION_CLASS || kind != OpKind::Write {
        return None;
    }
    match rec.method.as_str() {
        m if m.starts_with("await") && rec.bci == 0 => Some(OpKind::Wait),
        m if m.starts_with("await") => Some(OpKind::WaitReturn),
        "signal" => Some(OpKind::Notify),
        "signalAll" => Some(OpKind::NotifyAll),
        _ => None,
    }
}

/// A blocked thread parked inside a `Condition`'s `await` (its last condition operation is an
/// `await` it has not returned from) waits to return from it, as a monitor's waiter does.
fn waiting_on_conditions(steps: &[Named], blocked: &mut [Named]) {
    for b in blocked.iter_mut().filter(|b| b.step.kind == OpKind::Park) {
        let last = steps.iter().rev().find(|s| {
            s.step.thread == b.step.thread
                && matches!(s.step.kind, OpKind::Wait | OpKind::WaitReturn)
        });
        if let Some(w) =
            last.filter(|w| w.step.kind == OpKind::Wait && w.object.starts_with(CONDITION))
        {
            b.step.kind = OpKind::WaitReturn;
            b.step.target = w.step.target;
            b.object = w.object.clone();
        }
    }
}

/// How the explanation words a notify step: a `Condition`'s signal or a monitor's notify
/// (operation, past tense, the one that wakes every waiter).
fn signal_words(n: &Named) -> (&'static str, &'static str, &'static str) {
    if n.object.starts_with(CONDITION) {
        ("signal", "signalled", "signalAll")
    } else {
        ("notify", "notified", "notifyAll")
    }
}

/// A trace step's `caller` (agent/PROTOCOL.md, "Traces") as method (`Main.book`), file and
/// line.
fn caller(v: &Value) -> Option<(String, String, Option<u32>)> {
    let class = v["class"].as_str()?;
    let method = format!("{}.{}", simple_class(class), v["method"].as_str()?);
    let file = v["file"]
        .as_str()
        .map_or_else(|| source_file(class), str::to_string);
    let line = v["line"].as_u64().and_then(|l| u32::try_from(l).ok());
    Some((method, file, line))
}

/// Whether an access at `rec` synchronizes (`cause::Step::sync`): a hooked call (a `VarHandle`,
/// `Unsafe` or field-updater access, a concurrent collection's call: atomic) or a site inside
/// the JDK's concurrent classes, whose fields are volatile, CAS'd or guarded by their own
/// locks. (The program's volatile fields come from its class files: `field_flags`.)
fn synchronizing(rec: &SiteRecord) -> bool {
    matches!(rec.kind, java_harness::hooks::SiteKind::Call(_))
        || rec.class.starts_with("java/util/concurrent/")
}

fn array_element(desc: &str) -> String {
    match desc.chars().next() {
        Some('I') => "int".into(),
        Some('J') => "long".into(),
        Some('Z') => "boolean".into(),
        Some('B') => "byte".into(),
        Some('C') => "char".into(),
        Some('S') => "short".into(),
        Some('D') => "double".into(),
        Some('F') => "float".into(),
        Some('[') => format!("{}[]", array_element(&desc[1..])),
        _ => simple_class(desc.trim_start_matches('L').trim_end_matches(';')).to_string(),
    }
}

/// The thread whose throwable ended the execution (`uncaught in thread t2 (…)`).
fn failing_thread(result: &Value) -> Option<u32> {
    let message = result["message"].as_str()?;
    let rest = message.strip_prefix("uncaught in thread t")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The story of a result line that carries `steps_trace` (`None` without one); `fields`: the
/// program's volatile fields, whose accesses synchronize, and its `static final` ones, whose
/// reads are never a cause (`field_flags`).
pub fn story(
    result: &Value,
    sites: &HashMap<i64, SiteRecord>,
    fields: &FieldFlags,
) -> Option<Story> {
    let trace = result.get("steps_trace").filter(|t| t.is_object())?;
    // The sites the class path's table lacks (JDK classes rewritten at load time, monitors met
    // inside JDK methods) come with the trace.
    let extra: Vec<SiteRecord> = trace["sites"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| SiteRecord::parse_line(l.as_str()?).ok())
        .filter(|r| !sites.contains_key(&r.id))
        .collect();
    let sites: std::borrow::Cow<HashMap<i64, SiteRecord>> = if extra.is_empty() {
        std::borrow::Cow::Borrowed(sites)
    } else {
        let mut all = sites.clone();
        all.extend(extra.into_iter().map(|r| (r.id, r)));
        std::borrow::Cow::Owned(all)
    };
    let sites = &*sites;
    let list = |key: &str| -> Vec<Named> {
        trace[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| name(v, sites, fields))
            .collect()
    };
    let steps = list("steps");
    let mut blocked = list("blocked");
    let stuck_of = |blocked: &[Named]| -> Vec<Blocked> {
        blocked
            .iter()
            .map(|b| Blocked {
                thread: b.step.thread,
                kind: b.step.kind,
                target: b.step.target,
                site: b.step.site,
            })
            .collect()
    };
    let parked = stuck_of(&blocked);
    waiting_on_conditions(&steps, &mut blocked);
    let plain: Vec<Step> = steps.iter().map(|n| n.step.clone()).collect();
    let mut cause = cause::explain(&plain, &stuck_of(&blocked), failing_thread(result));
    // A Condition is nearly always awaited in a loop that checks first (in libraries always:
    // a pool's deque signals each return whether anyone waits), so a signal nobody awaited
    // says nothing of why a waiter waits for ever: only a wrong wake-up is told for them.
    if matches!(cause, Cause::MissedSignal { notify, .. } if steps[notify].object.starts_with(CONDITION))
    {
        cause = cause::explain(&plain, &parked, failing_thread(result));
        for (b, p) in blocked.iter_mut().zip(&parked) {
            (b.step.kind, b.step.target) = (p.kind, p.target);
        }
    }
    let mut failed_task = None;
    if cause == Cause::Unknown {
        if let Some((task, c)) = failed_task_cause(trace, &plain) {
            (failed_task, cause) = (Some(task), c);
        }
    }
    Some(Story {
        threads: trace["threads"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| n.as_str().unwrap_or("").to_string())
            .collect(),
        steps,
        blocked,
        cause,
        omitted: trace["omitted"].as_u64().unwrap_or(0),
        program_frames: program_frames(&result["stacks"]),
        idle_workers: idle_workers(&result["stacks"]),
        failed_task,
    })
}

/// The threads of a result's `stacks` that are a `ThreadPoolExecutor`'s workers waiting for a
/// task (`getTask` on their stack).
fn idle_workers(stacks: &Value) -> HashSet<u32> {
    let idle = |frames: &Value| {
        frames.as_array().is_some_and(|f| {
            f.iter().any(|f| {
                f.as_str()
                    .is_some_and(|f| f.contains("java.util.concurrent.ThreadPoolExecutor.getTask("))
            })
        })
    };
    stacks
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| idle(&s["frames"]))
        .filter_map(|s| s["thread"].as_u64().map(|t| t as u32))
        .collect()
}

/// Whether a class (internal or dotted name) is the JDK's.
fn is_jdk_frame_class(class: &str) -> bool {
    ["java", "javax", "jdk", "sun", "com/sun", "com.sun"]
        .iter()
        .any(|p| class.starts_with(p) && matches!(class.as_bytes().get(p.len()), Some(b'/' | b'.')))
}

/// Per thread of a result's `stacks`, its innermost frame outside the JDK, as `Main.java:20`
/// (the frame's text when it names no line).
fn program_frames(stacks: &Value) -> HashMap<u32, String> {
    stacks
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| {
            let thread = s["thread"].as_u64()? as u32;
            let frame = s["frames"].as_array()?.iter().find_map(|f| {
                let f = f.as_str()?.trim().trim_start_matches("at ");
                let method = f.split('(').next().unwrap_or(f);
                let method = method.rsplit('/').next().unwrap_or(method);
                // A bridge the rewriter added (`rankcheck$lock$0`) has no line of its own, nor
                // has a lambda's hidden class (named by an address); the frame below does.
                let glue = f.contains(".rankcheck$") || f.contains("$$Lambda");
                (!is_jdk_frame_class(method) && !glue).then_some(f)
            })?;
            let place = frame
                .split_once('(')
                .and_then(|(_, rest)| rest.strip_suffix(')'))
                .filter(|p| p.contains(':'))
                .unwrap_or(frame);
            Some((thread, place.to_string()))
        })
        .collect()
}

/// `Account.java:12 in Account.deposit, …`: where each step is, and in which method (a class
/// compiled without line numbers, `-g:none`, has only the method: said once).
fn in_methods(steps: &[&Named]) -> String {
    steps
        .iter()
        .map(|s| {
            let place = match s.line {
                Some(_) => format!("{} in {}", s.place(), s.method),
                None => s.place(),
            };
            match &s.inside {
                Some((jdk_method, _)) => format!("{place} ({jdk_method})"),
                None => place,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Story {
    /// `t2 (Thread-1)`.
    pub fn who(&self, t: u32) -> String {
        match self.threads.get(t as usize).filter(|n| !n.is_empty()) {
            Some(n) => format!("t{t} ({n})"),
            None => format!("t{t}"),
        }
    }

    /// Indices of the steps the cause names (drawn highlighted).
    pub fn highlighted(&self) -> Vec<usize> {
        match &self.cause {
            Cause::Atomicity {
                first,
                between,
                second,
                ..
            } => vec![*first, *between, *second],
            Cause::Order { read, .. } => vec![*read],
            Cause::Stages { writes, reads } => vec![writes[0], reads[0], reads[1], writes[1]],
            Cause::Race { first, second } => vec![*first, *second],
            Cause::LockSections {
                first,
                between,
                second,
            } => vec![*first, *between, *second],
            Cause::Deadlock { links, .. } => links.iter().filter_map(|l| l.taken).collect(),
            Cause::MissedSignal { notify, .. } => vec![*notify],
            Cause::WastedNotify {
                notify,
                woke,
                rewait,
                ..
            } => vec![*notify, *woke, *rewait],
            Cause::Unknown => Vec::new(),
        }
    }

    /// The monitor (named) that the thread of steps `first` and `second` released after the
    /// first and entered again before the second, if any.
    fn released_between(&self, first: usize, second: usize) -> Option<String> {
        let t = self.steps[first].step.thread;
        let own = || {
            self.steps[first + 1..second]
                .iter()
                .enumerate()
                .filter(move |(_, s)| s.step.thread == t)
        };
        own()
            .filter(|(_, s)| s.step.kind == OpKind::MonitorExit)
            .find_map(|(i, exit)| {
                own()
                    .skip_while(|&(j, _)| j <= i)
                    .find(|(_, s)| {
                        s.step.kind == OpKind::MonitorEnter && s.step.target == exit.step.target
                    })
                    .map(|(_, enter)| enter.object.clone())
            })
    }

    /// Where blocked thread `b` waits: its operation's line, and when that is in the JDK the
    /// program's line that called into it first (`Main.java:20 (in
    /// AbstractQueuedSynchronizer.java:715)`).
    fn blocked_at(&self, b: &Named) -> String {
        self.placed(b, None)
    }

    /// [`Story::blocked_at`] with the operation: `Main.java:20 (park in
    /// AbstractQueuedSynchronizer.java:715)`, `Main.java:9 (park)`.
    fn blocked_doing(&self, b: &Named, op: OpKind) -> String {
        self.placed(b, Some(op.as_str()))
    }

    fn placed(&self, b: &Named, op: Option<&str>) -> String {
        // The root's joins after main returned (`RC.afterMain`): harness code, no site.
        if b.step.kind == OpKind::Join && b.step.site == 0 && b.step.thread == 0 {
            return "the end of main (the JVM runs the program's shutdown hooks once its \
                    non-daemon threads ended)"
                .to_string();
        }
        if let Some((_, own)) = &b.inside {
            return match op {
                Some(op) => format!("{} ({op} in {own})", b.place()),
                None => format!("{} (in {own})", b.place()),
            };
        }
        let program = self.program_frames.get(&b.step.thread).filter(|_| b.jdk);
        match (program, op) {
            (Some(program), Some(op)) => format!("{program} ({op} in {})", b.place()),
            (Some(program), None) => format!("{program} (in {})", b.place()),
            (None, Some(op)) => format!("{} ({op})", b.place()),
            (None, None) => b.place(),
        }
    }

    /// Where a blocked thread waits: its pending operation's line, or for a wait the line of
    /// its last `wait` on that object.
    fn blocked_place(&self, b: &Named) -> String {
        if b.line.is_some() {
            return b.place();
        }
        self.steps
            .iter()
            .rev()
            .find(|s| {
                s.step.thread == b.step.thread
                    && s.step.kind == OpKind::Wait
                    && s.step.target == b.step.target
            })
            .map_or_else(|| b.place(), Named::place)
    }

    /// The cause in a few lines, most important first.
    pub fn explanation(&self) -> Vec<String> {
        let verb = |k: OpKind| match k {
            OpKind::Read => "read",
            OpKind::Write => "wrote",
            other => other.as_str(),
        };
        let noun = |k: OpKind| match k {
            OpKind::Read => "read",
            OpKind::Write => "write",
            other => other.as_str(),
        };
        let mut out: Vec<String> = self.failed_task_line().into_iter().collect();
        out.extend(self.cause_lines(verb, noun));
        out.extend(self.sleep_note());
        out
    }

    /// The task whose failure the cause explains: `the failure follows a task's: t2
    /// (pool-1-thread-2)'s task threw java.lang.NullPointerException at Main.java:14, …`.
    fn failed_task_line(&self) -> Option<String> {
        let task = self.failed_task.as_ref()?;
        let at = task
            .at
            .as_ref()
            .map_or_else(String::new, |a| format!(" at {a}"));
        let class = task.what.split(':').next().unwrap_or(&task.what);
        Some(format!(
            "the failure follows a task's: {}'s task threw {class}{at}, its future kept it and \
             the program went on without the task's work; the task failed because of",
            self.who(task.thread),
        ))
    }

    /// A thread that slept before the access the cause ends with likely meant the sleep to
    /// wait for the other thread: say that a sleep orders nothing (rankcheck ends sleeps at
    /// once, so such a program fails even without a preemption).
    fn sleep_note(&self) -> Option<String> {
        let (last, other) = match &self.cause {
            Cause::Order { read, behind } => (*read, behind.first().copied()?),
            Cause::Race { first, second } => (*second, self.steps[*first].step.thread),
            _ => return None,
        };
        let thread = self.steps[last].step.thread;
        let slept = self.steps[..last]
            .iter()
            .rev()
            .find(|s| s.step.thread == thread && s.step.kind == OpKind::Sleep)?;
        Some(format!(
            "  {} slept at {} (step {}) before it: a sleep orders nothing between threads, and {} \
             can take longer than any sleep under load; wait for it (join, a latch, a future)",
            self.who(thread),
            slept.place(),
            slept.step.step,
            self.who(other)
        ))
    }

    /// The cause's own lines.
    fn cause_lines(
        &self,
        verb: impl Fn(OpKind) -> &'static str,
        noun: impl Fn(OpKind) -> &'static str,
    ) -> Vec<String> {
        match &self.cause {
            Cause::Atomicity {
                first,
                between,
                second,
                woke,
            } => {
                let (a, b, c) = (&self.steps[*first], &self.steps[*between], &self.steps[*second]);
                let mut out = vec![
                    format!(
                        "{}: {} {} {} at {} between {}'s {} at {} and its {} at {} (steps {}, {}, {})",
                        if woke.is_some() {
                            "stale condition"
                        } else {
                            "atomicity violation"
                        },
                        self.who(b.step.thread),
                        verb(b.step.kind),
                        b.what(),
                        b.place(),
                        self.who(a.step.thread),
                        noun(a.step.kind),
                        a.place(),
                        noun(c.step.kind),
                        c.place(),
                        a.step.step,
                        b.step.step,
                        c.step.step
                    ),
                    format!("  {}", in_methods(&[a, b, c])),
                ];
                if let Some(lock) = self.released_between(*first, *second) {
                    out.push(format!(
                        "  {} held the lock of {lock} at each of its two accesses but let it go \
                         between them: a lock makes each section atomic, not the two together",
                        self.who(a.step.thread)
                    ));
                }
                if let Some(w) = woke.map(|w| &self.steps[w]) {
                    out.push(format!(
                        "  {} checked before waiting and acted after it woke at {} (step {}) without checking again",
                        self.who(a.step.thread),
                        self.blocked_place(w),
                        w.step.step
                    ));
                }
                out
            }
            Cause::Order { read, behind } => {
                let r = &self.steps[*read];
                let who: Vec<String> = behind
                    .iter()
                    .map(|&t| {
                        // Steps before the read: a thread may have run after it.
                        let steps = self.steps[..*read]
                            .iter()
                            .filter(|s| s.step.thread == t)
                            .count();
                        let started = self
                            .steps
                            .iter()
                            .find(|s| s.step.kind == OpKind::Start && s.step.target == u64::from(t))
                            .map(|s| match s.line {
                                Some(_) => format!(", started at {} (step {})", s.place(), s.step.step),
                                // A start through a method reference or a JDK pool: no site.
                                None => format!(", started at step {}", s.step.step),
                            })
                            .unwrap_or_default();
                        if steps == 0 {
                            format!("{}{started} had not run yet", self.who(t))
                        } else {
                            format!("{}{started} had not finished", self.who(t))
                        }
                    })
                    .collect();
                vec![format!(
                    "order violation: {} read {} at {} (step {}) while {}",
                    self.who(r.step.thread),
                    r.what(),
                    r.place(),
                    r.step.step,
                    who.join(" and ")
                )]
            }
            Cause::Stages { writes, reads } => {
                let [w1, w2] = writes.map(|i| &self.steps[i]);
                let [r1, r2] = reads.map(|i| &self.steps[i]);
                let writer = self.who(w1.step.thread);
                // Each read with its location's write, and whether it came after it.
                let (r1_w, r2_w) = if r1.step.target == w1.step.target {
                    (w1, w2)
                } else {
                    (w2, w1)
                };
                let when = |r: &Named, w: &Named| {
                    let side = if w.step.step < r.step.step { "after" } else { "before" };
                    format!(
                        "{} at {} (step {}) {side} {writer}'s write of it at {} (step {})",
                        r.what(),
                        r.place(),
                        r.step.step,
                        w.place(),
                        w.step.step
                    )
                };
                vec![
                    format!(
                        "inconsistent view: {} read {}, and {}",
                        self.who(r1.step.thread),
                        when(r1, r1_w),
                        when(r2, r2_w)
                    ),
                    format!(
                        "  it saw one of {writer}'s two updates and not the other: each may be \
                         atomic, the two together are not ({})",
                        in_methods(&[w1, r1, r2, w2])
                    ),
                ]
            }
            Cause::Race { first, second } => {
                let (a, b) = (&self.steps[*first], &self.steps[*second]);
                vec![format!(
                    "data race: {} {} {} at {} (step {}) and {} {} it at {} (step {}); no synchronization orders the two",
                    self.who(a.step.thread),
                    verb(a.step.kind),
                    a.what(),
                    a.place(),
                    a.step.step,
                    self.who(b.step.thread),
                    verb(b.step.kind),
                    b.place(),
                    b.step.step
                )]
            }
            Cause::Deadlock { links, chain } => {
                let waits: Vec<String> = chain
                    .iter()
                    .map(|&i| {
                        let (l, b) = (&links[i], &self.blocked[links[i].blocked]);
                        let who = self.who(b.step.thread);
                        match (b.step.kind, l.holder) {
                            (OpKind::MonitorEnter, Some(h)) => format!(
                                "{who} waits for {} at {} held by {}",
                                b.what(),
                                self.blocked_at(b),
                                self.who(h)
                            ),
                            (OpKind::Join, Some(h)) => {
                                format!("{who} waits at {} to join {}", self.blocked_at(b), self.who(h))
                            }
                            (OpKind::ClassInitWait, Some(h)) => format!(
                                "{who} waits at {} for a class {} is initializing",
                                self.blocked_at(b),
                                self.who(h)
                            ),
                            (OpKind::WaitReturn, _) => format!(
                                "{who} waits on {} at {}, which nobody notifies",
                                b.what(),
                                self.blocked_place(b)
                            ),
                            (kind, _) => format!("{who} waits at {}", self.blocked_doing(b, kind)),
                        }
                    })
                    .collect();
                let closed = match (chain.first(), chain.last()) {
                    (Some(&f), Some(&l)) => {
                        links[l].holder == Some(self.blocked[links[f].blocked].step.thread)
                    }
                    _ => false,
                };
                let mut out = vec![if closed {
                    format!("deadlock cycle: {}", waits.join("; "))
                } else if !waits.is_empty() {
                    format!("deadlock: {}", waits.join("; "))
                } else {
                    format!("deadlock: {} thread(s) wait for ever", links.len())
                }];
                // The cycle first (monitors), then waits, joins last.
                let rank = |k: OpKind| match k {
                    OpKind::MonitorEnter => 0,
                    OpKind::WaitReturn => 1,
                    OpKind::Join => 3,
                    _ => 2,
                };
                let mut links: Vec<_> = links.iter().collect();
                links.sort_by_key(|l| (rank(self.blocked[l.blocked].step.kind), l.blocked));
                for l in links {
                    let b = &self.blocked[l.blocked];
                    let line = match b.step.kind {
                        OpKind::MonitorEnter => format!(
                            "  {} waits at {} for the lock of {}, held by {}{}",
                            self.who(b.step.thread),
                            self.blocked_at(b),
                            b.what(),
                            l.holder.map_or_else(|| "nobody".to_string(), |h| self.who(h)),
                            l.taken
                                .map(|i| format!(" since {} (step {})", self.steps[i].place(), self.steps[i].step.step))
                                .unwrap_or_default()
                        ),
                        OpKind::ClassInitWait => format!(
                            "  {} waits at {} for a class {} is initializing (a thread that touches a class another thread is initializing waits inside the JVM until it is done, JVMS §5.5)",
                            self.who(b.step.thread),
                            self.blocked_at(b),
                            l.holder.map_or_else(|| "another thread".to_string(), |h| self.who(h))
                        ),
                        OpKind::Join => format!(
                            "  {} waits at {} to join {}",
                            self.who(b.step.thread),
                            self.blocked_at(b),
                            l.holder.map_or_else(|| "?".to_string(), |h| self.who(h))
                        ),
                        OpKind::WaitReturn => format!(
                            "  {} waits on {} at {} and nobody notifies it",
                            self.who(b.step.thread),
                            b.what(),
                            self.blocked_place(b)
                        ),
                        other => format!(
                            "  {} waits at {}",
                            self.who(b.step.thread),
                            self.blocked_doing(b, other)
                        ),
                    };
                    // One thread waiting for nothing: the first line said it all.
                    if !waits.iter().any(|w| *w == line.trim_start()) {
                        out.push(line);
                    }
                }
                let mut idle: Vec<u32> = self
                    .blocked
                    .iter()
                    .map(|b| b.step.thread)
                    .filter(|t| self.idle_workers.contains(t))
                    .collect();
                idle.dedup();
                // Main at its end waits for the pool's workers only when main returned; while
                // the program is stuck elsewhere an idle worker is a bystander (its pool may
                // well be shut down later in the code).
                let main_ended = self
                    .blocked
                    .iter()
                    .any(|b| b.step.thread == 0 && b.step.kind == OpKind::Join && b.step.site == 0);
                if !idle.is_empty() {
                    let who: Vec<String> = idle.iter().map(|&t| self.who(t)).collect();
                    out.push(if main_ended {
                        format!(
                            "  {} waits for a task of a thread pool nobody shut down: the JVM \
                             cannot end while a pool keeps non-daemon workers (shutdown() ends \
                             them once their work is done)",
                            who.join(", ")
                        )
                    } else {
                        format!(
                            "  {} waits for its thread pool's next task (an idle worker, no part \
                             of what the others wait for)",
                            who.join(", ")
                        )
                    });
                }
                out
            }
            Cause::MissedSignal { notify, waiter } => {
                let n = &self.steps[*notify];
                let mut out = vec![format!(
                    "missed signal: {} {} {} at {} (step {}) when no thread waited on it",
                    self.who(n.step.thread),
                    signal_words(n).1,
                    n.what(),
                    n.place(),
                    n.step.step
                )];
                if let Some(w) = waiter.map(|w| &self.blocked[w]) {
                    out.push(format!(
                        "  {} waits on {} for ever since {}",
                        self.who(w.step.thread),
                        w.what(),
                        self.blocked_place(w)
                    ));
                }
                out
            }
            Cause::WastedNotify {
                notify,
                woke,
                rewait,
                waiter,
            } => {
                let (n, w, r) = (&self.steps[*notify], &self.steps[*woke], &self.steps[*rewait]);
                let b = &self.blocked[*waiter];
                let (signal, signalled, all) = signal_words(n);
                vec![
                    format!(
                        "wasted {signal}: {} {signalled} {} at {} (step {}), which woke {} (step {}), which waited again at {} (step {}); {} waits on it for ever since {}",
                        self.who(n.step.thread),
                        n.what(),
                        n.place(),
                        n.step.step,
                        self.who(w.step.thread),
                        w.step.step,
                        r.place(),
                        r.step.step,
                        self.who(b.step.thread),
                        self.blocked_place(b)
                    ),
                    format!("  {signal} wakes one waiter, any of them: {all} (or a condition per kind of waiter) wakes the one that can go on"),
                ]
            }
            Cause::LockSections {
                first,
                between,
                second,
            } => {
                let (a, b, c) = (&self.steps[*first], &self.steps[*between], &self.steps[*second]);
                vec![
                    format!(
                        "atomicity violation across lock sections: {} took the lock of {} at {} (step {}) between {}'s sections at {} (step {}) and at {} (step {})",
                        self.who(b.step.thread),
                        b.what(),
                        b.place(),
                        b.step.step,
                        self.who(a.step.thread),
                        a.place(),
                        a.step.step,
                        c.place(),
                        c.step.step
                    ),
                    format!(
                        "  each section is atomic, the two together are not: {}",
                        in_methods(&[a, b, c])
                    ),
                ]
            }
            Cause::Unknown => vec![
                "no conflicting accesses of two threads found in the steps: the failure does not come from a race rankcheck sees".to_string(),
            ],
        }
    }

    /// Consecutive steps of one thread, split around the steps the cause names.
    pub fn rows(&self) -> Vec<std::ops::Range<usize>> {
        let marked = self.highlighted();
        let mut rows: Vec<std::ops::Range<usize>> = Vec::new();
        for i in 0..self.steps.len() {
            let alone = marked.contains(&i) || (i > 0 && marked.contains(&(i - 1)));
            match rows.last_mut() {
                Some(r)
                    if !alone
                        && !self.steps[i].step.preempted
                        && self.steps[r.end - 1].step.thread == self.steps[i].step.thread =>
                {
                    r.end = i + 1
                }
                _ => rows.push(i..i + 1),
            }
        }
        rows
    }

    /// One row in words: `18-19  t2 (Thread-1)  Account.deposit  Account.java:12-15  read/write Account#1.balance`.
    pub fn row_text(&self, r: &std::ops::Range<usize>) -> (String, String, String, String, String) {
        let steps = &self.steps[r.clone()];
        let first = steps[0].step.step;
        let last = steps[steps.len() - 1].step.step;
        let range = if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        };
        let mut methods: Vec<&str> = Vec::new();
        let mut ops: Vec<&str> = Vec::new();
        let mut whats: Vec<String> = Vec::new();
        for s in steps {
            if s.step.site != 0 && !methods.contains(&s.method.as_str()) {
                methods.push(&s.method);
            }
            let op = match s.step.kind {
                OpKind::MonitorEnter => "lock",
                OpKind::MonitorExit => "unlock",
                other => other.as_str(),
            };
            if !ops.contains(&op) {
                ops.push(op);
            }
            let w = s.what();
            if !w.is_empty() && !whats.contains(&w) {
                whats.push(w);
            }
        }
        // Each file's line range, in the order the row reaches the files (a row may run through
        // a constructor in another class).
        let mut files: Vec<(&str, u32, u32)> = Vec::new();
        for s in steps {
            let Some(l) = s.line else { continue };
            match files.iter_mut().find(|(f, _, _)| *f == s.file) {
                Some((_, lo, hi)) => (*lo, *hi) = ((*lo).min(l), (*hi).max(l)),
                None => files.push((&s.file, l, l)),
            }
        }
        let places: Vec<String> = files
            .iter()
            .map(|(f, a, b)| {
                if a == b {
                    format!("{f}:{a}")
                } else {
                    format!("{f}:{a}-{b}")
                }
            })
            .collect();
        let cut = |v: Vec<String>| {
            if v.len() > 3 {
                format!("{}, … ({} more)", v[..3].join(", "), v.len() - 3)
            } else {
                v.join(", ")
            }
        };
        (
            range,
            self.who(steps[0].step.thread),
            cut(methods.iter().map(|s| s.to_string()).collect()),
            if places.is_empty() {
                "-".to_string()
            } else {
                cut(places)
            },
            format!("{} {}", ops.join("/"), cut(whats))
                .trim()
                .to_string(),
        )
    }

    /// The timeline's rows as text (after the explanation).
    pub fn timeline(&self) -> String {
        let marked = self.highlighted();
        let mut out = String::new();
        if self.omitted > 0 {
            out.push_str(&format!("({} earlier steps left out)\n", self.omitted));
        }
        out.push_str("  steps        thread              method                      line              what\n");
        for r in self.rows() {
            let (range, who, method, place, what) = self.row_text(&r);
            let mark = if r.clone().any(|i| marked.contains(&i)) {
                '>'
            } else if self.steps[r.start].step.preempted {
                '*'
            } else {
                ' '
            };
            out.push_str(&format!(
                "{mark} {range:<12} {who:<19} {method:<27} {place:<17} {what}\n"
            ));
        }
        for b in &self.blocked {
            out.push_str(&format!(
                "  blocked      {:<19} {:<27} {:<17} {} {}\n",
                self.who(b.step.thread),
                b.method,
                self.blocked_place(b),
                b.step.kind.as_str(),
                b.what()
            ));
        }
        out.push_str("\n'*': the thread was switched in while the one before could have gone on (a preemption); '>': a step the cause names.\n");
        out
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The content security policy of `report.html`: nothing is fetched, inline style and script
/// only.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/// At most this many rows (the last ones) are drawn in `report.html`.
const HTML_ROWS: usize = 3000;

/// `report.html`: one self-contained page; threads as lanes (columns), folded steps in order as
/// rows, the source line in each cell and every step on hover, preemptions and the cause's
/// steps highlighted, each thread's stack at the failure below.
pub fn html(story: &Story, message: &str, stacks: &Value) -> String {
    let marked = story.highlighted();
    let lanes = story.threads.len().max(
        story
            .steps
            .iter()
            .map(|s| s.step.thread as usize + 1)
            .max()
            .unwrap_or(0),
    );
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    h.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
    ));
    h.push_str("<title>rankcheck report</title>\n<style>\n");
    h.push_str(
        "body{font:13px/1.4 system-ui,sans-serif;margin:1em;color:#222}\n\
         h1{font-size:16px}\n\
         pre{font:12px monospace;white-space:pre-wrap}\n\
         #cause{background:#fff4d6;border:1px solid #e0b84c;padding:.5em 1em}\n\
         table.lanes{border-collapse:collapse;margin-top:1em}\n\
         table.lanes th{position:sticky;top:0;background:#eee;padding:4px 8px;border:1px solid #ccc}\n\
         table.lanes td{border:1px solid #e4e4e4;padding:2px 6px;vertical-align:top;font:12px monospace}\n\
         td.step{color:#888;text-align:right}\n\
         tr.preempt td{border-top:3px solid #c33}\n\
         td.on{background:#eef4ff}\n\
         td.on.race{background:#ffd0d0;font-weight:bold}\n\
         .blocked{background:#e8e8e8;font-style:italic}\n\
         .hl td.on{outline:2px solid #36c}\n",
    );
    h.push_str("</style></head><body>\n");
    h.push_str(&format!(
        "<h1>rankcheck: {}</h1>\n",
        esc(message.lines().next().unwrap_or(""))
    ));
    h.push_str("<div id=\"cause\"><pre>");
    h.push_str(&esc(&story.explanation().join("\n")));
    h.push_str("</pre></div>\n");
    let rows = story.rows();
    // A page stays readable: the last rows, where the failure is.
    let shown = &rows[rows.len().saturating_sub(HTML_ROWS)..];
    let hidden: usize = rows[..rows.len() - shown.len()]
        .iter()
        .map(|r| r.len())
        .sum();
    if story.omitted > 0 || hidden > 0 {
        h.push_str(&format!(
            "<p>{} earlier steps left out (timeline.txt has every step kept).</p>\n",
            story.omitted + hidden as u64
        ));
    }
    h.push_str("<p>Rows: consecutive steps of one thread. A red line above a row: a preemption. Red cells: the steps the cause names. Hover a cell for every step; click it to mark the steps on the same objects.</p>\n");
    h.push_str("<table class=\"lanes\"><thead><tr><th>steps</th>");
    for t in 0..lanes {
        h.push_str(&format!(
            "<th class=\"lane\" data-thread=\"{t}\">{}</th>",
            esc(&story.who(t as u32))
        ));
    }
    h.push_str("</tr></thead><tbody>\n");
    for r in shown {
        let (range, _, method, place, what) = story.row_text(r);
        let first = &story.steps[r.start];
        let race = r.clone().any(|i| marked.contains(&i));
        let title: Vec<String> = story.steps[r.clone()]
            .iter()
            .map(|s| {
                format!(
                    "{} {} {} {} ({})",
                    s.step.step,
                    s.step.kind.as_str(),
                    s.what(),
                    s.place(),
                    s.method
                )
            })
            .collect();
        let objects: Vec<String> = story.steps[r.clone()]
            .iter()
            .map(|s| s.what())
            .filter(|w| !w.is_empty())
            .collect();
        h.push_str(&format!(
            "<tr class=\"row{}\"><td class=\"step\">{}</td>",
            if first.step.preempted { " preempt" } else { "" },
            esc(&range)
        ));
        for t in 0..lanes {
            if t as u32 == first.step.thread {
                h.push_str(&format!(
                    "<td class=\"on{}\" data-steps=\"{}\" data-objects=\"{}\" title=\"{}\">{} <b>{}</b><br>{}</td>",
                    if race { " race" } else { "" },
                    esc(&range),
                    esc(&objects.join(" ")),
                    esc(&title.join("\n")),
                    esc(&method),
                    esc(&place),
                    esc(&what)
                ));
            } else {
                h.push_str("<td></td>");
            }
        }
        h.push_str("</tr>\n");
    }
    if !story.blocked.is_empty() {
        h.push_str("<tr class=\"row\"><td class=\"step\">end</td>");
        for t in 0..lanes {
            match story.blocked.iter().find(|b| b.step.thread as usize == t) {
                Some(b) => h.push_str(&format!(
                    "<td class=\"blocked\">blocked: {} {}<br>{}</td>",
                    esc(b.step.kind.as_str()),
                    esc(&b.what()),
                    esc(&story.blocked_place(b))
                )),
                None => h.push_str("<td></td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table>\n<h2>Stacks at the failure</h2>\n");
    for s in stacks.as_array().into_iter().flatten() {
        h.push_str(&format!(
            "<div class=\"stack\" data-thread=\"{}\"><b>{}</b> ({})<pre>",
            s["thread"],
            esc(&story.who(s["thread"].as_u64().unwrap_or(0) as u32)),
            esc(s["state"].as_str().unwrap_or(""))
        ));
        for f in s["frames"].as_array().into_iter().flatten() {
            h.push_str(&esc(f.as_str().unwrap_or("")));
            h.push('\n');
        }
        h.push_str("</pre></div>\n");
    }
    h.push_str(
        "<script>\n\
         document.querySelectorAll('td.on').forEach(function(td){\n\
           td.addEventListener('click',function(){\n\
             var mine=td.getAttribute('data-objects').split(' ');\n\
             document.querySelectorAll('tr.hl').forEach(function(r){r.classList.remove('hl');});\n\
             document.querySelectorAll('td.on').forEach(function(o){\n\
               var theirs=o.getAttribute('data-objects').split(' ');\n\
               if(mine[0]&&theirs.some(function(x){return mine.indexOf(x)>=0;}))o.parentNode.classList.add('hl');\n\
             });\n\
           });\n\
         });\n\
         document.body.setAttribute('data-ready','yes');\n\
         </script>\n",
    );
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use java_harness::hooks::SiteKind;
    use serde_json::json;

    fn site(id: i64, method: &str, line: u32, kind: SiteKind) -> (i64, SiteRecord) {
        let detail = match kind {
            SiteKind::FieldRead | SiteKind::FieldWrite => "account/Account.balance:I",
            _ => "-",
        };
        let rec = SiteRecord {
            id,
            class: "account/Account".into(),
            method: method.into(),
            descriptor: "(I)V".into(),
            bci: 0,
            line: Some(line),
            kind,
            detail: detail.into(),
        };
        (id, rec)
    }

    fn step(step: u64, thread: u32, op: &str, site: i64, preempted: bool) -> Value {
        json!({"step": step, "thread": thread, "op": op, "target": 77, "obj": 1,
               "class": "account.Account", "index": null, "site": site, "preempted": preempted})
    }

    #[test]
    fn steps_fold_into_rows_with_lines_and_the_lost_update_is_worded() {
        let sites: HashMap<i64, SiteRecord> = [
            site(10, "deposit", 12, SiteKind::FieldRead),
            site(11, "deposit", 15, SiteKind::FieldWrite),
        ]
        .into_iter()
        .collect();
        let result = json!({"message": "uncaught in thread t0 (main): boom", "steps_trace": {
        "threads": ["main", "Thread-0", "Thread-1"], "omitted": 0, "blocked": [],
        "steps": [
            step(16, 1, "read", 10, false),
            step(18, 2, "read", 10, true),
            step(19, 2, "write", 11, false),
            step(20, 1, "write", 11, false),
        ]}});
        let story = story(&result, &sites, &FieldFlags::default()).unwrap();
        assert_eq!(
            story.cause,
            Cause::Atomicity {
                first: 0,
                between: 2,
                second: 3,
                woke: None
            }
        );
        let first = &story.explanation()[0];
        assert!(
            first.starts_with(
                "atomicity violation: t2 (Thread-1) wrote Account#1.balance at Account.java:15 \
                 between t1 (Thread-0)'s read at Account.java:12 and its write at Account.java:15"
            ),
            "{first}"
        );
        // Each step the cause names is a row of its own (so is the step after one), so t2's
        // read and write are two rows here.
        let rows: Vec<_> = story.rows().iter().map(|r| story.row_text(r)).collect();
        assert_eq!(rows.len(), 4);
        assert_eq!(
            rows[1],
            (
                "18".to_string(),
                "t2 (Thread-1)".to_string(),
                "Account.deposit".to_string(),
                "Account.java:12".to_string(),
                "read Account#1.balance".to_string()
            )
        );
        let text = story.timeline();
        assert!(text.contains("* 18 "), "a preemption is starred:\n{text}");
        assert!(
            text.contains("> 19 "),
            "the cause's steps are marked:\n{text}"
        );
        let page = html(&story, "boom", &json!([]));
        assert!(page.contains(CSP) && page.matches("class=\"on race\"").count() == 3);
    }

    /// Two threads each start a shared thread if `getState() == NEW`: the failing one read
    /// `Thread.State.NEW` last, a JDK constant nobody writes. The cause names its read of the
    /// program's field instead.
    #[test]
    fn a_jdk_constant_read_is_never_the_cause() {
        let static_site = |id: i64, detail: &str| {
            let rec = SiteRecord {
                id,
                class: "p/Main".into(),
                method: "ensureStarted".into(),
                descriptor: "()V".into(),
                bci: 0,
                line: Some(7),
                kind: SiteKind::FieldRead,
                detail: detail.into(),
            };
            (id, rec)
        };
        let sites: HashMap<i64, SiteRecord> = [
            static_site(1, "p/Main.flusher:Ljava/lang/Thread;"),
            static_site(2, "java/lang/Thread$State.NEW:Ljava/lang/Thread$State;"),
        ]
        .into_iter()
        .collect();
        let at = |step: u64, thread: u32, op: &str, target: u64, site: i64| {
            json!({"step": step, "thread": thread, "op": op, "target": target, "obj": null,
                   "class": null, "index": null, "site": site, "preempted": false})
        };
        let result = json!({"message": "uncaught in thread t1", "steps_trace": {
        "threads": ["main", "Thread-1", "Thread-2", "Thread-0"], "omitted": 0, "blocked": [],
        "steps": [
            at(1, 0, "write", 50, 1),
            at(2, 0, "start", 1, 0),
            at(3, 0, "start", 2, 0),
            at(4, 1, "read", 50, 1),
            at(5, 2, "read", 50, 1),
            at(6, 2, "read", 60, 2),
            at(7, 2, "read", 50, 1),
            at(8, 2, "start", 3, 0),
            at(9, 2, "end", 2, 0),
            at(10, 1, "read", 60, 2),
            at(11, 1, "read", 50, 1),
        ]}});
        let story = story(&result, &sites, &FieldFlags::default()).unwrap();
        match &story.cause {
            Cause::Order { read, .. } => assert_eq!(story.steps[*read].step.step, 11),
            other => panic!("{other:?}"),
        }
        assert!(
            !story.explanation()[0].contains("NEW"),
            "{:?}",
            story.explanation()
        );
        // The same with the program's own `static final` in the JDK constant's place.
        let sites: HashMap<i64, SiteRecord> = [
            static_site(1, "p/Main.flusher:Ljava/lang/Thread;"),
            static_site(2, "p/Main.LIMIT:I"),
        ]
        .into_iter()
        .collect();
        let fields = FieldFlags {
            constants: ["p/Main.LIMIT".to_string()].into(),
            ..FieldFlags::default()
        };
        let told = super::story(&result, &sites, &fields).unwrap();
        match &told.cause {
            Cause::Order { read, .. } => assert_eq!(told.steps[*read].step.step, 11),
            other => panic!("{other:?}"),
        }
        let without = super::story(&result, &sites, &FieldFlags::default()).unwrap();
        assert!(
            matches!(&without.cause, Cause::Order { read, .. } if without.steps[*read].step.step == 10),
            "without the flag the constant's read is taken: {:?}",
            without.cause
        );
    }

    #[test]
    fn a_thread_blocked_in_the_jdk_is_placed_at_the_programs_call_and_idle_pools_are_named() {
        let (_, park) = site(
            50,
            "acquire",
            715,
            SiteKind::Call(java_harness::hooks::Hook::Park),
        );
        let park = SiteRecord {
            class: "java/util/concurrent/locks/AbstractQueuedSynchronizer".into(),
            ..park
        };
        let result = |frames: Value| {
            json!({"message": "deadlock", "stacks": [{"thread": 0, "name": "main", "frames": frames}],
            "steps_trace": {"threads": ["main"], "omitted": 0, "sites": [park.to_line()],
            "steps": [step(1, 0, "begin", 0, false)],
            "blocked": [step(2, 0, "park", 50, false)]}})
        };
        let told = story(
            &result(json!([
                "at java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire(AbstractQueuedSynchronizer.java:715)",
                "at java.util.concurrent.Semaphore.acquire(Semaphore.java:475)",
                "at p.Main.main(Main.java:20)"
            ])),
            &HashMap::new(),
            &FieldFlags::default(),
        )
        .unwrap();
        assert_eq!(
            told.explanation(),
            vec!["deadlock: t0 (main) waits at Main.java:20 (park in AbstractQueuedSynchronizer.java:715)"]
        );
        // A pool worker with nothing of the program on its stack, waiting for a task.
        let told = story(
            &result(json!([
                "at java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire(AbstractQueuedSynchronizer.java:715)",
                "at java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1062)",
                "at java.lang.Thread.run(Thread.java:840)"
            ])),
            &HashMap::new(),
            &FieldFlags::default(),
        )
        .unwrap();
        let lines = told.explanation();
        assert_eq!(
            lines[0],
            "deadlock: t0 (main) waits at AbstractQueuedSynchronizer.java:715 (park)"
        );
        assert!(
            lines[1].contains("waits for its thread pool's next task (an idle worker"),
            "{lines:?}"
        );
        assert_eq!(lines.len(), 2, "{lines:?}");
        // Main returned and waits at its end for the worker: the pool was never shut down.
        let ended = json!({"message": "deadlock",
            "stacks": [{"thread": 1, "name": "pool-1-thread-1", "frames": [
                "at java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1062)",
                "at java.lang.Thread.run(Thread.java:840)"]}],
            "steps_trace": {"threads": ["main", "pool-1-thread-1"], "omitted": 0,
            "sites": [park.to_line()],
            "steps": [step(1, 0, "begin", 0, false), step(2, 1, "begin", 0, false)],
            "blocked": [step(3, 0, "join", 0, false), step(3, 1, "park", 50, false)]}});
        let lines = story(&ended, &HashMap::new(), &FieldFlags::default())
            .unwrap()
            .explanation();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("thread pool nobody shut down")),
            "{lines:?}"
        );
    }

    #[test]
    fn a_conditions_wrong_wake_up_is_told_as_a_wasted_signal() {
        let cond = |id: i64, method: &str, bci: u32| {
            let (_, rec) = site(id, method, 0, SiteKind::FieldWrite);
            let rec = SiteRecord {
                class: CONDITION_CLASS.into(),
                bci,
                line: None,
                detail: format!("{CONDITION_CLASS}.sync"),
                ..rec
            };
            (id, rec)
        };
        let (_, park) = site(
            60,
            "block",
            506,
            SiteKind::Call(java_harness::hooks::Hook::Park),
        );
        let park = SiteRecord {
            class: "java/util/concurrent/locks/AbstractQueuedSynchronizer".into(),
            ..park
        };
        let sites: HashMap<i64, SiteRecord> = [
            cond(50, "await", 0),
            cond(51, "signal", 0),
            cond(52, "await", 40),
            (60, park),
        ]
        .into_iter()
        .collect();
        let on = |step: u64, thread: u32, op: &str, site: i64, line: u32| {
            let mut v = json!({"step": step, "thread": thread, "op": op, "target": 88,
                "obj": 5, "class": "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject",
                "index": null, "site": site, "preempted": false});
            v["caller"] =
                json!({"class": "p.Main", "method": "take", "file": "Main.java", "line": line});
            v
        };
        // Consumers t1 and t2 await; producer t3 signals, which wakes t1, which awaits again;
        // t2 awaits for ever.
        let result = json!({"message": "deadlock", "stacks": [],
            "steps_trace": {"threads": ["main", "c1", "c2", "p"], "omitted": 0, "sites": [],
            "steps": [on(1, 1, "write", 50, 34), on(2, 2, "write", 50, 34),
                      on(3, 3, "write", 51, 25), on(4, 1, "write", 52, 34),
                      on(5, 1, "write", 50, 34)],
            "blocked": [on(6, 1, "park", 60, 34), on(6, 2, "park", 60, 34)]}});
        let told = story(&result, &sites, &FieldFlags::default()).unwrap();
        assert_eq!(
            told.explanation()[0],
            "wasted signal: t3 (p) signalled Condition#5 at Main.java:25 (step 3), which woke t1 (c1) (step 4), which waited again at Main.java:34 (step 5); t2 (c2) waits on it for ever since Main.java:34"
        );
        // A signal before the only waiter awaited: a Condition is awaited in a loop that
        // checks first, so that is no cause; the deadlock is told as it is.
        let result = json!({"message": "deadlock", "stacks": [],
            "steps_trace": {"threads": ["main", "consumer"], "omitted": 0, "sites": [],
            "steps": [on(1, 0, "write", 51, 25), on(2, 1, "write", 50, 34)],
            "blocked": [on(3, 1, "park", 60, 34)]}});
        let told = story(&result, &sites, &FieldFlags::default()).unwrap();
        assert_eq!(
            told.explanation(),
            vec!["deadlock: t1 (consumer) waits at Main.java:34 (park in AbstractQueuedSynchronizer.java:506)"]
        );
    }

    #[test]
    fn sites_the_table_lacks_come_with_the_trace() {
        let (_, jdk) = site(40, "append", 305, SiteKind::SyncMethodEnter);
        let jdk = SiteRecord {
            class: "java/lang/StringBuffer".into(),
            ..jdk
        };
        let result = json!({"message": "deadlock", "steps_trace": {
        "threads": ["main", "Thread-0"], "omitted": 0, "blocked": [],
        "sites": [jdk.to_line()],
        "steps": [step(3, 1, "monitor-enter", 40, false)]}});
        let told = story(&result, &HashMap::new(), &FieldFlags::default()).unwrap();
        assert_eq!(told.steps[0].place(), "StringBuffer.java:305");
        assert_eq!(told.steps[0].method, "StringBuffer.append");
        // Without them the place is unknown.
        let bare = json!({"message": "deadlock", "steps_trace": {
        "threads": ["main", "Thread-0"], "omitted": 0, "blocked": [],
        "steps": [step(3, 1, "monitor-enter", 40, false)]}});
        let told = story(&bare, &HashMap::new(), &FieldFlags::default()).unwrap();
        assert_ne!(told.steps[0].place(), "StringBuffer.java:305");
    }

    #[test]
    fn a_threads_place_skips_bridges_and_hidden_lambda_classes() {
        let stacks = json!([{"thread": 1, "frames": [
            "at java.base/java.lang.Object.wait(Native Method)",
            "at p.Main$Registry$$Lambda$12/0x00007f0138001a08.run(Unknown Source)",
            "at p.Main.rankcheck$lock$0(Main.java)",
            "at p.Main$Registry.lambda$static$0(Main.java:9)"]}]);
        assert_eq!(program_frames(&stacks)[&1], "Main.java:9");
    }

    #[test]
    fn a_step_inside_the_jdk_is_placed_where_the_program_called_it() {
        let (_, get) = site(40, "get", 90, SiteKind::FieldRead);
        let get = SiteRecord {
            class: "java/util/concurrent/atomic/AtomicInteger".into(),
            ..get
        };
        let caller =
            json!({"class": "hotel.Main", "method": "book", "file": "Main.java", "line": 12});
        let mut called = step(3, 1, "read", 40, false);
        called["caller"] = caller.clone();
        let mut parked = step(4, 2, "park", 40, false);
        parked["caller"] = caller;
        let result = json!({"message": "deadlock", "steps_trace": {
        "threads": ["main", "Thread-0", "Thread-1"], "omitted": 0,
        "sites": [get.to_line()],
        "steps": [called, step(5, 1, "read", 40, false)],
        "blocked": [parked]}});
        let told = story(&result, &HashMap::new(), &FieldFlags::default()).unwrap();
        let s = &told.steps[0];
        assert_eq!(s.place(), "Main.java:12");
        assert_eq!(s.method, "Main.book");
        assert_eq!(
            in_methods(&[s]),
            "Main.java:12 in Main.book (AtomicInteger.get)"
        );
        // Compiled without line numbers (`-g:none`): the method once.
        let bare = Named {
            line: None,
            ..s.clone()
        };
        assert_eq!(in_methods(&[&bare]), "Main.book (AtomicInteger.get)");
        assert_eq!(
            told.blocked_at(&told.blocked[0]),
            "Main.java:12 (in AtomicInteger.java:90)"
        );
        // Without a caller the step stays at the JDK's line.
        assert_eq!(told.steps[1].place(), "AtomicInteger.java:90");
        assert_eq!(told.steps[1].method, "AtomicInteger.get");
    }

    #[test]
    fn a_row_through_several_files_names_each_files_lines() {
        let mut other = site(12, "<init>", 7, SiteKind::FieldWrite);
        other.1.class = "shop/Worker".into();
        let sites: HashMap<i64, SiteRecord> = [
            site(10, "deposit", 12, SiteKind::FieldRead),
            site(11, "deposit", 15, SiteKind::FieldWrite),
            other,
        ]
        .into_iter()
        .collect();
        let result = json!({"message": "uncaught in thread t0 (main): boom", "steps_trace": {
        "threads": ["main"], "omitted": 0, "blocked": [],
        "steps": [
            step(1, 0, "read", 10, false),
            step(2, 0, "write", 12, false),
            step(3, 0, "write", 11, false),
        ]}});
        let story = story(&result, &sites, &FieldFlags::default()).unwrap();
        let rows: Vec<_> = story.rows().iter().map(|r| story.row_text(r)).collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].3, "Account.java:12-15, Worker.java:7");
    }

    #[test]
    fn a_read_after_a_sleep_says_a_sleep_orders_nothing() {
        let sites: HashMap<i64, SiteRecord> = [
            site(10, "check", 20, SiteKind::FieldRead),
            site(11, "work", 8, SiteKind::FieldWrite),
            site(
                12,
                "check",
                19,
                SiteKind::Call(java_harness::hooks::Hook::Sleep),
            ),
        ]
        .into_iter()
        .collect();
        let told = |steps: Vec<Value>| {
            let result = json!({"message": "uncaught in thread t0 (main): boom", "steps_trace": {
            "threads": ["main", "Thread-0"], "omitted": 0, "blocked": [], "steps": steps}});
            story(&result, &sites, &FieldFlags::default())
                .unwrap()
                .explanation()
        };
        let slept = told(vec![
            step(3, 1, "write", 11, false),
            step(4, 0, "sleep", 12, false),
            step(5, 0, "read", 10, false),
        ]);
        assert!(slept[0].starts_with("data race"), "{slept:?}");
        assert!(
            slept[1].contains("t0 (main) slept at Account.java:19 (step 4) before it")
                && slept[1].contains("t1 (Thread-0) can take longer than any sleep"),
            "{slept:?}"
        );
        let awake = told(vec![
            step(3, 1, "write", 11, false),
            step(5, 0, "read", 10, false),
        ]);
        assert!(awake.iter().all(|l| !l.contains("slept")), "{awake:?}");
    }

    /// Main fails for want of a task's work; the task had failed into its future: the
    /// explanation is the task's failure, told from the steps before it.
    #[test]
    fn a_failure_after_a_task_failed_is_explained_by_the_task() {
        let mut sites: HashMap<i64, SiteRecord> = [
            site(10, "render", 19, SiteKind::FieldRead),
            site(11, "load", 16, SiteKind::FieldWrite),
        ]
        .into_iter()
        .collect();
        for (id, kind) in [(13, SiteKind::FieldWrite), (14, SiteKind::FieldRead)] {
            let (_, mut rec) = site(id, "runWorker", 30, kind);
            rec.detail = "account/Account.ready:Z".into();
            sites.insert(id, rec);
        }
        let fields = FieldFlags {
            volatile: ["account/Account.ready".to_string()].into(),
            ..FieldFlags::default()
        };
        let at = |step: u64, thread: u32, op: &str, target: u64, site: i64| {
            json!({"step": step, "thread": thread, "op": op, "target": target, "obj": null,
                   "index": null, "site": site, "preempted": false})
        };
        let steps = vec![
            at(1, 0, "start", 1, 0),
            at(2, 0, "start", 2, 0),
            at(3, 2, "read", 77, 10),
            at(4, 2, "write", 78, 13),
            at(5, 1, "read", 78, 14),
            at(6, 1, "write", 77, 11),
            at(7, 1, "end", 1, 0),
            at(8, 2, "end", 2, 0),
        ];
        let told = |failures: Value| {
            let result = json!({"message": "System.exit(1), expected exit status 0",
                "steps_trace": {"threads": ["main", "pool-1-thread-1", "pool-1-thread-2"],
                "omitted": 0, "blocked": [], "steps": steps, "task_failures": failures}});
            story(&result, &sites, &fields).unwrap()
        };
        let story = told(json!([{"thread": 2, "after_step": 3,
            "what": "java.lang.NullPointerException: boom",
            "at": "account.Account.render(Account.java:19)"}]));
        assert_eq!(
            story.cause,
            Cause::Order {
                read: 2,
                behind: vec![1]
            }
        );
        let lines = story.explanation();
        assert!(
            lines[0].starts_with(
                "the failure follows a task's: t2 (pool-1-thread-2)'s task threw \
                 java.lang.NullPointerException at Account.java:19"
            ),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("order violation"), "{lines:?}");
        // Without the task's failure nothing explains it.
        assert_eq!(told(json!([])).cause, Cause::Unknown);
    }
}
