//! The floor of the agent's FFI: the one call macro of the JNI and JVMTI function tables and
//! the JNI helpers every layer uses (the JavaVM, the current thread's env, references, strings).
//! Names nothing of the agent above it.

use jni::sys::{jclass, jobject, jstring, JNIEnv};
use std::ffi::CString;

macro_rules! call {
    ($env:expr, $f:ident $(, $arg:expr)* $(,)?) => {{
        let env = $env;
        // SAFETY: `env` is a valid JNIEnv of the calling thread (or the agent's jvmtiEnv), the
        // table entry exists in every version the agent accepts, and callers pass valid arguments.
        unsafe { ((**env).$f.unwrap())(env $(, $arg)*) }
    }};
}
/// The agent's one call macro, for JNI and JVMTI function tables alike: `call!(env, Name, args…)`
/// is `(**env).Name(env, args…)`, returning what the function returns.
pub(crate) use call;

/// The JavaVM, recorded by `Agent_OnLoad`.
pub static VM: std::sync::atomic::AtomicPtr<jni::sys::JavaVM> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// The current thread's JNIEnv (null when it is not attached).
pub fn current_env() -> *mut JNIEnv {
    let vm = VM.load(std::sync::atomic::Ordering::Relaxed);
    if vm.is_null() {
        return std::ptr::null_mut();
    }
    let mut env: *mut std::ffi::c_void = std::ptr::null_mut();
    // `vm` is the JVM's JavaVM, valid for the life of the process.
    let rc = call!(vm, GetEnv, &mut env, jni::sys::JNI_VERSION_1_8);
    if rc == jni::sys::JNI_OK {
        env as *mut JNIEnv
    } else {
        std::ptr::null_mut()
    }
}

pub fn new_global(env: *mut JNIEnv, obj: jobject) -> jobject {
    if obj.is_null() {
        return obj;
    }
    call!(env, NewGlobalRef, obj)
}

pub fn delete_local(env: *mut JNIEnv, obj: jobject) {
    if !env.is_null() && !obj.is_null() {
        call!(env, DeleteLocalRef, obj);
    }
}

pub fn delete_global(env: *mut JNIEnv, obj: jobject) {
    if !obj.is_null() {
        call!(env, DeleteGlobalRef, obj);
    }
}

pub fn find_class(env: *mut JNIEnv, name: &str) -> Option<jclass> {
    let c = CString::new(name).ok()?;
    let local = call!(env, FindClass, c.as_ptr());
    if local.is_null() {
        call!(env, ExceptionClear);
        return None;
    }
    let global = new_global(env, local);
    call!(env, DeleteLocalRef, local);
    Some(global)
}

/// The class `binary_name` (`java.util.logging.LogManager`) of the boot loader, loaded but not
/// initialized (`Class.forName(name, false, null)`; JNI's `FindClass` initializes what it
/// finds); a local reference, `None` when there is no such class (the exception cleared).
pub fn class_without_init(env: *mut JNIEnv, binary_name: &std::ffi::CStr) -> Option<jclass> {
    let class_class = call!(env, FindClass, c"java/lang/Class".as_ptr());
    if class_class.is_null() {
        call!(env, ExceptionClear);
        return None;
    }
    let for_name = call!(
        env,
        GetStaticMethodID,
        class_class,
        c"forName".as_ptr(),
        c"(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;".as_ptr()
    );
    let name = call!(env, NewStringUTF, binary_name.as_ptr());
    let found = if for_name.is_null() || name.is_null() {
        std::ptr::null_mut()
    } else {
        let args = [
            jni::sys::jvalue { l: name },
            jni::sys::jvalue { z: 0 },
            jni::sys::jvalue {
                l: std::ptr::null_mut(),
            },
        ];
        call!(
            env,
            CallStaticObjectMethodA,
            class_class,
            for_name,
            args.as_ptr()
        )
    };
    if call!(env, ExceptionCheck) != 0 {
        call!(env, ExceptionClear);
    }
    delete_local(env, name);
    delete_local(env, class_class);
    (!found.is_null()).then_some(found as jclass)
}

/// [`class_without_init`] once per JVM, kept in `cell` as a global reference (null when there
/// is no such class): `FindClass` and `Class.forName` both run the class loaders' Java code,
/// too slow for every execution.
pub fn cached_class_without_init(
    env: *mut JNIEnv,
    cell: &std::sync::OnceLock<usize>,
    binary_name: &std::ffi::CStr,
) -> jclass {
    *cell.get_or_init(|| {
        let Some(local) = class_without_init(env, binary_name) else {
            return 0;
        };
        let global = new_global(env, local);
        delete_local(env, local);
        global as usize
    }) as jclass
}

pub fn throw_new(env: *mut JNIEnv, class: jclass, message: &str) {
    let m = CString::new(message).unwrap_or_default();
    call!(env, ThrowNew, class, m.as_ptr());
}

pub fn java_string(env: *mut JNIEnv, s: jstring) -> Option<String> {
    if s.is_null() {
        return None;
    }
    let len = call!(env, GetStringLength, s);
    let chars = call!(env, GetStringChars, s, std::ptr::null_mut());
    if chars.is_null() {
        return None;
    }
    if len <= 0 {
        call!(env, ReleaseStringChars, s, chars);
        return Some(String::new());
    }
    // SAFETY: GetStringChars returned `len` UTF-16 units.
    let text = String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(chars, len as usize) });
    call!(env, ReleaseStringChars, s, chars);
    Some(text)
}
