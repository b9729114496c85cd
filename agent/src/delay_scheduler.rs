//! `CompletableFuture`'s delay scheduler, in the state a fresh JVM has it, before every
//! execution.
//!
//! **Why.** `orTimeout`, `completeOnTimeout` and `CompletableFuture.delayedExecutor` schedule on
//! one `ScheduledThreadPoolExecutor` the JDK keeps for the JVM's life (`Delayer.delayer`). Its
//! worker is a thread of the execution that first needed it and is stopped when that execution
//! ends; the dying worker starts a replacement outside any execution, which then runs later
//! executions' timeouts uncontrolled and takes the queue's lock where the model cannot see: a
//! pool thread cancelling a timeout waits for that lock for ever (a deadlock that is not the
//! program's), and timeouts scheduled by an ended execution fire in the next one.
//!
//! **How.** Once the JDK has initialized the scheduler, before every execution, on the
//! harness's thread while no application thread runs: its run state is set to STOP (so no
//! dying worker is replaced), its workers are stopped ([`common_pool::stop_all`]), and its
//! instance fields are copied from a scheduler made as the JDK makes it (one core thread, the
//! same thread factory, tasks removed on cancel). The static field is final, so the object
//! stays and only its state is renewed. A JDK without these fields keeps the scheduler as it
//! is, and stderr says so once. This module decides nothing about scheduling.

use crate::common_pool;
use crate::ffi::call;
use crate::jvmti::Jvmti;
use jni::sys::{jclass, jobject, jthrowable, jvalue, JNIEnv};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

static WARNED: AtomicBool = AtomicBool::new(false);

/// `ThreadPoolExecutor`'s run state STOP in its control word, with no workers counted.
const STOP: i32 = 1 << 29;

/// Renews the delay scheduler if the JDK has made it (see the module doc); `abort` is the
/// `ExecutionAborted` thrown into its leftover worker.
pub fn renew(env: *mut JNIEnv, jvmti: Jvmti, abort: jthrowable) {
    let done = try_renew(env, jvmti, abort);
    common_pool::warn_once(env, done, &WARNED, |e| {
        format!(
            "CompletableFuture's delay scheduler is not renewed between executions ({e}); a \
             program that uses orTimeout, completeOnTimeout or delayedExecutor may hang or not \
             replay"
        )
    });
}

/// A class by name, `None` when the JDK has none (the pending exception cleared).
fn class(env: *mut JNIEnv, name: &std::ffi::CStr) -> Option<jclass> {
    let c = call!(env, FindClass, name.as_ptr());
    if c.is_null() {
        call!(env, ExceptionClear);
        return None;
    }
    Some(c)
}

/// `CompletableFuture.Delayer`, looked up once per JVM without initializing it (JNI's
/// `FindClass` would: every JVM then had a delay scheduler to renew before every execution).
static DELAYER_CLASS: OnceLock<usize> = OnceLock::new();

