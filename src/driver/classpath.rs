//! The program's class path, instrumented: entries that already carry a site table are used as
//! they are; the others are instrumented into a cache directory keyed by a hash of their
//! contents, the rankcheck version and build, and the instrumentation mode, so repeated runs instrument
//! once and a changed class is never served stale.

use crate::digest::Digest;
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

/// Each class-path entry of `cp` (`:`-separated), instrumented for `mode` (see
/// [`prepare_report`], whose warnings this drops).
pub fn prepare(cp: &str, mode: Mode) -> anyhow::Result<Vec<PathBuf>> {
    Ok(prepare_report(cp, mode)?.entries)
}

/// A class path made ready to run, and what could not be instrumented.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    /// The entries to run (instrumented copies, or the entries as given).
    pub entries: Vec<PathBuf>,
    /// Classes copied unchanged because the rewriter could not read or instrument them: they
    /// run without scheduling points. `(entry name, reason)`.
    pub uninstrumented: Vec<(String, String)>,
    /// The rewriter's other warnings (methods left uninstrumented, dropped signature files).
    pub warnings: Vec<String>,
}

impl Prepared {
    /// One line per class that runs uninstrumented (with why), then the other warnings.
    pub fn warning_lines(&self) -> Vec<String> {
        self.uninstrumented
            .iter()
            .map(|(class, why)| {
                format!("class {class} is not instrumented (it runs uncontrolled): {why}")
            })
            .chain(self.warnings.iter().cloned())
            .collect()
    }
}

/// Says the instrumentation warnings `lines` on stderr (at most a screenful).
pub fn warn(lines: &[String]) {
    const SHOWN: usize = 20;
    for line in lines.iter().take(SHOWN) {
        eprintln!("rankcheck: warning: {line}");
    }
    if lines.len() > SHOWN {
        eprintln!("rankcheck: warning: … and {} more", lines.len() - SHOWN);
    }
}

/// Each class-path entry of `cp` (`:`-separated), instrumented for `mode`, with the rewriter's
/// warnings. A class whose class-file version is newer than the running JDK supports is bad
/// input (it could never load).
pub fn prepare_report(cp: &str, mode: Mode) -> anyhow::Result<Prepared> {
    let mut out = Prepared::default();
    for entry in cp.split(':').filter(|e| !e.is_empty()) {
        let path = PathBuf::from(entry);
        if !path.exists() {
            return Err(bad_input(format!(
                "class path entry {entry}: no such file or directory"
            )));
        }
        check_class_versions(&path)?;
        if is_instrumented(&path) || mode == Mode::LoadTime {
            out.entries.push(std::fs::canonicalize(&path)?);
            continue;
        }
        let (target, warnings) = instrument_cached(&path, mode.name(), mode.config())?;
        out.entries.push(target);
        for w in warnings {
            match uninstrumented_class(&w) {
                Some(pair) => out.uninstrumented.push(pair),
                None => out.warnings.push(w),
            }
        }
    }
    if out.entries.is_empty() {
        return Err(bad_input("--cp is empty"));
    }
    Ok(out)
}

/// `(class entry, reason)` when the rewriter's warning `w` says a class was copied unchanged.
fn uninstrumented_class(w: &str) -> Option<(String, String)> {
    let rest = w.strip_prefix("entry ")?;
    let (name, why) = rest.split_once(" copied unchanged: ")?;
    name.ends_with(".class")
        .then(|| (name.to_string(), why.to_string()))
}

/// Bad input when a class below `path` (a folder or a jar) has a class-file version the running
/// JDK cannot load: names the class and the Java version it needs.
fn check_class_versions(path: &Path) -> anyhow::Result<()> {
    let Some(supported) = jdk_max_major() else {
        return Ok(());
    };
    if let Some((class, major)) = newest_class(path).filter(|(_, m)| *m > supported) {
        return Err(bad_input(format!(
            "{class} (in {}) needs Java {} (class-file version {major}); the running JDK supports \
             up to Java {} (version {supported}): run rankcheck with a newer JDK (JAVA_HOME) or \
             compile with --release {}",
            path.display(),
            major.saturating_sub(44),
            supported.saturating_sub(44),
            supported.saturating_sub(44)
        )));
    }
    Ok(())
}

