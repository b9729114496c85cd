//! Compiling the JUnit tests of `tests/junit/` against Debian's junit5 jars, for the tests that
//! run `rankcheck junit`.

use super::{rankcheck, root, LIMIT};
use std::path::{Path, PathBuf};
use std::process::Command;

const JAVA: &str = "/usr/share/java";

pub fn jar(name: &str) -> String {
    format!("{JAVA}/{name}")
}

/// The JUnit library's path, as `rankcheck rt --junit` prints it.
pub fn junit_library(cwd: &Path) -> String {
    let ran = rankcheck(cwd, &["rt", "--junit"], LIMIT);
    assert_eq!(ran.code, 0, "{}", ran.both());
    ran.stdout.trim().to_string()
}

/// Compiles `tests/junit/SUITE` against `classpath` into `dir/SUITE` and returns that folder.
pub fn compile(suite: &str, classpath: &[String], dir: &Path) -> PathBuf {
    let out = dir.join(suite);
    std::fs::create_dir_all(&out).unwrap();
    let sources = rankcheck::suite::java_sources(&root().join("tests/junit").join(suite)).unwrap();
    let status = Command::new(rankcheck::suite::javac())
        .args(["--release", "11", "-d"])
        .arg(&out)
        .arg("-cp")
        .arg(classpath.join(":"))
        .args(&sources)
        .status()
        .unwrap();
    assert!(status.success(), "javac failed on tests/junit/{suite}");
    out
}

/// The JUnit 5 class path of the shop tests (no launcher: rankcheck brings Debian's).
pub fn jupiter_jars(library: &str) -> Vec<String> {
    let mut cp: Vec<String> = [
        "junit-jupiter-api.jar",
        "junit-jupiter-engine.jar",
        "junit-platform-engine.jar",
        "junit-platform-commons.jar",
        "opentest4j.jar",
        "apiguardian-api.jar",
    ]
    .iter()
    .map(|j| jar(j))
    .collect();
    cp.push(library.to_string());
    cp
}

/// `tests/junit/jupiter` compiled into `dir`, and the class path `rankcheck junit` takes for it:
/// the classes, the Jupiter jars and the JUnit library.
pub fn jupiter_classpath(dir: &Path) -> String {
    let library = junit_library(dir);
    let jars = jupiter_jars(&library);
    let classes = compile("jupiter", &jars, dir);
    format!("{}:{}", classes.display(), jars.join(":"))
}
