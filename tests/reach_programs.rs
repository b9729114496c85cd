//! Where Java developers' concurrency lives: races inside the JDK's collections, parallel
//! streams on the common fork/join pool, `CompletableFuture.supplyAsync`, a word count on a
//! `ConcurrentHashMap`, a check-then-add on a `Vector`, a lock-order deadlock through
//! `Collections.synchronizedList`, a deadlock inside `StringBuffer`'s own synchronized methods,
//! a check-then-act across two calls of a `StringBuffer` and of a `Hashtable` (also typed as a
//! `Map`), a lost update by tasks whose results an `ExecutorCompletionService` collects, one
//! by callbacks of futures with deadlines (`completeOnTimeout`, `orTimeout`), and a
//! check-then-act across two calls of a `ConcurrentHashMap` and of a `ConcurrentLinkedQueue`,
//! and a `SimpleDateFormat` two pool workers share.
//! End to end on a real JVM with programs of `tests/programs`:
//!
//! * each bug is found within 2,000 executions and replayed in a fresh JVM (exit 1), and
//!   `rankcheck replay` of its report reproduces it, at the default processor count and with
//!   `--cpus 4` (then `supplyAsync` and parallel streams run on the common pool's workers);
//! * each fixed variant gets no report and no inconclusive execution in 2,000 executions at
//!   `--cpus 4` (before the common pool was renewed per execution, its second execution waited
//!   for a worker that never came);
//! * with `--jdk-collections off` the HashMap race is invisible, which is what the flag is for.

mod cli_support;

use cli_support::{javac, rankcheck, root, scratch, test_classes, LIMIT};
use serde_json::Value;
use std::path::Path;

/// The buggy programs, with a piece of their failure message (pieces separated by `|`: any of
/// them, where one race shows in more than one way).
const BUGGY: &[(&str, &str)] = &[
    ("SharedHashMapPuts", "expected 8 entries"),
    // Two adds racing inside ArrayList.add lose an element, or one writes past the array the
    // other has not grown yet.
    (
        "ParallelStreamAdd",
        "expected 8 squares|ArrayIndexOutOfBoundsException",
    ),
    ("WordCountComputeIfAbsent", "'be' counted"),
    ("SupplyAsyncTotal", "but the prices add up to"),
    // Synchronized methods of a JDK class: before Vector's were desugared into the model's
    // monitors, no switch happened inside the check-then-add and the bug was never seen.
    ("VectorCheckThenAct", "duplicate member"),
    // Collections.synchronizedList locks in JDK code: before those blocks were modelled, the
    // program's lock on the list and the list's own lock were different locks to rankcheck.
    (
        "SyncListLockOrder",
        "monitorenter on java.util.Collections$SynchronizedRandomAccessList",
    ),
    // StringBuffer's synchronized methods stay real monitors (the class loads before the
    // agent): before the model learnt of them from the JVM's contention events, a thread
    // stopped inside toString() left the other blocked where rankcheck could not see (exit 3).
    (
        "LedgerToStringDeadlock",
        "monitorenter on java.lang.StringBuffer",
    ),
    // Two calls of a JDK class whose synchronized methods keep real monitors: before the
    // rewriter wrapped such calls in the model's monitor of the receiver, nothing was a
    // scheduling point between the check and the act, and 500 executions found nothing.
    ("StringBufferCheckThenAppend", "code padded twice"),
    ("HashtableCheckThenPut", "2 welcome mails for 1 account(s)"),
    // The same through `Map`: `invokeinterface Map.containsKey/put`, which were not wrapped
    // before the bridges learnt to check the receiver's class (500 executions, nothing found).
    (
        "MapHashtableCheckThenPut",
        "2 servers launched for 1 registered service(s)",
    ),
    // Results taken from an ExecutorCompletionService, whose queue is filled through
    // `AbstractQueue.add`: before such forwarding JDK frames passed the program's use through,
    // the add woke the taker only in the JVM and every execution was a false deadlock.
    ("CompletionTotals", "but the total is"),
    // Deadlines through CompletableFuture's delay scheduler (one per JVM): before it was
    // renewed per execution, the fixed variant was a false deadlock from execution 2 on.
    ("QuoteTimeouts", "answered"),
    // Check-then-acts across two calls of collections whose own code has no scheduling point
    // (the agent leaves ConcurrentHashMap and the lock-free queues unrewritten): before each
    // program call of one became a point, 2,000 executions found neither (the queue's search
    // saw one happens-before graph).
    ("SessionCacheCheckThenPut", "tokens issued for one user"),
    ("JobQueueCheckThenPoll", "Queue.poll()"),
    // A format that keeps the value being formatted in its own fields: before the JDK's
    // formats and calendars were rewritten like the collections, 1,000 executions of a shared
    // SimpleDateFormat found nothing and nothing warned.
    ("SharedDateFormat", "wrong date on log line"),
    // A digest that keeps the bytes hashed so far in its own buffer: before the JDK's digests
    // were rewritten with the formats, 300 executions of a shared MessageDigest found nothing.
    ("SharedDigest", "checksum mismatch"),
    // Check-then-acts across two calls of thread-safe collections that take a lock of their
    // own (LinkedBlockingQueue, CopyOnWriteArrayList): found before, but explained "no
    // conflicting accesses", since the queue's accesses are the library's own.
    ("PrintQueueCheckThenPoll", "NullPointerException"),
    ("ListenerCheckThenAdd", "listener registered twice"),
    // A pool task that dies of a NullPointerException its Future keeps (nobody calls get):
    // main fails later for want of its work. Before tasks' failures were noted, the report
    // said "no conflicting accesses".
    ("TemplateTaskSwallowed", "System.exit(1)"),
    // Check-then-acts across two calls that each hold a lock: the program's own synchronized
    // methods, a synchronizedMap. Every access is ordered by the lock; before the causes
    // looked at the sections, both were explained "no conflicting accesses".
    ("AccountCheckThenDebit", "overdrawn"),
    ("SyncMapCheckThenPut", "claimed by"),
    // A Condition's wasted signal: before its await and signal were told as a monitor's wait
    // and notify, it was a plain deadlock (who waits where).
    ("PrintSpoolerSignal", "deadlock"),
];