/// The class with the highest class-file major version below `path`, with that version.
fn newest_class(path: &Path) -> Option<(String, u16)> {
    // A version beyond any plausible Java is a broken file, not a newer class: the rewriter
    // says so (copied unchanged, with a warning).
    let major = |head: &[u8]| -> Option<u16> {
        (head.len() >= 8 && head[..4] == [0xca, 0xfe, 0xba, 0xbe])
            .then(|| u16::from_be_bytes([head[6], head[7]]))
            .filter(|m| (45..=PLAUSIBLE_MAJOR).contains(m))
    };
    let mut best: Option<(String, u16)> = None;
    let mut consider = |name: String, head: &[u8]| {
        if let Some(m) = major(head) {
            if best.as_ref().is_none_or(|(_, b)| m > *b) {
                best = Some((name, m));
            }
        }
    };
    if path.is_dir() {
        let mut files = Vec::new();
        list_files(path, &mut files);
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "class"))
        {
            let mut head = [0u8; 8];
            let ok = std::fs::File::open(f)
                .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut head))
                .is_ok();
            if ok {
                let rel = f.strip_prefix(path).unwrap_or(f);
                consider(rel.display().to_string(), &head);
            }
        }
    } else {
        let file = std::fs::File::open(path).ok()?;
        let mut zip = zip::ZipArchive::new(file).ok()?;
        for i in 0..zip.len() {
            let Ok(mut entry) = zip.by_index(i) else {
                continue;
            };
            let name = entry.name().to_string();
            if !name.ends_with(".class") || name.starts_with("META-INF/versions/") {
                continue;
            }
            let mut head = [0u8; 8];
            if std::io::Read::read_exact(&mut entry, &mut head).is_ok() {
                consider(name, &head);
            }
        }
    }
    best
}

/// The highest class-file major version taken for a real one (Java 156).
const PLAUSIBLE_MAJOR: u16 = 200;

/// Every file below `dir`.
fn list_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            list_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The newest class-file major version the JDK that runs the programs loads (feature release
/// + 44), from `java -version`; `None` when it cannot be told.
fn jdk_max_major() -> Option<u16> {
    static MAJOR: std::sync::OnceLock<Option<u16>> = std::sync::OnceLock::new();
    *MAJOR.get_or_init(|| {
        let out = std::process::Command::new(super::jvm::java_binary())
            .arg("-version")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stderr);
        let quoted = text.split('"').nth(1)?;
        let mut parts = quoted.split(['.', '-', '+', '_']);
        let first: u16 = parts.next()?.parse().ok()?;
        let feature = if first == 1 {
            parts.next()?.parse().ok()?
        } else {
            first
        };
        Some(feature + 44)
    })
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
    let rt = super::runtime::runtime()?;
    Ok(rt
        .jar
        .parent()
        .map(|p| p.join("instrumented"))
        .unwrap_or_else(|| PathBuf::from("rankcheck-instrumented")))
}

