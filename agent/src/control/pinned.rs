//! Pinned nondeterminism: identity hash codes, the virtual clock, random numbers, and the JDK's
//! process-wide counters, each a function of (seed, execution index).

use super::*;

pub const BASE_CLOCK_NS: u64 = 1_600_000_000_000_000_000;

impl Control {
    // ---- pinned nondeterminism -------------------------------------------------------------

    /// A deterministic identity hash: a function of the execution's seed and index and the
    /// object's id; -1 outside an execution (object ids belong to one), where RC falls back to
    /// the JVM's own hash, which stays the same across calls.
    pub fn identity_hash(&self, obj: jobject) -> i32 {
        let mut st = self.lock();
        let seed = self.options.seed;
        match st.exec.as_mut() {
            Some(ex) => {
                let id = self.obj_id(ex, obj);
                (mix(mix(seed, ex.index), id.0) as u32 & 0x7fff_ffff) as i32
            }
            None => -1,
        }
    }

    /// The virtual clock (it advances 1 µs per reading, and by every sleep and timeout).
    pub fn clock_ns(&self) -> u64 {
        let mut st = self.lock();
        match st.exec.as_mut() {
            Some(ex) => {
                ex.clock_ns += 1_000;
                ex.clock_ns
            }
            None => BASE_CLOCK_NS + self.session_start.elapsed().as_nanos() as u64,
        }
    }

    pub fn advance_clock(&self, nanos: u64) {
        if let Some(ex) = self.lock().exec.as_mut() {
            ex.clock_ns = ex.clock_ns.saturating_add(nanos);
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

    /// Puts the JDK's process-wide counters (thread names and ids, pool numbers, random seeds)
    /// and its common fork/join pool back to what a fresh JVM's first execution sees, before
    /// execution `index`.
    pub fn pin_jdk_counters(&self, env: *mut jni::sys::JNIEnv, index: u64) {
        let mut pinned = self.pinned_jdk.lock().unwrap_or_else(|e| e.into_inner());
        crate::pinned_jdk::reset(env, &mut pinned, self.options.seed, index);
        if let Some(refs) = self.java() {
            crate::common_pool::renew(env, self.jvmti, refs.abort);
        }
    }
}
