//! Helpers shared by the rewriter's end-to-end tests (tests/rewriter_*.rs).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The rankcheck binary under test.
pub fn rankcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .args(args)
        .output()
        .expect("run rankcheck")
}

/// A fresh, empty scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rewriter-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn java_home() -> PathBuf {
    rewriter::hierarchy::java_home().expect("a JDK")
}

pub fn java() -> Command {
    Command::new(java_home().join("bin").join("java"))
}

/// The runtime jar (RC and the test tools), written once per test binary.
pub fn rt_jar() -> &'static Path {
    static JAR: OnceLock<PathBuf> = OnceLock::new();
    JAR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rewriter-tests");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("rankcheck-rt-{}.jar", std::process::id()));
        std::fs::write(&path, java_harness::RUNTIME_JAR).unwrap();
        path
    })
}

/// The library jars of the issue that are installed; a note for each absent one.
pub fn library_jars() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for name in ["guava.jar", "commons-lang3.jar", "commons-collections4.jar"] {
        let p = Path::new("/usr/share/java").join(name);
        if p.is_file() {
            out.push(p);
        } else {
            eprintln!("note: {} is not installed; skipped", p.display());
        }
    }
    out
}

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The committed programs of tests/java/rewrite, compiled.
pub fn program_corpus() -> PathBuf {
    repo().join("tests/corpus/rewrite")
}

/// Every file under `dir`, as (path relative with '/', bytes), sorted.
pub fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Writes a jar with these entries, in this order.
pub fn write_jar(path: &Path, entries: &[(String, Vec<u8>)]) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        w.start_file(name.as_str(), options).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap();
}

/// Every entry of a jar, as (name, bytes), in order.
pub fn read_jar(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    (0..z.len())
        .map(|i| {
            let mut f = z.by_index(i).unwrap();
            let mut v = Vec::new();
            f.read_to_end(&mut v).unwrap();
            (f.name().to_string(), v)
        })
        .collect()
}

/// Runs VerifyAll and returns class → outcome (`OK`, or `FAIL <error class>`; messages of
/// verify errors name offsets, which instrumentation moves).
pub fn verify_all(jvm_flags: &[&str], args: &[&str]) -> BTreeMap<String, String> {
    let out = java()
        .args(jvm_flags)
        .arg("-cp")
        .arg(rt_jar())
        .arg("rankcheck.tools.VerifyAll")
        .args(args)
        .output()
        .expect("run java");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "VerifyAll failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        stdout.chars().take(2000).collect::<String>()
    );
    stdout
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ' ');
            let status = parts.next()?;
            let name = parts.next()?.to_string();
            let outcome = if status == "OK" {
                "OK".to_string()
            } else {
                format!("FAIL {}", parts.next().unwrap_or("").trim_end_matches(':'))
            };
            Some((name, outcome))
        })
        .collect()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `rankcheck instrument INPUT -o OUT EXTRA…`.
pub fn instrument_cli(input: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "instrument",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    rankcheck(&args)
}

/// [`instrument_cli`], which must succeed.
pub fn instrument_ok(input: &Path, out: &Path, extra: &[&str]) -> Output {
    let o = instrument_cli(input, out, extra);
    assert!(
        o.status.success(),
        "rankcheck instrument failed: {}",
        stderr(&o)
    );
    o
}

/// Jar options with every entry selected.
pub fn jar_options(
    config: rewriter::Config,
    runtime_jar: Option<&'static [u8]>,
) -> rewriter::jar::JarOptions {
    rewriter::jar::JarOptions {
        config,
        include: Vec::new(),
        exclude: Vec::new(),
        runtime_jar,
        skip_bad: false,
    }
}

/// Every hook, plus `padding` nops in the middle of every method (widening test aid).
pub fn padded_config(padding: u16) -> rewriter::Config {
    rewriter::Config {
        stress_padding: padding,
        ..rewriter::Config::all()
    }
}

/// Asserts that every class has the same VerifyAll outcome in both runs.
pub fn assert_same_outcomes(
    label: &str,
    original: &BTreeMap<String, String>,
    other: &BTreeMap<String, String>,
) {
    let differ: Vec<_> = original
        .iter()
        .filter(|(c, outcome)| other.get(*c) != Some(outcome))
        .map(|(c, outcome)| format!("{c}: {outcome} -> {:?}", other.get(c)))
        .collect();
    assert!(
        differ.is_empty(),
        "{label}: {} classes differ: {:?}",
        differ.len(),
        &differ[..differ.len().min(5)]
    );
    assert_eq!(original.len(), other.len(), "{label}: class counts differ");
}
