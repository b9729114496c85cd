//! `librankcheck_agent.so`: the JVMTI agent that puts the JVM under the scheduler's control.
//!
//! **Its one job:** bind `rankcheck.rt.RC`'s natives, map Java threads to scheduler ids, let
//! exactly one application thread run at a time as the scheduler decides, watch for threads
//! blocked where rankcheck cannot see, and write each execution's result.
//!
//! **Architecture invariant:** no strategy logic; the only crate with FFI and `unsafe`.
//!
//! Code map, in layers (imports point down only; `tests/layers.rs` checks it, ARCHITECTURE.md
//! has the table): the floor — [`jvmti_sys`] (generated), [`ffi`] (the one call macro, JNI
//! helpers), [`hash`], [`jvmti`]; services — [`options`], [`report`], [`explain`], [`cpu`],
//! [`sites`], [`naming`], [`platform`], [`jdk_classes`], [`juc`], [`loadhook`], [`confinement`],
//! [`pinned_jdk`], [`common_pool`], [`delay_scheduler`], [`logging_state`], [`strategy_choice`]; the controller — [`control`] (hand-off,
//! quiet stretches, threads, executions, watchdog, pinned values, verdicts); the entry —
//! [`natives`] (thin shims of `RC` and the harness), [`plain`], and this file (`Agent_OnLoad`,
//! JVMTI callbacks). The protocol with the CLI is in `agent/PROTOCOL.md`; the contract with the
//! Java side in `java_harness::hooks` and `java_harness::agent_contract`.

// JNI and JVMTI references (`jobject`, `jthread`) are opaque handles the JVM resolves; the agent
// passes them through and never dereferences them, so functions taking them need not be unsafe.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod common_pool;
pub mod confinement;
pub mod control;
pub mod cpu;
pub mod delay_scheduler;
pub mod explain;
pub mod ffi;
pub mod hash;
pub mod jdk_classes;
pub mod juc;
pub mod jvmti;
#[allow(clippy::all)]
pub mod jvmti_sys;
pub mod loadhook;
pub mod logging_state;
pub mod naming;
pub mod natives;
pub mod options;
pub mod pinned_jdk;
pub mod plain;
pub mod platform;
pub mod report;
pub mod sites;
pub mod strategy_choice;

use crate::ffi::call;
use control::{Control, Model, CONTROL};
use jni::sys::{jint, jobject, JNIEnv, JavaVM, JNI_ERR, JNI_OK};
use jvmti::Jvmti;
use jvmti_sys::*;
use options::Options;
use scheduler::{Config, Execution};
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::sync::OnceLock;

