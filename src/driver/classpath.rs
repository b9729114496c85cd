//! The program's class path, instrumented: entries that already carry a site table are used as
//! they are; the others are instrumented into a cache directory keyed by a hash of their
//! contents, the rankcheck version and build, and the instrumentation mode, so repeated runs instrument
//! once and a changed class is never served stale.

use crate::error::bad_input;
use rewriter::jar::{instrument_dir, instrument_jar, JarOptions};
use std::path::{Path, PathBuf};

/// Which sites get hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every field, static and array access, and synchronization (`instrument --all`).
    All,
    /// Only synchronization and thread operations (`instrument --sync-only`).
    SyncOnly,
    /// Not instrumented here: the agent instruments every site as classes load
    /// (`instrument=load`, same passes and site ids as `All`).
    LoadTime,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::All => "all",
            Mode::SyncOnly => "sync-only",
            Mode::LoadTime => "load-time",
        }
    }

    fn config(self) -> rewriter::Config {
        match self {
            Mode::All | Mode::LoadTime => rewriter::Config::all(),
            Mode::SyncOnly => rewriter::Config::sync_only(),
        }
    }
}

/// Each class-path entry of `cp` (`:`-separated), instrumented for `mode`.
pub fn prepare(cp: &str, mode: Mode) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in cp.split(':').filter(|e| !e.is_empty()) {
        let path = PathBuf::from(entry);
        if !path.exists() {
            return Err(bad_input(format!(
                "class path entry {entry}: no such file or directory"
            )));
        }
        if is_instrumented(&path) || mode == Mode::LoadTime {
            out.push(std::fs::canonicalize(&path)?);
            continue;
        }
        out.push(instrument_cached(&path, mode.name(), mode.config())?);
    }
    if out.is_empty() {
        return Err(bad_input("--cp is empty"));
    }
    Ok(out)
}

/// True when `path` (a jar or a directory) was written by the rewriter: it carries the site
/// table resource.
pub fn is_instrumented(path: &Path) -> bool {
    let resource = java_harness::hooks::SITE_TABLE_RESOURCE;
    if path.is_dir() {
        return path.join(resource).is_file();
    }
    // Entry names sit uncompressed in a jar's headers.
    std::fs::read(path).is_ok_and(|bytes| {
        bytes
            .windows(resource.len())
            .any(|w| w == resource.as_bytes())
    })
}

/// The cache folder for instrumented copies (beside the unpacked runtime).
pub fn cache_dir() -> anyhow::Result<PathBuf> {
    let rt = crate::cmd::rt::runtime()?;
    Ok(rt
        .jar
        .parent()
        .map(|p| p.join("instrumented"))
        .unwrap_or_else(|| PathBuf::from("rankcheck-instrumented")))
}

fn instrument_cached(path: &Path, mode: &str, config: rewriter::Config) -> anyhow::Result<PathBuf> {
    let abs = std::fs::canonicalize(path)?;
    let mut key = Fnv::new();
    key.write(mode.as_bytes());
    write_build_identity(&mut key);
    hash_tree(&abs, &abs, &mut key)?;
    let cache = cache_dir()?.join(format!("{:016x}", key.0));
    let is_jar = abs.is_file();
    let target = if is_jar {
        cache.join("app.jar")
    } else {
        cache.join("classes")
    };
    if cache.join("done").exists() {
        return Ok(target);
    }
    // Build into a private folder and rename it into place: parallel rankchecks may race here.
    let staging = cache.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)?;
    let staged = staging.join(target.file_name().unwrap());
    let options = JarOptions {
        config,
        include: Vec::new(),
        exclude: Vec::new(),
        runtime_jar: None,
        skip_bad: true,
    };
    let quiet = |_: usize, _: usize| {};
    let result = if is_jar {
        let bytes = std::fs::read(&abs)?;
        instrument_jar(&bytes, &options, &quiet)
            .map_err(|e| bad_input(format!("{}: cannot instrument: {e}", path.display())))
            .and_then(|(out, _)| Ok(std::fs::write(&staged, out)?))
    } else {
        instrument_dir(&abs, &staged, &options, &quiet)
            .map(|_| ())
            .map_err(|e| bad_input(format!("{}: cannot instrument: {e}", path.display())))
    };
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    std::fs::write(staging.join("done"), abs.display().to_string())?;
    if std::fs::rename(&staging, &cache).is_err() {
        // Someone else finished first; theirs is as good as ours.
        let _ = std::fs::remove_dir_all(&staging);
        if !cache.join("done").exists() {
            anyhow::bail!("cannot move the instrumented copy into {}", cache.display());
        }
    }
    Ok(target)
}

