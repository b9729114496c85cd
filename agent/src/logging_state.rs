//! `java.util.logging`'s configuration, as a fresh JVM has it, before every execution.
//!
//! **Why.** The JDK keeps one `LogManager` for the JVM's life: handlers a program adds to a
//! named logger, levels it sets and the root logger's console handler (which holds the
//! `System.err` of the moment it was made: the captured stream of the execution that first
//! logged) stay for the next execution. A program that adds a handler at start-up then logs
//! every message once per handler it finds, or checks that it is the first to configure a
//! logger, behaves differently in the second execution of a JVM than in a fresh one: a
//! failure that is not the program's, and one no fresh replay JVM shows.
//!
//! **How.** Once the JDK has initialized `LogManager`, before every execution, on the
//! harness's thread while no application thread runs: `readConfiguration()`, which closes and
//! removes every logger's handlers, resets their levels and reads the JDK's configuration
//! again (the root logger's handlers are made again when the next execution first logs, on its
//! own `System.err`); then every logger gets back what `readConfiguration` leaves alone: its
//! filter (none) and its use of the parent's handlers (on). Loggers themselves stay registered
//! (a fresh one and a reset one are alike to the program). A program that never logs pays one
//! class-status query per execution (the class is looked up once per JVM). This module decides nothing about scheduling.

use crate::common_pool;
use crate::ffi::call;
use crate::jvmti::Jvmti;
use jni::sys::{jvalue, JNIEnv};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

static WARNED: AtomicBool = AtomicBool::new(false);

/// Renews the logging configuration if the JDK has made its `LogManager` (see the module doc).
pub fn renew(env: *mut JNIEnv, jvmti: Jvmti) {
    let done = try_renew(env, jvmti);
    common_pool::warn_once(env, done, &WARNED, |e| {
        format!(
            "java.util.logging's configuration is not renewed between executions ({e}); \
             handlers and levels a program sets stay for its next execution"
        )
    });
}

/// `LogManager`'s class, looked up once per JVM without initializing it (JNI's `FindClass`
/// would: making the manager and reading the configuration in every JVM).
static MANAGER_CLASS: OnceLock<usize> = OnceLock::new();

fn try_renew(env: *mut JNIEnv, jvmti: Jvmti) -> Result<(), String> {
    let manager_class =
        crate::ffi::cached_class_without_init(env, &MANAGER_CLASS, c"java.util.logging.LogManager");
    if manager_class.is_null() {
        // A JDK without java.logging: nothing to renew.
        return Ok(());
    }
    // Not made yet: nothing to renew, and asking for the manager would make it here.
    let initialized = jvmti
        .class_status(manager_class)
        .is_ok_and(|s| s & crate::jvmti_sys::JVMTI_CLASS_STATUS_INITIALIZED != 0);
    if initialized {
        read_configuration(env, manager_class)
    } else {
        Ok(())
    }
}

/// `LogManager.getLogManager().readConfiguration()`.
fn read_configuration(env: *mut JNIEnv, manager_class: jni::sys::jclass) -> Result<(), String> {
    let get = call!(
        env,
        GetStaticMethodID,
        manager_class,
        c"getLogManager".as_ptr(),
        c"()Ljava/util/logging/LogManager;".as_ptr()
    );
    let read = call!(
        env,
        GetMethodID,
        manager_class,
        c"readConfiguration".as_ptr(),
        c"()V".as_ptr()
    );
    if get.is_null() || read.is_null() {
        return Err("no LogManager.getLogManager or readConfiguration".into());
    }
    let manager = call!(
        env,
        CallStaticObjectMethodA,
        manager_class,
        get,
        [].as_ptr()
    );
    if call!(env, ExceptionCheck) != 0 || manager.is_null() {
        return Err("LogManager.getLogManager() failed".into());
    }
    call!(env, CallVoidMethodA, manager, read, [].as_ptr());
    let done = if call!(env, ExceptionCheck) != 0 {
        Err("LogManager.readConfiguration() threw".into())
    } else {
        reset_loggers(env, manager_class, manager)
    };
    call!(env, DeleteLocalRef, manager);
    done
}

/// `setFilter(null)` and `setUseParentHandlers(true)` on every logger `manager` knows.
fn reset_loggers(
    env: *mut JNIEnv,
    manager_class: jni::sys::jclass,
    manager: jni::sys::jobject,
) -> Result<(), String> {
    let method = |class, name: &std::ffi::CStr, sig: &std::ffi::CStr| {
        let m = call!(env, GetMethodID, class, name.as_ptr(), sig.as_ptr());
        if m.is_null() {
            call!(env, ExceptionClear);
            return Err(format!("no method {}", name.to_string_lossy()));
        }
        Ok(m)
    };
    let logger_class = call!(env, FindClass, c"java/util/logging/Logger".as_ptr());
    let enumeration_class = call!(env, FindClass, c"java/util/Enumeration".as_ptr());
    if logger_class.is_null() || enumeration_class.is_null() {
        return Err("no Logger or Enumeration class".into());
    }
    let names = method(
        manager_class,
        c"getLoggerNames",
        c"()Ljava/util/Enumeration;",
    )?;
    let get = method(
        manager_class,
        c"getLogger",
        c"(Ljava/lang/String;)Ljava/util/logging/Logger;",
    )?;
    let more = method(enumeration_class, c"hasMoreElements", c"()Z")?;
    let next = method(enumeration_class, c"nextElement", c"()Ljava/lang/Object;")?;
    let set_filter = method(logger_class, c"setFilter", c"(Ljava/util/logging/Filter;)V")?;
    let use_parent = method(logger_class, c"setUseParentHandlers", c"(Z)V")?;
    let all = call!(env, CallObjectMethodA, manager, names, [].as_ptr());
    if all.is_null() || call!(env, ExceptionCheck) != 0 {
        return Err("LogManager.getLoggerNames() failed".into());
    }
    while call!(env, CallBooleanMethodA, all, more, [].as_ptr()) != 0 {
        let name = call!(env, CallObjectMethodA, all, next, [].as_ptr());
        let logger = call!(
            env,
            CallObjectMethodA,
            manager,
            get,
            [jvalue { l: name }].as_ptr()
        );
        if !logger.is_null() {
            let no_filter = [jvalue {
                l: std::ptr::null_mut(),
            }];
            call!(env, CallVoidMethodA, logger, set_filter, no_filter.as_ptr());
            call!(
                env,
                CallVoidMethodA,
                logger,
                use_parent,
                [jvalue { z: 1 }].as_ptr()
            );
            call!(env, DeleteLocalRef, logger);
        }
        call!(env, DeleteLocalRef, name);
        if call!(env, ExceptionCheck) != 0 {
            return Err("resetting a logger threw".into());
        }
    }
    call!(env, DeleteLocalRef, all);
    call!(env, DeleteLocalRef, logger_class);
    call!(env, DeleteLocalRef, enumeration_class);
    Ok(())
}
