//! The natives of `rankcheck.harness.Agent` (the repeat runner's per-execution protocol),
//! exported as `Java_rankcheck_harness_Agent_*` symbols (`connect`, the first call into the
//! agent, registers `RC`'s natives); names and descriptors are
//! `java_harness::agent_contract::AGENT_NATIVES`.

use super::*;

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_connect(env: *mut JNIEnv, _: jclass) -> jlong {
    match control() {
        Some(c) if connect(env, c) => c.options.executions as jlong,
        _ => -1,
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_loadSites(
    env: *mut JNIEnv,
    _: jclass,
    table: jstring,
) -> jboolean {
    let (Some(c), Some(text)) = (control(), java_string(env, table)) else {
        return 0;
    };
    jboolean::from(c.load_site_table(&text))
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_nextExecution(
    env: *mut JNIEnv,
    _: jclass,
) -> jlong {
    let Some(c) = control() else { return -1 };
    match c.next_execution() {
        Some(index) => {
            c.pin_jdk_counters(env, index);
            index as jlong
        }
        None => -1,
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_startExecution(
    env: *mut JNIEnv,
    _: jclass,
    root: jobject,
) {
    if let Some(c) = control() {
        c.start_execution(env, root);
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_awaitExecution(_env: *mut JNIEnv, _: jclass) {
    if let Some(c) = control() {
        c.await_execution();
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_uncaught(
    env: *mut JNIEnv,
    _: jclass,
    thread: jobject,
    _throwable: jobject,
    trace: jstring,
) {
    let Some(c) = control() else { return };
    let trace = java_string(env, trace).unwrap_or_default();
    let first = trace.lines().next().unwrap_or("").to_string();
    c.uncaught(thread, first, trace);
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_finishExecution(
    env: *mut JNIEnv,
    _: jclass,
    stdout: jstring,
    stderr: jstring,
    oracle: jstring,
    message: jstring,
) -> jstring {
    let Some(c) = control() else {
        return std::ptr::null_mut();
    };
    let oracle =
        java_string(env, oracle).map(|k| (k, java_string(env, message).unwrap_or_default()));
    let result = c.finish_execution(
        java_string(env, stdout).unwrap_or_default(),
        java_string(env, stderr).unwrap_or_default(),
        oracle,
    );
    // The result line goes back too: a test extension fails its test from it. Non-ASCII is
    // escaped, so the text is valid modified UTF-8 whatever the program printed.
    let Some(result) = result else {
        return std::ptr::null_mut();
    };
    let mut ascii = String::new();
    for ch in result.to_json().to_string().chars() {
        if ch.is_ascii() {
            ascii.push(ch);
        } else {
            for unit in ch.encode_utf16(&mut [0; 2]) {
                ascii.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    match CString::new(ascii) {
        Ok(text) => call!(env, NewStringUTF, text.as_ptr()),
        Err(_) => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "system" fn Java_rankcheck_harness_Agent_exitStatus(
    _env: *mut JNIEnv,
    _: jclass,
) -> jint {
    control().map_or(3, |c| c.exit_status())
}

/// Every exported native of `Agent` by name, with its function (checked against the contract's
/// descriptors by the tests; HotSpot binds the exports by their symbols).
#[cfg(test)]
pub(super) fn table() -> Vec<(&'static str, super::shape::Function)> {
    use super::shape::{fn0, fn1, fn3, fn4};
    vec![
        ("connect", fn0(Java_rankcheck_harness_Agent_connect)),
        ("loadSites", fn1(Java_rankcheck_harness_Agent_loadSites)),
        (
            "nextExecution",
            fn0(Java_rankcheck_harness_Agent_nextExecution),
        ),
        (
            "startExecution",
            fn1(Java_rankcheck_harness_Agent_startExecution),
        ),
        (
            "awaitExecution",
            fn0(Java_rankcheck_harness_Agent_awaitExecution),
        ),
        ("uncaught", fn3(Java_rankcheck_harness_Agent_uncaught)),
        (
            "finishExecution",
            fn4(Java_rankcheck_harness_Agent_finishExecution),
        ),
        ("exitStatus", fn0(Java_rankcheck_harness_Agent_exitStatus)),
    ]
}
