//! The JNI natives: thin shims on top of the controller, each translating a Java call into one
//! controller call. `rankcheck.rt.RC`'s (the hooks' agent-on side, `rc`) are registered with
//! JNI `RegisterNatives` from the contract table `java_harness::agent_contract::RC_NATIVES`
//! paired with their functions ([`register_rc`], when the harness or plain main connects);
//! `rankcheck.harness.Agent`'s (`harness`, the repeat runner's side) are exported as
//! `Java_rankcheck_harness_Agent_*` symbols, since HotSpot looks natives up in agent libraries
//! too and `connect` is the first call into the agent.
//!
//! Return conventions (RC.java relies on them): a `jboolean` "handled" result of false means the
//! calling thread is not under rankcheck's control and the hook does the real operation itself;
//! an aborted execution is a pending `ExecutionAborted`.

mod harness;
pub mod identity;
mod rc;
mod shape;

use crate::control::{Control, Turn, CONTROL};
use crate::ffi::{call, java_string, throw_new};
use java_harness::agent_contract::{Native, RC_NATIVES};
use jni::sys::{
    jboolean, jclass, jdouble, jint, jlong, jobject, jstring, JNIEnv, JNI_FALSE, JNI_TRUE,
};
use scheduler::{Op, OpOutcome};
use std::ffi::CString;

fn control() -> Option<&'static Control> {
    CONTROL.get()
}

fn abort(env: *mut JNIEnv, c: &Control) {
    if let Some(refs) = c.java() {
        call!(env, Throw, refs.abort);
    }
}

/// Turns a scheduling point's result into the hook's behaviour; returns "handled".
pub(crate) fn finish_turn(env: *mut JNIEnv, c: &Control, turn: Turn, timeout_ns: u64) -> jboolean {
    match turn {
        Turn::Pass => JNI_FALSE,
        Turn::Abort => {
            abort(env, c);
            JNI_TRUE
        }
        Turn::RealWait => unreachable!("only Wait asks for a real wait"),
        Turn::Go(outcome) => {
            match outcome {
                OpOutcome::Interrupted => {
                    if let Some(refs) = c.java() {
                        throw_new(env, refs.interrupted_exception, "interrupted (rankcheck)");
                    }
                }
                OpOutcome::IllegalMonitorState => {
                    if let Some(refs) = c.java() {
                        throw_new(
                            env,
                            refs.illegal_monitor_state,
                            "current thread is not owner",
                        );
                    }
                }
                OpOutcome::TimedOut => c.advance_clock(timeout_ns),
                _ => {}
            }
            JNI_TRUE
        }
    }
}

fn millis_ns(millis: jlong) -> u64 {
    (millis.max(0) as u64).saturating_mul(1_000_000)
}

/// The natives of `RC` as JNI registers them: each contract entry (name, descriptor) with the
/// function of `rc::table` of the same name; an error naming the first native whose function is
/// missing, doubled, left over, or of a type that does not fit its descriptor.
pub fn rc_registrations() -> Result<Vec<(Native, *mut std::ffi::c_void)>, String> {
    bind(RC_NATIVES, rc::table())
}

