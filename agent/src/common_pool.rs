//! The JDK's common fork/join pool, in the state a fresh JVM has it, before every execution.
//!
//! **Why.** `ForkJoinPool.commonPool()` serves parallel streams, `CompletableFuture.*Async`
//! without an executor and `ForkJoinTask.fork` outside a pool, and it is one object for the
//! whole life of the JVM, while the program's executions are many. Its workers are threads of
//! the execution that started them, and they are stopped when it ends; a worker that dies that
//! way deregisters itself and may start a replacement, outside any execution. The next
//! execution then finds counts that no longer match the pool's queues (its task waits for a
//! worker that never comes: a deadlock that is not the program's) or an uncontrolled worker
//! that runs its task, and in any case a pool whose state depends on the executions before
//! it, so a failure found in one would not replay in a fresh JVM.
//!
//! **How.** Before every execution, on the harness's thread while no application thread runs:
//! 1. the pool's control word is zeroed, so that no dying worker starts a replacement;
//! 2. every live worker of the common pool (all are left over from ended executions) is
//!    stopped with `ExecutionAborted` and awaited;
//! 3. every instance field of the common pool is copied from a pool made by the constructor
//!    the JDK makes the common pool with. The `common` static itself is final, and compiled
//!    code may hold it as a constant, so the object stays and only its state is renewed.
//!
//! A JDK without that constructor or those fields (another version) keeps its common pool as
//! it is, and stderr says so once. This module decides nothing about scheduling.

use crate::ffi::call;
use crate::jvmti::Jvmti;
use jni::sys::{jclass, jfieldID, jobject, jthrowable, jvalue, JNIEnv};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `ACC_STATIC`.
const ACC_STATIC: i32 = 0x0008;

/// How long stopped workers get to die.
const PATIENCE: Duration = Duration::from_secs(2);

/// How long one stop is waited for before it is repeated.
const ROUND: Duration = Duration::from_millis(50);

static WARNED: AtomicBool = AtomicBool::new(false);

/// Renews the common pool (see the module doc); `abort` is the `ExecutionAborted` thrown into
/// workers left over from ended executions.
pub fn renew(env: *mut JNIEnv, jvmti: Jvmti, abort: jthrowable) {
    let done = try_renew(env, jvmti, abort);
    warn_once(env, done, &WARNED, |e| {
        format!(
            "the common ForkJoinPool is not renewed between executions ({e}); a program that \
             uses it (parallel streams, CompletableFuture.*Async) may hang or not replay"
        )
    });
}

/// On a failed renewal: clears the pending exception and, the first time (`warned`), says on
/// stderr what the user may see.
pub(crate) fn warn_once(
    env: *mut JNIEnv,
    done: Result<(), String>,
    warned: &AtomicBool,
    message: impl FnOnce(String) -> String,
) {
    if let Err(e) = done {
        if call!(env, ExceptionCheck) != 0 {
            call!(env, ExceptionClear);
        }
        if !warned.swap(true, Ordering::Relaxed) {
            eprintln!("rankcheck agent: warning: {}", message(e));
        }
    }
}

/// The value of static field `name` (JVM signature `sig`) of `class`, not null.
pub(crate) fn static_object(
    env: *mut JNIEnv,
    class: jclass,
    name: &std::ffi::CStr,
    sig: &std::ffi::CStr,
) -> Result<jobject, String> {
    let id = call!(env, GetStaticFieldID, class, name.as_ptr(), sig.as_ptr());
    if id.is_null() {
        call!(env, ExceptionClear);
        return Err(format!("no static field {}", name.to_string_lossy()));
    }
    let value = call!(env, GetStaticObjectField, class, id);
    if value.is_null() {
        return Err(format!("{} is null", name.to_string_lossy()));
    }
    Ok(value)
}

