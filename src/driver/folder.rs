//! New folders that never reuse an existing one: a report folder of an earlier run (or of a
//! run going on at the same time in another process) with the same name is kept, and the new
//! one gets the first free `NAME-2`, `NAME-3`, … instead.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Creates `parent/NAME`, or the first of `parent/NAME-2`, `parent/NAME-3`, … that does not
/// exist yet, and returns it. Each candidate is taken by `create_dir` itself (not by a check
/// before it), so two processes racing for the same name get two folders. `parent` is created
/// when missing.
pub fn create_fresh(parent: &Path, name: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(parent)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
    for n in 1u64.. {
        let dir = parent.join(candidate(name, n));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => anyhow::bail!("cannot create {}: {e}", dir.display()),
        }
    }
    unreachable!("a u64's worth of folders")
}

/// The `n`-th name tried for `name`: itself, then `name-2`, `name-3`, …
fn candidate(name: &str, n: u64) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name}-{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(what: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rankcheck-folder-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn an_existing_folder_is_kept_and_the_next_name_taken() {
        let parent = scratch("next");
        let first = create_fresh(&parent, "Main-uncaught-3").unwrap();
        assert_eq!(first, parent.join("Main-uncaught-3"));
        std::fs::write(first.join("result.json"), "old").unwrap();
        let second = create_fresh(&parent, "Main-uncaught-3").unwrap();
        assert_eq!(second, parent.join("Main-uncaught-3-2"));
        assert_eq!(
            create_fresh(&parent, "Main-uncaught-3").unwrap(),
            parent.join("Main-uncaught-3-3")
        );
        // The first run's files are untouched, and another name starts afresh.
        assert_eq!(
            std::fs::read_to_string(first.join("result.json")).unwrap(),
            "old"
        );
        assert_eq!(
            create_fresh(&parent, "Main-deadlock-3").unwrap(),
            parent.join("Main-deadlock-3")
        );
        let _ = std::fs::remove_dir_all(&parent);
    }

    #[test]
    fn racing_threads_never_share_a_folder() {
        let parent = scratch("race");
        let got: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| create_fresh(&parent, "X-bug-0").unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut names: Vec<String> = got
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 8, "{names:?}");
        assert!(names.contains(&"X-bug-0".to_string()));
        assert!(names.contains(&"X-bug-0-8".to_string()), "{names:?}");
        let _ = std::fs::remove_dir_all(&parent);
    }

    #[test]
    fn a_parent_that_cannot_be_made_is_an_error_naming_it() {
        let e = create_fresh(Path::new("/proc/no-such/parent"), "x").unwrap_err();
        assert!(e.to_string().contains("/proc/no-such/parent"), "{e}");
    }
}