/// Check-then-acts across two calls of a JDK class whose state rankcheck does not see: the
/// cause is the other thread's lock section between the two calls (before, "no conflicting
/// accesses").
const ACROSS_CALLS: &[&str] = &[
    "StringBufferCheckThenAppend",
    "HashtableCheckThenPut",
    "MapHashtableCheckThenPut",
];

/// Check-then-acts across two calls of a thread-safe collection: the cause names the
/// collection and the program's lines of the check and the act.
const CALL_LEVEL: &[(&str, &str, &str)] = &[
    (
        "PrintQueueCheckThenPoll",
        "LinkedBlockingQueue",
        "read at Main.java:21 and its write at Main.java:22",
    ),
    (
        "ListenerCheckThenAdd",
        "CopyOnWriteArrayList",
        "read at Main.java:11 and its write at Main.java:12",
    ),
];

/// Explanations that must hold each of these pieces. A failure that follows a task's failure
/// kept in its future: the explanation names the task's throwable and explains it (here: the
/// read before the loader ran). Check-then-acts across lock sections: the stale check and the
/// act, or the sections.
const EXPLAINED: &[(&str, &[&str])] = &[
    (
        "PrintSpoolerSignal",
        &[
            "wasted signal",
            "which waited again at Main.java:",
            "signalAll (or a condition per kind of waiter)",
        ],
    ),
    (
        "AccountCheckThenDebit",
        &[
            "atomicity violation",
            "'s read at Main.java:17 and its write at Main.java:21",
            "let it go between them",
        ],
    ),
    (
        "SyncMapCheckThenPut",
        &[
            "atomicity violation across lock sections",
            "Collections$SynchronizedMap",
            "sections at Main.java:19",
        ],
    ),
    (
        "TemplateTaskSwallowed",
        &[
            "the failure follows a task's",
            "java.lang.NullPointerException at Main.java:19",
            "order violation",
            "read Main.templates at Main.java:19",
        ],
    ),
];

