//! Programs described by a `manifest.toml` (contest-bench/MANIFEST.md): compiled with javac
//! (cached), instrumented, and turned into the [`Program`] a search runs, with the manifest's
//! main class, arguments and oracles.

use super::classpath::{self, Mode};
use super::jvm::join_paths;
use super::report::Origin;
use super::search::Program;
use crate::error::bad_input;
use std::path::{Path, PathBuf};

/// Compiles a manifest's program (cached) and reads its main class, arguments and oracles.
pub fn manifest_program(path: &Path, mode: Mode) -> anyhow::Result<Program> {
    program_of(&load_manifest(path)?, mode)
}

/// The suite program of a `manifest.toml` (or of the folder holding one).
pub fn load_manifest(path: &Path) -> anyhow::Result<crate::suite::Program> {
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    crate::suite::Program::load(&dir).map_err(|e| bad_input(e.to_string()))
}

/// A suite program, compiled and instrumented.
pub fn program_of(program: &crate::suite::Program, mode: Mode) -> anyhow::Result<Program> {
    let classes = join_paths(&compiled_classpath(program)?);
    let prepared = classpath::prepare_report(&classes, mode)?;
    let mut runnable = program_from(program, prepared.entries.clone());
    runnable.load_time = mode == Mode::LoadTime;
    runnable.uninstrumented_classes = prepared.uninstrumented.len();
    runnable.warnings = prepared.warning_lines();
    let manifest = std::fs::canonicalize(program.dir.join("manifest.toml")).ok();
    runnable.origin = Some(Origin::of(&classes, mode, manifest));
    Ok(runnable)
}

/// A suite program's original classes (compiled with javac, cached).
pub fn compiled(program: &crate::suite::Program) -> anyhow::Result<PathBuf> {
    crate::suite::compile(program, &classpath::cache_dir()?.join("javac"))
        .map_err(|e| bad_input(e.to_string()))
}

/// A suite program's class path: its compiled classes, then its manifest's libraries.
pub fn compiled_classpath(program: &crate::suite::Program) -> anyhow::Result<Vec<PathBuf>> {
    let mut entries = vec![compiled(program)?];
    entries.extend(program.libraries());
    Ok(entries)
}

/// A suite program run from the given (instrumented) class path, with its manifest's main
/// class, arguments and oracles.
pub fn program_from(program: &crate::suite::Program, classpath: Vec<PathBuf>) -> Program {
    let m = &program.manifest;
    Program {
        classpath,
        framework: Vec::new(),
        main: m.main.clone(),
        args: m.args.clone(),
        fail_on_output: m.oracle.fail_on_output.iter().cloned().collect(),
        fail_on_file: m.oracle.fail_on_file.iter().cloned().collect(),
        expect_exit: m.oracle.exit_status(),
        private_cwd: true,
        load_time: false,
        origin: None,
        uninstrumented_classes: 0,
        warnings: Vec::new(),
    }
}
