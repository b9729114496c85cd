//! The JNI natives of `rankcheck.rt.RC` (the hooks' agent-on side) and of
//! `rankcheck.harness.Agent` (the repeat runner's side), exported as `Java_…` symbols: the JVM
//! looks natives up in agent libraries too, so no `RegisterNatives` is needed.
//!
//! Return conventions (RC.java relies on them): a `jboolean` "handled" result of false means the
//! calling thread is not under rankcheck's control and the hook does the real operation itself;
//! an aborted execution is a pending `ExecutionAborted`.

use crate::control::{Control, Turn};
use crate::ffi::{call, current_env, delete_local, find_class, java_string, new_global, throw_new};
use crate::CONTROL;
use jni::sys::{
    jboolean, jclass, jdouble, jint, jlong, jobject, jstring, jthrowable, JNIEnv, JNI_FALSE,
    JNI_TRUE,
};
use scheduler::{Op, OpOutcome};
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

/// Names the thread (the current one's `Thread` object) that may pass data accesses in Java.
pub fn set_quiet_thread(refs: &JavaRefs, thread: jobject) {
    let env = current_env();
    if !env.is_null() {
        call!(
            env,
            SetStaticObjectField,
            refs.rc,
            refs.quiet_thread,
            thread
        );
    }
}

/// Opens a quiet stretch: the named thread may pass its next `steps` data accesses in Java.
pub fn set_quiet_left(refs: &JavaRefs, steps: u64) {
    let env = current_env();
    if !env.is_null() {
        let steps = steps.min(i64::MAX as u64) as jlong;
        call!(env, SetStaticLongField, refs.rc, refs.quiet_left, steps);
    }
}

/// Closes the current thread's quiet stretch: the accesses it did not use.
pub fn take_quiet_left(refs: &JavaRefs) -> u64 {
    let env = current_env();
    if env.is_null() {
        return 0;
    }
    let left = call!(env, GetStaticLongField, refs.rc, refs.quiet_left);
    call!(env, SetStaticLongField, refs.rc, refs.quiet_left, 0);
    left.max(0) as u64
}

/// Writes what the next quiet stretches cover besides data accesses (`RC.quietCovers`).
pub fn set_quiet_covers(refs: &JavaRefs, covers: i32) {
    let env = current_env();
    if !env.is_null() {
        call!(env, SetStaticIntField, refs.rc, refs.quiet_covers, covers);
    }
}

/// The monitors the current thread entered in Java during its stretch and still holds
/// (outermost first), as new local references; empties `RC.quietHeld`.
pub fn take_quiet_held(refs: &JavaRefs) -> Vec<jobject> {
    let env = current_env();
    if env.is_null() {
        return Vec::new();
    }
    let depth = call!(env, GetStaticIntField, refs.rc, refs.quiet_held_depth);
    if depth <= 0 {
        return Vec::new();
    }
    call!(env, SetStaticIntField, refs.rc, refs.quiet_held_depth, 0);
    (0..depth)
        .map(|i| {
            let obj = call!(env, GetObjectArrayElement, refs.quiet_held, i);
            call!(
                env,
                SetObjectArrayElement,
                refs.quiet_held,
                i,
                std::ptr::null_mut()
            );
            obj
        })
        .collect()
}

/// Ends any quiet stretch (between executions).
pub fn clear_quiet(refs: &JavaRefs) {
    let env = current_env();
    if env.is_null() {
        return;
    }
    for obj in take_quiet_held(refs) {
        delete_local(env, obj);
    }
    call!(env, SetStaticIntField, refs.rc, refs.quiet_covers, 0);
    call!(env, SetStaticLongField, refs.rc, refs.quiet_left, 0);
    call!(
        env,
        SetStaticObjectField,
        refs.rc,
        refs.quiet_thread,
        std::ptr::null_mut()
    );
}

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

