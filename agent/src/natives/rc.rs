//! The natives of `rankcheck.rt.RC`: each turns a hook's call into one controller call, and its
//! result into what the hook does. Registered from [`table`] (names and descriptors are
//! `java_harness::agent_contract::RC_NATIVES`).

use super::shape::{fn1, fn2, fn3, fn4, Function};
use super::*;
use crate::juc::JdkSite;
use java_harness::agent_contract::{WAIT_DONE, WAIT_PASS, WAIT_REAL};

/// Every native of `RC` by name, with the function that implements it (its pointer and the
/// shape of its type, [`shape`](super::shape)).
pub(super) fn table() -> Vec<(&'static str, Function)> {
    vec![
        ("nAccess", fn4(n_access)),
        ("nAllocated", fn2(n_allocated)),
        ("nMonitorEnter", fn2(n_monitor_enter)),
        ("nMonitorExit", fn2(n_monitor_exit)),
        ("nWait", fn3(n_wait)),
        ("nWaitReturned", fn1(n_wait_returned)),
        ("nNotify", fn3(n_notify)),
        ("nThreadStart", fn2(n_thread_start)),
        ("nThreadStarted", fn1(n_thread_started)),
        ("nJoin", fn3(n_join)),
        ("nSleep", fn2(n_sleep)),
        ("nYield", fn1(n_yield)),
        ("nInterrupt", fn2(n_interrupt)),
        ("nInterrupted", fn3(n_interrupted)),
        ("nThreadState", fn2(n_thread_state)),
        ("nLiveThreads", fn1(n_live_threads)),
        ("nPark", fn4(n_park)),
        ("nUnpark", fn2(n_unpark)),
        ("nExit", fn2(n_exit)),
        ("nIdentityHash", fn2(n_identity_hash)),
        ("nClock", fn2(n_clock)),
        ("nRandomDouble", fn1(n_random_double)),
        ("nRandomSeed", fn1(n_random_seed)),
        ("nAccessField", fn4(n_access_field)),
        ("nFieldKey", fn1(n_field_key)),
        ("nUncontrolledCollection", fn1(n_uncontrolled_collection)),
        ("nClassInitBegin", fn2(n_class_init_begin)),
        ("nTaskFailed", fn2(n_task_failed)),
        ("nCasFailed", fn1(n_cas_failed)),
    ]
}

/// The model's access operation of a data hook.
fn access((loc, var): (scheduler::Loc, scheduler::VarId), write: jboolean, site: jlong) -> Op {
    Op::Access {
        loc,
        var,
        write: write != 0,
        site,
    }
}

extern "system" fn n_access(
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
        let kind = crate::juc::jdk_site(site);
        if kind.is_some() {
            // The program's acquisition stays a point while other threads run, used alone or
            // not: two locks taken one after the other by one thread, then by another in the
            // other order, deadlock only if a switch can come between the two acquisitions.
            if v.confined(c, obj, write != 0, site)
                && !(v.acquires_among_others(site) && crate::juc::program_calls_lock(c.jvmti))
            {
                return None;
            }
            let internal = crate::juc::internal_use(c.jvmti, site);
            v.settle_confinement(|| {
                !internal
                    && kind == Some(JdkSite::Collection)
                    && crate::juc::program_calls_collection(c.jvmti)
                    && crate::naming::class_signature(c.jvmti, obj).is_some_and(|sig| {
                        let name = sig.trim_start_matches('L').trim_end_matches(';');
                        crate::jdk_classes::is_collection_class(name)
                    })
            });
            if internal {
                return None;
            }
        }
        let (loc, var) = v.access(c, obj, index, site);
        if kind == Some(JdkSite::Synchronizer) {
            v.note_handover(c, obj, loc);
        }
        Some(access((loc, var), write, site))
    });
    finish_turn(env, c, turn, 0);
}

extern "system" fn n_class_init_begin(env: *mut JNIEnv, _: jclass, klass: jclass, site: jlong) {
    let Some(c) = control() else { return };
    let turn = c.class_init_begun(env, klass, site);
    finish_turn(env, c, turn, 0);
}

