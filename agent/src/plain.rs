//! Plain main: the agent on a JVM whose main class is the program's own
//! (`java -agentpath:…=OPTIONS -cp APP:rankcheck-rt.jar Main`), not the harness.
//!
//! One controlled execution per JVM. At VMInit (on the JVM's main thread, before the main
//! class is even loaded) the agent connects to the runtime classes, reads the site tables,
//! starts a monitor thread (attached before the execution starts, so it never takes an object
//! number) and makes the main thread scheduler thread 0 with `Begin`: every run starts from the
//! same point. The monitor runs the watchdog, waits for the end (every non-daemon thread
//! finished, `System.exit`, a bug, a bound), writes the result (`out=`, else a paragraph on
//! stderr with the schedule file and the replay command) and ends the process with a status
//! that says it ([`status`]). The main thread, past its end, waits in its ThreadEnd so that the
//! JVM cannot shut down before the result is written.

use crate::control::Control;
use crate::ffi::call;
use crate::report::ExecutionResult;
use jni::sys::{jobject, JNIEnv, JavaVM};
use std::ffi::{CStr, CString};
use std::sync::atomic::Ordering;

/// JVM exit status when a bug was found.
pub const STATUS_BUG: i32 = 86;
/// JVM exit status when rankcheck could not control the execution (watchdog, wall-clock bound).
pub const STATUS_INCONCLUSIVE: i32 = 87;
/// JVM exit status when the execution says nothing about the program (a replay that left its
/// schedule, an agent fault).
pub const STATUS_TOOL: i32 = 88;

/// For `juc` (the runtime classes go on the boot class path): when no class-path entry is the
/// runtime jar itself (a `--self-contained` program holds the runtime classes among its own),
/// the agent's own copy of the runtime jar is used, so that the program's classes stay with
/// the application class loader (its assertions, resources and class loader as in plain Java).
pub fn boot_runtime(jvmti: crate::jvmti::Jvmti, load: &mut crate::loadhook::LoadOptions) {
    if !load.juc || load.rt_jar.is_some() {
        return;
    }
    let jar = java_harness::RUNTIME_JAR;
    let cp = crate::jvmti::system_property(jvmti, c"java.class.path").unwrap_or_default();
    let is_runtime = |p: &str| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() == jar.len() as u64)
            && std::fs::read(p).is_ok_and(|b| b == jar)
    };
    let holds_rc_dir = |p: &str| {
        std::path::Path::new(p)
            .join("rankcheck/rt/RC.class")
            .is_file()
    };
    let entries: Vec<&str> = cp.split(':').filter(|e| !e.is_empty()).collect();
    if entries.iter().any(|e| is_runtime(e)) {
        return;
    }
    // Only when the runtime classes come with the program (a directory holding them, or a
    // jar that is not the runtime jar); otherwise loadhook's own search says what is missing.
    let bundled = entries.iter().any(|e| {
        holds_rc_dir(e)
            || (e.ends_with(".jar")
                && std::fs::read(e)
                    .is_ok_and(|b| b.windows(21).any(|w| w == b"rankcheck/rt/RC.class")))
    });
    if !bundled {
        return;
    }
    let hash = crate::hash::fnv(jar);
    let path = std::env::temp_dir().join(format!("rankcheck-rt-{hash:016x}.jar"));
    if !std::fs::metadata(&path).is_ok_and(|m| m.len() == jar.len() as u64) {
        let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
        if std::fs::write(&tmp, jar).is_err() || std::fs::rename(&tmp, &path).is_err() {
            return;
        }
    }
    load.rt_jar = Some(path);
}

