//! A thin layer over the raw JVMTI table: the dozen calls the agent makes, each returning a
//! `Result` with the JVMTI error code.

use crate::ffi::call;
use crate::jvmti_sys::*;
use jni::sys::{jint, jlong, jobject, jthrowable};
use std::ffi::CStr;
use std::os::raw::c_char;

mod frames;
mod monitors;
pub use frames::FrameParts;

/// The agent's JVMTI environment. JVMTI environments may be used from any attached thread.
#[derive(Clone, Copy)]
pub struct Jvmti(pub *mut jvmtiEnv);

// SAFETY: a jvmtiEnv is documented as usable from every thread attached to the VM.
unsafe impl Send for Jvmti {}
unsafe impl Sync for Jvmti {}

/// A JVMTI error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JvmtiError(pub jvmtiError);

pub type JResult<T> = Result<T, JvmtiError>;

/// A JVMTI function's return code as a `Result`.
pub fn check(err: jvmtiError) -> JResult<()> {
    if err == jvmtiError_JVMTI_ERROR_NONE {
        Ok(())
    } else {
        Err(JvmtiError(err))
    }
}

/// A field a class declares (`Jvmti::declared_fields`).
pub struct DeclaredField {
    pub id: jni::sys::jfieldID,
    /// `ACC_*` bits.
    pub modifiers: jint,
    pub name: String,
    pub signature: String,
}

/// A thread's JVMTI state bits and name.
pub struct ThreadInfo {
    pub name: String,
    pub daemon: bool,
}

impl Jvmti {
    pub fn add_capabilities(self, caps: &jvmtiCapabilities) -> JResult<()> {
        check(call!(self.0, AddCapabilities, caps))
    }

    pub fn set_callbacks(self, callbacks: &jvmtiEventCallbacks) -> JResult<()> {
        check(call!(
            self.0,
            SetEventCallbacks,
            callbacks,
            std::mem::size_of::<jvmtiEventCallbacks>() as jint
        ))
    }

    pub fn enable(self, event: jvmtiEvent) -> JResult<()> {
        check(call!(
            self.0,
            SetEventNotificationMode,
            jvmtiEventMode_JVMTI_ENABLE,
            event,
            std::ptr::null_mut()
        ))
    }

    pub fn get_tag(self, obj: jobject) -> JResult<jlong> {
        let mut tag: jlong = 0;
        check(call!(self.0, GetTag, obj, &mut tag))?;
        Ok(tag)
    }

    pub fn set_tag(self, obj: jobject, tag: jlong) -> JResult<()> {
        check(call!(self.0, SetTag, obj, tag))
    }

    pub fn thread_state(self, thread: jobject) -> JResult<u32> {
        let mut state: jint = 0;
        check(call!(self.0, GetThreadState, thread, &mut state))?;
        Ok(state as u32)
    }

    /// CPU time the thread has used, in nanoseconds.
    pub fn cpu_time(self, thread: jobject) -> JResult<u64> {
        let mut nanos: jlong = 0;
        check(call!(self.0, GetThreadCpuTime, thread, &mut nanos))?;
        Ok(nanos.max(0) as u64)
    }

    pub fn interrupt(self, thread: jobject) -> JResult<()> {
        check(call!(self.0, InterruptThread, thread))
    }

    /// Throws `exception` into `thread` asynchronously (as `Thread.stop` does), waking it from
    /// `wait`/`sleep`/`park`.
    pub fn stop(self, thread: jobject, exception: jthrowable) -> JResult<()> {
        check(call!(self.0, StopThread, thread, exception))
    }

    pub fn thread_info(self, thread: jobject) -> JResult<ThreadInfo> {
        // SAFETY: jvmtiThreadInfo is plain data; JVMTI fills it.
        let mut info: jvmtiThreadInfo = unsafe { std::mem::zeroed() };
        check(call!(self.0, GetThreadInfo, thread, &mut info))?;
        let name = self.take_string(info.name);
        Ok(ThreadInfo {
            name,
            daemon: info.is_daemon != 0,
        })
    }

    /// `thread`'s name, and the names of its thread group and of the group's ancestors,
    /// innermost first (`["main", "system"]` for a program's thread; JDK-internal threads sit
    /// in `system` or in a group of their own under it). The group references are local ones
    /// of the calling frame.
    pub fn thread_name_and_groups(self, thread: jobject) -> JResult<(String, Vec<String>)> {
        // SAFETY: plain data, filled by JVMTI.
        let mut info: jvmtiThreadInfo = unsafe { std::mem::zeroed() };
        check(call!(self.0, GetThreadInfo, thread, &mut info))?;
        let name = self.take_string(info.name);
        let mut groups = Vec::new();
        let mut group = info.thread_group;
        // A cycle is impossible in a live JVM; the cap only keeps a corrupt answer finite.
        while !group.is_null() && groups.len() < 64 {
            // SAFETY: plain data, filled by JVMTI.
            let mut group_info: jvmtiThreadGroupInfo = unsafe { std::mem::zeroed() };
            check(call!(self.0, GetThreadGroupInfo, group, &mut group_info))?;
            groups.push(self.take_string(group_info.name));
            group = group_info.parent;
        }
        Ok((name, groups))
    }