/// `rankcheck test --manifest tests/programs/NAME --json EXTRA…` in `cwd`: exit code and JSON.
fn search(cwd: &Path, name: &str, extra: &[&str]) -> (i32, Value, String) {
    let manifest = root().join("tests/programs").join(name);
    let mut args = vec!["test", "--manifest", manifest.to_str().unwrap(), "--json"];
    args.extend(extra);
    let ran = rankcheck(cwd, &args, LIMIT);
    let json: Value = serde_json::from_str(ran.stdout.trim())
        .unwrap_or_else(|e| panic!("{name}: stdout is not JSON ({e}):\n{}", ran.both()));
    (ran.code, json, ran.both())
}

#[test]
fn collection_stream_and_pool_bugs_are_found_and_replayed() {
    let dir = scratch("reach-buggy");
    for &(name, needle) in BUGGY {
        for cpus in [None, Some("4")] {
            let out = format!("out-{name}-{}", cpus.unwrap_or("machine"));
            let mut extra = vec!["--budget", "2000", "--seed", "1", "--out", &out];
            if let Some(n) = cpus {
                extra.extend(["--cpus", n]);
            }
            // The explanations checked below come from the minimal schedule; the others need
            // only the replayed find.
            let explained = ACROSS_CALLS.contains(&name)
                || CALL_LEVEL.iter().any(|(n, ..)| *n == name)
                || EXPLAINED.iter().any(|(n, _)| *n == name);
            if !explained {
                extra.push("--no-minimize");
            }
            let (code, json, both) = search(&dir, name, &extra);
            assert_eq!(
                code, 1,
                "{name} cpus {cpus:?}: expected a replayed bug\n{both}"
            );
            let bug = &json["bugs"][0];
            let message = bug["message"].as_str().unwrap_or_default();
            assert!(
                needle.split('|').any(|n| message.contains(n)),
                "{name}: not the planted failure: {message}"
            );
            let report = bug["report"].as_str().expect("a report folder");
            if ACROSS_CALLS.contains(&name) {
                let why = std::fs::read_to_string(Path::new(report).join("explanation.txt"))
                    .unwrap_or_default();
                assert!(
                    why.contains("atomicity violation across lock sections"),
                    "{name}: the cause should name the two lock sections\n{why}"
                );
            }
            if let Some((_, class, lines)) = CALL_LEVEL.iter().find(|(n, ..)| *n == name) {
                let why = std::fs::read_to_string(Path::new(report).join("explanation.txt"))
                    .unwrap_or_default();
                assert!(
                    why.contains("atomicity violation")
                        && why.contains(class)
                        && why.contains(lines),
                    "{name}: the cause should be the check and the act on the {class}\n{why}"
                );
            }
            if let Some((_, pieces)) = EXPLAINED.iter().find(|(n, _)| *n == name) {
                let why = std::fs::read_to_string(Path::new(report).join("explanation.txt"))
                    .unwrap_or_default();
                let missing: Vec<_> = pieces.iter().filter(|p| !why.contains(*p)).collect();
                assert!(
                    missing.is_empty(),
                    "{name}: the explanation lacks {missing:?}\n{why}"
                );
            }
            let replay = rankcheck(&dir, &["replay", report], LIMIT);
            assert_eq!(
                replay.code,
                1,
                "{name}: rankcheck replay {report} did not reproduce it\n{}",
                replay.both()
            );
        }
    }
}

