//! Builds `librankcheck_agent.so` so that the `rankcheck` binary can embed it (`rankcheck rt`
//! unpacks it). A package cannot depend on a cdylib, so this runs a nested
//! `cargo build -p agent` with the same profile into its own target directory
//! (`<target>/agent-build`): a separate directory means the nested cargo never waits for the
//! outer one's build lock. The path of the result goes to the crate as `RANKCHECK_AGENT_SO`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "debug".into());
    // OUT_DIR is <target>/<profile>/build/rankcheck-<hash>/out (or one level deeper with
    // --target); the agent's own target directory sits beside <profile>.
    let target = out
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| out.clone());
    let agent_target = target.join("agent-build");

    for path in [
        "agent/src",
        "agent/Cargo.toml",
        "scheduler/src",
        "scheduler/Cargo.toml",
        "rewriter/src",
        "rewriter/Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    for path in [
        "java-harness/src",
        "java-harness/java",
        "java-harness/junit",
        "java-harness/build.rs",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&manifest)
        .args(["build", "-p", "agent", "--lib", "--target-dir"])
        .arg(&agent_target);
    if profile == "release" {
        cmd.arg("--release");
    }
    // What the outer cargo sets for build scripts must not leak into the nested build (it would
    // change its fingerprints, or point it at the outer target directory).
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if (key.starts_with("CARGO_") && key != "CARGO_HOME" && key != "CARGO_NET_OFFLINE")
            || key.starts_with("DEP_")
            || key == "RUSTC_WRAPPER"
            || key == "RUSTC_WORKSPACE_WRAPPER"
            || key == "OUT_DIR"
            || key == "TARGET"
            || key == "HOST"
            || key == "OPT_LEVEL"
            || key == "PROFILE"
            || key == "DEBUG"
            || key == "NUM_JOBS"
        {
            cmd.env_remove(&key);
        }
    }
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the agent: {e}"));
    assert!(
        status.success(),
        "building the agent (cargo build -p agent) failed"
    );
    let so = agent_target.join(&profile).join("librankcheck_agent.so");
    assert!(
        so.exists(),
        "the agent build did not produce {}",
        so.display()
    );
    println!("cargo:rustc-env=RANKCHECK_AGENT_SO={}", so.display());
}