fn try_renew(env: *mut JNIEnv, jvmti: Jvmti, abort: jthrowable) -> Result<(), String> {
    let pool_class: jclass = call!(
        env,
        FindClass,
        c"java/util/concurrent/ForkJoinPool".as_ptr()
    );
    if pool_class.is_null() {
        return Err("no java.util.concurrent.ForkJoinPool".into());
    }
    let common = static_object(
        env,
        pool_class,
        c"common",
        c"Ljava/util/concurrent/ForkJoinPool;",
    )?;
    let ctl = call!(env, GetFieldID, pool_class, c"ctl".as_ptr(), c"J".as_ptr());
    if ctl.is_null() {
        return Err("no ForkJoinPool.ctl".into());
    }
    let leftovers = workers_of(env, jvmti, common)?;
    if !leftovers.is_empty() {
        call!(env, SetLongField, common, ctl, 0);
        stop_all(env, jvmti, &leftovers, abort, "the common ForkJoinPool");
    }
    let fresh = fresh_common(env, pool_class)?;
    copy_instance_fields(env, jvmti, pool_class, fresh, common)?;
    call!(env, DeleteLocalRef, fresh);
    call!(env, DeleteLocalRef, common);
    call!(env, DeleteLocalRef, pool_class);
    Ok(())
}

/// The live worker threads of `pool`.
fn workers_of(env: *mut JNIEnv, jvmti: Jvmti, pool: jobject) -> Result<Vec<jobject>, String> {
    let worker_class = call!(
        env,
        FindClass,
        c"java/util/concurrent/ForkJoinWorkerThread".as_ptr()
    );
    if worker_class.is_null() {
        return Err("no ForkJoinWorkerThread".into());
    }
    let pool_field = call!(
        env,
        GetFieldID,
        worker_class,
        c"pool".as_ptr(),
        c"Ljava/util/concurrent/ForkJoinPool;".as_ptr()
    );
    if pool_field.is_null() {
        return Err("no ForkJoinWorkerThread.pool".into());
    }
    let threads = jvmti
        .all_threads()
        .map_err(|e| format!("GetAllThreads: {e:?}"))?;
    let mut workers = Vec::new();
    for t in threads {
        let ours = call!(env, IsInstanceOf, t, worker_class) != 0 && {
            let p = call!(env, GetObjectField, t, pool_field);
            let same = call!(env, IsSameObject, p, pool) != 0;
            call!(env, DeleteLocalRef, p);
            same
        };
        if ours {
            workers.push(t);
        } else {
            call!(env, DeleteLocalRef, t);
        }
    }
    call!(env, DeleteLocalRef, worker_class);
    Ok(workers)
}

