//! The JNI natives of `rankcheck.rt.RC` (the hooks' agent-on side) and of
//! `rankcheck.harness.Agent` (the repeat runner's side), exported as `Java_…` symbols: the JVM
//! looks natives up in agent libraries too, so no `RegisterNatives` is needed.
//!
//! Return conventions (RC.java relies on them): a `jboolean` "handled" result of false means the
//! calling thread is not under rankcheck's control and the hook does the real operation itself;
//! an aborted execution is a pending `ExecutionAborted`.

use crate::control::CONTROL;
use crate::control::{Control, Turn};
use crate::ffi::{call, java_string, throw_new};
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

/// `RC.nAccessField`: an access of the field with key `field` of `obj` (null: a static field),
/// for the handle hooks of `RC`, which know the field only at run time (the handle or offset
/// was remembered with its field when it was made; see `rewriter::passes::handles`).
#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nAccessField(
    env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    field: jlong,
    write: jboolean,
    site: jlong,
) {
    let Some(c) = control() else {
        return;
    };
    let turn = c.point(|c, v| {
        let (loc, var) = v.field_access(c, obj, field as u64);
        Some(Op::Access {
            loc,
            var,
            write: write != 0,
            site,
        })
    });
    finish_turn(env, c, turn, 0);
}

/// `RC.nFieldKey`: the key the site table gives the field written `owner.name:descriptor`.
#[no_mangle]
pub extern "system" fn Java_rankcheck_rt_RC_nFieldKey(
    env: *mut JNIEnv,
    _: jclass,
    detail: jstring,
) -> jlong {
    let text = java_string(env, detail).unwrap_or_default();
    crate::sites::field_key(&text) as jlong
}

// ---- rankcheck.harness.Agent ----------------------------------------------------------------

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_connect(env: *mut JNIEnv, _: jclass) -> jlong {
    match control() {
        Some(c) if c.connect(env) => c.options.executions as jlong,
        _ => -1,
    }
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
    c.load_site_table(&text);
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