    /// Copies and frees a JVMTI-allocated C string.
    fn take_string(self, s: *mut c_char) -> String {
        if s.is_null() {
            return String::new();
        }
        // SAFETY: JVMTI returns NUL-terminated modified UTF-8, allocated by Allocate.
        let text = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
        let _ = check(call!(self.0, Deallocate, s as *mut u8));
        text
    }

    /// The class names (`java.lang.Object`, `[I`) of the live objects carrying `tags`, by tag;
    /// a tag whose object is gone (or was never set) is missing from the answer. `env` is the
    /// calling thread's JNI environment.
    pub fn classes_of_tags(
        self,
        env: *mut jni::sys::JNIEnv,
        tags: &[jlong],
    ) -> std::collections::HashMap<jlong, String> {
        let mut out = std::collections::HashMap::new();
        if tags.is_empty() || env.is_null() {
            return out;
        }
        let mut count: jint = 0;
        let mut objects: *mut jobject = std::ptr::null_mut();
        let mut found: *mut jlong = std::ptr::null_mut();
        if check(call!(
            self.0,
            GetObjectsWithTags,
            tags.len() as jint,
            tags.as_ptr(),
            &mut count,
            &mut objects,
            &mut found
        ))
        .is_err()
        {
            return out;
        }
        for i in 0..count.max(0) as usize {
            // SAFETY: JVMTI returned `count` objects (local references) and tags.
            let (obj, tag) = unsafe { (*objects.add(i), *found.add(i)) };
            let class = call!(env, GetObjectClass, obj);
            if let Some(sig) = (!class.is_null())
                .then(|| self.class_signature(class))
                .flatten()
            {
                out.insert(tag, java_name(&sig));
            }
            crate::ffi::delete_local(env, class);
            crate::ffi::delete_local(env, obj);
        }
        let _ = check(call!(self.0, Deallocate, objects as *mut u8));
        let _ = check(call!(self.0, Deallocate, found as *mut u8));
        out
    }

    /// The methods of the current thread's top `N` frames (innermost first); how many.
    pub fn current_methods<const N: usize>(self, out: &mut [jni::sys::jmethodID; N]) -> usize {
        self.current_methods_from(0, out)
    }

    /// The methods of the current thread's frames from depth `skip` on (innermost first), as
    /// many as `out` holds; how many. Skipped frames cost a step of the walk but no method id,
    /// and the walk stops after `out.len()` frames (HotSpot's cost is per frame walked).
    pub fn current_methods_from(self, skip: usize, out: &mut [jni::sys::jmethodID]) -> usize {
        const MAX: usize = 64;
        let want = out.len().min(MAX);
        // SAFETY: jvmtiFrameInfo is plain data; only the first `count` entries are read.
        let mut frames: [std::mem::MaybeUninit<jvmtiFrameInfo>; MAX] =
            unsafe { std::mem::MaybeUninit::uninit().assume_init() };
        let mut count: jint = 0;
        let ok = check(call!(
            self.0,
            GetStackTrace,
            std::ptr::null_mut(),
            skip as jint,
            want as jint,
            frames.as_mut_ptr() as *mut jvmtiFrameInfo,
            &mut count
        ));
        if ok.is_err() {
            return 0;
        }
        let n = count.clamp(0, want as jint) as usize;
        for (slot, frame) in out.iter_mut().zip(&frames[..n]) {
            // SAFETY: JVMTI filled the first `count` entries.
            *slot = unsafe { frame.assume_init_ref() }.method;
        }
        n
    }

    /// Every live thread (local references of the calling thread).
    pub fn all_threads(self) -> JResult<Vec<jobject>> {
        let mut count: jint = 0;
        let mut threads: *mut jobject = std::ptr::null_mut();
        check(call!(self.0, GetAllThreads, &mut count, &mut threads))?;
        if threads.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: JVMTI returned `count` thread references at `threads`.
        let out = unsafe { std::slice::from_raw_parts(threads, count.max(0) as usize) }.to_vec();
        let _ = check(call!(self.0, Deallocate, threads as *mut u8));
        Ok(out)
    }

