//! Benchmark-program suites: the `manifest.toml` of every program folder of `contest-bench/`,
//! `tests/programs/` and `tests/perf-programs/` (schema: `contest-bench/MANIFEST.md`), loading a
//! whole suite, and compiling a program's Java sources with `javac`.
//!
//! Three types carry it: [`Manifest`] is one parsed and checked `manifest.toml`; [`Program`] is a
//! manifest plus the folder it came from; [`Suite`] is every program below one folder, sorted by
//! name, with the cross-program checks (unique names, `fixed` names a correct program) done.
//! Every error is a [`SuiteError`] whose message is one line naming the file (and, for manifest
//! errors, the line and key).

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use regex::Regex;
use serde::Deserialize;

/// Name of the manifest file inside every program folder.
pub const MANIFEST_FILE: &str = "manifest.toml";

/// Folder, inside a program folder, that holds its Java sources.
pub const SOURCE_DIR: &str = "src";

/// What `javac` is told besides the output folder and the sources. Part of the cache key, so a
/// change here recompiles everything.
const JAVAC_FLAGS: &[&str] = &["--release", "17", "-g", "-encoding", "UTF-8", "-nowarn"];

/// One `manifest.toml`. Unknown keys are an error, so a misspelt key cannot silently do nothing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Unique within the suite; equal to the folder name.
    pub name: String,
    /// Binary name of the main class, e.g. `account.Main`.
    pub main: String,
    /// Program arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Application threads at most, main included (PCT's n).
    pub threads: u32,
    /// The program, and its bug, in words.
    pub description: String,
    /// `true`: the program must never fail, under any interleaving.
    pub correct: bool,
    /// Name of the fixed variant in the same suite.
    #[serde(default)]
    pub fixed: Option<String>,
    /// Libraries (jars or class folders) the sources compile against and the program runs
    /// with, after its own classes: absolute, or relative to the program folder.
    #[serde(default)]
    pub classpath: Vec<String>,
    /// How a failure shows besides throwables, deadlocks and the step bound.
    #[serde(default)]
    pub oracle: Oracle,
    /// The smallest bounds at which the bug is found; absent for correct programs.
    #[serde(default)]
    pub expected: Option<Expected>,
}

/// The `[oracle]` table: extra ways an execution fails.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Oracle {
    /// Regex over stdout + stderr; a match is a failure.
    #[serde(default)]
    pub fail_on_output: Option<String>,
    /// Exit status of a passing execution (a different one is a failure).
    #[serde(default)]
    pub expect_exit: Option<i32>,
    /// `PATH=REGEX`: the file PATH (relative to the execution's work dir) matching is a failure.
    #[serde(default)]
    pub fail_on_file: Option<String>,
}

/// The `[expected]` table of a buggy program.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// Preemptions needed (RankChecker counting unless the description says otherwise).
    #[serde(default)]
    pub c: Option<u32>,
    /// Distinct variables at whose accesses those preemptions happen.
    #[serde(default)]
    pub v: Option<u32>,
    /// Threads whose relative order matters.
    #[serde(default)]
    pub t: Option<u32>,
    /// A free word: atomicity, order, deadlock, livelock, watchdog, exit, …
    pub kind: String,
    /// What the cause at the top of a bug report (`explanation.txt`) names: each string must
    /// appear in it — the racing accesses (`Account#3.balance`, `Account.java:23`), the locks
    /// of a deadlock cycle, the notify that found no waiter.
    #[serde(default)]
    pub cause: Vec<String>,
}

/// A parsed `fail_on_file` oracle.
#[derive(Debug, Clone)]
pub struct FileOracle {
    /// Relative to the execution's work dir.
    pub path: PathBuf,
    pub pattern: Regex,
}

impl Oracle {
    /// The compiled `fail_on_output` regex, if any (checked valid when the manifest was loaded).
    pub fn output_regex(&self) -> Option<Regex> {
        self.fail_on_output
            .as_deref()
            .map(|r| Regex::new(r).expect("checked at load"))
    }

    /// The exit status a passing execution has.
    pub fn exit_status(&self) -> i32 {
        self.expect_exit.unwrap_or(0)
    }

    /// The parsed `fail_on_file` oracle, if any (checked valid when the manifest was loaded).
    pub fn file(&self) -> Option<FileOracle> {
        self.fail_on_file
            .as_deref()
            .map(|s| parse_file_oracle(s).expect("checked at load"))
    }