/// The instrumented copy of `path` in the cache (made when missing), with the rewriter's
/// warnings (kept beside it, so a cached copy says them again).
fn instrument_cached(
    path: &Path,
    mode: &str,
    config: rewriter::Config,
) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let abs = std::fs::canonicalize(path)?;
    let mut key = Digest::new();
    key.write(mode.as_bytes());
    write_build_identity(&mut key);
    hash_tree(&abs, &abs, &mut key)?;
    let cache = cache_dir()?.join(key.hex());
    let is_jar = abs.is_file();
    let target = if is_jar {
        cache.join("app.jar")
    } else {
        cache.join("classes")
    };
    let warnings_of = |dir: &Path| -> Vec<String> {
        std::fs::read_to_string(dir.join(WARNINGS_FILE))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    if cache.join("done").exists() {
        return Ok((target, warnings_of(&cache)));
    }
    // Build into a private folder and rename it into place: parallel rankchecks may race here.
    let staging = super::runtime::unique_sibling(&cache);
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
            .and_then(|(out, summary)| {
                std::fs::write(&staged, out)?;
                Ok(summary)
            })
    } else {
        instrument_dir(&abs, &staged, &options, &quiet)
            .map_err(|e| bad_input(format!("{}: cannot instrument: {e}", path.display())))
    };
    let summary = match result {
        Ok(summary) => summary,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    let text: String = summary
        .warnings
        .iter()
        .map(|w| format!("{}\n", w.replace('\n', " ")))
        .collect();
    std::fs::write(staging.join(WARNINGS_FILE), text)?;
    std::fs::write(staging.join("done"), abs.display().to_string())?;
    if std::fs::rename(&staging, &cache).is_err() {
        // Someone else finished first; theirs is as good as ours.
        let _ = std::fs::remove_dir_all(&staging);
        if !cache.join("done").exists() {
            anyhow::bail!("cannot move the instrumented copy into {}", cache.display());
        }
    }
    Ok((target, warnings_of(&cache)))
}

/// The rewriter's warnings of a cached instrumented copy, one per line.
const WARNINGS_FILE: &str = "warnings.txt";

/// The points-to analysis of the program `cp` (original classes) with entry `main`, cached in
/// the cache folder by a hash of the class path's contents and `main`.
pub fn analysis(cp: &str, main: &str) -> anyhow::Result<alias::AnalysisFile> {
    let entries: Vec<PathBuf> = cp
        .split(':')
        .filter(|e| !e.is_empty())
        .map(PathBuf::from)
        .collect();
    let mut key = Digest::new();
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
        .join(format!("{}.json", key.hex()));
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
    let tmp = super::runtime::unique_sibling(&file);
    std::fs::write(&tmp, analysis.to_json())?;
    let _ = std::fs::rename(&tmp, &file);
    Ok(analysis)
}

/// The class path `cp` instrumented for the variable set `vars` of `analysis`: only the data
/// sites that may touch those variables (and the allocation sites of their types); sync
/// everywhere. A last entry carries the set's tracked table ([`tracked_table`]), so that the
/// agent makes only accesses to the set's own objects and statics scheduling points.
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
    let alloc_sites = hooked_alloc_sites(analysis, vars, selection.alloc_sites);
    let (data, alloc) = (keys(selection.data_sites), keys(alloc_sites));
    let mut out = Vec::new();
    for entry in cp.split(':').filter(|e| !e.is_empty()) {
        let mut config = rewriter::Config::all();
        config.data_sites = Some(data.clone());
        config.alloc_sites = Some(alloc.clone());
        out.push(instrument_cached(Path::new(entry), &mode, config)?.0);
    }
    out.push(tracked_entry(&tracked_table(analysis, vars))?);
    Ok(out)
}

/// The allocation sites that get the `Allocated` hook for the variable set `vars`: its own
/// (`selected`), and every other allocation site of a type one of them makes, so that the agent
/// knows an object of that type made elsewhere is not tracked (agent/src/naming.rs).
pub fn hooked_alloc_sites(
    analysis: &alias::AnalysisFile,
    vars: &[u32],
    mut selected: std::collections::BTreeSet<alias::SiteKey>,
) -> std::collections::BTreeSet<alias::SiteKey> {
    let types: std::collections::HashSet<&str> = tracked_variables(analysis, vars)
        .filter(|v| v.kind == alias::VariableKind::Alloc)
        .map(|v| v.ty.as_str())
        .collect();
    for v in &analysis.variables {
        if v.kind == alias::VariableKind::Alloc && types.contains(v.ty.as_str()) {
            selected.extend(v.site.clone());
        }
    }
    selected
}

fn tracked_variables<'a>(
    analysis: &'a alias::AnalysisFile,
    vars: &'a [u32],
) -> impl Iterator<Item = &'a alias::Variable> + 'a {
    analysis.variables.iter().filter(|v| vars.contains(&v.id))
}

