//! JDK-wide counters a program can observe, put back before every execution.
//!
//! Many executions share one JVM, and a failure found in the 7th must replay as the first
//! execution of a fresh JVM. The JDK keeps process-wide counters that leak from one execution
//! into the next: the number in a default thread name (`Thread-13` in the searching JVM,
//! `Thread-1` in the replay), thread ids, executor and fork/join pool numbers, the seeds of
//! `ThreadLocalRandom`, `SplittableRandom`, the random source of `Collections.shuffle` and that
//! of `UUID.randomUUID()`.
//! Before each execution the harness calls [`reset`], which writes every counter of [`COUNTERS`]
//! back to the value it has at the first execution of a fresh JVM, so that the program sees the
//! same names, ids and random numbers in the search and in the replay.
//!
//! Looking a static field up through JNI initializes its class, so every class of the table is
//! initialized here, in the harness's thread before the first execution, the same way in the
//! searching JVM and in a replay JVM (and never inside an execution, where its initializer's
//! steps would count). Every counter is then written, seed sources too: a class initialized here
//! seeded them from the clock. A counter missing from this JDK (another version) is skipped and
//! named once on stderr.
//!
//! This module must not decide anything about scheduling; it only writes JDK fields through JNI
//! (which ignores Java access control and module encapsulation).

use crate::ffi::call;
use crate::hash::mix;
use jni::sys::{jclass, jfieldID, jvalue, JNIEnv};
use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, Ordering};

/// The value a counter is put back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// A static `int` field.
    Int(i32),
    /// A static `final AtomicInteger` field: its `value`.
    AtomicInt(i32),
    /// A static `final AtomicLong` field: its `value`, a function of the session seed and the
    /// execution index (a seed source).
    AtomicLongSeed,
    /// `Thread.threadSeqNumber`: see [`thread_id_base`].
    ThreadIds,
    /// A static `java.util.Random` field, replaced by a `Random` seeded from the session seed
    /// and the execution index.
    SeededRandom,
    /// A static `java.security.SecureRandom` field, replaced by a `SHA1PRNG` instance seeded
    /// (before its first use, which makes its output a function of the seed alone) from the
    /// session seed and the execution index.
    SeededSecureRandom,
}

/// One JDK counter.
#[derive(Clone, Copy, Debug)]
pub struct Counter {
    pub class: &'static CStr,
    pub field: &'static CStr,
    pub reset: Reset,
}

/// Every counter put back before an execution, with the value a fresh JVM's first execution
/// sees (JDK 17).
pub const COUNTERS: &[Counter] = &[
    // `Thread-N` of `new Thread(runnable)`.
    Counter {
        class: c"java/lang/Thread",
        field: c"threadInitNumber",
        reset: Reset::Int(0),
    },
    // `Thread.getId()`.
    Counter {
        class: c"java/lang/Thread",
        field: c"threadSeqNumber",
        reset: Reset::ThreadIds,
    },
    // `pool-N-thread-M` of `Executors.defaultThreadFactory()`.
    Counter {
        class: c"java/util/concurrent/Executors$DefaultThreadFactory",
        field: c"poolNumber",
        reset: Reset::AtomicInt(1),
    },
    // `ForkJoinPool-N-worker-M`.
    Counter {
        class: c"java/util/concurrent/ForkJoinPool",
        field: c"poolIds",
        reset: Reset::Int(0),
    },
    // `Timer-N`.
    Counter {
        class: c"java/util/Timer",
        field: c"nextSerialNumber",
        reset: Reset::AtomicInt(0),
    },
    // `ThreadLocalRandom.current()`'s per-thread seeds (seeded from the clock at class
    // initialization) and probes (which also spread `ConcurrentHashMap` and `LongAdder` cells).
    Counter {
        class: c"java/util/concurrent/ThreadLocalRandom",
        field: c"seeder",
        reset: Reset::AtomicLongSeed,
    },
    Counter {
        class: c"java/util/concurrent/ThreadLocalRandom",
        field: c"probeGenerator",
        reset: Reset::AtomicInt(0),
    },
    // `new SplittableRandom()`.
    Counter {
        class: c"java/util/SplittableRandom",
        field: c"defaultGen",
        reset: Reset::AtomicLongSeed,
    },
    // `Collections.shuffle(list)`.
    Counter {
        class: c"java/util/Collections",
        field: c"r",
        reset: Reset::SeededRandom,
    },
    // `UUID.randomUUID()`: request and session ids, often keys of the maps a program walks.
    Counter {
        class: c"java/util/UUID$Holder",
        field: c"numberGenerator",
        reset: Reset::SeededSecureRandom,
    },
];

