//! Compiles the Java side with javac and packs it into two jars that `lib.rs` embeds:
//! `$OUT_DIR/rankcheck-rt.jar` from `java/` (no dependency), and `$OUT_DIR/rankcheck-junit.jar`
//! from `junit/` (the `@RankcheckTest` annotation and the JUnit side of the harness), compiled
//! against the runtime classes and the JUnit 5 jars of Debian's `junit5` package
//! (`/usr/share/java`, or `$RANKCHECK_JUNIT_JARS`). Entries are sorted and carry a fixed
//! timestamp so the jars' bytes depend only on the sources and the javac version.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The JUnit jars `junit/` is compiled against (Debian's names in `/usr/share/java`).
const JUNIT_JARS: &[&str] = &[
    "junit-jupiter-api.jar",
    "junit-platform-launcher.jar",
    "junit-platform-engine.jar",
    "junit-platform-commons.jar",
    "opentest4j.jar",
    "apiguardian-api.jar",
];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=java");
    println!("cargo:rerun-if-changed=junit");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    println!("cargo:rerun-if-env-changed=RANKCHECK_JUNIT_JARS");

    let classes = out.join("classes");
    javac(&root.join("java"), &classes, &[]);
    jar(&classes, &out.join("rankcheck-rt.jar"));

    let junit_dir = std::env::var_os("RANKCHECK_JUNIT_JARS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/java"));
    let mut cp = vec![classes.clone()];
    for name in JUNIT_JARS {
        let jar = junit_dir.join(name);
        assert!(
            jar.is_file(),
            "{} is missing: rankcheck's JUnit support is built against Debian's JUnit 5 \
             (scripts/ensure-deps, or apt-get install junit5; RANKCHECK_JUNIT_JARS names another folder)",
            jar.display()
        );
        cp.push(jar);
    }
    let junit_classes = out.join("classes-junit");
    javac(&root.join("junit"), &junit_classes, &cp);
    jar(&junit_classes, &out.join("rankcheck-junit.jar"));
}

/// Compiles every `.java` file below `src` into `classes` (emptied first).
fn javac(src: &Path, classes: &Path, classpath: &[PathBuf]) {
    let mut sources = Vec::new();
    collect(src, "java", &mut sources);
    sources.sort();
    let _ = std::fs::remove_dir_all(classes);
    std::fs::create_dir_all(classes).unwrap();
    let javac = match std::env::var_os("JAVA_HOME") {
        Some(home) => PathBuf::from(home).join("bin").join("javac"),
        None => PathBuf::from("javac"),
    };
    let mut cmd = Command::new(&javac);
    cmd.args([
        "--release",
        "11",
        "-g",
        "-encoding",
        "UTF-8",
        "-Xlint:-options",
    ]);
    if !classpath.is_empty() {
        cmd.arg("-cp").arg(std::env::join_paths(classpath).unwrap());
    }
    let status = cmd
        .arg("-d")
        .arg(classes)
        .args(&sources)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): rankcheck needs a JDK 11+ (apt-get install openjdk-17-jdk-headless)",
                javac.display()
            )
        });
    assert!(status.success(), "javac failed on {}", src.display());
}

/// Packs the class files below `classes` into the jar `target`.
fn jar(classes: &Path, target: &Path) {
    let mut files = Vec::new();
    collect(classes, "class", &mut files);
    files.sort();
    let jar = std::fs::File::create(target).unwrap();
    let mut zip = zip::ZipWriter::new(jar);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    zip.start_file("META-INF/MANIFEST.MF", options).unwrap();
    zip.write_all(b"Manifest-Version: 1.0\r\nCreated-By: rankcheck\r\n\r\n")
        .unwrap();
    for file in files {
        let name = file
            .strip_prefix(classes)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        zip.start_file(name, options).unwrap();
        zip.write_all(&std::fs::read(&file).unwrap()).unwrap();
    }
    zip.finish().unwrap();
}

fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}
