//! rankcheck's Java side, and the contract that binds it to the Rust side.
//!
//! **Its one job:** own the Java classes that run inside the program's JVM — `rankcheck.rt.RC`
//! (the hook entry points instrumented code calls), the in-JVM repeat runner and the test helpers
//! — compile them with javac at build time, and hand the resulting jar to the `rankcheck` binary
//! ([`RUNTIME_JAR`]). [`hooks`] is the single definition of the hook contract.
//!
//! **Architecture invariant:** no scheduling logic here, in Java or in Rust. The Java classes
//! forward to the agent's natives; decisions belong to `scheduler/` through `agent/`.

pub mod hooks;

/// The runtime jar (`rankcheck.rt.*` and `rankcheck.harness.*`), built from `java/` by javac.
pub static RUNTIME_JAR: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rankcheck-rt.jar"));
