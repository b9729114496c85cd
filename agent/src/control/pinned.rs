//! Pinned nondeterminism: identity hash codes, the virtual clock, random numbers, and the JDK's
//! process-wide counters, each a function of (seed, execution index).

use super::*;
use crate::ffi::{call, delete_global, delete_local, new_global};

pub const BASE_CLOCK_NS: u64 = 1_600_000_000_000_000_000;

/// The most one clock reading of a spinning thread advances the clock by (about 13 days):
/// past any deadline a program sets.
const MAX_SPIN_CLOCK_NS: u64 = 1 << 50;

/// The clock stops here (about 146 years on): `nanoTime`, which counts from
/// [`BASE_CLOCK_NS`], stays far from wrapping to negative, so time never runs backwards
/// however long a thread spins or sleeps.
const MAX_CLOCK_NS: u64 = BASE_CLOCK_NS + (1 << 62);

impl Control {
    // ---- pinned nondeterminism -------------------------------------------------------------

    /// The pinned identity hash of `obj`, when an execution is under way and the object is its
    /// own: a `Thread` of the execution, an instance of a class of the program's loader (an
    /// enum constant, a lambda, an array of them), or a plain or `java.util.concurrent` object
    /// the program made in this execution at an instrumented allocation (`new Object()`, an
    /// atomic: `Exec::young`). Not a `Class`: the JVM hashes class mirrors itself and
    /// `Object.hashCode` then answers from the object's header without asking the agent, so a
    /// pinned hash would disagree with it. It is a function of the execution's seed and index
    /// and the object's id (or order of allocation), so the same in a replay. `None`: the
    /// JVM's own hash stands (`-XX:hashCode=2` makes it 1). Objects that outlive executions
    /// (the JDK's) must keep one hash for the JVM's life, and a fresh replay JVM could not
    /// give them the same one. `RC.identityHashCode` (the program's `System.identityHashCode`
    /// and the `hashCode` the rewriter gives its classes) and the JVM's own identity-hash
    /// natives (`natives::identity`) both ask here, so an object has one hash.
    pub fn identity_hash(&self, env: *mut JNIEnv, obj: jobject) -> Option<i32> {
        if obj.is_null() {
            return None;
        }
        let mut st = self.lock();
        let st = &mut *st;
        let ex = st.exec.as_mut()?;
        let tagged = self.tagged_id(ex.epoch, obj);
        let key = if tagged.is_some_and(|id| ex.thread_of.contains_key(&id))
            || st.program_loader.defined(env, self.jvmti, obj)
        {
            self.obj_id(ex, obj).0
        } else {
            *ex.young.get(&tagged?)?
        };
        Some((mix(mix(self.options.seed, ex.index), key) as u32 & 0x7fff_ffff) as i32)
    }

    /// The virtual clock: it advances 1 µs per reading, and by every sleep and timeout. A
    /// thread that spins (the model's fairness) and reads the clock is waiting for time to
    /// pass (`while (!ready && System.nanoTime() < deadline) Thread.onSpinWait();`): each of its
    /// readings advances twice as far as the one before, so any deadline comes within a few
    /// dozen of them, long before the spin could look like a livelock (natively the loop ends
    /// when the deadline does).
    pub fn clock_ns(&self) -> u64 {
        let mut st = self.lock();
        let spinning = current().is_some_and(|(_, me)| st.model.spinning(me));
        match st.exec.as_mut() {
            Some(ex) => {
                ex.spin_clock_ns = if spinning {
                    (ex.spin_clock_ns * 2).clamp(1_000, MAX_SPIN_CLOCK_NS)
                } else {
                    0
                };
                ex.clock_ns = ex
                    .clock_ns
                    .saturating_add(ex.spin_clock_ns.max(1_000))
                    .min(MAX_CLOCK_NS);
                ex.clock_ns
            }
            None => BASE_CLOCK_NS + self.session_start.elapsed().as_nanos() as u64,
        }
    }