/// The points-to analysis of the program `cp` (original classes) with entry `main`, cached in
/// the cache folder by a hash of the class path's contents and `main`.
pub fn analysis(cp: &str, main: &str) -> anyhow::Result<alias::AnalysisFile> {
    let entries: Vec<PathBuf> = cp
        .split(':')
        .filter(|e| !e.is_empty())
        .map(PathBuf::from)
        .collect();
    let mut key = Fnv::new();
    write_build_identity(&mut key);
    key.write(main.as_bytes());
    for e in &entries {
        let abs = std::fs::canonicalize(e).map_err(|_| {
            bad_input(format!(
                "class path entry {}: no such file or directory",
                e.display()
            ))
        })?;
        hash_tree(&abs, &abs, &mut key)?;
    }
    let file = cache_dir()?
        .join("analysis")
        .join(format!("{:016x}.json", key.0));
    if let Ok(cached) = alias::AnalysisFile::read(&file) {
        return Ok(cached);
    }
    let config = alias::Config {
        class_path: entries,
        main: main.to_string(),
        jmods: Some(alias::classpath::default_jmods()),
        jdk_bodies: false,
    };
    let analysis = alias::analyze(&config).map_err(|e| match e {
        alias::Error::BadInput(m) => bad_input(m),
        other => anyhow::anyhow!("the points-to analysis failed: {other}"),
    })?;
    std::fs::create_dir_all(file.parent().unwrap())?;
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, analysis.to_json())?;
    let _ = std::fs::rename(&tmp, &file);
    Ok(analysis)
}

/// The class path `cp` instrumented for the variable set `vars` of `analysis`: only the data
/// sites that may touch those variables (and their allocation sites); synchronization everywhere.
pub fn prepare_vars(
    cp: &str,
    analysis: &alias::AnalysisFile,
    vars: &[u32],
) -> anyhow::Result<Vec<PathBuf>> {
    let selection = analysis
        .select(vars)
        .map_err(|e| bad_input(format!("variables {vars:?}: {e}")))?;
    let keys = |set: std::collections::BTreeSet<alias::SiteKey>| {
        std::sync::Arc::new(
            set.into_iter()
                .map(|k| (k.class, k.method, k.descriptor, k.bci))
                .collect::<std::collections::HashSet<_>>(),
        )
    };
    let mut ids: Vec<u32> = vars.to_vec();
    ids.sort_unstable();
    let mode = format!(
        "vars:{}",
        ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    );
    let (data, alloc) = (keys(selection.data_sites), keys(selection.alloc_sites));
    let mut out = Vec::new();
    for entry in cp.split(':').filter(|e| !e.is_empty()) {
        let mut config = rewriter::Config::all();
        config.data_sites = Some(data.clone());
        config.alloc_sites = Some(alloc.clone());
        out.push(instrument_cached(Path::new(entry), &mode, config)?);
    }
    Ok(out)
}

/// The version and the executable's identity (size and modification time): the rewriter and the
/// analysis may change between builds of one version, and a cached result must not outlive them.
fn write_build_identity(key: &mut Fnv) {
    key.write(env!("CARGO_PKG_VERSION").as_bytes());
    if let Some(m) = std::env::current_exe()
        .ok()
        .and_then(|e| std::fs::metadata(e).ok())
    {
        key.write(&m.len().to_le_bytes());
        let stamp = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        key.write(&stamp.map_or(0, |d| d.as_nanos()).to_le_bytes());
    }
}

/// Hashes every file below `path` (names relative to `root`, and contents), in sorted order.
fn hash_tree(root: &Path, path: &Path, key: &mut Fnv) -> anyhow::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            hash_tree(root, &e, key)?;
        }
    } else {
        let rel = path.strip_prefix(root).unwrap_or(path);
        key.write(rel.to_string_lossy().as_bytes());
        key.write(&std::fs::read(path)?);
    }
    Ok(())
}

/// FNV-1a over length-prefixed chunks: stable across Rust versions, unlike std's hashers.
pub struct Fnv(pub u64);

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub fn write(&mut self, bytes: &[u8]) {
        for &b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_depends_on_names_and_contents() {
        let dir = std::env::temp_dir().join(format!("rc-cp-hash-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("a/X.class"), b"one").unwrap();
        let hash = |d: &Path| {
            let mut k = Fnv::new();
            hash_tree(d, d, &mut k).unwrap();
            k.0
        };
        let first = hash(&dir);
        assert_eq!(first, hash(&dir));
        std::fs::write(dir.join("a/X.class"), b"two").unwrap();
        assert_ne!(first, hash(&dir));
        std::fs::rename(dir.join("a/X.class"), dir.join("a/Y.class")).unwrap();
        std::fs::write(dir.join("a/Y.class"), b"one").unwrap();
        assert_ne!(first, hash(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