/// VMInit, on the main thread: starts the plain-main execution unless the harness is the main
/// class or `plain=off` (a test launcher is, and a test extension drives the executions).
pub fn vm_init(c: &'static Control, env: *mut JNIEnv, thread: jobject) {
    if !c.options.plain {
        return;
    }
    match crate::jvmti::main_class(c.jvmti) {
        Some(m) if m != "rankcheck.harness.Main" => {}
        _ => return,
    }
    if !crate::natives::connect(env, c) {
        eprintln!(
            "rankcheck agent: error: the runtime classes (rankcheck-rt.jar) are not on the class \
             path; the program runs without rankcheck"
        );
        return;
    }
    let Some(tables) = call_plain(env, c"start", c"()Ljava/lang/String;") else {
        eprintln!("rankcheck agent: error: cannot start (rankcheck.harness.Plain.start failed)");
        return;
    };
    c.load_site_table(&tables);
    // The monitor attaches first: a thread attached during the execution would take an object
    // number, and object numbers must not depend on timing.
    let (attached, wait_attached) = std::sync::mpsc::channel();
    let (go, wait_go) = std::sync::mpsc::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("rankcheck-monitor".into())
        .spawn(move || monitor(c, attached, wait_go));
    if spawned.is_err() || wait_attached.recv() != Ok(true) {
        eprintln!("rankcheck agent: error: cannot start the monitor thread");
        return;
    }
    if c.next_execution().is_none() {
        eprintln!("rankcheck agent: error: the strategy has no execution to run");
        return;
    }
    c.plain.store(true, Ordering::SeqCst);
    c.start_execution(env, thread);
    let _ = go.send(());
    c.thread_started(env, thread);
}

/// Calls a static `rankcheck.harness.Plain` method with no arguments; `Some(text)` for a String
/// result (empty for void), `None` when it threw.
fn call_plain(env: *mut JNIEnv, name: &CStr, sig: &CStr) -> Option<String> {
    let class = call!(env, FindClass, c"rankcheck/harness/Plain".as_ptr());
    if class.is_null() {
        call!(env, ExceptionClear);
        return None;
    }
    let method = call!(env, GetStaticMethodID, class, name.as_ptr(), sig.as_ptr());
    if method.is_null() {
        call!(env, ExceptionClear);
        return None;
    }
    let text = if sig.to_bytes().ends_with(b")V") {
        call!(env, CallStaticVoidMethodA, class, method, std::ptr::null());
        Some(String::new())
    } else {
        let s = call!(
            env,
            CallStaticObjectMethodA,
            class,
            method,
            std::ptr::null()
        );
        crate::ffi::java_string(env, s)
    };
    if call!(env, ExceptionCheck) != 0 {
        call!(env, ExceptionDescribe);
        call!(env, ExceptionClear);
        return None;
    }
    text
}

/// The monitor thread: watchdog, result, exit.
fn monitor(
    c: &'static Control,
    attached: std::sync::mpsc::Sender<bool>,
    go: std::sync::mpsc::Receiver<()>,
) {
    let env = attach();
    let _ = attached.send(!env.is_null());
    if env.is_null() || go.recv().is_err() {
        return;
    }
    c.await_execution();
    let result = c.finish_execution(String::new(), String::new(), None);
    let code = match &result {
        Some(r) => {
            if c.options.out.is_none() {
                eprintln!("{}", paragraph(c, r));
            } else if r.outcome != "pass" {
                write_schedule(c, r);
            }
            status(r)
        }
        None => STATUS_TOOL,
    };
    c.exit_status();
    let _ = call_plain(env, c"flush", c"()V");
    // SAFETY: ends the process; the result file is flushed, the program's output too.
    unsafe { _exit(code) }
}

extern "C" {
    fn _exit(status: i32) -> !;
}

fn attach() -> *mut JNIEnv {
    let vm: *mut JavaVM = crate::ffi::VM.load(Ordering::Relaxed);
    if vm.is_null() {
        return std::ptr::null_mut();
    }
    let name = CString::new("rankcheck-monitor").unwrap_or_default();
    let mut args = jni::sys::JavaVMAttachArgs {
        version: jni::sys::JNI_VERSION_1_8,
        name: name.as_ptr() as *mut _,
        group: std::ptr::null_mut(),
    };
    let mut env: *mut std::ffi::c_void = std::ptr::null_mut();
    // SAFETY: `vm` is the JVM's JavaVM; `args` lives through the call.
    let rc = call!(
        vm,
        AttachCurrentThreadAsDaemon,
        &mut env,
        &mut args as *mut _ as *mut std::ffi::c_void,
    );
    if rc == jni::sys::JNI_OK {
        env as *mut JNIEnv
    } else {
        std::ptr::null_mut()
    }
}

/// The JVM's exit status for a plain-main execution.
pub fn status(r: &ExecutionResult) -> i32 {
    match r.outcome {
        "bug" => STATUS_BUG,
        "inconclusive" => STATUS_INCONCLUSIVE,
        _ if matches!(r.kind.as_str(), "diverged" | "internal") => STATUS_TOOL,
        _ => r.exit_status.unwrap_or(0),
    }
}