    fn check(&self) -> Result<(), String> {
        if let Some(r) = &self.fail_on_output {
            Regex::new(r).map_err(|e| {
                format!(
                    "oracle.fail_on_output is not a valid regex: {}",
                    one_line(&e.to_string())
                )
            })?;
        }
        if let Some(s) = &self.fail_on_file {
            parse_file_oracle(s).map_err(|e| format!("oracle.fail_on_file: {e}"))?;
        }
        Ok(())
    }
}

fn parse_file_oracle(s: &str) -> Result<FileOracle, String> {
    let (path, pattern) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not PATH=REGEX"))?;
    let path = PathBuf::from(path);
    if path.as_os_str().is_empty() || path.is_absolute() {
        return Err(format!("`{s}`: PATH must be a non-empty relative path"));
    }
    let pattern = Regex::new(pattern)
        .map_err(|e| format!("`{s}`: invalid regex: {}", one_line(&e.to_string())))?;
    Ok(FileOracle { path, pattern })
}

impl Manifest {
    /// Parses and checks one manifest. `origin` names the file in error messages.
    pub fn parse(text: &str, origin: &Path) -> Result<Manifest, SuiteError> {
        let manifest: Manifest = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            SuiteError::Manifest {
                path: origin.to_path_buf(),
                line,
                message: one_line(e.message()),
            }
        })?;
        manifest.check().map_err(|message| SuiteError::Manifest {
            path: origin.to_path_buf(),
            line: None,
            message,
        })?;
        Ok(manifest)
    }

    /// Reads and checks `path`.
    pub fn load(path: &Path) -> Result<Manifest, SuiteError> {
        let text = fs::read_to_string(path).map_err(|e| SuiteError::io(path, e))?;
        Manifest::parse(&text, path)
    }

    /// The rules of MANIFEST.md that the types alone do not enforce.
    fn check(&self) -> Result<(), String> {
        if self.name.is_empty() || self.name.contains(['/', '\\']) {
            return Err(format!("name `{}` must be a plain folder name", self.name));
        }
        if !is_binary_class_name(&self.main) {
            return Err(format!("main `{}` is not a Java class name", self.main));
        }
        if self.threads == 0 {
            return Err("threads must be at least 1 (main counts)".into());
        }
        if self.description.trim().is_empty() {
            return Err("description is empty".into());
        }
        self.oracle.check()?;
        match (&self.expected, self.correct) {
            (Some(_), true) => {
                return Err("a correct program has no [expected] table (it must never fail)".into())
            }
            (None, false) => {
                return Err("a buggy program (correct = false) needs an [expected] table".into())
            }
            _ => {}
        }
        if let Some(exp) = &self.expected {
            if exp.kind.trim().is_empty() {
                return Err("expected.kind is empty".into());
            }
            if let (Some(c), Some(v)) = (exp.c, exp.v) {
                if v > c {
                    return Err(format!(
                        "expected.v = {v} exceeds expected.c = {c} (v ≤ c by definition)"
                    ));
                }
            }
            if exp.t == Some(0) {
                return Err("expected.t must be at least 1".into());
            }
            if exp.cause.iter().any(|c| c.trim().is_empty()) {
                return Err("expected.cause has an empty string".into());
            }
        }
        if self.fixed.as_deref() == Some(self.name.as_str()) {
            return Err("fixed names the program itself".into());
        }
        if let Some(bad) = self
            .classpath
            .iter()
            .find(|e| e.trim().is_empty() || e.contains(':'))
        {
            return Err(format!(
                "classpath entry `{bad}` must be one non-empty path (one entry per string)"
            ));
        }
        Ok(())
    }

    /// Path, relative to the program folder, of the main class's source file.
    pub fn main_source(&self) -> PathBuf {
        // A nested main class (`a.Outer$Inner`) lives in the outer class's file.
        let outer = self.main.split('$').next().unwrap_or(&self.main);
        let mut path = PathBuf::from(SOURCE_DIR);
        for part in outer.split('.') {
            path.push(part);
        }
        path.set_extension("java");
        path
    }
}

