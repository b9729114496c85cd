//! rankcheck's Java side, and the contract that binds it to the Rust side.
//!
//! **Its one job:** own the Java classes that run inside the program's JVM — `rankcheck.rt.RC`
//! (the hook entry points instrumented code calls), the in-JVM repeat runner and the test helpers,
//! and the JUnit library — compile them with javac at build time, and hand the resulting jars to
//! the `rankcheck` binary ([`RUNTIME_JAR`], [`JUNIT_JAR`]). [`hooks`] is the single definition of the hook contract.
//!
//! **Architecture invariant:** no scheduling logic here, in Java or in Rust. The Java classes
//! forward to the agent's natives; decisions belong to `scheduler/` through `agent/`.

pub mod hooks;

/// The runtime jar (`rankcheck.rt.*` and `rankcheck.harness.*`), built from `java/` by javac.
pub static RUNTIME_JAR: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rankcheck-rt.jar"));

/// The JUnit library (`rankcheck.junit.RankcheckTest` and the harness's JUnit side,
/// `rankcheck.harness.junit.*`), built from `junit/` against Debian's JUnit 5 jars. Goes on a
/// test class path (`rankcheck rt --junit`) and into the framework loader of `rankcheck junit`.
pub static JUNIT_JAR: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rankcheck-junit.jar"));

#[cfg(test)]
mod rc_class_tests {
    //! The compiled `RC.class` against the hook table: every hook exists, `public static`,
    //! with exactly the descriptor of [`hooks`], so the rewriter, the runtime class and the
    //! agent cannot drift apart.
    use super::hooks::{Hook, RC_CLASS};
    use ristretto_classfile::{ClassFile, MethodAccessFlags};
    use std::io::Read;

    fn jar_entry(name: &str) -> Vec<u8> {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(super::RUNTIME_JAR)).unwrap();
        let mut entry = zip
            .by_name(name)
            .unwrap_or_else(|_| panic!("{name} not in the jar"));
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        bytes
    }

    /// `(name, descriptor, flags)` of every method of a class in the runtime jar.
    fn methods(class: &str) -> Vec<(String, String, MethodAccessFlags)> {
        let bytes = jar_entry(&format!("{class}.class"));
        let cf = ClassFile::from_bytes(&bytes).unwrap();
        assert_eq!(cf.class_name().unwrap().to_string(), class);
        cf.methods
            .iter()
            .map(|m| {
                (
                    cf.constant_pool
                        .try_get_utf8(m.name_index)
                        .unwrap()
                        .to_string(),
                    cf.constant_pool
                        .try_get_utf8(m.descriptor_index)
                        .unwrap()
                        .to_string(),
                    m.access_flags,
                )
            })
            .collect()
    }

    #[test]
    fn every_hook_exists_with_its_exact_descriptor() {
        let methods = methods(RC_CLASS);
        for hook in Hook::ALL {
            let found: Vec<_> = methods
                .iter()
                .filter(|(n, _, _)| n == hook.name())
                .collect();
            assert_eq!(
                found.len(),
                1,
                "{hook:?}: want exactly one RC.{}",
                hook.name()
            );
            let (_, descriptor, flags) = found[0];
            assert_eq!(descriptor, hook.descriptor(), "{hook:?}: descriptor");
            assert!(
                flags.contains(MethodAccessFlags::PUBLIC | MethodAccessFlags::STATIC),
                "{hook:?}: RC.{} must be public static",
                hook.name()
            );
        }
    }

    #[test]
    fn natives_are_private_and_hooks_are_not_native() {
        for (name, _, flags) in methods(RC_CLASS) {
            if flags.contains(MethodAccessFlags::NATIVE) {
                assert!(
                    name.starts_with('n'),
                    "native {name} should be an n… helper"
                );
                assert!(
                    !flags.contains(MethodAccessFlags::PUBLIC),
                    "native {name} is public"
                );
            }
        }
    }

    #[test]
    fn the_harness_and_the_abort_error_are_in_the_jar() {
        let main = methods("rankcheck/harness/Main");
        assert!(main
            .iter()
            .any(|(n, d, _)| n == "main" && d == "([Ljava/lang/String;)V"));
        assert!(!methods("rankcheck/rt/ExecutionAborted").is_empty());
    }
}