fn try_renew(env: *mut JNIEnv, jvmti: Jvmti, abort: jthrowable) -> Result<(), String> {
    let delayer_class = crate::ffi::cached_class_without_init(
        env,
        &DELAYER_CLASS,
        c"java.util.concurrent.CompletableFuture$Delayer",
    );
    if delayer_class.is_null() {
        return Ok(());
    }
    // Not made yet: nothing to renew, and asking for its field would initialize it here.
    let initialized = jvmti
        .class_status(delayer_class)
        .is_ok_and(|s| s & crate::jvmti_sys::JVMTI_CLASS_STATUS_INITIALIZED != 0);
    if !initialized {
        return Ok(());
    }
    let delayer: jclass = call!(env, NewLocalRef, delayer_class);
    let stpe = class(env, c"java/util/concurrent/ScheduledThreadPoolExecutor")
        .ok_or("no ScheduledThreadPoolExecutor")?;
    let tpe =
        class(env, c"java/util/concurrent/ThreadPoolExecutor").ok_or("no ThreadPoolExecutor")?;
    let field = |class: jclass, name: &std::ffi::CStr, sig: &std::ffi::CStr| {
        let id = call!(env, GetFieldID, class, name.as_ptr(), sig.as_ptr());
        if id.is_null() {
            call!(env, ExceptionClear);
            return Err(format!("no field {}", name.to_string_lossy()));
        }
        Ok(id)
    };
    let pool = common_pool::static_object(
        env,
        delayer,
        c"delayer",
        c"Ljava/util/concurrent/ScheduledThreadPoolExecutor;",
    )?;
    // No replacement for a dying worker: the run state says STOP.
    let ctl = call!(
        env,
        GetObjectField,
        pool,
        field(tpe, c"ctl", c"Ljava/util/concurrent/atomic/AtomicInteger;")?
    );
    let atomic =
        class(env, c"java/util/concurrent/atomic/AtomicInteger").ok_or("no AtomicInteger")?;
    call!(env, SetIntField, ctl, field(atomic, c"value", c"I")?, STOP);
    let workers = worker_threads(env, pool, field(tpe, c"workers", c"Ljava/util/HashSet;")?)?;
    common_pool::stop_all(
        env,
        jvmti,
        &workers,
        abort,
        "CompletableFuture's delay scheduler",
    );
    // A scheduler made as the JDK makes it, with the same thread factory.
    let factory = call!(
        env,
        GetObjectField,
        pool,
        field(
            tpe,
            c"threadFactory",
            c"Ljava/util/concurrent/ThreadFactory;"
        )?
    );
    let init = call!(
        env,
        GetMethodID,
        stpe,
        c"<init>".as_ptr(),
        c"(ILjava/util/concurrent/ThreadFactory;)V".as_ptr()
    );
    let remove_on_cancel = call!(
        env,
        GetMethodID,
        stpe,
        c"setRemoveOnCancelPolicy".as_ptr(),
        c"(Z)V".as_ptr()
    );
    if init.is_null() || remove_on_cancel.is_null() {
        return Err("no ScheduledThreadPoolExecutor(int, ThreadFactory)".into());
    }
    let args = [jvalue { i: 1 }, jvalue { l: factory }];
    let fresh = call!(env, NewObjectA, stpe, init, args.as_ptr());
    if fresh.is_null() {
        return Err("the scheduler's constructor failed".into());
    }
    let on = [jvalue { z: 1 }];
    call!(env, CallVoidMethodA, fresh, remove_on_cancel, on.as_ptr());
    if call!(env, ExceptionCheck) != 0 {
        return Err("setRemoveOnCancelPolicy failed".into());
    }
    common_pool::copy_instance_fields(env, jvmti, tpe, fresh, pool)?;
    common_pool::copy_instance_fields(env, jvmti, stpe, fresh, pool)?;
    for local in [fresh, factory, ctl, atomic, pool, tpe, stpe, delayer] {
        call!(env, DeleteLocalRef, local);
    }
    Ok(())
}

/// The threads of `pool`'s workers (`ThreadPoolExecutor.workers`, a set of `Worker`s).
fn worker_threads(
    env: *mut JNIEnv,
    pool: jobject,
    workers_id: jni::sys::jfieldID,
) -> Result<Vec<jobject>, String> {
    let set = call!(env, GetObjectField, pool, workers_id);
    if set.is_null() {
        return Ok(Vec::new());
    }
    let set_class = class(env, c"java/util/HashSet").ok_or("no HashSet")?;
    let to_array = call!(
        env,
        GetMethodID,
        set_class,
        c"toArray".as_ptr(),
        c"()[Ljava/lang/Object;".as_ptr()
    );
    let worker_class =
        class(env, c"java/util/concurrent/ThreadPoolExecutor$Worker").ok_or("no Worker")?;
    let thread_id = call!(
        env,
        GetFieldID,
        worker_class,
        c"thread".as_ptr(),
        c"Ljava/lang/Thread;".as_ptr()
    );
    if to_array.is_null() || thread_id.is_null() {
        call!(env, ExceptionClear);
        return Err("no HashSet.toArray or Worker.thread".into());
    }
    let array = call!(env, CallObjectMethodA, set, to_array, std::ptr::null());
    if array.is_null() || call!(env, ExceptionCheck) != 0 {
        return Err("the workers could not be listed".into());
    }
    let mut threads = Vec::new();
    for i in 0..call!(env, GetArrayLength, array) {
        let worker = call!(env, GetObjectArrayElement, array, i);
        let thread = call!(env, GetObjectField, worker, thread_id);
        if !thread.is_null() {
            threads.push(thread);
        }
        call!(env, DeleteLocalRef, worker);
    }
    for local in [array, worker_class, set_class, set] {
        call!(env, DeleteLocalRef, local);
    }
    Ok(threads)
}
