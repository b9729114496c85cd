//! Monitors, seen from outside: who owns one, who waits in it, what a thread waits for.

use super::{check, JResult, Jvmti};
use crate::ffi::call;
use crate::jvmti_sys::*;
use jni::sys::{jint, jobject};

impl Jvmti {
    /// Whether `thread` waits for, or to enter, a monitor (JVMTI `GetCurrentContendedMonitor`):
    /// also true of a wait inside the JVM itself, such as for a class another thread is
    /// initializing (JVMS §5.5), where its state stays runnable.
    pub fn waits_on_monitor(self, thread: jobject) -> bool {
        match self.contended_monitor(thread) {
            Some(monitor) => {
                crate::ffi::delete_local(crate::ffi::current_env(), monitor);
                true
            }
            None => false,
        }
    }

    /// The object whose monitor `thread` waits for, or to enter (a local reference).
    pub fn contended_monitor(self, thread: jobject) -> Option<jobject> {
        let mut monitor: jobject = std::ptr::null_mut();
        let err = call!(self.0, GetCurrentContendedMonitor, thread, &mut monitor);
        if monitor.is_null() {
            return None;
        }
        if err != jvmtiError_JVMTI_ERROR_NONE {
            crate::ffi::delete_local(crate::ffi::current_env(), monitor);
            return None;
        }
        Some(monitor)
    }

    /// Whether `thread` is in `obj`'s wait set (not notified yet); `None` when JVMTI cannot
    /// say.
    pub fn in_wait_set(self, obj: jobject, thread: jobject) -> Option<bool> {
        // SAFETY: plain data, filled by JVMTI.
        let mut usage: jvmtiMonitorUsage = unsafe { std::mem::zeroed() };
        check(call!(self.0, GetObjectMonitorUsage, obj, &mut usage)).ok()?;
        let env = crate::ffi::current_env();
        let mut found = false;
        if !usage.notify_waiters.is_null() {
            // SAFETY: JVMTI returned `notify_waiter_count` thread references there.
            let waiters = unsafe {
                std::slice::from_raw_parts(
                    usage.notify_waiters,
                    usage.notify_waiter_count.max(0) as usize,
                )
            };
            for &w in waiters {
                found |= call!(env, IsSameObject, w, thread) != 0;
                crate::ffi::delete_local(env, w);
            }
        }
        if !usage.waiters.is_null() {
            // SAFETY: as above, `waiter_count` references.
            let entering = unsafe {
                std::slice::from_raw_parts(usage.waiters, usage.waiter_count.max(0) as usize)
            };
            for &w in entering {
                crate::ffi::delete_local(env, w);
            }
        }
        for list in [usage.waiters, usage.notify_waiters] {
            if !list.is_null() {
                let _ = check(call!(self.0, Deallocate, list as *mut u8));
            }
        }
        crate::ffi::delete_local(env, usage.owner);
        Some(found)
    }

    /// The thread that owns `obj`'s monitor (a local reference; null when nobody does).
    pub fn monitor_owner(self, obj: jobject) -> JResult<jobject> {
        // SAFETY: plain data, filled by JVMTI.
        let mut usage: jvmtiMonitorUsage = unsafe { std::mem::zeroed() };
        check(call!(self.0, GetObjectMonitorUsage, obj, &mut usage))?;
        for list in [usage.waiters, usage.notify_waiters] {
            if !list.is_null() {
                let _ = check(call!(self.0, Deallocate, list as *mut u8));
            }
        }
        Ok(usage.owner)
    }

    /// The monitors the current thread owns (local references).
    pub fn owned_monitors(self) -> JResult<Vec<jobject>> {
        let mut count: jint = 0;
        let mut monitors: *mut jobject = std::ptr::null_mut();
        check(call!(
            self.0,
            GetOwnedMonitorInfo,
            std::ptr::null_mut(),
            &mut count,
            &mut monitors
        ))?;
        if monitors.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: JVMTI returned `count` references at `monitors`.
        let out = unsafe { std::slice::from_raw_parts(monitors, count.max(0) as usize) }.to_vec();
        let _ = check(call!(self.0, Deallocate, monitors as *mut u8));
        Ok(out)
    }
}
