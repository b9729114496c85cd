//! Which classes are the JDK's: those of the packages of the JVM's boot layer, learnt once at
//! VMInit. A name's prefix alone (`jdk/`, `sun/`, `javax/`, `com/sun/`) is not enough: an
//! application or a library may put its own classes in such packages (`jdk.sbhalt.Main` from
//! the class path, a `javax.inject` jar), and treating them as the JDK's left them
//! uninstrumented and their frames internal, so their threads ran uncontrolled.
//!
//! Must not decide what is rewritten or how; it only answers "is this class the JDK's".

use crate::ffi::call;
use jni::sys::{jobject, jobjectArray, jsize, jvalue, JNIEnv};
use std::collections::HashSet;
use std::ffi::CStr;
use std::sync::OnceLock;

/// The internal names (`java/lang`) of the packages of the boot layer's modules.
static PACKAGES: OnceLock<HashSet<Box<str>>> = OnceLock::new();

/// Whether internal class name `name` is the JDK's. Before [`learn`] (or if it failed), every
/// class with a JDK prefix is.
pub fn is_jdk_class(name: &str) -> bool {
    if !rewriter::passes::is_jdk_class(name) {
        return false;
    }
    let Some(packages) = PACKAGES.get() else {
        return true;
    };
    let package = name.rsplit_once('/').map_or("", |(p, _)| p);
    packages.contains(package) || is_dynamic_jdk_package(package)
}

/// Packages the JDK makes at run time, outside the boot layer: dynamic proxies' (`jdk.proxy1`
/// in a module of their own; `com.sun.proxy` before JDK 16).
fn is_dynamic_jdk_package(package: &str) -> bool {
    package == "com/sun/proxy"
        || package
            .strip_prefix("jdk/proxy")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Reads the packages of `ModuleLayer.boot()`'s modules (at VMInit, on the VMInit thread), and
/// returns how many there are.
pub fn learn(env: *mut JNIEnv) -> Result<usize, String> {
    let packages = boot_layer_packages(env)?;
    let count = packages.len();
    let _ = PACKAGES.set(packages);
    Ok(count)
}

fn boot_layer_packages(env: *mut JNIEnv) -> Result<HashSet<Box<str>>, String> {
    let failed = |what: &str| {
        call!(env, ExceptionClear);
        format!("{what} failed")
    };
    let class = |name: &CStr| {
        let c = call!(env, FindClass, name.as_ptr());
        if c.is_null() {
            Err(failed(&name.to_string_lossy()))
        } else {
            Ok(c)
        }
    };
    let method = |c, name: &CStr, sig: &CStr| {
        let m = call!(env, GetMethodID, c, name.as_ptr(), sig.as_ptr());
        if m.is_null() {
            Err(failed(&name.to_string_lossy()))
        } else {
            Ok(m)
        }
    };
    let layer_class = class(c"java/lang/ModuleLayer")?;
    let boot = call!(
        env,
        GetStaticMethodID,
        layer_class,
        c"boot".as_ptr(),
        c"()Ljava/lang/ModuleLayer;".as_ptr()
    );
    if boot.is_null() {
        return Err(failed("ModuleLayer.boot"));
    }
    let modules = method(layer_class, c"modules", c"()Ljava/util/Set;")?;
    let to_array = method(
        class(c"java/util/Set")?,
        c"toArray",
        c"()[Ljava/lang/Object;",
    )?;
    let packages_of = method(
        class(c"java/lang/Module")?,
        c"getPackages",
        c"()Ljava/util/Set;",
    )?;
    let no_args: [jvalue; 0] = [];
    let invoke = |target: jobject, m| {
        let out = call!(env, CallObjectMethodA, target, m, no_args.as_ptr());
        if out.is_null() {
            Err(failed("a call"))
        } else {
            Ok(out)
        }
    };
    let layer = call!(
        env,
        CallStaticObjectMethodA,
        layer_class,
        boot,
        no_args.as_ptr()
    );
    if layer.is_null() {
        return Err(failed("ModuleLayer.boot()"));
    }
    let modules = invoke(invoke(layer, modules)?, to_array)? as jobjectArray;
    let mut out = HashSet::new();
    for i in 0..call!(env, GetArrayLength, modules) {
        // One local frame per module: a module has up to a few hundred packages.
        if call!(env, PushLocalFrame, 16) != 0 {
            return Err(failed("PushLocalFrame"));
        }
        let module = call!(env, GetObjectArrayElement, modules, i);
        let read = invoke(module, packages_of)
            .and_then(|set| invoke(set, to_array))
            .map(|names| read_names(env, names as jobjectArray, &mut out));
        call!(env, PopLocalFrame, std::ptr::null_mut());
        read?;
    }
    if out.is_empty() {
        return Err("the boot layer has no packages".into());
    }
    Ok(out)
}

/// Adds the package names of the `String[]` `names`, in internal form, to `out`.
fn read_names(env: *mut JNIEnv, names: jobjectArray, out: &mut HashSet<Box<str>>) {
    let count: jsize = call!(env, GetArrayLength, names);
    for j in 0..count {
        let name = call!(env, GetObjectArrayElement, names, j);
        if name.is_null() {
            continue;
        }
        let chars = call!(env, GetStringUTFChars, name, std::ptr::null_mut());
        if !chars.is_null() {
            // SAFETY: the JVM returned a NUL-terminated modified-UTF-8 string, valid until released.
            let text = unsafe { CStr::from_ptr(chars) }.to_string_lossy();
            out.insert(text.replace('.', "/").into_boxed_str());
            call!(env, ReleaseStringUTFChars, name, chars);
        }
        call!(env, DeleteLocalRef, name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_proxies_packages_are_the_jdks() {
        assert!(is_dynamic_jdk_package("jdk/proxy1"));
        assert!(is_dynamic_jdk_package("jdk/proxy12"));
        assert!(is_dynamic_jdk_package("com/sun/proxy"));
        assert!(!is_dynamic_jdk_package("jdk/proxy"));
        assert!(!is_dynamic_jdk_package("jdk/proxyish"));
        assert!(!is_dynamic_jdk_package("jdk/sbhalt"));
    }

    #[test]
    fn classes_outside_jdk_prefixes_are_never_the_jdks() {
        assert!(!is_jdk_class("app/Main"));
        assert!(!is_jdk_class("javafoo/Main"));
    }
}
