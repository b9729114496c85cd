//! The JVM's own identity hashes, pinned for an execution's objects.
//!
//! `Object.hashCode` and `System.identityHashCode` are natives the JVM binds lazily; the
//! agent's NativeMethodBind callback ([`on_native_bind`]) puts [`object_hash_code`] and
//! [`system_identity_hash`] in their place. Each asks the controller for a pinned hash
//! ([`Control::identity_hash`]: the execution's own objects) and otherwise calls the JVM's
//! function. When the JVM has stored a hash in an object's header, `Object.hashCode` answers
//! from there without calling the native (which is why objects the JVM hashes itself, class
//! mirrors, are left to it); a pinned hash is never stored there, so every call for a pinned
//! object comes here.

use super::control;
use crate::jvmti::Jvmti;
use crate::jvmti_sys::{jthread, jvmtiEnv};
use jni::sys::{jclass, jint, jmethodID, jobject, JNIEnv};
use std::os::raw::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The JVM's `Object.hashCode` and `System.identityHashCode` functions, once bound.
static JVM_OBJECT_HASH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
static JVM_SYSTEM_HASH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

type ObjectHash = extern "system" fn(*mut JNIEnv, jobject) -> jint;
type SystemHash = extern "system" fn(*mut JNIEnv, jclass, jobject) -> jint;

/// JVMTI NativeMethodBind: replaces the two identity-hash natives, remembering the JVM's.
///
/// # Safety
/// Called by the JVM with a valid JVMTI environment and `new_address` pointing at the address
/// it is about to bind.
pub unsafe extern "C" fn on_native_bind(
    jvmti: *mut jvmtiEnv,
    _env: *mut JNIEnv,
    _thread: jthread,
    method: jmethodID,
    address: *mut c_void,
    new_address: *mut *mut c_void,
) {
    if address.is_null() || new_address.is_null() {
        return;
    }
    if address == jvm_ihashcode() {
        // `Object.hashCode`, registered by `Object`'s static initializer so early that JVMTI
        // cannot name methods yet: the JVM's `JVM_IHashCode` itself.
        replace(
            &JVM_OBJECT_HASH,
            address,
            new_address,
            object_hash_code as ObjectHash as *mut c_void,
        );
        return;
    }
    let jvmti = Jvmti(jvmti);
    let Some((name, descriptor)) = jvmti.method_name(method) else {
        return;
    };
    if (name.as_str(), descriptor.as_str()) != ("identityHashCode", "(Ljava/lang/Object;)I") {
        return;
    }
    let of_system = jvmti
        .declaring_class(method)
        .and_then(|class| jvmti.class_signature(class))
        .is_some_and(|signature| signature == "Ljava/lang/System;");
    if of_system {
        replace(
            &JVM_SYSTEM_HASH,
            address,
            new_address,
            system_identity_hash as SystemHash as *mut c_void,
        );
    }
}

/// Binds `ours` instead of the JVM's `address`, which `saved` keeps.
///
/// # Safety
/// `new_address` is the JVM's NativeMethodBind out-pointer.
unsafe fn replace(
    saved: &AtomicPtr<c_void>,
    address: *mut c_void,
    new_address: *mut *mut c_void,
    ours: *mut c_void,
) {
    if address != ours {
        saved.store(address, Ordering::Release);
        *new_address = ours;
    }
}

/// The JVM's exported `JVM_IHashCode` (the launcher loads libjvm with `RTLD_GLOBAL`).
fn jvm_ihashcode() -> *mut c_void {
    static ADDRESS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *ADDRESS.get_or_init(|| {
        // SAFETY: dlsym with RTLD_DEFAULT (null) and a NUL-terminated name.
        unsafe { dlsym(std::ptr::null_mut(), c"JVM_IHashCode".as_ptr()) as usize }
    }) as *mut c_void
}

extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const std::os::raw::c_char) -> *mut c_void;
}

fn pinned(env: *mut JNIEnv, obj: jobject) -> Option<jint> {
    control().and_then(|c| c.identity_hash(env, obj))
}

/// `Object.hashCode()` as the agent binds it.
extern "system" fn object_hash_code(env: *mut JNIEnv, this: jobject) -> jint {
    if let Some(hash) = pinned(env, this) {
        return hash;
    }
    let jvm = JVM_OBJECT_HASH.load(Ordering::Acquire);
    // SAFETY: stored only from the address the JVM bound for this very native.
    let jvm: ObjectHash = unsafe { std::mem::transmute::<*mut c_void, ObjectHash>(jvm) };
    jvm(env, this)
}

/// `System.identityHashCode(Object)` as the agent binds it.
extern "system" fn system_identity_hash(env: *mut JNIEnv, class: jclass, obj: jobject) -> jint {
    if !obj.is_null() {
        if let Some(hash) = pinned(env, obj) {
            return hash;
        }
    }
    let jvm = JVM_SYSTEM_HASH.load(Ordering::Acquire);
    // SAFETY: as in `object_hash_code`.
    let jvm: SystemHash = unsafe { std::mem::transmute::<*mut c_void, SystemHash>(jvm) };
    jvm(env, class, obj)
}