fn is_binary_class_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One program: its folder and its manifest.
#[derive(Debug, Clone)]
pub struct Program {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

impl Program {
    /// Loads the program in `dir` (its `manifest.toml` and the check that the sources exist).
    pub fn load(dir: &Path) -> Result<Program, SuiteError> {
        let manifest_path = dir.join(MANIFEST_FILE);
        let manifest = Manifest::load(&manifest_path)?;
        let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        if folder.as_deref() != Some(manifest.name.as_str()) {
            return Err(SuiteError::Manifest {
                path: manifest_path,
                line: None,
                message: format!(
                    "name `{}` differs from the folder name `{}`",
                    manifest.name,
                    folder.unwrap_or_default()
                ),
            });
        }
        let program = Program {
            dir: dir.to_path_buf(),
            manifest,
        };
        if let Some(missing) = program.libraries().into_iter().find(|l| !l.exists()) {
            return Err(SuiteError::Manifest {
                path: manifest_path,
                line: None,
                message: format!(
                    "classpath entry {} does not exist (a library the program needs: \
                     scripts/ensure-deps installs the Debian ones)",
                    missing.display()
                ),
            });
        }
        let main_source = program.dir.join(program.manifest.main_source());
        if !main_source.is_file() {
            return Err(SuiteError::Manifest {
                path: manifest_path,
                line: None,
                message: format!(
                    "main class `{}` has no source file {}",
                    program.manifest.main,
                    main_source.display()
                ),
            });
        }
        Ok(program)
    }

    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// The manifest's `classpath` entries, relative ones resolved against the program folder.
    pub fn libraries(&self) -> Vec<PathBuf> {
        self.manifest
            .classpath
            .iter()
            .map(|e| self.dir.join(e))
            .collect()
    }

    /// Every `.java` file below `src/`, sorted.
    pub fn sources(&self) -> Result<Vec<PathBuf>, SuiteError> {
        let mut found = Vec::new();
        collect_java_files(&self.dir.join(SOURCE_DIR), &mut found)?;
        found.sort();
        Ok(found)
    }
}

/// Every `.java` file below `dir`, sorted.
pub fn java_sources(dir: &Path) -> Result<Vec<PathBuf>, SuiteError> {
    let mut found = Vec::new();
    collect_java_files(dir, &mut found)?;
    found.sort();
    Ok(found)
}

fn collect_java_files(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), SuiteError> {
    for entry in fs::read_dir(dir).map_err(|e| SuiteError::io(dir, e))? {
        let path = entry.map_err(|e| SuiteError::io(dir, e))?.path();
        if path.is_dir() {
            collect_java_files(&path, found)?;
        } else if path.extension().is_some_and(|x| x == "java") {
            found.push(path);
        }
    }
    Ok(())
}

/// Every program folder (a folder with a `manifest.toml`) directly below one folder.
#[derive(Debug, Clone)]
pub struct Suite {
    pub root: PathBuf,
    /// Sorted by name.
    pub programs: Vec<Program>,
}

impl Suite {
    /// Loads `root/*/manifest.toml`. Every non-hidden subfolder must be a program folder; names
    /// must be unique and every `fixed` must name a correct program of the suite.
    pub fn load(root: &Path) -> Result<Suite, SuiteError> {
        let mut dirs = Vec::new();
        for entry in fs::read_dir(root).map_err(|e| SuiteError::io(root, e))? {
            let path = entry.map_err(|e| SuiteError::io(root, e))?.path();
            let hidden = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if path.is_dir() && !hidden {
                dirs.push(path);
            }
        }
        dirs.sort();
        if dirs.is_empty() {
            return Err(SuiteError::Suite {
                root: root.to_path_buf(),
                message: "no program folders".into(),
            });
        }
        let mut programs = Vec::with_capacity(dirs.len());
        for dir in &dirs {
            if !dir.join(MANIFEST_FILE).is_file() {
                return Err(SuiteError::Suite {
                    root: root.to_path_buf(),
                    message: format!("folder {} has no {MANIFEST_FILE}", dir.display()),
                });
            }
            programs.push(Program::load(dir)?);
        }
        let suite = Suite {
            root: root.to_path_buf(),
            programs,
        };
        suite.check_links()?;
        Ok(suite)
    }

    fn check_links(&self) -> Result<(), SuiteError> {
        let mut names = BTreeSet::new();
        for p in &self.programs {
            if !names.insert(p.name()) {
                return Err(SuiteError::Suite {
                    root: self.root.clone(),
                    message: format!("two programs are named `{}`", p.name()),
                });
            }
        }
        for p in &self.programs {
            let Some(fixed) = &p.manifest.fixed else {
                continue;
            };
            let message = match self.get(fixed) {
                None => format!("fixed = `{fixed}` names no program of the suite"),
                Some(f) if !f.manifest.correct => {
                    format!("fixed = `{fixed}` names a program that is not correct")
                }
                Some(_) => continue,
            };
            return Err(SuiteError::Manifest {
                path: p.dir.join(MANIFEST_FILE),
                line: None,
                message,
            });
        }
        Ok(())
    }