/// Thread ids start above this in every execution (ids of threads a JVM made before the first
/// execution stay below it, and those of JVMs with many compiler threads too): the
/// searching JVM and a fresh replay JVM then give the program's threads the same ids.
pub const THREAD_ID_STEP: i64 = 1000;

/// Where `Thread.threadSeqNumber` is put back to, given its value before the first execution:
/// the next multiple of [`THREAD_ID_STEP`], so that a few more JVM threads in one JVM than in
/// another change nothing.
pub fn thread_id_base(before_first: i64) -> i64 {
    (before_first / THREAD_ID_STEP + 1) * THREAD_ID_STEP
}

/// The seed a seed source gets before execution `index` of a session with `seed`.
pub fn seed_for(seed: u64, index: u64, counter: &Counter) -> i64 {
    let salt = counter
        .field
        .to_bytes()
        .iter()
        .fold(0u64, |h, &b| h.rotate_left(5) ^ u64::from(b));
    mix(mix(seed, index), salt) as i64
}

/// What [`reset`] remembers from one execution to the next.
#[derive(Debug, Default)]
pub struct Pinned {
    /// `Thread.threadSeqNumber` is put back to this (set at the first reset).
    thread_ids: Option<i64>,
}

static WARNED: AtomicBool = AtomicBool::new(false);

/// Puts every counter back before execution `index` (the harness's thread, outside any
/// execution).
pub fn reset(env: *mut JNIEnv, pinned: &mut Pinned, seed: u64, index: u64) {
    let mut missing = Vec::new();
    for counter in COUNTERS {
        if !reset_one(env, pinned, seed, index, counter) {
            missing.push(format!(
                "{}.{}",
                counter.class.to_string_lossy().replace('/', "."),
                counter.field.to_string_lossy()
            ));
        }
        if call!(env, ExceptionCheck) != 0 {
            call!(env, ExceptionClear);
        }
    }
    if !missing.is_empty() && !WARNED.swap(true, Ordering::Relaxed) {
        eprintln!(
            "rankcheck agent: warning: this JDK lacks {}; what they count is not pinned per \
             execution (a failure whose text shows it may not replay)",
            missing.join(", ")
        );
    }
}

/// Resets one counter; false when this JDK does not have it.
fn reset_one(
    env: *mut JNIEnv,
    pinned: &mut Pinned,
    seed: u64,
    index: u64,
    counter: &Counter,
) -> bool {
    let class: jclass = call!(env, FindClass, counter.class.as_ptr());
    if class.is_null() {
        call!(env, ExceptionClear);
        return false;
    }
    let ok = write(env, class, pinned, seed, index, counter);
    call!(env, DeleteLocalRef, class);
    if !ok {
        call!(env, ExceptionClear);
    }
    ok
}

fn signature(reset: Reset) -> &'static CStr {
    match reset {
        Reset::Int(_) => c"I",
        Reset::ThreadIds => c"J",
        Reset::AtomicInt(_) => c"Ljava/util/concurrent/atomic/AtomicInteger;",
        Reset::AtomicLongSeed => c"Ljava/util/concurrent/atomic/AtomicLong;",
        Reset::SeededRandom => c"Ljava/util/Random;",
        Reset::SeededSecureRandom => c"Ljava/security/SecureRandom;",
    }
}

fn write(
    env: *mut JNIEnv,
    class: jclass,
    pinned: &mut Pinned,
    seed: u64,
    index: u64,
    counter: &Counter,
) -> bool {
    let id: jfieldID = call!(
        env,
        GetStaticFieldID,
        class,
        counter.field.as_ptr(),
        signature(counter.reset).as_ptr()
    );
    if id.is_null() {
        return false;
    }
    match counter.reset {
        Reset::Int(v) => call!(env, SetStaticIntField, class, id, v),
        Reset::ThreadIds => {
            let now = call!(env, GetStaticLongField, class, id);
            let base = *pinned.thread_ids.get_or_insert_with(|| thread_id_base(now));
            call!(env, SetStaticLongField, class, id, base);
        }
        Reset::AtomicInt(v) => return set_value(env, class, id, Value::Int(v)),
        Reset::AtomicLongSeed => {
            let v = seed_for(seed, index, counter);
            return set_value(env, class, id, Value::Long(v));
        }
        Reset::SeededRandom => {
            let random = call!(env, FindClass, c"java/util/Random".as_ptr());
            if random.is_null() {
                return false;
            }
            let init = call!(
                env,
                GetMethodID,
                random,
                c"<init>".as_ptr(),
                c"(J)V".as_ptr()
            );
            if init.is_null() {
                return false;
            }
            let args = [jvalue {
                j: seed_for(seed, index, counter),
            }];
            let fresh = call!(env, NewObjectA, random, init, args.as_ptr());
            if fresh.is_null() {
                return false;
            }
            call!(env, SetStaticObjectField, class, id, fresh);
            call!(env, DeleteLocalRef, fresh);
            call!(env, DeleteLocalRef, random);
        }
        Reset::SeededSecureRandom => {
            let Some(fresh) = seeded_secure_random(env, seed_for(seed, index, counter)) else {
                return false;
            };
            call!(env, SetStaticObjectField, class, id, fresh);
            call!(env, DeleteLocalRef, fresh);
        }
    }
    true
}

