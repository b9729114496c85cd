//! The contract between the runtime classes, the agent and the CLI beyond the hooks of
//! [`crate::hooks`]: the JNI natives of `rankcheck.rt.RC` and `rankcheck.harness.Agent` (name
//! and JVM descriptor), the static fields of `RC` the agent reads and writes (the quiet
//! stretch) with their bit values, the result codes of `RC.nWait`, and the `#tracked` lines of
//! a site table. Everything is written down here once; the Java side declares the same names
//! (RC.java, Agent.java), and a test of this crate reads the compiled classes and checks them
//! against these tables both ways, so a mismatch (undefined behaviour in JNI) cannot build.

/// A native method: its name and JVM descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Native {
    pub name: &'static str,
    pub descriptor: &'static str,
}

const fn native(name: &'static str, descriptor: &'static str) -> Native {
    Native { name, descriptor }
}

/// Internal name of `rankcheck.harness.Agent`, the repeat runner's side of the agent.
pub const AGENT_CLASS: &str = "rankcheck/harness/Agent";

/// The private natives of `rankcheck.rt.RC` (the hooks' agent-on side), registered by the
/// agent with JNI `RegisterNatives` before it turns the hooks on (`RC.on`).
pub const RC_NATIVES: &[Native] = &[
    native("nAccess", "(Ljava/lang/Object;IJZ)V"),
    native("nAllocated", "(Ljava/lang/Object;J)V"),
    native("nMonitorEnter", "(Ljava/lang/Object;J)V"),
    native("nMonitorExit", "(Ljava/lang/Object;J)V"),
    native("nWait", "(Ljava/lang/Object;JJ)I"),
    native("nWaitReturned", "(J)I"),
    native("nNotify", "(Ljava/lang/Object;ZJ)Z"),
    native("nThreadStart", "(Ljava/lang/Thread;J)Z"),
    native("nThreadStarted", "(Ljava/lang/Thread;)V"),
    native("nJoin", "(Ljava/lang/Thread;JJ)I"),
    native("nSleep", "(JJ)Z"),
    native("nYield", "(J)Z"),
    native("nInterrupt", "(Ljava/lang/Thread;J)Z"),
    native("nInterrupted", "(Ljava/lang/Thread;ZJ)I"),
    native("nThreadState", "(Ljava/lang/Thread;J)I"),
    native("nLiveThreads", "(J)I"),
    native("nPark", "(Ljava/lang/Object;JZJ)Z"),
    native("nUnpark", "(Ljava/lang/Thread;J)Z"),
    native("nExit", "(IJ)Z"),
    native("nIdentityHash", "(Ljava/lang/Object;J)I"),
    native("nClock", "(ZJ)J"),
    native("nRandomDouble", "(J)D"),
    native("nRandomSeed", "(J)J"),
    native("nAccessField", "(Ljava/lang/Object;JZJ)V"),
    native("nFieldKey", "(Ljava/lang/String;)J"),
    native("nUncontrolledCollection", "(Ljava/lang/Class;)Z"),
    native("nClassInitBegin", "(Ljava/lang/Class;J)V"),
    native("nTaskFailed", "(Ljava/lang/String;J)V"),
    native("nCasFailed", "(J)V"),
];

/// The natives of `rankcheck.harness.Agent` (the per-execution protocol of the harness),
/// exported by the agent library as `Java_rankcheck_harness_Agent_<name>`: `connect` is the
/// first call into the agent, before anything could register them.
pub const AGENT_NATIVES: &[Native] = &[
    native("connect", "()J"),
    native("loadSites", "(Ljava/lang/String;)Z"),
    native("nextExecution", "()J"),
    native("startExecution", "(Ljava/lang/Thread;)V"),
    native("awaitExecution", "()V"),
    native("uncaught", "(Ljava/lang/Thread;Ljava/lang/Throwable;Ljava/lang/String;)V"),
    native(
        "finishExecution",
        "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
    ),
    native("exitStatus", "()I"),
];

/// The JNI symbol a native of class `class` (internal name) is exported as, for names and
/// classes without `_`, `$` or non-ASCII characters (JNI's short name).
pub fn jni_symbol(class: &str, name: &str) -> String {
    format!("Java_{}_{name}", class.replace('/', "_"))
}

/// A static field of `RC` the agent reads or writes: its name and JVM descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StaticField {
    pub name: &'static str,
    pub descriptor: &'static str,
}

const fn field(name: &'static str, descriptor: &'static str) -> StaticField {
    StaticField { name, descriptor }
}

/// `RC.on`: set by the agent once the natives are bound; from then on the hooks are
/// scheduling points.
pub const RC_ON: StaticField = field("on", "Z");
/// `RC.quietThread`: the thread whose data accesses may pass in Java.
pub const QUIET_THREAD: StaticField = field("quietThread", "Ljava/lang/Thread;");
/// `RC.quietLeft`: how many more it may pass.
pub const QUIET_LEFT: StaticField = field("quietLeft", "J");
/// `RC.quietCovers`: what else a stretch covers ([`QUIET_COVERS_INTERRUPT_QUERIES`],
/// [`QUIET_COVERS_MONITORS`]).
pub const QUIET_COVERS: StaticField = field("quietCovers", "I");
/// `RC.quietHeldDepth`: how many monitors entered in the stretch are still held.
pub const QUIET_HELD_DEPTH: StaticField = field("quietHeldDepth", "I");
/// `RC.quietHeld`: those monitors, innermost last.
pub const QUIET_HELD: StaticField = field("quietHeld", "[Ljava/lang/Object;");