#[test]
fn fixed_variants_get_no_report_and_stay_under_control() {
    let dir = scratch("reach-fixed");
    for &(name, _) in BUGGY {
        let fixed = format!("{name}Fixed");
        let (code, json, both) = search(
            &dir,
            &fixed,
            &["--budget", "2000", "--cpus", "4", "--out", "out"],
        );
        assert_eq!(code, 0, "{fixed}: expected no report\n{both}");
        assert_eq!(json["executions"], 2000, "{fixed}: {both}");
        assert_eq!(
            json["inconclusive"],
            serde_json::json!([]),
            "{fixed}: {both}"
        );
    }
}

#[test]
fn without_collection_points_the_hashmap_race_is_invisible() {
    let dir = scratch("reach-off");
    let (code, json, both) = search(
        &dir,
        "SharedHashMapPuts",
        &[
            "--budget",
            "300",
            "--jdk-collections",
            "off",
            "--out",
            "out",
        ],
    );
    assert_eq!(code, 0, "{both}");
    assert_eq!(json["executions"], 300, "{both}");
}

/// A thread stopped at a scheduling point inside a synchronized JDK method that keeps its real
/// monitor (`StringBuffer.append` calling `toString`, `Hashtable.put` calling `hashCode`) while
/// the other thread wants the same monitor: the model learns of the monitor and runs the
/// holder, so every execution has a verdict. Before, most executions ended "blocked where
/// rankcheck cannot see" (exit 3).
#[test]
fn threads_stopped_inside_synchronized_jdk_methods_stay_under_control() {
    let dir = scratch("reach-real-monitors");
    let (code, json, both) = search(
        &dir,
        "SharedJournal",
        &["--budget", "2000", "--seed", "1", "--out", "out"],
    );
    assert_eq!(code, 0, "SharedJournal: expected no report\n{both}");
    assert_eq!(json["executions"], 2000, "{both}");
    assert_eq!(json["inconclusive"], serde_json::json!([]), "{both}");
}

/// The search's first bug is the iteration's `ConcurrentModificationException`, and its report
/// replays.
fn modification_found_and_replayed(dir: &Path, json: &Value, both: &str) {
    let bug = &json["bugs"][0];
    assert!(
        bug["message"]
            .as_str()
            .unwrap_or_default()
            .contains("ConcurrentModificationException"),
        "{both}"
    );
    let report = bug["report"].as_str().expect("a report folder");
    let replay = rankcheck(dir, &["replay", report], LIMIT);
    assert_eq!(replay.code, 1, "{}", replay.both());
}

/// `--jdk-collections all`: main's operations on a list that the delivery thread touches only
/// later are scheduling points too, so the add between two steps of main's iteration (a
/// ConcurrentModificationException) is explored and replayed; the fixed variant (a
/// copy-on-write list) stays clean. (With the default `on`, main's accesses come before a
/// second thread touched the list and are no points: the README says so.)
#[test]
fn all_collection_points_find_an_iteration_a_later_add_breaks() {
    let dir = scratch("reach-collections-all");
    let (code, json, both) = search(
        &dir,
        "IterateWhileAdding",
        &[
            "--jdk-collections",
            "all",
            "--budget",
            "2000",
            "--seed",
            "1",
            "--out",
            "out",
        ],
    );
    assert_eq!(code, 1, "{both}");
    modification_found_and_replayed(&dir, &json, &both);
    let (code, json, both) = search(
        &dir,
        "IterateWhileAddingFixed",
        &[
            "--jdk-collections",
            "all",
            "--budget",
            "2000",
            "--out",
            "out-fixed",
        ],
    );
    assert_eq!(code, 0, "{both}");
    assert_eq!(json["executions"], 2000, "{both}");
}