fn setup(vm: *mut JavaVM, text: &str) -> Result<(), String> {
    let mut options = Options::parse(text).map_err(|e| e.to_string())?;
    let strategy = strategy_choice::make_strategy(&options)?;
    let mut model: Model = Execution::starting_at(
        Config {
            max_steps: options.max_steps,
            livelock_window: options.livelock_window,
            spurious_wakeups: options.spurious,
            timeouts: options.timeouts,
            ..Config::default()
        },
        strategy,
        options.first_index(),
    );
    model.record_steps(options.trace);
    let sink = report::Sink::open(options.out.as_deref()).map_err(|e| {
        format!(
            "cannot create result file {}: {e}",
            options.out.as_ref().unwrap().display()
        )
    })?;

    let mut env: *mut c_void = std::ptr::null_mut();
    // SAFETY: `vm` is the JavaVM the JVM passed to Agent_OnLoad.
    let rc = call!(vm, GetEnv, &mut env, JVMTI_VERSION_1_2 as jint);
    if rc != JNI_OK || env.is_null() {
        return Err("this JVM offers no JVMTI 1.2 environment".into());
    }
    let jvmti = Jvmti(env as *mut jvmtiEnv);
    // SAFETY: plain bit-field struct; all zero means no capability.
    let mut caps: jvmtiCapabilities = unsafe { std::mem::zeroed() };
    caps.set_can_tag_objects(1);
    caps.set_can_signal_thread(1);
    caps.set_can_get_line_numbers(1);
    caps.set_can_get_source_file_name(1);
    caps.set_can_get_thread_cpu_time(1);
    // A controlled thread that finds a real monitor taken (control/real_monitors.rs).
    caps.set_can_generate_monitor_events(1);
    caps.set_can_get_monitor_info(1);
    caps.set_can_get_owned_monitor_info(1);
    caps.set_can_get_owned_monitor_stack_depth_info(1);
    // A thread waiting for another's static initializer (control/class_init.rs, watchdog.rs).
    caps.set_can_get_current_contended_monitor(1);
    // The JVM's identity hashes of an execution's objects, pinned (natives/identity.rs).
    caps.set_can_generate_native_method_bind_events(1);
    loadhook::capabilities(&options.load, &mut caps);
    jvmti
        .add_capabilities(&caps)
        .map_err(|e| format!("JVMTI capabilities refused (error {})", e.0))?;
    // SAFETY: an all-None callback table.
    let mut callbacks: jvmtiEventCallbacks = unsafe { std::mem::zeroed() };
    callbacks.ThreadStart = Some(on_thread_start);
    callbacks.ThreadEnd = Some(on_thread_end);
    callbacks.VMDeath = Some(on_vm_death);
    callbacks.ClassPrepare = Some(on_class_prepare);
    callbacks.MonitorContendedEnter = Some(on_monitor_contended_enter);
    callbacks.NativeMethodBind = Some(natives::identity::on_native_bind);
    loadhook::callbacks(&options.load, &mut callbacks);
    // VMInit: load-time rewriting's own first, then plain main (plain.rs).
    let _ = LOADHOOK_VM_INIT.set(callbacks.VMInit);
    callbacks.VMInit = Some(on_vm_init);
    jvmti
        .set_callbacks(&callbacks)
        .map_err(|e| format!("JVMTI callbacks refused (error {})", e.0))?;
    for event in [
        jvmtiEvent_JVMTI_EVENT_THREAD_START,
        jvmtiEvent_JVMTI_EVENT_THREAD_END,
        jvmtiEvent_JVMTI_EVENT_VM_DEATH,
        jvmtiEvent_JVMTI_EVENT_CLASS_PREPARE,
        jvmtiEvent_JVMTI_EVENT_VM_INIT,
        jvmtiEvent_JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
        jvmtiEvent_JVMTI_EVENT_NATIVE_METHOD_BIND,
    ] {
        jvmti
            .enable(event)
            .map_err(|e| format!("JVMTI event {event} refused (error {})", e.0))?;
    }
    plain::boot_runtime(jvmti, &mut options.load);
    loadhook::on_sites(|text| {
        if let Some(c) = CONTROL.get() {
            c.load_site_table(text);
        }
    });
    loadhook::on_load(jvmti, &options.load);
    cpu::pin(options.pin);
    ffi::VM.store(vm, std::sync::atomic::Ordering::Relaxed);
    let _ = CONTROL.set(Control::new(jvmti, options, model, sink));
    Ok(())
}

/// JVM entry point for `-agentpath:librankcheck_agent.so=OPTIONS`.
///
/// # Safety
/// Called by the JVM with a valid `JavaVM` and a NUL-terminated option string (or null).
#[no_mangle]
pub unsafe extern "system" fn Agent_OnLoad(
    vm: *mut JavaVM,
    options: *mut c_char,
    _reserved: *mut c_void,
) -> jint {
    let text = if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    };
    match setup(vm, &text) {
        Ok(()) => JNI_OK,
        Err(e) => {
            eprintln!("rankcheck agent: error: {e}");
            JNI_ERR
        }
    }
}

/// The VMInit callback load-time rewriting asked for, if any.
static LOADHOOK_VM_INIT: OnceLock<jvmtiEventVMInit> = OnceLock::new();

unsafe extern "C" fn on_vm_init(jvmti: *mut jvmtiEnv, env: *mut JNIEnv, thread: jobject) {
    if let Some(Some(f)) = LOADHOOK_VM_INIT.get() {
        f(jvmti, env, thread);
    }
    if let Some(c) = CONTROL.get() {
        let _ = std::panic::catch_unwind(|| plain::vm_init(c, env, thread));
    }
}

unsafe extern "C" fn on_thread_start(_jvmti: *mut jvmtiEnv, env: *mut JNIEnv, thread: jobject) {
    if let Some(c) = CONTROL.get() {
        c.thread_started(env, thread);
    }
}

unsafe extern "C" fn on_thread_end(_jvmti: *mut jvmtiEnv, env: *mut JNIEnv, _thread: jobject) {
    if let Some(c) = CONTROL.get() {
        c.thread_ended(env);
    }
}

unsafe extern "C" fn on_class_prepare(
    _jvmti: *mut jvmtiEnv,
    env: *mut JNIEnv,
    _thread: jobject,
    klass: jni::sys::jclass,
) {
    if let Some(c) = CONTROL.get() {
        c.class_prepared(env, klass);
    }
}

unsafe extern "C" fn on_monitor_contended_enter(
    _jvmti: *mut jvmtiEnv,
    env: *mut JNIEnv,
    _thread: jobject,
    object: jobject,
) {
    if let Some(c) = CONTROL.get() {
        c.monitor_contended(env, object);
    }
}

unsafe extern "C" fn on_vm_death(_jvmti: *mut jvmtiEnv, _env: *mut JNIEnv) {
    if let Some(c) = CONTROL.get() {
        c.vm_death();
    }
}
