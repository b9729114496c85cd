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
        let usage = self.monitor_usage(obj).ok()?;
        let env = crate::ffi::current_env();
        let found = usage
            .notify_waiters
            .iter()
            .any(|&w| call!(env, IsSameObject, w, thread) != 0);
        for r in usage.waiters.into_iter().chain(usage.notify_waiters) {
            crate::ffi::delete_local(env, r);
        }
        crate::ffi::delete_local(env, usage.owner);
        Some(found)
    }

    /// The thread that owns `obj`'s monitor (a local reference; null when nobody does).
    pub fn monitor_owner(self, obj: jobject) -> JResult<jobject> {
        let usage = self.monitor_usage(obj)?;
        let env = crate::ffi::current_env();
        for r in usage.waiters.into_iter().chain(usage.notify_waiters) {
            crate::ffi::delete_local(env, r);
        }
        Ok(usage.owner)
    }

    /// `GetObjectMonitorUsage`, its lists copied out and given back to JVMTI (every thread
    /// reference in it is local).
    fn monitor_usage(self, obj: jobject) -> JResult<MonitorUsage> {
        // SAFETY: plain data, filled by JVMTI.
        let mut usage: jvmtiMonitorUsage = unsafe { std::mem::zeroed() };
        check(call!(self.0, GetObjectMonitorUsage, obj, &mut usage))?;
        let take = |list: *mut jobject, count: jint| -> Vec<jobject> {
            if list.is_null() {
                return Vec::new();
            }
            // SAFETY: JVMTI returned `count` references at `list`.
            let out = unsafe { std::slice::from_raw_parts(list, count.max(0) as usize) }.to_vec();
            let _ = check(call!(self.0, Deallocate, list as *mut u8));
            out
        };
        Ok(MonitorUsage {
            owner: usage.owner,
            waiters: take(usage.waiters, usage.waiter_count),
            notify_waiters: take(usage.notify_waiters, usage.notify_waiter_count),
        })
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

/// A monitor's owner, the threads waiting to enter it and those in its wait set.
struct MonitorUsage {
    owner: jobject,
    waiters: Vec<jobject>,
    notify_waiters: Vec<jobject>,
}