    pub fn advance_clock(&self, nanos: u64) {
        if let Some(ex) = self.lock().exec.as_mut() {
            ex.clock_ns = ex.clock_ns.saturating_add(nanos).min(MAX_CLOCK_NS);
        }
    }

    /// The next number of the execution's pinned random sequence.
    pub fn random(&self) -> u64 {
        let mut st = self.lock();
        match st.exec.as_mut() {
            Some(ex) => splitmix(&mut ex.rng),
            None => {
                let mut s = self.session_start.elapsed().as_nanos() as u64;
                splitmix(&mut s)
            }
        }
    }

    /// Puts the JDK's process-wide counters (thread names and ids, pool numbers, random seeds),
    /// its logging configuration, its common fork/join pool and `CompletableFuture`'s delay
    /// scheduler back to what a fresh
    /// JVM's first execution sees, before execution `index`.
    pub fn pin_jdk_counters(&self, env: *mut jni::sys::JNIEnv, index: u64) {
        let mut pinned = self.pinned_jdk.lock().unwrap_or_else(|e| e.into_inner());
        crate::pinned_jdk::reset(env, &mut pinned, self.options.seed, index);
        crate::logging_state::renew(env, self.jvmti);
        if let Some(refs) = self.java() {
            crate::common_pool::renew(env, self.jvmti, refs.abort);
            crate::delay_scheduler::renew(env, self.jvmti, refs.abort);
        }
    }
}

/// A JNI global reference to the class loader of the current execution's program: the context
/// class loader its root thread starts with (the harness's fresh loader; the application loader
/// in plain main).
pub(super) struct ProgramLoader(jobject);

// SAFETY: a JNI global reference is valid in every thread.
unsafe impl Send for ProgramLoader {}

impl ProgramLoader {
    pub(super) const NONE: ProgramLoader = ProgramLoader(std::ptr::null_mut());

    pub(super) fn of_root(env: *mut JNIEnv, root: jobject) -> Self {
        if env.is_null() || root.is_null() {
            return Self::NONE;
        }
        let thread = call!(env, GetObjectClass, root);
        let field = call!(
            env,
            GetFieldID,
            thread,
            c"contextClassLoader".as_ptr(),
            c"Ljava/lang/ClassLoader;".as_ptr()
        );
        delete_local(env, thread);
        if field.is_null() {
            call!(env, ExceptionClear);
            return Self::NONE;
        }
        let loader = call!(env, GetObjectField, root, field);
        if loader.is_null() {
            return Self::NONE;
        }
        let global = new_global(env, loader);
        delete_local(env, loader);
        ProgramLoader(global)
    }

    pub(super) fn release(self, env: *mut JNIEnv) {
        if !self.0.is_null() && !env.is_null() {
            delete_global(env, self.0);
        }
    }

    /// Whether `obj` is an instance of a class this loader defined (for an array, its element
    /// type); never for a `Class` object.
    fn defined(&self, env: *mut JNIEnv, jvmti: crate::jvmti::Jvmti, obj: jobject) -> bool {
        if self.0.is_null() || env.is_null() || obj.is_null() {
            return false;
        }
        let class = call!(env, GetObjectClass, obj);
        // `obj` is a `Class` when its class is `java.lang.Class`, the one class that is its own
        // class's class.
        let class_class = call!(env, GetObjectClass, class);
        let is_class = call!(env, IsSameObject, class, class_class) == jni::sys::JNI_TRUE;
        delete_local(env, class_class);
        if is_class {
            delete_local(env, class);
            return false;
        }
        let loader = jvmti.class_loader(class);
        delete_local(env, class);
        let same =
            !loader.is_null() && call!(env, IsSameObject, loader, self.0) == jni::sys::JNI_TRUE;
        if !loader.is_null() {
            delete_local(env, loader);
        }
        same
    }
}
