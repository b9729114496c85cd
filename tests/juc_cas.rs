//! Atomic accesses through handles (VarHandle, field updaters, sun.misc.Unsafe) and the
//! read-write lock's one location, on the real JDK: every call shape the rewriter spills runs
//! under rankcheck (offline and load-time instrumentation) with the native result, and the
//! JDK's own lock and updater classes, rewritten as the agent rewrites them, announce what the
//! scheduler needs. The bugs behind these constructs are in `juc_programs.rs`.

mod cli_support;

use cli_support::{rankcheck, root, scratch};
use java_harness::hooks::{Hook, SiteKind, SiteRecord};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(240);

/// The sites the agent's load-time rewriting gives the JDK class `name`.
fn jdk_sites(name: &str) -> Vec<SiteRecord> {
    let jmods = alias::classpath::default_jmods();
    let mut classes = alias::classpath::ClassPath::new(&[], Some(&jmods)).expect("the JDK's jmods");
    let (bytes, _) = classes
        .load(name)
        .unwrap_or_else(|| panic!("{name} in the JDK"));
    let out = rewriter::instrument_class(&bytes, &rewriter::Config::jdk()).expect("rewrites");
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    out.sites
}

#[test]
fn handle_shapes_give_the_native_result_in_every_execution() {
    let dir = scratch("juc-cas-shapes");
    let classes = dir.join("classes");
    let javac = Command::new("javac")
        .args(["-nowarn", "-XDignore.symbol.file", "-d"])
        .arg(&classes)
        .arg(root().join("tests/java/juc/HandleShapes.java"))
        .status()
        .expect("javac runs");
    assert!(javac.success());
    let native = Command::new("java")
        .arg("-cp")
        .arg(&classes)
        .arg("HandleShapes")
        .output()
        .expect("java runs");
    let expected = String::from_utf8_lossy(&native.stdout).trim().to_string();
    assert_eq!(
        expected,
        "shapes i=18 l=27 d=6.75 s=9 total=9 slots=30,30,30,0"
    );
    for extra in [None, Some("--load-time")] {
        let mut args = vec![
            "run",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            "HandleShapes",
            "--executions",
            "40",
            "--keep-going",
            "--show-output",
        ];
        args.extend(extra);
        let ran = rankcheck(&dir, &args, LIMIT);
        assert_eq!(ran.code, 0, "{extra:?}: {}", ran.both());
        assert_eq!(
            ran.stdout.matches(&expected).count(),
            40,
            "{extra:?}: {}",
            ran.both()
        );
        assert_eq!(
            ran.stdout.matches("pass (finished)").count(),
            40,
            "{extra:?}: {}",
            ran.both()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn read_and_write_lock_operations_are_one_location() {
    // Both locks of one ReentrantReadWriteLock announce on its shared `sync` object under one
    // field name, the read lock's operations as reads (they commute with each other) and the
    // write lock's as writes (they conflict with both).
    let base = "java/util/concurrent/locks/ReentrantReadWriteLock";
    let location = format!("{base}.sync");
    for (class, kind) in [
        ("ReadLock", SiteKind::FieldRead),
        ("WriteLock", SiteKind::FieldWrite),
    ] {
        let sites = jdk_sites(&format!("{base}${class}"));
        let ops: Vec<_> = sites.iter().map(|s| s.method.as_str()).collect();
        for op in ["lock", "lockInterruptibly", "tryLock", "unlock"] {
            assert!(ops.contains(&op), "{class}: {ops:?}");
        }
        for s in &sites {
            assert_eq!((s.kind, &s.detail), (kind, &location), "{}", s.to_line());
        }
    }
}

#[test]
fn field_updaters_announce_each_access_once_and_their_field() {
    let atomic = "java/util/concurrent/atomic";
    for (class, primitives) in [
        ("AtomicIntegerFieldUpdater$AtomicIntegerFieldUpdaterImpl", 7),
        ("AtomicLongFieldUpdater$CASUpdater", 7),
        (
            "AtomicReferenceFieldUpdater$AtomicReferenceFieldUpdaterImpl",
            6,
        ),
    ] {
        let sites = jdk_sites(&format!("{atomic}/{class}"));
        let created: Vec<_> = sites
            .iter()
            .filter(|s| s.kind == SiteKind::Call(Hook::UpdaterCreated))
            .collect();
        assert!(
            !created.is_empty() && created.iter().all(|s| s.method == "<init>"),
            "{class}: {sites:?}"
        );
        let accesses: Vec<_> = sites
            .iter()
            .filter(|s| s.kind == SiteKind::Call(Hook::UpdaterAccess))
            .map(|s| s.method.as_str())
            .collect();
        // get, set, lazySet, compareAndSet, weakCompareAndSet, getAndSet (and getAndAdd): each
        // once; incrementAndGet and the like call getAndAdd, which announces for them.
        assert_eq!(accesses.len(), primitives, "{class}: {accesses:?}");
        assert!(accesses.contains(&"compareAndSet") && accesses.contains(&"get"));
        assert!(!accesses.contains(&"incrementAndGet"), "{accesses:?}");
    }
}