/// Stops `threads` (workers of `pool`, for the warning) and waits (a while) until they are
/// gone, deleting their local references. A thread may catch the exception (code that ignores
/// every throwable) and park again, so the stop is repeated.
pub(crate) fn stop_all(
    env: *mut JNIEnv,
    jvmti: Jvmti,
    threads: &[jobject],
    abort: jthrowable,
    pool: &str,
) {
    let alive = |t: jobject| {
        jvmti
            .thread_state(t)
            .is_ok_and(|s| s & crate::jvmti_sys::JVMTI_THREAD_STATE_ALIVE != 0)
    };
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        let living: Vec<jobject> = threads.iter().copied().filter(|&t| alive(t)).collect();
        if living.is_empty() {
            break;
        }
        for &t in &living {
            let _ = jvmti.stop(t, abort);
        }
        let round = Instant::now() + ROUND;
        while living.iter().any(|&t| alive(t)) && Instant::now() < round {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    for &t in threads.iter().filter(|&&t| alive(t)) {
        let state = jvmti.thread_state(t).unwrap_or(0);
        let stack = jvmti.stack(t, 12).unwrap_or_default();
        eprintln!(
            "rankcheck agent: warning: a worker of {pool} left from an earlier execution could \
             not be stopped ({}):\n    {}",
            crate::jvmti::describe_state(state),
            stack.join("\n    ")
        );
    }
    for &t in threads {
        call!(env, DeleteLocalRef, t);
    }
}

/// A new pool made the way the JDK makes its common pool (`ForkJoinPool(byte)`, which reads the
/// same system properties and processor count).
fn fresh_common(env: *mut JNIEnv, pool_class: jclass) -> Result<jobject, String> {
    let init = call!(
        env,
        GetMethodID,
        pool_class,
        c"<init>".as_ptr(),
        c"(B)V".as_ptr()
    );
    if init.is_null() {
        return Err("no ForkJoinPool(byte) constructor".into());
    }
    let args = [jvalue { b: 0 }];
    let fresh = call!(env, NewObjectA, pool_class, init, args.as_ptr());
    if fresh.is_null() {
        return Err("the common pool's constructor failed".into());
    }
    Ok(fresh)
}

/// An instance field to copy: its id and its signature's first byte.
#[derive(Clone, Copy)]
struct InstanceField {
    id: jfieldID,
    kind: u8,
}

/// The instance fields of the classes copied so far (a global reference to each class): the
/// JDK's pool classes are never unloaded, so their field ids hold for the JVM's life, and
/// listing them through JVMTI before every execution cost more than the copy.
struct FieldCache(Vec<(jclass, Vec<InstanceField>)>);

// SAFETY: the classes are JNI global references and field ids are process-wide.
unsafe impl Send for FieldCache {}

static FIELDS: Mutex<FieldCache> = Mutex::new(FieldCache(Vec::new()));

/// `class`'s instance fields, listed once per JVM.
fn instance_fields(
    env: *mut JNIEnv,
    jvmti: Jvmti,
    class: jclass,
) -> Result<Vec<InstanceField>, String> {
    let mut cache = FIELDS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, fields)) = cache
        .0
        .iter()
        .find(|(known, _)| call!(env, IsSameObject, *known, class) != 0)
    {
        return Ok(fields.clone());
    }
    let mut fields = Vec::new();
    for f in jvmti
        .declared_fields(class)
        .map_err(|e| format!("GetClassFields: {e:?}"))?
    {
        if f.modifiers & ACC_STATIC != 0 {
            continue;
        }
        let kind = *f.signature.as_bytes().first().unwrap_or(&0);
        if !b"ZBCSIJFDL[".contains(&kind) {
            return Err(format!("field {} has signature {}", f.name, f.signature));
        }
        fields.push(InstanceField { id: f.id, kind });
    }
    let global = call!(env, NewGlobalRef, class);
    if !global.is_null() {
        cache.0.push((global, fields.clone()));
    }
    Ok(fields)
}

/// Copies every instance field `class` declares from `from` to `to` (JNI ignores `final`).
pub(crate) fn copy_instance_fields(
    env: *mut JNIEnv,
    jvmti: Jvmti,
    class: jclass,
    from: jobject,
    to: jobject,
) -> Result<(), String> {
    for f in instance_fields(env, jvmti, class)? {
        let id = f.id;
        // One primitive field: read from `from`, written to `to`.
        macro_rules! copy {
            ($get:ident, $set:ident) => {{
                let v = call!(env, $get, from, id);
                call!(env, $set, to, id, v)
            }};
        }
        match f.kind {
            b'Z' => copy!(GetBooleanField, SetBooleanField),
            b'B' => copy!(GetByteField, SetByteField),
            b'C' => copy!(GetCharField, SetCharField),
            b'S' => copy!(GetShortField, SetShortField),
            b'I' => copy!(GetIntField, SetIntField),
            b'J' => copy!(GetLongField, SetLongField),
            b'F' => copy!(GetFloatField, SetFloatField),
            b'D' => copy!(GetDoubleField, SetDoubleField),
            _ => {
                let v = call!(env, GetObjectField, from, id);
                call!(env, SetObjectField, to, id, v);
                if !v.is_null() {
                    call!(env, DeleteLocalRef, v);
                }
            }
        }
    }
    Ok(())
}
