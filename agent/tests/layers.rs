//! The agent's layers, checked on its own sources: every module belongs to one layer of
//! [`LAYERS`], a module names (`crate::x`) only modules of its own layer or of lower ones, the
//! modules' import graph has no cycle, and no hand-written source file is longer than
//! [`MAX_LINES`]. The same table is in ARCHITECTURE.md (the agent's section).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, with their modules (a top-level file or folder of `agent/src`;
/// `lib` is the crate root). A module may import its own layer and every layer before it.
const LAYERS: &[(&str, &[&str])] = &[
    ("floor", &["jvmti_sys", "ffi", "hash", "jvmti"]),
    (
        "services",
        &[
            "options",
            "report",
            "explain",
            "cpu",
            "sites",
            "naming",
            "platform",
            "jdk_classes",
            "juc",
            "loadhook",
            "confinement",
            "pinned_jdk",
            "common_pool",
            "delay_scheduler",
            "logging_state",
            "strategy_choice",
        ],
    ),
    ("controller", &["control"]),
    ("entry", &["natives", "plain", "lib"]),
];

/// The longest a hand-written source file may be.
const MAX_LINES: usize = 600;

/// Generated files, exempt from the length limit.
const GENERATED: &[&str] = &["jvmti_sys.rs"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file below `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a source file belongs to: its first component below `src` (`control/quiet.rs`:
/// `control`; `naming.rs`: `naming`; `lib.rs`: `lib`).
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The modules a source text names through `crate::` paths (comments left out), including the
/// grouped form `crate::{a, b::c}`.
fn imports(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        // Comments left out (a `//` inside a string cuts the line short: it may hide a path,
        // never invent one).
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `my_crate::`, not this crate
            }
            if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                for item in inner.split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&module))
}

/// The module graph: module → the modules it names (itself left out).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let module = module_of(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(imports(&text).into_iter().filter(|m| *m != module));
    }
    graph
}

/// Every problem of the graph: a module in no layer, an import of a higher layer, a cycle.
fn problems(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for (module, deps) in graph {
        let Some(mine) = layer_of(module) else {
            out.push(format!("module {module} is in no layer of LAYERS"));
            continue;
        };
        for dep in deps {
            match layer_of(dep) {
                None => out.push(format!("{module} names {dep}, which is in no layer")),
                Some(theirs) if theirs > mine => out.push(format!(
                    "{module} ({}) names {dep} ({}), a higher layer",
                    LAYERS[mine].0, LAYERS[theirs].0
                )),
                _ => {}
            }
        }
    }
    // Cycles: a depth-first search that meets a module on its own path.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_string());
            out.push(format!("import cycle: {}", cycle.join(" -> ")));
            return;
        }
        if !done.insert(m.to_string()) {
            return;
        }
        path.push(m.to_string());
        for dep in graph.get(m).into_iter().flatten() {
            visit(dep, graph, path, done, out);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        visit(m, graph, &mut Vec::new(), &mut done, &mut out);
    }
    out
}

#[test]
fn imports_point_down_the_layers_and_never_in_a_circle() {
    let graph = graph();
    assert!(graph.contains_key("control") && graph.contains_key("ffi"));
    let problems = problems(&graph);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_hand_written_file_is_too_long() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|f| !GENERATED.iter().any(|g| f.ends_with(g)))
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{} has {n} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines: {}",
        long.join(", ")
    );
}

#[test]
fn the_checker_sees_cycles_and_upward_imports() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("naming".into(), ["control".to_string()].into());
    g.insert("control".into(), ["naming".to_string()].into());
    let p = problems(&g);
    assert!(p.iter().any(|l| l.contains("higher layer")), "{p:?}");
    assert!(p.iter().any(|l| l.starts_with("import cycle")), "{p:?}");
    assert_eq!(
        imports(
            "use crate::{ffi::call, jvmti};\nlet x = crate::hash::mix(1, 2); // crate::control"
        ),
        ["ffi", "hash", "jvmti"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}