    /// The program named `name`.
    pub fn get(&self, name: &str) -> Option<&Program> {
        self.programs
            .binary_search_by(|p| p.name().cmp(name))
            .ok()
            .map(|i| &self.programs[i])
    }
}

/// Compiles `program`'s sources with `javac --release 17 -g` into a folder below `cache_dir`
/// keyed by a hash of the sources, and returns that folder (the classpath). A folder that is
/// already complete is reused; concurrent callers are safe (each compiles into its own temporary
/// folder and renames it into place).
pub fn compile(program: &Program, cache_dir: &Path) -> Result<PathBuf, SuiteError> {
    let sources = program.sources()?;
    if sources.is_empty() {
        return Err(SuiteError::Compile {
            program: program.name().to_string(),
            message: format!(
                "no .java files below {}",
                program.dir.join(SOURCE_DIR).display()
            ),
        });
    }
    let mut key = crate::digest::Digest::new();
    for flag in JAVAC_FLAGS {
        key.write(flag.as_bytes());
    }
    for source in &sources {
        let relative = source.strip_prefix(&program.dir).unwrap_or(source);
        key.write(relative.to_string_lossy().as_bytes());
        key.write(&fs::read(source).map_err(|e| SuiteError::io(source, e))?);
    }
    let libraries = program.libraries();
    // A library upgraded in place (apt) may change what the sources compile to (constants,
    // overloads): its bytes are part of the key.
    for lib in &libraries {
        key.write(lib.to_string_lossy().as_bytes());
        if lib.is_file() {
            key.write(&fs::read(lib).map_err(|e| SuiteError::io(lib, e))?);
        }
    }
    let classes = cache_dir.join(format!("{}-{:016x}", program.name(), key.finish()));
    if classes.is_dir() {
        return Ok(classes);
    }
    fs::create_dir_all(cache_dir).map_err(|e| SuiteError::io(cache_dir, e))?;
    // Unique per call, so parallel compiles of the same program (threads or processes) never
    // share a staging folder.
    static STAGING_COUNTER: AtomicU64 = AtomicU64::new(0);
    let staging = cache_dir.join(format!(
        ".{}-{:016x}.{}-{}",
        program.name(),
        key.finish(),
        std::process::id(),
        STAGING_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(|e| SuiteError::io(&staging, e))?;
    }
    let mut javac_command = Command::new(javac());
    javac_command.args(JAVAC_FLAGS);
    if !libraries.is_empty() {
        let cp = std::env::join_paths(&libraries).map_err(|e| SuiteError::Compile {
            program: program.name().to_string(),
            message: format!("classpath: {e}"),
        })?;
        javac_command.arg("-cp").arg(cp);
    }
    let output = javac_command
        .arg("-d")
        .arg(&staging)
        .args(&sources)
        .output()
        .map_err(|e| SuiteError::Compile {
            program: program.name().to_string(),
            message: format!("cannot run {}: {e}", javac().display()),
        })?;
    if !output.status.success() {
        let _ = fs::remove_dir_all(&staging);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(SuiteError::Compile {
            program: program.name().to_string(),
            message: format!("javac failed ({}): {first}", output.status),
        });
    }
    match fs::rename(&staging, &classes) {
        Ok(()) => Ok(classes),
        // Another process finished the same sources first: its result is as good as ours.
        Err(_) if classes.is_dir() => {
            let _ = fs::remove_dir_all(&staging);
            Ok(classes)
        }
        Err(e) => Err(SuiteError::io(&classes, e)),
    }
}

/// `$JAVA_HOME/bin/javac` when JAVA_HOME is set, else `javac` from PATH.
pub fn javac() -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) if !home.is_empty() => Path::new(&home).join("bin").join("javac"),
        _ => PathBuf::from("javac"),
    }
}

/// Why a manifest, a suite or a compilation failed. Displays as one line.
#[derive(Debug)]
pub enum SuiteError {
    Io {
        path: PathBuf,
        source: io::Error,
    },
    Manifest {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    Suite {
        root: PathBuf,
        message: String,
    },
    Compile {
        program: String,
        message: String,
    },
}

impl SuiteError {
    fn io(path: &Path, source: io::Error) -> SuiteError {
        SuiteError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            SuiteError::Manifest {
                path,
                line: Some(line),
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            SuiteError::Manifest {
                path,
                line: None,
                message,
            } => write!(f, "{}: {message}", path.display()),
            SuiteError::Suite { root, message } => write!(f, "suite {}: {message}", root.display()),
            SuiteError::Compile { program, message } => write!(f, "compiling {program}: {message}"),
        }
    }
}

impl std::error::Error for SuiteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SuiteError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "Account"
main = "account.Main"
args = ["out.txt", "little"]
threads = 3
description = "Two tellers update a shared balance without synchronization."
correct = false
fixed = "AccountFixed"

[oracle]
fail_on_output = "FAIL|inconsistent"
expect_exit = 0
fail_on_file = "out.txt=^BUG"

[expected]
c = 1
v = 1
t = 2
kind = "atomicity"
cause = ["Account.balance", "Account.java:23"]
"#;