    /// The fields a class declares (not inherited ones), with their modifiers, names and JVM
    /// signatures.
    pub fn declared_fields(self, klass: jni::sys::jclass) -> JResult<Vec<DeclaredField>> {
        let mut count: jint = 0;
        let mut fields: *mut jni::sys::jfieldID = std::ptr::null_mut();
        check(call!(
            self.0,
            GetClassFields,
            klass,
            &mut count,
            &mut fields
        ))?;
        if fields.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: JVMTI returned `count` field ids at `fields`.
        let ids = unsafe { std::slice::from_raw_parts(fields, count.max(0) as usize) }.to_vec();
        let _ = check(call!(self.0, Deallocate, fields as *mut u8));
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let mut modifiers: jint = 0;
            check(call!(self.0, GetFieldModifiers, klass, id, &mut modifiers))?;
            let mut name: *mut c_char = std::ptr::null_mut();
            let mut signature: *mut c_char = std::ptr::null_mut();
            check(call!(
                self.0,
                GetFieldName,
                klass,
                id,
                &mut name,
                &mut signature,
                std::ptr::null_mut()
            ))?;
            out.push(DeclaredField {
                id,
                modifiers,
                name: self.take_string(name),
                signature: self.take_string(signature),
            });
        }
        Ok(out)
    }

    /// The class's JVMTI status bits (`JVMTI_CLASS_STATUS_*`).
    pub fn class_status(self, klass: jni::sys::jclass) -> JResult<u32> {
        let mut status: jint = 0;
        check(call!(self.0, GetClassStatus, klass, &mut status))?;
        Ok(status as u32)
    }

    /// Whether the class has a static initializer.
    pub fn has_clinit(self, klass: jni::sys::jclass) -> bool {
        let mut count: jint = 0;
        let mut methods: *mut jni::sys::jmethodID = std::ptr::null_mut();
        if check(call!(
            self.0,
            GetClassMethods,
            klass,
            &mut count,
            &mut methods
        ))
        .is_err()
        {
            return false;
        }
        if methods.is_null() || count <= 0 {
            return false;
        }
        // SAFETY: JVMTI returned `count` method ids at `methods`.
        let ids = unsafe { std::slice::from_raw_parts(methods, count as usize) };
        let found = ids.iter().any(|&m| self.is_clinit(m));
        let _ = check(call!(self.0, Deallocate, methods as *mut u8));
        found
    }

    /// Whether `method` is a static initializer.
    pub fn is_clinit(self, method: jni::sys::jmethodID) -> bool {
        self.method_name(method)
            .is_some_and(|(name, _)| name == "<clinit>")
    }

    /// `method`'s name and descriptor.
    pub fn method_name(self, method: jni::sys::jmethodID) -> Option<(String, String)> {
        let mut name: *mut c_char = std::ptr::null_mut();
        let mut descriptor: *mut c_char = std::ptr::null_mut();
        check(call!(
            self.0,
            GetMethodName,
            method,
            &mut name,
            &mut descriptor,
            std::ptr::null_mut()
        ))
        .ok()?;
        Some((self.take_string(name), self.take_string(descriptor)))
    }

    /// The class that declares `method` (a local reference).
    pub fn declaring_class(self, method: jni::sys::jmethodID) -> Option<jni::sys::jclass> {
        let mut class: jni::sys::jclass = std::ptr::null_mut();
        check(call!(self.0, GetMethodDeclaringClass, method, &mut class)).ok()?;
        Some(class)
    }

    /// The loader that defined `class` (for an array class, its element type's): a local
    /// reference, null for the bootstrap loader or on error.
    pub fn class_loader(self, class: jni::sys::jclass) -> jobject {
        let mut loader: jobject = std::ptr::null_mut();
        match check(call!(self.0, GetClassLoader, class, &mut loader)) {
            Ok(()) => loader,
            Err(_) => std::ptr::null_mut(),
        }
    }

    /// The JVM signature of `class` (`Lpkg/Cls;`, `[I`).
    pub fn class_signature(self, class: jni::sys::jclass) -> Option<String> {
        let mut sig: *mut c_char = std::ptr::null_mut();
        check(call!(
            self.0,
            GetClassSignature,
            class,
            &mut sig,
            std::ptr::null_mut()
        ))
        .ok()?;
        Some(self.take_string(sig))
    }

    /// The internal name of `class` (`java/util/HashMap`); `None` for arrays and primitives.
    pub fn class_name(self, class: jni::sys::jclass) -> Option<String> {
        let sig = self.class_signature(class)?;
        sig.strip_prefix('L')?.strip_suffix(';').map(str::to_string)
    }
}