// ---- rankcheck.rt.RC ------------------------------------------------------------------------

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nAccess(
    env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    index: jint,
    site: jlong,
    write: jboolean,
) {
    let Some(c) = control() else { return };
    // Whose use this is gets decided in `make` (before the object gets an id), so `point` need
    // not walk the stack a second time.
    let turn = c.point_for(true, |c, v| {
        // Inside a JDK collection: no point (and no step) while one thread alone touched it,
        // nor when the JDK uses it for itself (decided here, before the object gets an id).
        if crate::juc::is_jdk_site(site)
            && (v.confined(c, obj) || crate::juc::internal_use(c.jvmti, site))
        {
            return None;
        }
        let (loc, var) = v.access(c, obj, index, site);
        Some(Op::Access {
            loc,
            var,
            write: write != 0,
            site,
        })
    });
    finish_turn(env, c, turn, 0);
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nAllocated(
    _env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    site: jlong,
) {
    if let Some(c) = control() {
        c.allocated(obj, site);
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nMonitorEnter(
    env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    site: jlong,
) {
    let Some(c) = control() else { return };
    let turn = c.point(|c, v| {
        Some(Op::MonitorEnter {
            obj: v.obj(c, obj),
            site,
        })
    });
    finish_turn(env, c, turn, 0);
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nMonitorExit(
    _env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    site: jlong,
) {
    let Some(c) = control() else { return };
    // Never throws: the real monitorexit already happened, and a throw here (inside a
    // synchronized block's own exception handler) could loop.
    let _ = c.point(|c, v| {
        Some(Op::MonitorExit {
            obj: v.obj(c, obj),
            site,
        })
    });
}

/// `nWait` / `nWaitReturned` results.
const WAIT_PASS: jint = 0;
const WAIT_DONE: jint = 1;
const WAIT_REAL: jint = 2;

fn wait_result(env: *mut JNIEnv, c: &Control, turn: Turn, millis: jlong) -> jint {
    match turn {
        Turn::Pass => WAIT_PASS,
        Turn::RealWait => WAIT_REAL,
        other => {
            finish_turn(env, c, other, millis_ns(millis));
            WAIT_DONE
        }
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nWait(
    env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    millis: jlong,
    site: jlong,
) -> jint {
    let Some(c) = control() else {
        return WAIT_PASS;
    };
    let turn = c.wait(obj, millis > 0, site);
    wait_result(env, c, turn, millis)
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nWaitReturned(
    env: *mut JNIEnv,
    _: jclass,
    millis: jlong,
) -> jint {
    let Some(c) = control() else {
        return WAIT_DONE;
    };
    let turn = c.wait_returned();
    match turn {
        Turn::Pass => WAIT_DONE,
        other => wait_result(env, c, other, millis),
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nNotify(
    env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    all: jboolean,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let turn = c.point(|c, v| {
        Some(Op::Notify {
            obj: v.obj(c, obj),
            all: all != 0,
            site,
        })
    });
    finish_turn(env, c, turn, 0)
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nThreadStart(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    // A thread that was started before lets the real start() throw IllegalThreadStateException.
    if c.jvmti.thread_state(thread).unwrap_or(0) != 0 {
        return JNI_FALSE;
    }
    let turn = c.point_for(is_pool_worker(env, thread), |_, _| Some(Op::Start { site }));
    if let Turn::Go(OpOutcome::Started(child)) = turn {
        c.with_view(|c, v| c.register_child(v, thread, child));
        return JNI_TRUE;
    }
    finish_turn(env, c, turn, 0);
    // Pass: the caller starts the thread; Abort: ExecutionAborted is pending.
    JNI_FALSE
}

/// Whether `thread` is a fork/join worker: whoever starts it (a parallel stream, `Arrays`'
/// parallel sorts), it runs the program's tasks, so it is always a controlled thread.
fn is_pool_worker(env: *mut JNIEnv, thread: jobject) -> bool {
    let class = call!(
        env,
        FindClass,
        c"java/util/concurrent/ForkJoinWorkerThread".as_ptr()
    );
    if class.is_null() {
        call!(env, ExceptionClear);
        return false;
    }
    let worker = call!(env, IsInstanceOf, thread, class) != 0;
    call!(env, DeleteLocalRef, class);
    worker
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nThreadStarted(
    _env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
) {
    if let Some(c) = control() {
        c.child_started(thread);
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nJoin(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    millis: jlong,
    site: jlong,
) -> jint {
    let Some(c) = control() else {
        return 0;
    };
    let turn = c.point(|c, v| {
        Some(Op::Join {
            target: v.thread(c, thread)?,
            timed: millis > 0,
            site,
        })
    });
    let joined = turn == Turn::Go(OpOutcome::Normal);
    match finish_turn(env, c, turn, millis_ns(millis)) {
        JNI_FALSE => 0,
        _ if joined => 1,
        _ => 2,
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nSleep(
    env: *mut JNIEnv,
    _: jclass,
    millis: jlong,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let turn = c.point(|_, _| Some(Op::Sleep { site }));
    let normal = turn == Turn::Go(OpOutcome::Normal);
    let handled = finish_turn(env, c, turn, 0);
    if normal {
        c.advance_clock(millis_ns(millis));
    }
    handled
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nYield(
    env: *mut JNIEnv,
    _: jclass,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let turn = c.point(|_, _| Some(Op::Yield { site }));
    finish_turn(env, c, turn, 0)
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nInterrupt(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let turn = c.point(|c, v| {
        Some(Op::Interrupt {
            target: v.thread(c, thread)?,
            site,
        })
    });
    finish_turn(env, c, turn, 0)
}

/// -1: not handled (the hook asks the real thread); 0 or 1: the answer.
#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nInterrupted(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    clear: jboolean,
    site: jlong,
) -> jint {
    let Some(c) = control() else { return -1 };
    let turn = c.point(|c, v| {
        if thread.is_null() {
            return Some(Op::Interrupted {
                clear: clear != 0,
                site,
            });
        }
        let target = v.thread(c, thread)?;
        Some(if target == v.me {
            Op::Interrupted { clear: false, site }
        } else {
            Op::IsInterrupted { target, site }
        })
    });
    match turn {
        Turn::Go(OpOutcome::Bool(b)) => jint::from(b),
        Turn::Pass => -1,
        other => {
            finish_turn(env, c, other, 0);
            0
        }
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nPark(
    env: *mut JNIEnv,
    _: jclass,
    _blocker: jobject,
    time: jlong,
    absolute: jboolean,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let timed = absolute != 0 || time >= 0;
    if absolute == 0 && time == 0 {
        // parkNanos(0) returns at once.
        return JNI_TRUE;
    }
    let turn = c.point(|_, _| Some(Op::Park { timed, site }));
    let timeout = if absolute != 0 { 0 } else { time.max(0) as u64 };
    // Park never throws InterruptedException: an interrupted park just returns.
    match turn {
        Turn::Go(OpOutcome::Interrupted) => JNI_TRUE,
        other => finish_turn(env, c, other, timeout),
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nUnpark(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    if thread.is_null() {
        return JNI_TRUE;
    }
    let turn = c.point(|c, v| {
        Some(Op::Unpark {
            target: v.thread(c, thread)?,
            site,
        })
    });
    finish_turn(env, c, turn, 0)
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nExit(
    env: *mut JNIEnv,
    _: jclass,
    status: jint,
    site: jlong,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let turn = c.point(|_, _| Some(Op::Exit { status, site }));
    finish_turn(env, c, turn, 0)
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nIdentityHash(
    _env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    _site: jlong,
) -> jint {
    match control() {
        Some(c) if !obj.is_null() => c.identity_hash(obj),
        _ => 0,
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nClock(
    _env: *mut JNIEnv,
    _: jclass,
    nanos: jboolean,
    _site: jlong,
) -> jlong {
    // Not controlled (a JVM or harness thread in rewritten JDK code): the real clock.
    let Some(c) = control().filter(|_| crate::control::is_controlled()) else {
        return jlong::MIN;
    };
    let ns = c.clock_ns();
    if nanos != 0 {
        // nanoTime has an arbitrary origin; keep it small and positive.
        (ns - crate::control::BASE_CLOCK_NS + 1_000_000_000) as jlong
    } else {
        (ns / 1_000_000) as jlong
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nRandomDouble(
    _env: *mut JNIEnv,
    _: jclass,
    _site: jlong,
) -> jdouble {
    let Some(c) = control() else { return 0.5 };
    (c.random() >> 11) as f64 / (1u64 << 53) as f64
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nRandomSeed(
    _env: *mut JNIEnv,
    _: jclass,
    _site: jlong,
) -> jlong {
    control().map_or(0, |c| c.random() as jlong)
}

// ---- rankcheck.harness.Agent ----------------------------------------------------------------

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_connect(env: *mut JNIEnv, _: jclass) -> jlong {
    match control() {
        Some(c) if connect(env, c) => c.options.executions as jlong,
        _ => -1,
    }
}

/// Binds the agent to the runtime classes (the abort throwable, the exceptions hooks throw) and
/// turns the hooks on; false when the runtime classes are missing.
pub fn connect(env: *mut JNIEnv, c: &Control) -> bool {
    let classes = (
        find_class(env, "rankcheck/rt/ExecutionAborted"),
        find_class(env, "java/lang/InterruptedException"),
        find_class(env, "java/lang/IllegalMonitorStateException"),
        find_class(env, "rankcheck/rt/RC"),
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
    let field = |name: &std::ffi::CStr, sig: &std::ffi::CStr| {
        call!(env, GetStaticFieldID, rc, name.as_ptr(), sig.as_ptr())
    };
    let (on, quiet_thread, quiet_left, quiet_covers, quiet_held_depth, quiet_held) = (
        field(c"on", c"Z"),
        field(c"quietThread", c"Ljava/lang/Thread;"),
        field(c"quietLeft", c"J"),
        field(c"quietCovers", c"I"),
        field(c"quietHeldDepth", c"I"),
        field(c"quietHeld", c"[Ljava/lang/Object;"),
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
        eprintln!("rankcheck agent: the runtime class rankcheck.rt.RC does not match this agent");
        return false;
    }
    c.set_java(JavaRefs {
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

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_loadSites(
    env: *mut JNIEnv,
    _: jclass,
    table: jstring,
) {
    let (Some(c), Some(text)) = (control(), java_string(env, table)) else {
        return;
    };
    c.load_sites(crate::sites::parse(&text));
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_nextExecution(
    env: *mut JNIEnv,
    _: jclass,
) -> jlong {
    let Some(c) = control() else { return -1 };
    match c.next_execution() {
        Some(index) => {
            c.pin_jdk_counters(env, index);
            index as jlong
        }
        None => -1,
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_startExecution(
    _env: *mut JNIEnv,
    _: jclass,
    root: jobject,
) {
    if let Some(c) = control() {
        c.start_execution(root);
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_awaitExecution(_env: *mut JNIEnv, _: jclass) {
    if let Some(c) = control() {
        c.await_execution();
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_uncaught(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    _throwable: jobject,
    trace: jstring,
) {
    let Some(c) = control() else { return };
    let trace = java_string(env, trace).unwrap_or_default();
    let first = trace.lines().next().unwrap_or("").to_string();
    c.uncaught(thread, first, trace);
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_finishExecution(
    env: *mut JNIEnv,
    _: jclass,
    stdout: jstring,
    stderr: jstring,
    oracle: jstring,
    message: jstring,
) -> jstring {
    let Some(c) = control() else {
        return std::ptr::null_mut();
    };
    let oracle =
        java_string(env, oracle).map(|k| (k, java_string(env, message).unwrap_or_default()));
    let result = c.finish_execution(
        java_string(env, stdout).unwrap_or_default(),
        java_string(env, stderr).unwrap_or_default(),
        oracle,
    );
    // The result line goes back too: a test extension fails its test from it. Non-ASCII is
    // escaped, so the text is valid modified UTF-8 whatever the program printed.
    let Some(result) = result else {
        return std::ptr::null_mut();
    };
    let mut ascii = String::new();
    for ch in result.to_json().to_string().chars() {
        if ch.is_ascii() {
            ascii.push(ch);
        } else {
            for unit in ch.encode_utf16(&mut [0; 2]) {
                ascii.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    match CString::new(ascii) {
        Ok(text) => call!(env, NewStringUTF, text.as_ptr()),
        Err(_) => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_exitStatus(
    _env: *mut JNIEnv,
    _: jclass,
) -> jint {
    control().map_or(3, |c| c.exit_status())
}