/// Every static field of `RC` the agent uses.
pub const RC_FIELDS: &[StaticField] = &[
    RC_ON,
    QUIET_THREAD,
    QUIET_LEFT,
    QUIET_COVERS,
    QUIET_HELD_DEPTH,
    QUIET_HELD,
];

/// Bit of `RC.quietCovers` (`RC.COVERS_INTERRUPT_QUERIES`): the quiet thread's own interrupt
/// queries pass while its model flag is clear.
pub const QUIET_COVERS_INTERRUPT_QUERIES: i32 = 1;
/// Bit of `RC.quietCovers` (`RC.COVERS_MONITORS`): monitor enters pass while no other thread
/// owns a monitor in the model.
pub const QUIET_COVERS_MONITORS: i32 = 2;

/// `RC.nWait`'s answers (`RC.WAIT_PASS` …): the thread is not under control (do the real
/// wait); the modelled wait is over; wait in the real `wait()` and ask again.
pub const WAIT_PASS: i32 = 0;
pub const WAIT_DONE: i32 = 1;
pub const WAIT_REAL: i32 = 2;

/// The `static final int` constants of `RC` that must equal this module's.
pub const RC_CONSTANTS: &[(&str, i32)] = &[
    ("COVERS_INTERRUPT_QUERIES", QUIET_COVERS_INTERRUPT_QUERIES),
    ("COVERS_MONITORS", QUIET_COVERS_MONITORS),
    ("WAIT_PASS", WAIT_PASS),
    ("WAIT_DONE", WAIT_DONE),
    ("WAIT_REAL", WAIT_REAL),
];

// ---- the #tracked table ----------------------------------------------------------------------

/// How every `#tracked` line of a site table starts. A class path instrumented for a variable
/// set carries them (written by the CLI, read by the agent's run-time naming): the set, each
/// tracked static under every `owner.name:descriptor` a site uses for it, each tracked
/// allocation site by key with the JVM signature of what it makes. Fields are tab-separated.
pub const TRACKED_PREFIX: &str = "#tracked";

/// One `#tracked` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrackedLine<'a> {
    /// `#tracked\tset\t3,7`: the variable set (its ids are for people; the agent only notes
    /// that the table exists).
    Set,
    /// `#tracked\tstatic\towner.name:descriptor`.
    Static { detail: &'a str },
    /// `#tracked\talloc\tclass\tmethod\tdescriptor\tbci\tsignature` (`bci` `None` when it does
    /// not parse).
    Alloc {
        class: &'a str,
        method: &'a str,
        descriptor: &'a str,
        bci: Option<u32>,
        signature: &'a str,
    },
}

impl TrackedLine<'_> {
    /// Reads one site-table line; `None` for a line that is not a `#tracked` line this format
    /// knows.
    pub fn parse(line: &str) -> Option<TrackedLine<'_>> {
        let rest = line.strip_prefix(TRACKED_PREFIX)?;
        let fields: Vec<&str> = rest.trim_start_matches('\t').split('\t').collect();
        match fields.as_slice() {
            ["set", ..] => Some(TrackedLine::Set),
            ["static", detail] => Some(TrackedLine::Static { detail }),
            ["alloc", class, method, descriptor, bci, signature] => Some(TrackedLine::Alloc {
                class,
                method,
                descriptor,
                bci: bci.parse().ok(),
                signature,
            }),
            _ => None,
        }
    }
}

/// The `set` line of the variable set `ids` (sorted, without repeats).
pub fn tracked_set_line(ids: &[u32]) -> String {
    let list: Vec<String> = ids.iter().map(u32::to_string).collect();
    format!("{TRACKED_PREFIX}\tset\t{}", list.join(","))
}

/// The line of a tracked static named `owner.name:descriptor`.
pub fn tracked_static_line(detail: &str) -> String {
    format!("{TRACKED_PREFIX}\tstatic\t{detail}")
}

/// The line of a tracked allocation site (class, method, descriptor, bytecode index) making
/// objects of JVM signature `signature`.
pub fn tracked_alloc_line(
    class: &str,
    method: &str,
    descriptor: &str,
    bci: u32,
    signature: &str,
) -> String {
    format!("{TRACKED_PREFIX}\talloc\t{class}\t{method}\t{descriptor}\t{bci}\t{signature}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracked_lines_read_back_what_was_written() {
        assert_eq!(tracked_set_line(&[0, 3]), "#tracked\tset\t0,3");
        assert_eq!(
            TrackedLine::parse(&tracked_set_line(&[])),
            Some(TrackedLine::Set)
        );
        let s = tracked_static_line("p/Main.count:I");
        assert_eq!(
            TrackedLine::parse(&s),
            Some(TrackedLine::Static {
                detail: "p/Main.count:I"
            })
        );
        let a = tracked_alloc_line("p/Main", "main", "([Ljava/lang/String;)V", 12, "Lp/Cell;");
        assert_eq!(
            a,
            "#tracked\talloc\tp/Main\tmain\t([Ljava/lang/String;)V\t12\tLp/Cell;"
        );
        assert_eq!(
            TrackedLine::parse(&a),
            Some(TrackedLine::Alloc {
                class: "p/Main",
                method: "main",
                descriptor: "([Ljava/lang/String;)V",
                bci: Some(12),
                signature: "Lp/Cell;"
            })
        );
        assert_eq!(TrackedLine::parse("#tracked\tstatic"), None);
        assert_eq!(TrackedLine::parse("0000\tp/Main"), None);
    }

    #[test]
    fn native_names_are_unique() {
        for table in [RC_NATIVES, AGENT_NATIVES] {
            let mut names: Vec<_> = table.iter().map(|n| n.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), table.len());
        }
    }
}