/// `Lpkg/Cls;` → `pkg.Cls`.
fn java_name(signature: &str) -> String {
    signature
        .strip_prefix('L')
        .and_then(|s| s.strip_suffix(';'))
        .unwrap_or(signature)
        .replace('/', ".")
}

/// Describes the JVMTI thread-state bits that matter to the watchdog.
pub fn describe_state(state: u32) -> &'static str {
    if state & JVMTI_THREAD_STATE_ALIVE == 0 {
        if state & JVMTI_THREAD_STATE_TERMINATED != 0 {
            "terminated"
        } else {
            "not started"
        }
    } else if state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER != 0 {
        "blocked entering a monitor"
    } else if state & JVMTI_THREAD_STATE_PARKED != 0 {
        "parked (LockSupport.park)"
    } else if state & JVMTI_THREAD_STATE_IN_OBJECT_WAIT != 0 {
        "waiting in Object.wait"
    } else if state & JVMTI_THREAD_STATE_SLEEPING != 0 {
        "sleeping"
    } else if state & JVMTI_THREAD_STATE_WAITING != 0 {
        "waiting"
    } else if state & JVMTI_THREAD_STATE_IN_NATIVE != 0 {
        "running native code"
    } else {
        "running"
    }
}

/// True when the state bits say the thread is blocked (not running and not in native code).
pub fn is_blocked(state: u32) -> bool {
    state & JVMTI_THREAD_STATE_ALIVE != 0
        && state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_WAITING) != 0
}

/// A system property of the JVM (JVMTI `GetSystemProperty`), if set.
pub fn system_property(jvmti: Jvmti, name: &CStr) -> Option<String> {
    let env = jvmti.0;
    let mut value: *mut std::os::raw::c_char = std::ptr::null_mut();
    // SAFETY: valid env, NUL-terminated name, out pointer.
    let err = call!(env, GetSystemProperty, name.as_ptr(), &mut value);
    if err != jvmtiError_JVMTI_ERROR_NONE || value.is_null() {
        return None;
    }
    // SAFETY: JVMTI returned a NUL-terminated string it allocated.
    let text = unsafe { CStr::from_ptr(value) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: the string was allocated by JVMTI.
    call!(env, Deallocate, value as *mut u8);
    Some(text)
}

/// The main class the JVM was started with (`sun.java.command`'s first word), if known.
pub fn main_class(jvmti: Jvmti) -> Option<String> {
    system_property(jvmti, c"sun.java.command")?
        .split_whitespace()
        .next()
        .map(str::to_string)
}

/// Whether the main class the JVM was started with got initialized (the launcher runs `main`
/// only then). When it did not (a class that cannot be found or loaded), the launcher said why
/// and nothing of the program ran: not a pass. `-jar`, source-file and module launches, whose
/// main class is not the command's first word, count as initialized.
pub fn main_class_initialized(jvmti: Jvmti) -> bool {
    let Some(main) = main_class(jvmti) else {
        return true;
    };
    if main.ends_with(".jar") || main.ends_with(".java") || main.contains('/') {
        return true;
    }
    let wanted = format!("L{};", main.replace('.', "/"));
    let env = jvmti.0;
    let mut count: jni::sys::jint = 0;
    let mut classes: *mut jni::sys::jclass = std::ptr::null_mut();
    // SAFETY: valid env and out pointers.
    let err = call!(env, GetLoadedClasses, &mut count, &mut classes);
    if err != jvmtiError_JVMTI_ERROR_NONE || classes.is_null() {
        return true;
    }
    // SAFETY: JVMTI returned `count` class references.
    let list = unsafe { std::slice::from_raw_parts(classes, count.max(0) as usize) };
    let initialized = list.iter().any(|&k| {
        jvmti.class_signature(k).is_some_and(|sig| sig == wanted)
            && jvmti
                .class_status(k)
                .is_ok_and(|s| s & JVMTI_CLASS_STATUS_INITIALIZED != 0)
    });
    // SAFETY: the array was allocated by JVMTI.
    call!(env, Deallocate, classes as *mut u8);
    initialized
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_signatures_become_java_names() {
        assert_eq!(java_name("Ljava/lang/Thread;"), "java.lang.Thread");
        assert_eq!(java_name("I"), "I");
    }

    #[test]
    fn thread_states_are_described() {
        let alive = JVMTI_THREAD_STATE_ALIVE;
        assert_eq!(describe_state(0), "not started");
        assert!(is_blocked(
            alive | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_PARKED
        ));
        assert!(!is_blocked(alive | JVMTI_THREAD_STATE_RUNNABLE));
        assert_eq!(
            describe_state(alive | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_PARKED),
            "parked (LockSupport.park)"
        );
    }
}
