//! The result a shard leaves in its `--out` folder (`rankcheck-shard.json`), and reading a set
//! of them back for `rankcheck merge`: every shard of one run, each once, all of the same
//! command with the same options — anything else is bad input naming what is wrong.

use super::shard::Shard;
use crate::error::bad_input;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The file name, in the shard's `--out` folder.
pub const FILE: &str = "rankcheck-shard.json";

/// What one shard did.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardFile {
    /// `test` or `sweep`.
    pub command: String,
    pub shard: Shard,
    /// Every option that decides which schedules run: equal in every shard of one run.
    pub options: Value,
    /// The command's own result (`driver::search_merge`, `driver::sweep`).
    pub body: Value,
}

impl ShardFile {
    /// Writes the file into `dir`.
    pub fn write(&self, dir: &Path) -> anyhow::Result<PathBuf> {
        std::fs::create_dir_all(dir)
            .map_err(|e| bad_input(format!("cannot create {}: {e}", dir.display())))?;
        let path = dir.join(FILE);
        std::fs::write(&path, serde_json::to_string(self)?)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    }

    /// Removes an earlier run's result from `dir`, so that a shard that ends without one (a
    /// crash, a kill) leaves nothing a merge could take for this run's.
    pub fn clear(dir: &Path) {
        let _ = std::fs::remove_file(dir.join(FILE));
    }

    fn read(dir: &Path) -> anyhow::Result<ShardFile> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            bad_input(format!(
                "{}: no shard result ({e}); was it the --out of a `--shard` run that ended?",
                path.display()
            ))
        })?;
        serde_json::from_str(&text)
            .map_err(|e| bad_input(format!("{}: not a shard result: {e}", path.display())))
    }
}

/// Reads the shard results in `dirs` and checks that they are exactly the shards of one run,
/// returned in shard order.
pub fn read_all(dirs: &[PathBuf]) -> anyhow::Result<Vec<ShardFile>> {
    if dirs.is_empty() {
        return Err(bad_input("merge: give the --out folders of the shards"));
    }
    let files = dirs
        .iter()
        .map(|d| ShardFile::read(d))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let named: Vec<(PathBuf, ShardFile)> = dirs.iter().cloned().zip(files).collect();
    check(&named).map_err(bad_input)?;
    let mut files: Vec<ShardFile> = named.into_iter().map(|(_, f)| f).collect();
    files.sort_by_key(|f| f.shard.index);
    Ok(files)
}

/// Why `files` are not the shards of one run, if they are not.
fn check(files: &[(PathBuf, ShardFile)]) -> Result<(), String> {
    let (first_dir, first) = &files[0];
    for (dir, f) in &files[1..] {
        if f.command != first.command {
            return Err(format!(
                "merge: {} is a `{}` shard but {} a `{}` one",
                first_dir.display(),
                first.command,
                dir.display(),
                f.command
            ));
        }
        if f.shard.count != first.shard.count {
            return Err(format!(
                "merge: {} is shard {} but {} shard {}: different shard counts",
                first_dir.display(),
                first.shard,
                dir.display(),
                f.shard
            ));
        }
        if let Some(key) = differing_key(&first.options, &f.options) {
            return Err(format!(
                "merge: {} and {} ran with different options ({key}); only shards of one run merge",
                first_dir.display(),
                dir.display()
            ));
        }
    }
    let count = first.shard.count;
    for index in 1..=count {
        let with: Vec<&PathBuf> = files
            .iter()
            .filter(|(_, f)| f.shard.index == index)
            .map(|(d, _)| d)
            .collect();
        match with.as_slice() {
            [] => {
                return Err(format!(
                    "merge: shard {index}/{count} is missing (the merged result would not be \
                     the whole run's); give the --out folders of all {count} shards"
                ))
            }
            [_] => {}
            [a, b, ..] => {
                return Err(format!(
                    "merge: shard {index}/{count} is given twice ({} and {})",
                    a.display(),
                    b.display()
                ))
            }
        }
    }
    Ok(())
}

/// The first top-level key whose value differs between `a` and `b`.
fn differing_key(a: &Value, b: &Value) -> Option<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return (a != b).then(|| "options".into());
    };
    a.keys()
        .chain(b.keys())
        .find(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            format!(
                "{k}: {} against {}",
                a.get(k).unwrap_or(&Value::Null),
                b.get(k).unwrap_or(&Value::Null)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(index: u64, count: u64, seed: u64) -> (PathBuf, ShardFile) {
        (
            PathBuf::from(format!("out-{index}")),
            ShardFile {
                command: "test".into(),
                shard: Shard { index, count },
                options: json!({"strategy": "pos", "seed": seed}),
                body: json!({}),
            },
        )
    }

    #[test]
    fn every_shard_once_with_the_same_options_merges() {
        assert_eq!(check(&[file(2, 2, 0), file(1, 2, 0)]), Ok(()));
        let missing = check(&[file(1, 3, 0), file(3, 3, 0)]).unwrap_err();
        assert!(missing.contains("shard 2/3 is missing"), "{missing}");
        let twice = check(&[file(1, 2, 0), file(1, 2, 0), file(2, 2, 0)]).unwrap_err();
        assert!(twice.contains("given twice"), "{twice}");
        let seeds = check(&[file(1, 2, 0), file(2, 2, 1)]).unwrap_err();
        assert!(seeds.contains("seed: 0 against 1"), "{seeds}");
        let counts = check(&[file(1, 2, 0), file(2, 3, 0)]).unwrap_err();
        assert!(counts.contains("different shard counts"), "{counts}");
        let mut sweep = file(2, 2, 0);
        sweep.1.command = "sweep".into();
        assert!(check(&[file(1, 2, 0), sweep])
            .unwrap_err()
            .contains("`sweep`"));
    }
}