/// The tracked-table lines (`#tracked…`, read by agent/src/naming.rs) for the variable set
/// `vars`: the set; each tracked static under every `owner.name:descriptor` a site uses for it
/// (and the name of every static site the analysis could not resolve); each tracked allocation
/// site's key and the JVM signature of what it makes.
pub fn tracked_table(analysis: &alias::AnalysisFile, vars: &[u32]) -> String {
    use java_harness::agent_contract::{tracked_alloc_line, tracked_set_line, tracked_static_line};
    use std::collections::BTreeSet;
    let mut ids: Vec<u32> = vars.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut lines = vec![tracked_set_line(&ids)];
    let mut statics: BTreeSet<String> = BTreeSet::new();
    let mut allocs: BTreeSet<String> = BTreeSet::new();
    for v in tracked_variables(analysis, &ids) {
        match (v.kind, &v.site) {
            (alias::VariableKind::Static, _) => {
                statics.insert(format!("{}:{}", v.name, v.ty));
            }
            (alias::VariableKind::Alloc, Some(k)) => {
                let signature = if v.ty.starts_with('[') {
                    v.ty.clone()
                } else {
                    format!("L{};", v.ty)
                };
                allocs.insert(tracked_alloc_line(
                    &k.class,
                    &k.method,
                    &k.descriptor,
                    k.bci,
                    &signature,
                ));
            }
            (alias::VariableKind::Alloc, None) => {}
        }
    }
    let static_ids: BTreeSet<u32> = tracked_variables(analysis, &ids)
        .filter(|v| v.kind == alias::VariableKind::Static)
        .map(|v| v.id)
        .collect();
    for site in &analysis.sites {
        let is_static = site.kind == "static-read" || site.kind == "static-write";
        if is_static && (site.all || site.vars.iter().any(|v| static_ids.contains(v))) {
            statics.insert(site.detail.clone());
        }
    }
    lines.extend(statics.into_iter().map(|d| tracked_static_line(&d)));
    lines.extend(allocs);
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// A class-path entry holding only a site table with `table` (cached by its contents).
fn tracked_entry(table: &str) -> anyhow::Result<PathBuf> {
    let mut key = Digest::new();
    key.write(table.as_bytes());
    let dir = cache_dir()?.join("tracked").join(key.hex());
    let file = dir.join(java_harness::hooks::SITE_TABLE_RESOURCE);
    if std::fs::read_to_string(&file).is_ok_and(|t| t == table) {
        return Ok(dir);
    }
    std::fs::create_dir_all(file.parent().unwrap())?;
    let tmp = super::runtime::unique_sibling(&file);
    std::fs::write(&tmp, table)?;
    std::fs::rename(&tmp, &file)?;
    Ok(dir)
}

/// Appends `table` to the site table of an instrumented jar or directory (`rankcheck instrument
/// --analysis F --vars …`), so that the output carries its variable set wherever it runs.
pub fn add_tracked_table(output: &Path, table: &str) -> anyhow::Result<()> {
    let resource = java_harness::hooks::SITE_TABLE_RESOURCE;
    if output.is_dir() {
        let file = output.join(resource);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        std::fs::create_dir_all(file.parent().unwrap())?;
        std::fs::write(&file, appended(text, table))?;
        return Ok(());
    }
    let bytes = std::fs::read(output)?;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))?;
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let mut text = String::new();
    for i in 0..archive.len() {
        let name = archive.by_index_raw(i)?.name().to_string();
        if name == resource {
            let mut entry = archive.by_index(i)?;
            std::io::Read::read_to_string(&mut entry, &mut text)?;
            continue;
        }
        writer.raw_copy_file(archive.by_index_raw(i)?)?;
    }
    writer.start_file(resource, zip::write::SimpleFileOptions::default())?;
    std::io::Write::write_all(&mut writer, appended(text, table).as_bytes())?;
    let out = writer.finish()?.into_inner();
    std::fs::write(output, out)?;
    Ok(())
}