    fn parse(text: &str) -> Result<Manifest, String> {
        Manifest::parse(text, Path::new("x/manifest.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_the_documented_example() {
        let m = parse(GOOD).unwrap();
        assert_eq!(m.main, "account.Main");
        assert_eq!(m.args, ["out.txt", "little"]);
        assert_eq!(m.fixed.as_deref(), Some("AccountFixed"));
        assert_eq!(m.oracle.exit_status(), 0);
        assert!(m
            .oracle
            .output_regex()
            .unwrap()
            .is_match("an inconsistent state"));
        let file = m.oracle.file().unwrap();
        assert_eq!(file.path, Path::new("out.txt"));
        assert!(file.pattern.is_match("BUG here"));
        let e = m.expected.unwrap();
        assert_eq!(
            (e.c, e.v, e.t, e.kind.as_str()),
            (Some(1), Some(1), Some(2), "atomicity")
        );
        assert_eq!(e.cause, ["Account.balance", "Account.java:23"]);
        assert!(parse(&GOOD.replace("\"Account.java:23\"", "\" \""))
            .unwrap_err()
            .contains("expected.cause"));
    }

    #[test]
    fn optional_keys_default() {
        let m = parse(
            "name = \"A\"\nmain = \"Main\"\nthreads = 1\ndescription = \"d\"\ncorrect = true\n",
        )
        .unwrap();
        assert!(m.args.is_empty());
        assert_eq!(m.oracle, Oracle::default());
        assert_eq!(m.oracle.exit_status(), 0);
        assert!(m.expected.is_none());
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let err = parse(&GOOD.replace("threads = 3", "threads = 3\nthread_count = 3")).unwrap_err();
        assert!(err.starts_with("x/manifest.toml:6: "), "{err}");
        assert!(err.contains("thread_count"), "{err}");
        let err = parse(&GOOD.replace("kind = ", "knd = ")).unwrap_err();
        assert!(err.contains("knd"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn missing_or_mistyped_keys_are_errors() {
        assert!(parse(&GOOD.replace("main = \"account.Main\"\n", ""))
            .unwrap_err()
            .contains("main"));
        assert!(parse(&GOOD.replace("threads = 3", "threads = \"3\"")).is_err());
    }

    #[test]
    fn semantic_rules() {
        let cases = [
            (
                GOOD.replace("correct = false", "correct = true"),
                "no [expected]",
            ),
            (
                GOOD.replace("main = \"account.Main\"", "main = \"account/Main\""),
                "class name",
            ),
            (GOOD.replace("threads = 3", "threads = 0"), "threads"),
            (GOOD.replace("FAIL|inconsistent", "FAIL("), "fail_on_output"),
            (GOOD.replace("out.txt=^BUG", "out.txt"), "PATH=REGEX"),
            (GOOD.replace("out.txt=^BUG", "/tmp/x=^BUG"), "relative"),
            (GOOD.replace("c = 1", "c = 0"), "exceeds"),
            (GOOD.replace("t = 2", "t = 0"), "expected.t"),
        ];
        for (text, needle) in cases {
            let err = parse(&text).unwrap_err();
            assert!(err.contains(needle), "{needle}: {err}");
        }
        let buggy_without_expected = GOOD.split("[expected]").next().unwrap();
        assert!(parse(buggy_without_expected)
            .unwrap_err()
            .contains("needs an [expected]"));
    }

    #[test]
    fn classpath_entries_are_single_paths() {
        let with =
            |cp: &str| GOOD.replace("threads = 3", &format!("threads = 3\nclasspath = {cp}"));
        let m = parse(&with("[\"/usr/share/java/guava.jar\", \"lib/mine.jar\"]")).unwrap();
        assert_eq!(m.classpath, ["/usr/share/java/guava.jar", "lib/mine.jar"]);
        assert!(parse(GOOD).unwrap().classpath.is_empty());
        let err = parse(&with("[\"a.jar:b.jar\"]")).unwrap_err();
        assert!(err.contains("one entry per string"), "{err}");
        assert!(parse(&with("[\" \"]"))
            .unwrap_err()
            .contains("classpath entry"));
        assert!(parse(&with("\"a.jar\"")).is_err(), "a list, not a string");
    }

    #[test]
    fn main_source_path() {
        let m = parse(GOOD).unwrap();
        assert_eq!(m.main_source(), Path::new("src/account/Main.java"));
    }
}
