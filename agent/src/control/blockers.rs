//! What a parked thread waits for: the blocker it parked with (`LockSupport.park(blocker)`,
//! kept while it parks) or its `Thread.parkBlocker`, and the lock's holder, for the words of a
//! deadlock.

use super::*;
use crate::ffi::call;

impl Control {
    /// Remembers `blocker` (a local reference, or null), the object the current thread parks
    /// for (`LockSupport.park(blocker)`: every java.util.concurrent lock, condition and latch
    /// passes itself), until [`Control::forget_blocker`].
    pub fn remember_blocker(&self, env: *mut JNIEnv, v: &mut ExecView<'_>, blocker: jobject) {
        let rec = &mut v.ex.threads[v.me.index()];
        release_blocker(env, rec);
        if !blocker.is_null() {
            rec.blocker = crate::ffi::new_global(env, blocker);
        }
    }

    /// The current thread's park is over: forgets its blocker.
    pub fn forget_blocker(&self, env: *mut JNIEnv) {
        self.with_view(|_, v| release_blocker(env, &mut v.ex.threads[v.me.index()]));
    }

    /// What a parked thread `t` waits for, from the blocker it parked with (or the one its
    /// `Thread.parkBlocker` holds), read through JNI so that no hook runs: ` on ReentrantLock
    /// held by t2 (Thread-1)`, with `, which has ended` when the holder ended without
    /// unlocking. `None` when it parked without one.
    pub(super) fn park_blocker(&self, ex: &Exec, t: ThreadId) -> Option<String> {
        let (class_name, holder) = self.park_lock(ex, t)?;
        let mut text = format!(" on {}", lock_name(&class_name));
        if let Some(h) = holder {
            let rec = &ex.threads[h.index()];
            text.push_str(&format!(" held by {h} ({})", rec.name));
            if rec.finished || rec.place == Place::Gone {
                text.push_str(", which has ended");
            }
        }
        Some(text)
    }

    /// The thread that holds the lock a parked thread `t` waits for (an
    /// `AbstractOwnableSynchronizer`'s exclusive owner), when it is one of the execution's.
    pub(super) fn park_holder(&self, ex: &Exec, t: ThreadId) -> Option<ThreadId> {
        self.park_lock(ex, t)?.1
    }

    /// The internal class name of the blocker `t` parked for, and the execution's thread that
    /// owns it exclusively, if any.
    fn park_lock(&self, ex: &Exec, t: ThreadId) -> Option<(String, Option<ThreadId>)> {
        let env = crate::ffi::current_env();
        let rec = ex.threads.get(t.index())?;
        if env.is_null() || rec.thread.is_null() {
            return None;
        }
        // A condition's await sets the thread's blocker itself, then parks without one.
        let set = if rec.blocker.is_null() {
            object_field(
                env,
                rec.thread,
                c"java/lang/Thread",
                c"parkBlocker",
                c"Ljava/lang/Object;",
            )
        } else {
            None
        };
        let blocker = set.unwrap_or(rec.blocker);
        if blocker.is_null() {
            return None;
        }
        let class = call!(env, GetObjectClass, blocker);
        let class_name = self.jvmti.class_name(class);
        crate::ffi::delete_local(env, class);
        let owner = object_field(
            env,
            blocker,
            c"java/util/concurrent/locks/AbstractOwnableSynchronizer",
            c"exclusiveOwnerThread",
            c"Ljava/lang/Thread;",
        );
        if let Some(local) = set {
            crate::ffi::delete_local(env, local);
        }
        let holder = owner.and_then(|owner| {
            let holder = self
                .tagged_id(ex.epoch, owner)
                .and_then(|id| ex.thread_of.get(&id).copied());
            crate::ffi::delete_local(env, owner);
            holder
        });
        Some((class_name?, holder))
    }
}

/// Drops `rec`'s blocker, if any.
pub(super) fn release_blocker(env: *mut JNIEnv, rec: &mut ThreadRec) {
    let old = std::mem::replace(&mut rec.blocker, std::ptr::null_mut());
    if !old.is_null() {
        crate::ffi::delete_global(env, old);
    }
}

/// `obj`'s reference field `name` (`sig`) declared by `class` (a JDK class), when `obj` is an
/// instance of it and the field is set; a local reference.
fn object_field(
    env: *mut JNIEnv,
    obj: jobject,
    class: &std::ffi::CStr,
    name: &std::ffi::CStr,
    sig: &std::ffi::CStr,
) -> Option<jobject> {
    let declaring = call!(env, FindClass, class.as_ptr());
    if declaring.is_null() {
        call!(env, ExceptionClear);
        return None;
    }
    let instance = call!(env, IsInstanceOf, obj, declaring) == jni::sys::JNI_TRUE;
    let field = call!(env, GetFieldID, declaring, name.as_ptr(), sig.as_ptr());
    crate::ffi::delete_local(env, declaring);
    if field.is_null() {
        call!(env, ExceptionClear);
        return None;
    }
    if !instance {
        return None;
    }
    let value = call!(env, GetObjectField, obj, field);
    (!value.is_null()).then_some(value)
}

/// A lock's name for people, from its blocker's internal class name: the lock that owns a
/// `Sync` (`java/util/concurrent/locks/ReentrantLock$NonfairSync` → `ReentrantLock`), a
/// condition as such, anything else by its simple name.
fn lock_name(internal: &str) -> String {
    let simple = internal.rsplit('/').next().unwrap_or(internal);
    match simple.split_once('$') {
        Some((_, "ConditionObject")) => "a Condition (await)".to_string(),
        Some((outer, inner)) if inner.ends_with("Sync") => outer.to_string(),
        _ => simple.replace('$', "."),
    }
}