/// With `on` named, the search that cannot see the iteration's bug says so: main used the list
/// alone while the delivery thread, which touched it later, was running, so the result warns
/// (and names `--jdk-collections all`). By default such a search is run again with `all`, which
/// finds the bug, and the replay (with `all`, from the report) reproduces it. A program whose
/// collections are shared only after their first thread is done with them, or under a lock,
/// gets neither. Before, exit 0 came with nothing said; then with a warning only.
#[test]
fn a_collection_used_alone_while_its_later_user_ran_is_searched_again() {
    let dir = scratch("reach-collections-blind");
    let (code, json, both) = search(
        &dir,
        "IterateWhileAdding",
        &[
            "--jdk-collections",
            "on",
            "--budget",
            "100",
            "--seed",
            "1",
            "--out",
            "out",
        ],
    );
    assert_eq!(code, 0, "`on` misses it (see the README)\n{both}");
    let warning = json["alone_then_shared"].as_str().unwrap_or_default();
    assert!(
        warning.contains("100 of 100 execution(s)") && warning.contains("--jdk-collections all"),
        "{both}"
    );
    assert!(both.contains("warning: in 100 of 100"), "{both}");
    assert_eq!(json["escalated_from"], Value::Null, "{both}");
    let (code, json, both) = search(
        &dir,
        "IterateWhileAdding",
        &["--budget", "100", "--seed", "1", "--out", "out-default"],
    );
    assert_eq!(code, 1, "the second search, with all, finds it\n{both}");
    assert!(
        both.contains("searching again with --jdk-collections all"),
        "{both}"
    );
    assert_eq!(json["escalated_from"]["executions"], 100, "{both}");
    modification_found_and_replayed(&dir, &json, &both);
    for fixed in [
        "IterateWhileAddingFixed",
        "SharedHashMapPutsFixed",
        "ParallelStreamAddFixed",
        "SessionCacheCheckThenPutFixed",
        // Lists handed to main through futures, and the JDK's own shared objects inside
        // SimpleDateFormat: before a future's completion was a synchronizing operation and
        // only collections' own objects counted, every execution said it.
        "SharedDateFormatFixed",
        "SharedDigestFixed",
        "AsyncReportHandOff",
    ] {
        // The default and pos: under pos, SharedDateFormatFixed's main read a worker's list
        // after `get` in 6 of 100 executions (AsyncReportHandOff's after `join`: 16) with no happens-before from the worker's work
        // (the `get` had checked for an interrupt while the task completed, then found it
        // done without parking: no unpark ordered them), and the warning started a second
        // search for nothing, in every default search.
        for strategy in ["portfolio", "pos"] {
            let (code, json, both) = search(
                &dir,
                fixed,
                &[
                    "--budget",
                    "100",
                    "--seed",
                    "1",
                    "--strategy",
                    strategy,
                    "--out",
                    "out-fixed",
                ],
            );
            assert_eq!(code, 0, "{fixed} {strategy}: {both}");
            assert_eq!(
                json["alone_then_shared"],
                Value::Null,
                "{fixed} {strategy}: {both}"
            );
            assert_eq!(
                json["escalated_from"],
                Value::Null,
                "{fixed} {strategy}: {both}"
            );
        }
    }
}

