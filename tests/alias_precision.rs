//! Precision of the alias analysis on small programs with known answers: which variables a
//! site may touch, written as `(method, bci) → allocation variables` expectations.

use std::path::PathBuf;
use std::process::Command;

use alias::{AnalysisFile, VariableKind};

fn analyse(program: &str, main: &str) -> AnalysisFile {
    analyse_with(program, main, &alias::JdkScope::default())
}

fn analyse_with(program: &str, main: &str, scope: &alias::JdkScope) -> AnalysisFile {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("tests/java/alias").join(program).join("src");
    let dir = std::env::temp_dir().join(format!(
        "rankcheck-alias-prec-{program}-{}-{}",
        scope.describe().len(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut sources = Vec::new();
    let mut stack = vec![src];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "java") {
                sources.push(p);
            }
        }
    }
    let ok = Command::new("javac")
        .args(["--release", "17", "-d"])
        .arg(&dir)
        .args(&sources)
        .status()
        .unwrap()
        .success();
    assert!(ok, "javac failed");
    alias::analyze_with(
        &alias::Config {
            class_path: vec![dir],
            main: main.into(),
            jmods: Some(alias::classpath::default_jmods()),
            jdk_bodies: false,
        },
        scope,
    )
    .unwrap()
}

/// Names of the variables site `method@bci` (of class `class`) may touch, sorted.
fn touched(file: &AnalysisFile, class: &str, method: &str, bci: u32) -> Vec<String> {
    let site = file
        .sites
        .iter()
        .find(|s| s.class == class && s.method == method && s.bci == bci)
        .unwrap_or_else(|| panic!("no site {class}.{method}@{bci}"));
    assert!(!site.all, "{class}.{method}@{bci} is unresolved");
    let mut names: Vec<String> = site
        .vars
        .iter()
        .map(|&v| file.variables[v as usize].name.clone())
        .collect();
    names.sort();
    names
}

#[test]
fn counter_sites_name_exactly_their_objects() {
    let f = analyse("AliasBasics", "Counter");
    assert!(f.complete, "{:?}", f.warnings);
    let shared_box = "Counter.main([Ljava/lang/String;)V@0 new Counter";
    let local_box = "Counter.main([Ljava/lang/String;)V@10 new Counter";
    let history = "Counter.<init>()V@6 new [I";
    // `value = value + 1` in bump: both counters (bump runs on each).
    assert_eq!(
        touched(&f, "Counter", "bump", 7),
        vec![shared_box, local_box]
    );
    // `history[value % 4] = value`: only the array allocated in the constructor.
    assert_eq!(touched(&f, "Counter", "bump", 24), vec![history]);
    // `shared.value` in main: only the counter behind the static field.
    assert_eq!(touched(&f, "Counter", "main", 95), vec![shared_box]);
    // `list.get(0).value`: the list is library code, so the answer is every Counter handed to
    // the library (only the local one was).
    assert_eq!(touched(&f, "Counter", "main", 108), vec![local_box]);
    // The static field is a variable of its own, and shared (threads are started).
    assert_eq!(touched(&f, "Counter", "main", 7), vec!["Counter.shared"]);
    let shared = f
        .variables
        .iter()
        .find(|v| v.name == "Counter.shared")
        .unwrap();
    assert!(shared.shared && shared.kind == VariableKind::Static);
    let sb = f.variables.iter().find(|v| v.name == shared_box).unwrap();
    assert!(sb.shared, "reachable from a static field while threads run");
    // Candidates: only variables some reached site touches, shared first.
    let cands = f.candidates();
    assert!(cands.iter().any(|v| v.name == shared_box));
    assert!(cands.windows(2).all(|w| w[0].shared >= w[1].shared));
}

