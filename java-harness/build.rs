//! Compiles every `.java` file under `java/` with javac and packs the classes into
//! `$OUT_DIR/rankcheck-rt.jar`, which `lib.rs` embeds. Entries are sorted and carry a fixed
//! timestamp so the jar's bytes depend only on the sources and the javac version.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let src = root.join("java");
    println!("cargo:rerun-if-changed=java");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");

    let mut sources = Vec::new();
    collect(&src, "java", &mut sources);
    sources.sort();
    let classes = out.join("classes");
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes).unwrap();

    let javac = match std::env::var_os("JAVA_HOME") {
        Some(home) => PathBuf::from(home).join("bin").join("javac"),
        None => PathBuf::from("javac"),
    };
    let status = Command::new(&javac)
        .args(["--release", "11", "-g", "-encoding", "UTF-8", "-Xlint:-options", "-d"])
        .arg(&classes)
        .args(&sources)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): rankcheck needs a JDK 11+ (apt-get install openjdk-17-jdk-headless)",
                javac.display()
            )
        });
    assert!(status.success(), "javac failed on java-harness/java");

    let mut files = Vec::new();
    collect(&classes, "class", &mut files);
    files.sort();
    let jar = std::fs::File::create(out.join("rankcheck-rt.jar")).unwrap();
    let mut zip = zip::ZipWriter::new(jar);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    zip.start_file("META-INF/MANIFEST.MF", options).unwrap();
    zip.write_all(b"Manifest-Version: 1.0\r\nCreated-By: rankcheck\r\n\r\n")
        .unwrap();
    for file in files {
        let name = file
            .strip_prefix(&classes)
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
