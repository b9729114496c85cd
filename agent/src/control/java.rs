//! The controller's hold on the runtime classes: the abort throwable, the exceptions hooks
//! throw, `RC` and its quiet-stretch fields ([`JavaRefs`]), bound by [`Control::connect`].

use super::*;
use crate::ffi::{call, find_class, new_global};
use java_harness::agent_contract::{
    StaticField, QUIET_COVERS, QUIET_HELD, QUIET_HELD_DEPTH, QUIET_LEFT, QUIET_THREAD, RC_ON,
};
use jni::sys::{jclass, jthrowable, JNI_TRUE};
use std::ffi::CString;

/// Global references the agent keeps to Java classes and objects.
#[derive(Clone, Copy, Debug)]
pub struct JavaRefs {
    /// The one `ExecutionAborted` thrown into every thread of an ended execution.
    pub abort: jthrowable,
    pub interrupted_exception: jclass,
    pub illegal_monitor_state: jclass,
    /// `rankcheck.rt.RC` and its quiet-stretch fields (see `RC.quietLeft`).
    pub rc: jclass,
    pub quiet_thread: jni::sys::jfieldID,
    pub quiet_left: jni::sys::jfieldID,
    pub quiet_covers: jni::sys::jfieldID,
    pub quiet_held_depth: jni::sys::jfieldID,
    /// `RC.quietHeld` (a global reference: the array lives as long as `RC`).
    pub quiet_held: jobject,
}

// SAFETY: JNI global references are valid in every thread, and never change once made.
unsafe impl Send for JavaRefs {}
unsafe impl Sync for JavaRefs {}

impl Control {
    /// Binds the agent to the runtime classes (the abort throwable, the exceptions hooks throw),
    /// has `bind_natives` register `RC`'s natives, and turns the hooks on; false when the runtime
    /// classes are missing or do not match.
    pub fn connect(
        &self,
        env: *mut JNIEnv,
        bind_natives: impl FnOnce(*mut JNIEnv, jclass) -> bool,
    ) -> bool {
        let classes = (
            find_class(env, "rankcheck/rt/ExecutionAborted"),
            find_class(env, "java/lang/InterruptedException"),
            find_class(env, "java/lang/IllegalMonitorStateException"),
            find_class(env, java_harness::hooks::RC_CLASS),
        );
        let (Some(aborted), Some(ie), Some(imse), Some(rc)) = classes else {
            eprintln!("rankcheck agent: the runtime classes are missing from the class path");
            return false;
        };
        let ctor = call!(
            env,
            GetMethodID,
            aborted,
            c"<init>".as_ptr(),
            c"(Ljava/lang/String;)V".as_ptr()
        );
        let message = call!(
            env,
            NewStringUTF,
            c"the execution was ended by rankcheck".as_ptr()
        );
        let args = [jni::sys::jvalue { l: message }];
        let local = call!(env, NewObjectA, aborted, ctor, args.as_ptr());
        if local.is_null() {
            return false;
        }
        let field = |f: StaticField| {
            let (name, sig) = (CString::new(f.name), CString::new(f.descriptor));
            let (Ok(name), Ok(sig)) = (name, sig) else {
                return std::ptr::null_mut();
            };
            call!(env, GetStaticFieldID, rc, name.as_ptr(), sig.as_ptr())
        };
        let (on, quiet_thread, quiet_left, quiet_covers, quiet_held_depth, quiet_held) = (
            field(RC_ON),
            field(QUIET_THREAD),
            field(QUIET_LEFT),
            field(QUIET_COVERS),
            field(QUIET_HELD_DEPTH),
            field(QUIET_HELD),
        );
        let held = if quiet_held.is_null() {
            std::ptr::null_mut()
        } else {
            call!(env, GetStaticObjectField, rc, quiet_held)
        };
        if on.is_null()
            || quiet_thread.is_null()
            || quiet_left.is_null()
            || quiet_covers.is_null()
            || quiet_held_depth.is_null()
            || held.is_null()
        {
            call!(env, ExceptionClear);
            eprintln!(
                "rankcheck agent: the runtime class rankcheck.rt.RC does not match this agent"
            );
            return false;
        }
        if !bind_natives(env, rc) {
            call!(env, ExceptionClear);
            eprintln!("rankcheck agent: the natives of rankcheck.rt.RC do not match this agent");
            return false;
        }
        self.set_java(JavaRefs {
            abort: new_global(env, local),
            interrupted_exception: ie,
            illegal_monitor_state: imse,
            rc,
            quiet_thread,
            quiet_left,
            quiet_covers,
            quiet_held_depth,
            quiet_held: new_global(env, held),
        });
        call!(env, SetStaticBooleanField, rc, on, JNI_TRUE);
        true
    }
}