#[test]
fn flows_through_lambdas_arrays_and_exceptions_are_followed() {
    let f = analyse("AliasFlows", "flows.Main");
    assert!(f.complete, "{:?}", f.warnings);
    let has = |method: &str, bci: u32, needle: &str| {
        touched(&f, "flows/Main", method, bci)
            .iter()
            .any(|n| n.contains(needle))
    };
    let site_of = |method: &str, detail: &str| {
        f.sites
            .iter()
            .filter(|s| s.class == "flows/Main" && s.method == method && s.detail.contains(detail))
            .map(|s| s.bci)
            .collect::<Vec<_>>()
    };
    // `f.culprit.w = 5` in main's catch block: exactly the Box made for the exception (thrown
    // objects are filtered by the catch type, and `culprit` only ever holds that one).
    let culprit_writes: Vec<u32> = f
        .sites
        .iter()
        .filter(|s| s.method == "main" && s.kind == "field-write" && s.detail.ends_with("Box.w:I"))
        .map(|s| s.bci)
        .collect();
    assert!(
        culprit_writes.iter().any(|&b| {
            let t = touched(&f, "flows/Main", "main", b);
            t.len() == 1 && t[0].starts_with("flows/Main.main(")
        }),
        "{culprit_writes:?}"
    );
    // The supplier lambda's Box reaches `nine.payload = ten`'s base.
    let payload = site_of("main", "Box.payload");
    assert!(
        payload.iter().any(|&b| has("main", b, "lambda$main$")),
        "{payload:?}"
    );
}

/// The cells `containers.Main.METHOD` increments (`c.v++`), by allocation offset in main.
fn cells_touched(f: &AnalysisFile, method: &str) -> Vec<u32> {
    let site = f
        .sites
        .iter()
        .find(|s| s.class == "containers/Main" && s.method == method && s.kind == "field-write")
        .unwrap_or_else(|| panic!("no c.v++ in {method}"));
    assert!(!site.all, "{method}: unresolved");
    site.vars
        .iter()
        .map(|&v| {
            let name = &f.variables[v as usize].name;
            let at = name
                .strip_prefix("containers/Main.main([Ljava/lang/String;)V@")
                .and_then(|r| r.strip_suffix(" new containers/Main$Cell"))
                .unwrap_or_else(|| panic!("{method} touches {name}"));
            at.parse().unwrap()
        })
        .collect()
}

#[test]
fn objects_read_back_from_jdk_containers_are_the_ones_put_there() {
    // Allocation offsets of the cells in main (see AliasContainers/src/containers/Main.java).
    let (in_list, in_map, in_ref, in_queue, in_task, escaped) = (0, 8, 16, 24, 33, 42);
    let f = analyse("AliasContainers", "containers.Main");
    assert!(f.complete, "{:?}", f.warnings);
    assert_eq!(cells_touched(&f, "fromList"), vec![in_list]);
    assert_eq!(cells_touched(&f, "fromRef"), vec![in_ref]);
    // The queue is filled by another thread, through a lambda given to `new Thread`.
    assert_eq!(cells_touched(&f, "fromQueue"), vec![in_queue]);
    // Through an executor, its FutureTask (VarHandles) and its worker thread.
    assert_eq!(cells_touched(&f, "fromTask"), vec![in_task]);
    // ConcurrentHashMap's tree bins go through JDK code whose locals the context-insensitive
    // analysis merges: the answer may name more cells, but always its own.
    assert!(cells_touched(&f, "fromMap").contains(&in_map));
    // With the whole JDK as unknown code, every container read names every escaped cell.
    let coarse = analyse_with("AliasContainers", "containers.Main", &alias::JdkScope::None);
    let methods = ["fromList", "fromMap", "fromRef", "fromQueue", "fromTask"];
    for m in methods {
        assert!(cells_touched(&coarse, m).contains(&escaped), "{m}");
    }
    let total = |f: &AnalysisFile| {
        methods
            .iter()
            .map(|m| cells_touched(f, m).len())
            .sum::<usize>()
    };
    assert!(
        total(&f) < total(&coarse),
        "{} vs {}",
        total(&f),
        total(&coarse)
    );
}