/// A new `SecureRandom.getInstance("SHA1PRNG")` seeded with `seed` before any use (its output
/// is then a function of the seed alone); `None` when this JDK refuses (a pending exception
/// is cleared by the caller).
fn seeded_secure_random(env: *mut JNIEnv, seed: i64) -> Option<jni::sys::jobject> {
    let class = call!(env, FindClass, c"java/security/SecureRandom".as_ptr());
    if class.is_null() {
        return None;
    }
    let made = seeded_instance(env, class, seed);
    call!(env, DeleteLocalRef, class);
    made
}

/// [`seeded_secure_random`] once `class` is `java.security.SecureRandom`.
fn seeded_instance(env: *mut JNIEnv, class: jclass, seed: i64) -> Option<jni::sys::jobject> {
    let get_instance = call!(
        env,
        GetStaticMethodID,
        class,
        c"getInstance".as_ptr(),
        c"(Ljava/lang/String;)Ljava/security/SecureRandom;".as_ptr()
    );
    let set_seed = call!(
        env,
        GetMethodID,
        class,
        c"setSeed".as_ptr(),
        c"(J)V".as_ptr()
    );
    if get_instance.is_null() || set_seed.is_null() {
        return None;
    }
    let name = call!(env, NewStringUTF, c"SHA1PRNG".as_ptr());
    if name.is_null() {
        return None;
    }
    let args = [jvalue { l: name }];
    let fresh = call!(
        env,
        CallStaticObjectMethodA,
        class,
        get_instance,
        args.as_ptr()
    );
    call!(env, DeleteLocalRef, name);
    if call!(env, ExceptionCheck) != 0 || fresh.is_null() {
        return None;
    }
    let args = [jvalue { j: seed }];
    call!(env, CallVoidMethodA, fresh, set_seed, args.as_ptr());
    if call!(env, ExceptionCheck) != 0 {
        call!(env, DeleteLocalRef, fresh);
        return None;
    }
    Some(fresh)
}

/// The new `value` of an atomic.
enum Value {
    Int(i32),
    Long(i64),
}

/// Sets the `value` field of the atomic held by static field `id` of `class`.
fn set_value(env: *mut JNIEnv, class: jclass, id: jfieldID, v: Value) -> bool {
    let atomic = call!(env, GetStaticObjectField, class, id);
    if atomic.is_null() {
        return false;
    }
    let atomic_class = call!(env, GetObjectClass, atomic);
    let sig = match v {
        Value::Int(_) => c"I",
        Value::Long(_) => c"J",
    };
    let value = call!(
        env,
        GetFieldID,
        atomic_class,
        c"value".as_ptr(),
        sig.as_ptr()
    );
    let ok = !value.is_null();
    if ok {
        match v {
            Value::Int(i) => call!(env, SetIntField, atomic, value, i),
            Value::Long(j) => call!(env, SetLongField, atomic, value, j),
        }
    }
    call!(env, DeleteLocalRef, atomic_class);
    call!(env, DeleteLocalRef, atomic);
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_ids_start_at_the_next_step() {
        assert_eq!(thread_id_base(0), THREAD_ID_STEP);
        assert_eq!(thread_id_base(17), THREAD_ID_STEP);
        assert_eq!(thread_id_base(999), THREAD_ID_STEP);
        assert_eq!(thread_id_base(1000), 2 * THREAD_ID_STEP);
    }

    #[test]
    fn seeds_depend_on_session_execution_and_counter() {
        let a = &COUNTERS[5];
        let b = &COUNTERS[7];
        assert_eq!(seed_for(1, 2, a), seed_for(1, 2, a));
        assert_ne!(seed_for(1, 2, a), seed_for(1, 3, a));
        assert_ne!(seed_for(1, 2, a), seed_for(2, 2, a));
        assert_ne!(seed_for(1, 2, a), seed_for(1, 2, b));
    }

    #[test]
    fn every_counter_has_a_signature_and_a_unique_field() {
        let mut seen = std::collections::HashSet::new();
        for c in COUNTERS {
            assert!(seen.insert((c.class, c.field)), "{c:?} twice");
            assert!(!signature(c.reset).to_bytes().is_empty());
        }
    }
}