extern "system" fn n_task_failed(env: *mut JNIEnv, _: jclass, failure: jstring, _site: jlong) {
    if let (Some(c), Some(failure)) = (control(), java_string(env, failure)) {
        c.task_failed(failure);
    }
}

extern "system" fn n_cas_failed(_env: *mut JNIEnv, _: jclass, site: jlong) {
    if let Some(c) = control() {
        c.cas_failed(site);
    }
}

extern "system" fn n_allocated(_env: *mut JNIEnv, _: jclass, obj: jobject, site: jlong) {
    if let Some(c) = control() {
        c.allocated(obj, site);
    }
}

extern "system" fn n_monitor_enter(env: *mut JNIEnv, _: jclass, obj: jobject, site: jlong) {
    let Some(c) = control() else { return };
    let turn = c.point(|c, v| {
        Some(Op::MonitorEnter {
            obj: v.obj(c, obj),
            site,
        })
    });
    finish_turn(env, c, turn, 0);
}

extern "system" fn n_monitor_exit(_env: *mut JNIEnv, _: jclass, obj: jobject, site: jlong) {
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

/// `nWait` / `nWaitReturned` results (`agent_contract::WAIT_*`) of a turn.
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

extern "system" fn n_wait(
    env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    millis: jlong,
    site: jlong,
) -> jint {
    let Some(c) = control() else {
        return WAIT_PASS;
    };
    let turn = c.wait(obj, millis_ns(millis), site);
    wait_result(env, c, turn, millis)
}

extern "system" fn n_wait_returned(env: *mut JNIEnv, _: jclass, millis: jlong) -> jint {
    let Some(c) = control() else {
        return WAIT_DONE;
    };
    let turn = c.wait_returned();
    match turn {
        Turn::Pass => WAIT_DONE,
        other => wait_result(env, c, other, millis),
    }
}

extern "system" fn n_notify(
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

extern "system" fn n_thread_start(
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

extern "system" fn n_thread_started(_env: *mut JNIEnv, _: jclass, thread: jobject) {
    if let Some(c) = control() {
        c.child_started(thread);
    }
}

extern "system" fn n_join(
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
            nanos: millis_ns(millis),
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

extern "system" fn n_sleep(env: *mut JNIEnv, _: jclass, millis: jlong, site: jlong) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let nanos = millis_ns(millis);
    let turn = c.point(|_, _| Some(Op::Sleep { site, nanos }));
    let normal = turn == Turn::Go(OpOutcome::Normal);
    let handled = finish_turn(env, c, turn, 0);
    if normal {
        c.advance_clock(nanos);
    }
    handled
}

extern "system" fn n_yield(env: *mut JNIEnv, _: jclass, site: jlong) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let turn = c.point(|_, _| Some(Op::Yield { site }));
    finish_turn(env, c, turn, 0)
}

extern "system" fn n_interrupt(
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
extern "system" fn n_interrupted(
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
    answer(env, c, turn)
}

/// What a query native returns: the model's answer, or -1 when the hook must ask the JVM (the
/// thread or the object is not the execution's). An execution that ended throws.
fn answer(env: *mut JNIEnv, c: &Control, turn: Turn) -> jint {
    match turn {
        Turn::Go(OpOutcome::Bool(b)) => jint::from(b),
        Turn::Go(OpOutcome::State(state)) => state.java_ordinal() as jint,
        Turn::Go(OpOutcome::Count(n)) => jint::try_from(n).unwrap_or(jint::MAX),
        Turn::Pass => -1,
        other => {
            finish_turn(env, c, other, 0);
            -1
        }
    }
}

/// -1: not handled (the hook asks the real thread: one this execution did not start); else
/// the ordinal of the `Thread.State` the model gives `thread`.
extern "system" fn n_thread_state(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    site: jlong,
) -> jint {
    let Some(c) = control() else { return -1 };
    let turn = c.point(|c, v| {
        Some(Op::ThreadStatus {
            target: v.thread(c, thread)?,
            site,
        })
    });
    answer(env, c, turn)
}

/// -1: not handled (the hook asks the JVM); else how many of the execution's threads have not
/// ended.
extern "system" fn n_live_threads(env: *mut JNIEnv, _: jclass, site: jlong) -> jint {
    let Some(c) = control() else { return -1 };
    let turn = c.point(|_, _| Some(Op::LiveThreads { site }));
    answer(env, c, turn)
}

extern "system" fn n_park(
    env: *mut JNIEnv,
    _: jclass,
    blocker: jobject,
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
    // An absolute deadline (`parkUntil`, milliseconds of the epoch) against the virtual clock.
    let timeout = if absolute != 0 {
        (time.max(0) as u64)
            .saturating_mul(1_000_000)
            .saturating_sub(c.clock_ns())
    } else {
        time.max(0) as u64
    };
    let turn = c.point(|c, v| {
        c.remember_blocker(env, v, blocker);
        Some(Op::Park {
            timed,
            nanos: timeout,
            site,
        })
    });
    if !blocker.is_null() {
        c.forget_blocker(env);
    }
    // Park never throws InterruptedException: an interrupted park just returns.
    match turn {
        Turn::Go(OpOutcome::Interrupted) => JNI_TRUE,
        other => finish_turn(env, c, other, timeout),
    }
}

extern "system" fn n_unpark(env: *mut JNIEnv, _: jclass, thread: jobject, site: jlong) -> jboolean {
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

extern "system" fn n_exit(env: *mut JNIEnv, _: jclass, status: jint, site: jlong) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let turn = c.point(|_, _| Some(Op::Exit { status, site }));
    finish_turn(env, c, turn, 0)
}

extern "system" fn n_identity_hash(
    env: *mut JNIEnv,
    _: jclass,
    obj: jobject,
    _site: jlong,
) -> jint {
    // Negative: RC asks the JVM (`System.identityHashCode`, bound to natives/identity.rs).
    control()
        .and_then(|c| c.identity_hash(env, obj))
        .unwrap_or(-1)
}

extern "system" fn n_clock(_env: *mut JNIEnv, _: jclass, nanos: jboolean, _site: jlong) -> jlong {
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

extern "system" fn n_random_double(_env: *mut JNIEnv, _: jclass, _site: jlong) -> jdouble {
    let Some(c) = control() else { return 0.5 };
    (c.random() >> 11) as f64 / (1u64 << 53) as f64
}

extern "system" fn n_random_seed(_env: *mut JNIEnv, _: jclass, _site: jlong) -> jlong {
    control().map_or(0, |c| c.random() as jlong)
}

/// `RC.nAccessField`: an access of the field with key `field` of `obj` (null: a static field),
/// for the handle hooks of `RC`, which know the field only at run time (the handle or offset
/// was remembered with its field when it was made; see `rewriter::passes::handles`).
extern "system" fn n_access_field(
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
    let turn = c.point(|c, v| Some(access(v.field_access(c, obj, field as u64), write, site)));
    finish_turn(env, c, turn, 0);
}

/// `RC.nFieldKey`: the key the site table gives the field written `owner.name:descriptor`.
extern "system" fn n_field_key(env: *mut JNIEnv, _: jclass, detail: jstring) -> jlong {
    let text = java_string(env, detail).unwrap_or_default();
    crate::sites::field_key(&text) as jlong
}

/// `RC.nUncontrolledCollection`: whether a program's calls on objects of `class` are
/// scheduling points: one of the thread-safe collections left unrewritten
/// (`jdk_classes::UNREWRITTEN_CONCURRENT_COLLECTIONS`) or the locked ones
/// (`LOCKED_CONCURRENT_COLLECTIONS`), their views and iterators too, with `collections` on. Asked once per class (`RC` keeps the answer in a `ClassValue`).
extern "system" fn n_uncontrolled_collection(
    _env: *mut JNIEnv,
    _: jclass,
    class: jclass,
) -> jboolean {
    let Some(c) = control() else {
        return JNI_FALSE;
    };
    let uncontrolled = c.options.load.collections
        && c.jvmti.class_name(class).is_some_and(|name| {
            use crate::jdk_classes::{
                is_in, LOCKED_CONCURRENT_COLLECTIONS, UNREWRITTEN_CONCURRENT_COLLECTIONS,
            };
            is_in(UNREWRITTEN_CONCURRENT_COLLECTIONS, &name)
                || is_in(LOCKED_CONCURRENT_COLLECTIONS, &name)
        });
    jboolean::from(uncontrolled)
}
