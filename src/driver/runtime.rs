//! The runtime files every JVM rankcheck starts needs: the runtime jar (`rankcheck.rt.*`, the
//! harness), the agent library and the JUnit library, embedded in the `rankcheck` binary and
//! unpacked into a cache folder on first use; and [`unique_sibling`], the private name beside a
//! file that is built and then renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The agent library, built by the root `build.rs` (a nested `cargo build -p agent`).
pub static AGENT_SO: &[u8] = include_bytes!(env!("RANKCHECK_AGENT_SO"));

/// The unpacked runtime files.
#[derive(Clone, Debug)]
pub struct Runtime {
    /// `rankcheck-rt.jar`: `rankcheck.rt.*` and the harness `rankcheck.harness.Main`.
    pub jar: PathBuf,
    /// `librankcheck_agent.so`.
    pub agent: PathBuf,
    /// `rankcheck-junit.jar`: `@RankcheckTest` and the harness's JUnit side.
    pub junit: PathBuf,
}

/// Unpacks (once per build of rankcheck) the runtime jar and the agent into
/// `$XDG_CACHE_HOME/rankcheck/<version>-<hash>/` (or `~/.cache/…`, or the temp dir) and returns
/// their paths. Safe to call from several threads and processes at once.
pub fn runtime() -> anyhow::Result<Runtime> {
    let jar_bytes = java_harness::RUNTIME_JAR;
    let junit_bytes = java_harness::JUNIT_JAR;
    let hash = crate::digest::fnv1a(&[jar_bytes, AGENT_SO, junit_bytes]);
    let dir = cache_root().join(format!("{}-{hash:016x}", env!("CARGO_PKG_VERSION")));
    let rt = Runtime {
        jar: dir.join("rankcheck-rt.jar"),
        agent: dir.join("librankcheck_agent.so"),
        junit: dir.join("rankcheck-junit.jar"),
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create cache directory {}: {e}", dir.display()))?;
    unpack(&rt.jar, jar_bytes)?;
    unpack(&rt.agent, AGENT_SO)?;
    unpack(&rt.junit, junit_bytes)?;
    Ok(rt)
}

fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("rankcheck");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".cache").join("rankcheck");
    }
    std::env::temp_dir().join("rankcheck-cache")
}

/// Writes `bytes` to `path` unless a complete copy is there already (same size and content; the
/// directory name is the content hash, the content check guards against a torn or foreign file).
/// The bytes go to a temporary file of this thread's own ([`unique_sibling`]) and are renamed
/// into place, so concurrent threads and processes never write the same file and nobody sees
/// half a file.
fn unpack(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if is_complete(path, bytes) {
        return Ok(());
    }
    let tmp = unique_sibling(path);
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow::anyhow!("cannot write {}: {e}", path.display())
    })
}

/// True when `path` holds exactly `bytes`.
fn is_complete(path: &Path, bytes: &[u8]) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64)
        && std::fs::read(path).is_ok_and(|b| b == bytes)
}

/// A name beside `path` that no other thread or process uses: `<path>.tmp<pid>-<n>`, `n` a
/// per-process counter. For files and folders that are built privately and then renamed into
/// place.
pub fn unique_sibling(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}-{n}", std::process::id()));
    path.with_file_name(name)
}