/// The correct program `source` (class `Main` of package `package`) gets no blind-spot warning
/// and no second search in `budget` executions.
fn no_blind_spot(package: &str, source: &str, budget: &str) {
    let dir = scratch(&format!("reach-{package}"));
    let file = format!("{package}/Main.java");
    let classes = javac(&dir, &[(file.as_str(), source)]);
    let main = format!("{package}.Main");
    let (ran, json) = test_classes(&dir, &classes, &main, &["--budget", budget, "-j", "1"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(json["alone_then_shared"], Value::Null, "{}", ran.both());
    assert_eq!(json["escalated_from"], Value::Null, "{}", ran.both());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A table a static initializer fills and threads then read: code a static initializer runs is
/// never preempted (with any `--jdk-collections`), so its uses alone are no blind spot — no
/// warning, and no second search. Before, every execution said it and the search ran twice.
#[test]
fn a_collection_filled_by_a_static_initializer_is_no_blind_spot() {
    let source = "package codes;\n\
        import java.util.HashMap;\n\
        import java.util.Map;\n\
        public class Main {\n\
        static class Registry {\n\
        static final Map<String, Integer> CODES = new HashMap<>();\n\
        static { for (int i = 0; i < 5; i++) CODES.put(\"c\" + i, i); }\n\
        static int code(String k) { return CODES.get(k); }\n\
        }\n\
        public static void main(String[] args) throws Exception {\n\
        int[] got = new int[2];\n\
        Thread a = new Thread(() -> got[0] = Registry.code(\"c3\"));\n\
        Thread b = new Thread(() -> got[1] = Registry.code(\"c4\"));\n\
        a.start(); b.start(); a.join(); b.join();\n\
        if (got[0] != 3 || got[1] != 4) throw new IllegalStateException(got[0] + \" \" + got[1]);\n\
        }\n\
        }\n";
    no_blind_spot("codes", source, "100");
}

/// A map main fills while a reader thread already runs, then publishes through a volatile flag;
/// both threads then only read it. The reader's reads conflict with main's writes alone, which
/// happen before them through the flag; main's own reads after publishing conflict with
/// nothing. Before, the check looked at main's last read instead of its last write and warned
/// (and searched again) in 388 of 1,000 executions.
#[test]
fn a_map_published_through_a_volatile_then_only_read_is_no_blind_spot() {
    let source = "package prices;\n\
        import java.util.HashMap;\n\
        import java.util.Map;\n\
        public class Main {\n\
        static Map<String, Integer> prices;\n\
        static volatile boolean loaded;\n\
        public static void main(String[] args) throws Exception {\n\
        Thread shopper = new Thread(() -> {\n\
        while (!loaded) Thread.yield();\n\
        if (prices.get(\"tea\") != 3) throw new IllegalStateException(\"tea \" + prices);\n\
        });\n\
        shopper.start();\n\
        Map<String, Integer> m = new HashMap<>();\n\
        m.put(\"tea\", 3);\n\
        m.put(\"milk\", 2);\n\
        prices = m;\n\
        loaded = true;\n\
        System.out.println(\"milk costs \" + prices.get(\"milk\"));\n\
        shopper.join();\n\
        }\n\
        }\n";
    no_blind_spot("prices", source, "300");
}

/// A producer fills a list and swaps it for the consumer's empty one through an `Exchanger`;
/// the consumer sums the full list and clears it for the next round. The exchange orders the
/// producer's adds before the consumer's reads whichever thread arrives first: the one that
/// waits may take the item by spinning, without parking, so the exchange also announces itself
/// as it returns. Before, 723 of 1,000 executions said a list was used alone while the other
/// thread ran, and the search ran twice.
#[test]
fn lists_swapped_through_an_exchanger_are_no_blind_spot() {
    let source = "package swap;\n\
        import java.util.ArrayList;\n\
        import java.util.List;\n\
        import java.util.concurrent.Exchanger;\n\
        public class Main {\n\
        public static void main(String[] args) throws Exception {\n\
        Exchanger<List<Integer>> exchanger = new Exchanger<>();\n\
        int[] total = new int[1];\n\
        Thread consumer = new Thread(() -> {\n\
        List<Integer> mine = new ArrayList<>();\n\
        try {\n\
        for (int round = 0; round < 2; round++) {\n\
        mine = exchanger.exchange(mine);\n\
        for (int x : mine) total[0] += x;\n\
        mine.clear();\n\
        }\n\
        } catch (InterruptedException e) { throw new RuntimeException(e); }\n\
        });\n\
        Thread producer = new Thread(() -> {\n\
        List<Integer> batch = new ArrayList<>();\n\
        try {\n\
        for (int round = 0; round < 2; round++) {\n\
        batch.add(round);\n\
        batch.add(10);\n\
        batch = exchanger.exchange(batch);\n\
        }\n\
        } catch (InterruptedException e) { throw new RuntimeException(e); }\n\
        });\n\
        consumer.start(); producer.start();\n\
        consumer.join(); producer.join();\n\
        System.out.println(\"total \" + total[0]);\n\
        if (total[0] != 21) throw new IllegalStateException(\"total \" + total[0]);\n\
        }\n\
        }\n";
    no_blind_spot("swap", source, "300");
}
