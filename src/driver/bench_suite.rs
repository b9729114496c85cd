//! Finding and describing benchmark suites: the bundled `contest-bench/` (next to the
//! executable's workspace, or in the current folder), and per-program figures for the tables
//! (source lines, instrumented sites, variables).

use crate::error::bad_input;
use crate::suite::{Program, Suite};
use std::path::{Path, PathBuf};

/// The suite folder: `dir` when given, else the bundled one named `name` (e.g. `contest-bench`):
/// looked for above the executable (a workspace build puts it in `target/<profile>/`) and in
/// the current folder.
pub fn locate(dir: Option<&Path>, name: &str) -> anyhow::Result<PathBuf> {
    if let Some(d) = dir {
        if !d.is_dir() {
            return Err(bad_input(format!("{}: no such suite folder", d.display())));
        }
        return Ok(d.to_path_buf());
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(exe.ancestors().skip(1).map(|a| a.join(name)));
    }
    if let Ok(cwd) = std::env::current_dir() {
        candidates.extend(cwd.ancestors().map(|a| a.join(name)));
    }
    candidates
        .into_iter()
        .find(|c| c.is_dir())
        .ok_or_else(|| {
            bad_input(format!(
                "no {name}/ folder found next to the rankcheck executable or in the current folder; give the suite folder as an argument"
            ))
        })
}

/// The suite folders `dirs`, each checked, or the bundled one named `name` when none is given.
pub fn locate_all(dirs: &[PathBuf], name: &str) -> anyhow::Result<Vec<PathBuf>> {
    if dirs.is_empty() {
        return Ok(vec![locate(None, name)?]);
    }
    dirs.iter().map(|d| locate(Some(d), name)).collect()
}

/// Loads the suite at `root`, keeping only `names` when any are given (each must exist).
pub fn load(root: &Path, names: &[String]) -> anyhow::Result<Vec<Program>> {
    let suite = Suite::load(root).map_err(|e| bad_input(e.to_string()))?;
    if names.is_empty() {
        return Ok(suite.programs);
    }
    names
        .iter()
        .map(|n| {
            suite.get(n).cloned().ok_or_else(|| {
                bad_input(format!(
                    "no program {n:?} in {} (programs: {})",
                    root.display(),
                    suite
                        .programs
                        .iter()
                        .map(|p| p.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .collect()
}

/// Source lines of a program: non-blank lines that are not only a comment.
pub fn sloc(program: &Program) -> u64 {
    let mut n = 0;
    for file in program.sources().unwrap_or_default() {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let mut in_block = false;
        for line in text.lines() {
            let l = line.trim();
            if in_block {
                if l.contains("*/") {
                    in_block = false;
                }
                continue;
            }
            if l.is_empty() || l.starts_with("//") {
                continue;
            }
            if l.starts_with("/*") {
                in_block = !l.contains("*/");
                continue;
            }
            n += 1;
        }
    }
    n
}

/// (instrumented sites, distinct variables) of an instrumented class path: variables are the
/// distinct fields and array element types the data sites touch (a static over-approximation of
/// what the alias analysis would name).
pub fn sites_and_variables(classpath: &[PathBuf]) -> (usize, usize) {
    let table = super::report::site_table(classpath);
    let vars: std::collections::BTreeSet<&str> = table
        .values()
        .filter(|s| s.kind.is_data())
        .map(|s| s.detail.as_str())
        .collect();
    (table.len(), vars.len())
}

/// Up to `limit` variable sets of size `v` for v-bounded instrumentation, spread evenly over the
/// analysis's shared variables that some data site may touch (all such variables when none is
/// shared; a variable no site touches would make the measurement trivially uninstrumented): set
/// `j` takes `v` consecutive candidates from position `j * candidates / limit`, in id order, so
/// the same program always gets the same sets.
pub fn variable_sets(analysis: &alias::AnalysisFile, v: usize, limit: usize) -> Vec<Vec<u32>> {
    let touched: std::collections::BTreeSet<u32> = analysis
        .sites
        .iter()
        .flat_map(|s| s.vars.iter().copied())
        .collect();
    let mut ids: Vec<u32> = analysis
        .variables
        .iter()
        .filter(|x| x.shared && touched.contains(&x.id))
        .map(|x| x.id)
        .collect();
    if ids.is_empty() {
        ids = touched.into_iter().collect();
    }
    ids.sort_unstable();
    if v == 0 || ids.len() < v {
        return Vec::new();
    }
    let mut out: Vec<Vec<u32>> = Vec::new();
    for j in 0..limit.min(ids.len()) {
        let start = j * ids.len() / limit.min(ids.len());
        let mut set: Vec<u32> = (0..v).map(|k| ids[(start + k) % ids.len()]).collect();
        set.sort_unstable();
        if !out.contains(&set) {
            out.push(set);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_sets_spread_over_shared_touched_variables() {
        let var = |id, shared| alias::Variable {
            id,
            kind: alias::VariableKind::Static,
            name: format!("C.f{id}"),
            ty: "I".into(),
            shared,
            reached: true,
            site: None,
        };
        let site = |vars: Vec<u32>| alias::Site {
            class: "C".into(),
            method: "m".into(),
            descriptor: "()V".into(),
            bci: 0,
            kind: "static-read".into(),
            detail: String::new(),
            reached: true,
            all: false,
            vars,
        };
        let analysis = alias::AnalysisFile {
            format: String::new(),
            main: "C".into(),
            complete: true,
            warnings: Vec::new(),
            // 0 is shared but touched by no site; 5 is touched but not shared.
            variables: (0..8).map(|i| var(i, i != 5)).collect(),
            sites: vec![site(vec![1, 2, 3]), site(vec![4, 5, 6, 7])],
            stats: Default::default(),
        };
        assert_eq!(
            variable_sets(&analysis, 1, 3),
            vec![vec![1], vec![3], vec![6]]
        );
        assert_eq!(
            variable_sets(&analysis, 2, 3),
            vec![vec![1, 2], vec![3, 4], vec![6, 7]]
        );
        assert!(variable_sets(&analysis, 7, 3).is_empty());
    }

    #[test]
    fn sloc_skips_blank_and_comment_lines() {
        let dir = std::env::temp_dir().join(format!("rc-sloc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("P/src/p")).unwrap();
        std::fs::write(
            dir.join("P/manifest.toml"),
            "name = \"P\"\nmain = \"p.Main\"\nthreads = 1\ndescription = \"x\"\ncorrect = true\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("P/src/p/Main.java"),
            "// c\npackage p;\n\n/* a\n b */\nclass Main {\n  /** doc */\n  int x; // y\n}\n",
        )
        .unwrap();
        let p = Program::load(&dir.join("P")).unwrap();
        assert_eq!(sloc(&p), 4);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