/// `natives` paired with the `functions` of the same names, each checked against its
/// descriptor by its type's shape.
fn bind(
    natives: &[Native],
    functions: Vec<(&'static str, shape::Function)>,
) -> Result<Vec<(Native, *mut std::ffi::c_void)>, String> {
    let mut out = Vec::with_capacity(natives.len());
    for n in natives {
        let mut found = functions.iter().filter(|(name, _)| *name == n.name);
        let (Some((_, f)), None) = (found.next(), found.next()) else {
            return Err(format!("{}: not exactly one function", n.name));
        };
        let want = shape::of_descriptor(n.descriptor);
        if want.as_deref() != Some(f.shape.as_str()) {
            return Err(format!(
                "{} {}: the function's type is {}, the descriptor's {want:?}",
                n.name, n.descriptor, f.shape
            ));
        }
        out.push((*n, f.pointer));
    }
    if let Some((extra, _)) = functions
        .iter()
        .find(|(name, _)| !natives.iter().any(|n| n.name == *name))
    {
        return Err(format!("{extra}: a function for no native of the contract"));
    }
    Ok(out)
}

/// Registers `RC`'s natives on `rc` (JNI `RegisterNatives`); false when that failed.
pub fn register_rc(env: *mut JNIEnv, rc: jclass) -> bool {
    let Ok(natives) = rc_registrations() else {
        return false;
    };
    let strings: Vec<(CString, CString)> = natives
        .iter()
        .filter_map(|(n, _)| Some((CString::new(n.name).ok()?, CString::new(n.descriptor).ok()?)))
        .collect();
    if strings.len() != natives.len() {
        return false;
    }
    let methods: Vec<jni::sys::JNINativeMethod> = natives
        .iter()
        .zip(&strings)
        .map(|((_, f), (name, sig))| jni::sys::JNINativeMethod {
            name: name.as_ptr() as *mut _,
            signature: sig.as_ptr() as *mut _,
            fnPtr: *f,
        })
        .collect();
    call!(
        env,
        RegisterNatives,
        rc,
        methods.as_ptr(),
        methods.len() as jint
    ) == jni::sys::JNI_OK
}

/// Connects the controller to the runtime classes, registering `RC`'s natives on the way.
pub fn connect(env: *mut JNIEnv, c: &Control) -> bool {
    c.connect(env, register_rc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use java_harness::agent_contract::{jni_symbol, AGENT_CLASS, AGENT_NATIVES};
    use java_harness::hooks::RC_CLASS;

    /// What the agent registers for `RC` is the contract table, name for name, both ways, each
    /// function's type fitting its descriptor.
    #[test]
    fn the_rc_registrations_are_the_contract_table() {
        let natives = rc_registrations().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(natives.len(), RC_NATIVES.len());
        assert!(natives.iter().all(|(_, f)| !f.is_null()));
    }

    /// Likewise the harness's exported natives against `Agent`'s contract table.
    #[test]
    fn the_harness_functions_fit_the_contract_table() {
        let natives = bind(AGENT_NATIVES, harness::table()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(natives.len(), AGENT_NATIVES.len());
    }

    /// The `native` methods the compiled classes declare (`RC.class` and `Agent.class` of the
    /// runtime jar, read with the rewriter's class-file reader), as contract entries.
    fn declared_natives(class: &str) -> Vec<Native> {
        use rewriter::classfile::{ClassFile, ACC_NATIVE};
        let classes = rewriter::jar::read_classes(java_harness::RUNTIME_JAR).unwrap();
        let entry = format!("{class}.class");
        let (_, bytes) = classes.iter().find(|(name, _)| *name == entry).unwrap();
        let cf = ClassFile::parse(bytes).unwrap();
        let leak = |index| -> &'static str { cf.cp.utf8_string(index).unwrap().leak() };
        cf.methods
            .iter()
            .filter(|m| m.access & ACC_NATIVE != 0)
            .map(|m| Native {
                name: leak(m.name_index),
                descriptor: leak(m.descriptor_index),
            })
            .collect()
    }

    /// Every native declared in `RC.class` and `Agent.class` has exactly one agent function,
    /// of a type that fits the declared descriptor, and the agent has no function for a native
    /// they do not declare (the contract table in between is java-harness's test).
    #[test]
    fn every_declared_native_has_a_function_of_its_descriptor() {
        for (class, functions) in [(RC_CLASS, rc::table()), (AGENT_CLASS, harness::table())] {
            let declared = declared_natives(class);
            assert!(declared.len() >= 8, "{class}: {declared:?}");
            if let Err(e) = bind(&declared, functions) {
                panic!("{class}: {e}");
            }
        }
    }

    /// The binding refuses a function of another shape, a missing one and one left over.
    #[test]
    fn binding_refuses_what_does_not_fit() {
        let natives = [
            Native {
                name: "nYield",
                descriptor: "(J)Z",
            },
            Native {
                name: "nExit",
                descriptor: "(IJ)Z",
            },
        ];
        let table = rc::table();
        let pick = |names: &[&str]| -> Vec<_> {
            table
                .iter()
                .filter(|(n, _)| names.contains(n))
                .cloned()
                .collect()
        };
        assert!(bind(&natives, pick(&["nYield", "nExit"])).is_ok());
        let wrong = [
            natives[0],
            Native {
                name: "nExit",
                descriptor: "(JJ)Z",
            },
        ];
        let e = bind(&wrong, pick(&["nYield", "nExit"])).unwrap_err();
        assert!(
            e.starts_with("nExit (JJ)Z: the function's type is (IJ)Z"),
            "{e}"
        );
        let e = bind(&natives, pick(&["nYield"])).unwrap_err();
        assert!(e.contains("nExit: not exactly one"), "{e}");
        let e = bind(&natives[..1], pick(&["nYield", "nExit"])).unwrap_err();
        assert!(e.contains("nExit: a function for no native"), "{e}");
    }

    /// The harness's natives are exported under the JNI names of the contract's, and no other
    /// `Java_` symbol is.
    #[test]
    fn the_agent_exports_are_the_contract_table() {
        let source = include_str!("harness.rs");
        let exported: Vec<&str> = source
            .split("pub extern \"system\" fn ")
            .skip(1)
            .filter_map(|rest| rest.split('(').next())
            .collect();
        let mut want: Vec<String> = AGENT_NATIVES
            .iter()
            .map(|n| jni_symbol(AGENT_CLASS, n.name))
            .collect();
        want.sort();
        let mut got: Vec<String> = exported.iter().map(|s| s.to_string()).collect();
        got.sort();
        assert_eq!(got, want);
        assert_eq!(source.matches("#[no_mangle]").count(), want.len());
    }
}
