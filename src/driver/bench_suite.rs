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

/// Up to `limit` variable sets of size `v` for v-bounded instrumentation: combinations of the
/// analysis's shared variables (all variables when none is shared), in id order, so the same
/// program always gets the same sets.
pub fn variable_sets(analysis: &alias::AnalysisFile, v: usize, limit: usize) -> Vec<Vec<u32>> {
    let mut ids: Vec<u32> = analysis
        .variables
        .iter()
        .filter(|x| x.shared)
        .map(|x| x.id)
        .collect();
    if ids.is_empty() {
        ids = analysis.variables.iter().map(|x| x.id).collect();
    }
    let mut out = Vec::new();
    let mut pick = Vec::new();
    combinations(&ids, v, 0, &mut pick, &mut out, limit);
    out
}

fn combinations(
    ids: &[u32],
    v: usize,
    from: usize,
    pick: &mut Vec<u32>,
    out: &mut Vec<Vec<u32>>,
    limit: usize,
) {
    if out.len() >= limit {
        return;
    }
    if pick.len() == v {
        out.push(pick.clone());
        return;
    }
    for i in from..ids.len() {
        pick.push(ids[i]);
        combinations(ids, v, i + 1, pick, out, limit);
        pick.pop();
        if out.len() >= limit {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_in_order_and_limited() {
        let mut out = Vec::new();
        combinations(&[1, 2, 3, 4], 2, 0, &mut Vec::new(), &mut out, 4);
        assert_eq!(out, vec![vec![1, 2], vec![1, 3], vec![1, 4], vec![2, 3]]);
        let mut none = Vec::new();
        combinations(&[1], 2, 0, &mut Vec::new(), &mut none, 4);
        assert!(none.is_empty());
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
