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
mod rc;

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
/// function of `rc::table` of the same name; `None` when the two do not pair up one to one.
pub fn rc_registrations() -> Option<Vec<(Native, *mut std::ffi::c_void)>> {
    let table = rc::table();
    if table.len() != RC_NATIVES.len() {
        return None;
    }
    RC_NATIVES
        .iter()
        .map(|n| {
            let f = table.iter().find(|(name, _)| *name == n.name)?.1;
            Some((*n, f))
        })
        .collect()
}

/// Registers `RC`'s natives on `rc` (JNI `RegisterNatives`); false when that failed.
pub fn register_rc(env: *mut JNIEnv, rc: jclass) -> bool {
    let Some(natives) = rc_registrations() else {
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

    /// What the agent registers for `RC` is the contract table, name for name, both ways (the
    /// contract table against `RC.class` is java-harness's test).
    #[test]
    fn the_rc_registrations_are_the_contract_table() {
        let natives = rc_registrations().expect("every contract native has one function");
        let mut names: Vec<_> = natives.iter().map(|(n, _)| n.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RC_NATIVES.len());
        let mut ours: Vec<_> = rc::table().iter().map(|(n, _)| *n).collect();
        ours.sort_unstable();
        let mut contract: Vec<_> = RC_NATIVES.iter().map(|n| n.name).collect();
        contract.sort_unstable();
        assert_eq!(ours, contract);
        assert!(natives.iter().all(|(_, f)| !f.is_null()));
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
