//! rankcheck's Java side, and the contract that binds it to the Rust side.
//!
//! **Its one job:** own the Java classes that run inside the program's JVM — `rankcheck.rt.RC`
//! (the hook entry points instrumented code calls), the in-JVM repeat runner and the test helpers,
//! and the JUnit library — compile them with javac at build time, and hand the resulting jars to
//! the `rankcheck` binary ([`RUNTIME_JAR`], [`JUNIT_JAR`]). [`hooks`] is the single definition of the hook contract, [`agent_contract`] of the rest
//! (the JNI natives, `RC`'s quiet-stretch fields, the `#tracked` table).
//!
//! **Architecture invariant:** no scheduling logic here, in Java or in Rust. The Java classes
//! forward to the agent's natives; decisions belong to `scheduler/` through `agent/`.

pub mod agent_contract;
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
    use super::agent_contract::{
        Native, AGENT_CLASS, AGENT_NATIVES, RC_CONSTANTS, RC_FIELDS, RC_NATIVES,
    };
    use super::hooks::{Hook, RC_CLASS};
    use ristretto_classfile::attributes::Attribute;
    use ristretto_classfile::{ClassFile, FieldAccessFlags, MethodAccessFlags};
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

    /// Every hook is one public static method of RC with its exact descriptor, and so is its
    /// method-reference bridge (the same name without the site id), if it has one; nothing
    /// else has the name.
    #[test]
    fn every_hook_and_bridge_exists_with_its_exact_descriptor() {
        let methods = methods(RC_CLASS);
        let mut bridges = 0;
        for hook in Hook::ALL {
            let mut want = vec![hook.descriptor().to_string()];
            if let Some(bridge) = hook.bridge_descriptor() {
                want.push(bridge);
                bridges += 1;
            }
            let mut found: Vec<_> = methods
                .iter()
                .filter(|(n, _, _)| n == hook.name())
                .collect();
            found.sort_by_key(|(_, d, _)| want.iter().position(|w| w == d));
            assert_eq!(
                found.iter().map(|(_, d, _)| d.clone()).collect::<Vec<_>>(),
                want,
                "{hook:?}: RC.{} with exactly these descriptors",
                hook.name()
            );
            for (_, _, flags) in found {
                assert!(
                    flags.contains(MethodAccessFlags::PUBLIC | MethodAccessFlags::STATIC),
                    "{hook:?}: RC.{} must be public static",
                    hook.name()
                );
            }
        }
        assert!(bridges >= 20, "{bridges} bridges");
        assert_eq!(
            Hook::ThreadStart.bridge_descriptor().as_deref(),
            Some("(Ljava/lang/Thread;)V")
        );
        assert_eq!(Hook::RandomSeed.bridge_descriptor(), None);
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

    /// `(name, descriptor, flags, int constant)` of every field of a class in the runtime jar.
    fn fields(class: &str) -> Vec<(String, String, FieldAccessFlags, Option<i32>)> {
        let bytes = jar_entry(&format!("{class}.class"));
        let cf = ClassFile::from_bytes(&bytes).unwrap();
        let pool = &cf.constant_pool;
        cf.fields
            .iter()
            .map(|f| {
                let constant = f.attributes.iter().find_map(|a| match a {
                    Attribute::ConstantValue {
                        constant_value_index,
                        ..
                    } => pool.try_get_integer(*constant_value_index).ok().copied(),
                    _ => None,
                });
                (
                    pool.try_get_utf8(f.name_index).unwrap().to_string(),
                    pool.try_get_utf8(f.descriptor_index).unwrap().to_string(),
                    f.access_flags,
                    constant,
                )
            })
            .collect()
    }

    /// The `native` methods of `class` in the runtime jar, as `(name, descriptor)`, sorted.
    fn natives_of(class: &str) -> Vec<(String, String)> {
        let mut out: Vec<_> = methods(class)
            .into_iter()
            .filter(|(_, _, flags)| flags.contains(MethodAccessFlags::NATIVE))
            .map(|(n, d, _)| (n, d))
            .collect();
        out.sort();
        out
    }

    fn table(natives: &[Native]) -> Vec<(String, String)> {
        let mut out: Vec<_> = natives
            .iter()
            .map(|n| (n.name.to_string(), n.descriptor.to_string()))
            .collect();
        out.sort();
        out
    }

    /// Every `native` of `RC` and `Agent` is in the contract with exactly its descriptor, and
    /// every contract entry is a native there: none missing, none extra.
    #[test]
    fn the_natives_are_the_contract_tables_both_ways() {
        for (class, natives) in [(RC_CLASS, RC_NATIVES), (AGENT_CLASS, AGENT_NATIVES)] {
            let declared = natives_of(class);
            let contract = table(natives);
            let missing: Vec<_> = declared.iter().filter(|n| !contract.contains(n)).collect();
            let extra: Vec<_> = contract.iter().filter(|n| !declared.contains(n)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{class}: natives declared but not in agent_contract: {missing:?}; \
                 in agent_contract but not declared native: {extra:?}"
            );
        }
    }

    /// The static fields the agent reads and writes exist in `RC` with the contract's
    /// descriptors, static and not final; the constants equal the contract's.
    #[test]
    fn rc_fields_and_constants_are_the_contracts() {
        let fields = fields(RC_CLASS);
        for f in RC_FIELDS {
            let found = fields
                .iter()
                .find(|(n, _, _, _)| n == f.name)
                .unwrap_or_else(|| panic!("RC.{} missing", f.name));
            assert_eq!(found.1, f.descriptor, "RC.{}", f.name);
            assert!(found.2.contains(FieldAccessFlags::STATIC), "RC.{}", f.name);
            // `quietHeld` is final (the array lives as long as RC); the agent writes the others.
            if f.descriptor.starts_with('[') {
                continue;
            }
            assert!(!found.2.contains(FieldAccessFlags::FINAL), "RC.{}", f.name);
        }
        for (name, value) in RC_CONSTANTS {
            let found = fields
                .iter()
                .find(|(n, _, _, _)| n == name)
                .unwrap_or_else(|| panic!("RC.{name} missing"));
            assert_eq!(found.3, Some(*value), "RC.{name}");
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