/// `table` after the site table `text`, on lines of its own.
fn appended(mut text: String, table: &str) -> String {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(table);
    text
}

/// The version and the executable's identity (size and modification time): the rewriter and the
/// analysis may change between builds of one version, and a cached result must not outlive them.
fn write_build_identity(key: &mut Digest) {
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
fn hash_tree(root: &Path, path: &Path, key: &mut Digest) -> anyhow::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tracked_table_names_statics_by_every_site_name_and_allocations_by_key_and_type() {
        let analysis = alias::AnalysisFile::parse(
            r#"{"format": "rankcheck-alias/1", "main": "p/Main", "complete": true,
              "warnings": [],
              "variables": [
                {"id": 0, "kind": "static", "name": "p/Base.count", "type": "I",
                 "shared": true, "reached": true},
                {"id": 1, "kind": "alloc", "name": "p/Main.main([Ljava/lang/String;)V@4 new p/Cell",
                 "type": "p/Cell", "shared": true, "reached": true,
                 "site": {"class": "p/Main", "method": "main",
                          "descriptor": "([Ljava/lang/String;)V", "bci": 4}},
                {"id": 2, "kind": "alloc", "name": "p/Main.main([Ljava/lang/String;)V@9 new p/Cell",
                 "type": "p/Cell", "shared": true, "reached": true,
                 "site": {"class": "p/Main", "method": "main",
                          "descriptor": "([Ljava/lang/String;)V", "bci": 9}},
                {"id": 3, "kind": "alloc", "name": "p/Main.main([Ljava/lang/String;)V@20 newarray [I",
                 "type": "[I", "shared": false, "reached": true,
                 "site": {"class": "p/Main", "method": "main",
                          "descriptor": "([Ljava/lang/String;)V", "bci": 20}}
              ],
              "sites": [
                {"class": "p/Main", "method": "run", "descriptor": "()V", "bci": 1,
                 "kind": "static-read", "detail": "p/Sub.count:I", "reached": true,
                 "all": false, "vars": [0]},
                {"class": "p/Main", "method": "run", "descriptor": "()V", "bci": 5,
                 "kind": "static-write", "detail": "p/Main.other:I", "reached": true,
                 "all": false, "vars": []}
              ]}"#,
        )
        .unwrap();
        let table = tracked_table(&analysis, &[3, 0]);
        assert_eq!(
            table,
            "#tracked\tset\t0,3\n\
             #tracked\tstatic\tp/Base.count:I\n\
             #tracked\tstatic\tp/Sub.count:I\n\
             #tracked\talloc\tp/Main\tmain\t([Ljava/lang/String;)V\t20\t[I\n"
        );
        let tracked_cell = tracked_table(&analysis, &[1]);
        assert!(tracked_cell.contains("\t4\tLp/Cell;\n"), "{tracked_cell}");
        // The other Cell site gets the hook too, so its objects are known not to be tracked.
        let selected = analysis.select(&[1]).unwrap().alloc_sites;
        let hooked = hooked_alloc_sites(&analysis, &[1], selected);
        let bcis: Vec<u32> = hooked.iter().map(|k| k.bci).collect();
        assert_eq!(bcis, [4, 9]);
    }

    #[test]
    fn rewriter_warnings_of_classes_copied_unchanged_name_the_class() {
        assert_eq!(
            uninstrumented_class("entry junk/Bad.class copied unchanged: truncated class file"),
            Some((
                "junk/Bad.class".to_string(),
                "truncated class file".to_string()
            ))
        );
        assert_eq!(
            uninstrumented_class("entry META-INF/x.txt copied unchanged: not a class"),
            None
        );
        assert_eq!(
            uninstrumented_class("p/A.m()V left uninstrumented: too large"),
            None
        );
    }

    #[test]
    fn hash_depends_on_names_and_contents() {
        let dir = std::env::temp_dir().join(format!("rc-cp-hash-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("a/X.class"), b"one").unwrap();
        let hash = |d: &Path| {
            let mut k = Digest::new();
            hash_tree(d, d, &mut k).unwrap();
            k.finish()
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