/// Where a plain-main schedule goes: next to `out=`, else `rankcheck-schedule-<pid>.txt` in
/// the working directory.
fn schedule_path(c: &Control) -> std::path::PathBuf {
    match &c.options.out {
        Some(out) => {
            let mut name = out.as_os_str().to_owned();
            name.push(".schedule.txt");
            name.into()
        }
        None => format!("rankcheck-schedule-{}.txt", std::process::id()).into(),
    }
}

/// Writes the execution's schedule; returns its path (absolute when it can).
fn write_schedule(c: &Control, r: &ExecutionResult) -> Option<std::path::PathBuf> {
    if let Some(replayed) = &c.options.replay {
        // A replay's schedule is the file it followed.
        return Some(std::fs::canonicalize(replayed).unwrap_or_else(|_| replayed.clone()));
    }
    let text = r.schedule.as_ref()?;
    let path = schedule_path(c);
    std::fs::write(&path, text).ok()?;
    Some(std::fs::canonicalize(&path).unwrap_or(path))
}

/// The paragraph on stderr when there is no `out=`.
fn paragraph(c: &Control, r: &ExecutionResult) -> String {
    let mut p = format!(
        "rankcheck: execution {} (strategy {}, seed {}): {} ({}) in {} steps, {} ms: {}",
        r.index,
        if c.options.replay.is_some() {
            "replay"
        } else {
            c.options.strategy.as_str()
        },
        r.seed,
        r.outcome,
        r.kind,
        r.steps,
        r.millis,
        r.message
    );
    for s in r.stacks.iter().filter(|s| !s.frames.is_empty()) {
        p.push_str(&format!("\n  t{} ({}) {}:", s.thread, s.name, s.state));
        for f in &s.frames {
            p.push_str(&format!("\n      {f}"));
        }
    }
    for n in &r.notes {
        p.push_str(&format!("\n  note: {n}"));
    }
    if r.outcome != "pass" {
        match write_schedule(c, r) {
            Some(path) => {
                p.push_str(&format!("\n  schedule: {}", path.display()));
                p.push_str(&format!(
                    "\n  replay: {}",
                    replay_command(&path, r.seed, r.index)
                ));
            }
            None => p.push_str("\n  (the schedule could not be written)"),
        }
    }
    p.push_str(&format!("\n  coverage: {}", r.coverage));
    p.push_str(&format!("\n  exit status: {}", status(r)));
    p
}

/// This JVM's command line with the agent told to replay `schedule`.
pub fn replay_command(schedule: &std::path::Path, seed: u64, index: u64) -> String {
    let args: Vec<String> = std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default();
    replay_args(&args, schedule, seed, index)
        .iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

fn replay_args(args: &[String], schedule: &std::path::Path, seed: u64, index: u64) -> Vec<String> {
    // A replay's replay runs the same line.
    if args
        .iter()
        .any(|a| a.contains("rankcheck_agent") && a.contains("replay="))
    {
        return args.to_vec();
    }
    let extra = format!(
        "replay={},seed={seed},first-execution={index}",
        schedule.display()
    );
    args.iter()
        .map(|a| {
            if !(a.starts_with("-agentpath:") && a.contains("rankcheck_agent")) {
                return a.clone();
            }
            // Later options win: the replay's come last.
            match a.split_once('=') {
                Some((lib, opts)) if !opts.is_empty() => format!("{lib}={opts},{extra}"),
                Some((lib, _)) => format!("{lib}={extra}"),
                None => format!("{a}={extra}"),
            }
        })
        .collect()
}

fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replay_line_appends_the_replay_options_to_the_agent_options() {
        let args: Vec<String> = [
            "java",
            "-agentpath:/x/librankcheck_agent.so=strategy=pct,seed=7",
            "-cp",
            "app.jar:rt.jar",
            "Main",
            "a b",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let out = replay_args(&args, std::path::Path::new("/tmp/s.txt"), 7, 0);
        assert_eq!(
            out[1],
            "-agentpath:/x/librankcheck_agent.so=strategy=pct,seed=7,replay=/tmp/s.txt,seed=7,first-execution=0"
        );
        assert_eq!(out[4], "Main");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("x.jar:y"), "x.jar:y");
    }
}
