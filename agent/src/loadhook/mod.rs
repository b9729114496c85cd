//! Load-time rewriting: the JDK's `java.util.concurrent` and, on request, the application.
//!
//! **Why at this level.** Everything in `java.util.concurrent` — locks, conditions, latches,
//! semaphores, barriers, blocking queues, futures, thread pools — reduces to a handful of
//! primitives: `LockSupport.park/unpark`, `Thread.start/interrupt/interrupted/yield/onSpinWait`,
//! monitors, `Object.wait/notify`, clock reads, and compare-and-set. Rewriting those calls in the
//! JDK classes (the rewriter's call and sync passes, [`rewriter::Config::jdk`]) makes each of
//! them a modelled operation for an application thread: a park is a model `Park` (the thread
//! waits for its turn in the hand-off, never in a real park), an unpark a model `Unpark`, an
//! interrupt a model `Interrupt`, and a pool's `Thread.start` a model `Start`, so pool workers
//! are ordinary controlled threads. A blocked `lock()` or `take()` is then a thread the model
//! knows to be disabled, and a lost signal is a model deadlock, not a watchdog report. The
//! hooks fall back to the real operation for every thread rankcheck does not control.
//!
//! **How.** `RC` must be visible to `java.base`: the runtime jar goes on the boot class path
//! (Agent_OnLoad) and, at VMInit, `java.base` is made to read the boot loader's unnamed module.
//! Then the ClassFileLoadHook is enabled and the `java.util.concurrent` classes already loaded
//! are retransformed (retransformation may not change modifiers, which is why
//! synchronized-method desugaring is off for JDK classes).
//!
//! **Application classes** (`instrument=load`): the same hook rewrites every class an
//! application class loader defines, with the same passes and site ids as `rankcheck
//! instrument`; classes already instrumented offline carry the `rankcheck.Instrumented`
//! attribute and are left alone. The rewritten bytes are cached per class, so the fresh class
//! loader of every execution costs a lookup, not a rewrite. Sites go to the agent's site table.

mod resources;

use crate::ffi::call;
use crate::jdk_classes::{
    is_clock_target, is_collection_target, is_synchronization_target, is_synchronized_method_target,
};
use crate::jvmti::{check, Jvmti};
use crate::jvmti_sys::*;
use crate::platform::is_jdk_class;
use java_harness::hooks::SiteRecord;
use jni::sys::{jclass, jint, jobject, jvalue, JNIEnv};
use rewriter::passes::is_rankcheck_runtime;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_uchar};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The options of this module (keys of the agent's option string).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadOptions {
    /// Rewrite `java.util.concurrent` so that it is modelled (`juc=on`, the default).
    pub juc: bool,
    /// Make the field and array accesses inside the JDK collections of
    /// [`crate::jdk_classes::is_collection_target`] scheduling points (`collections=on`; needs `juc`).
    pub collections: bool,
    /// With `collections=all`: every such access of the program's is a point, also on an
    /// object only one thread has touched so far (confinement.rs's shortcut off).
    pub collections_unconfined: bool,
    /// Instrument application classes as they load (`instrument=load` or `load-sync-only`).
    pub app: AppMode,
    /// The runtime jar (`rt-jar=PATH`); by default the class-path entry that holds `RC`.
    pub rt_jar: Option<PathBuf>,
}

/// Load-time instrumentation of application classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppMode {
    Off,
    All,
    SyncOnly,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            juc: true,
            collections: false,
            collections_unconfined: false,
            app: AppMode::Off,
            rt_jar: None,
        }
    }
}

/// The keys [`LoadOptions::set`] knows.
pub const KEYS: &[&str] = &["juc", "collections", "instrument", "rt-jar"];

impl LoadOptions {
    /// Sets `key` if it is one of [`KEYS`]: `Ok(false)` when it is not.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool, String> {
        let bad = |what: &str| format!("option {key}={value}: {what}");
        let switch = || match value.trim() {
            "on" | "true" | "yes" | "1" => Ok(true),
            "off" | "false" | "no" | "0" => Ok(false),
            _ => Err(bad("want on or off")),
        };
        match key {
            "juc" => self.juc = switch()?,
            "collections" if value.trim() == "all" => {
                self.collections = true;
                self.collections_unconfined = true;
            }
            "collections" => {
                self.collections = switch().map_err(|_| bad("want on, off or all"))?;
                self.collections_unconfined = false;
            }
            "instrument" => {
                self.app = match value.trim() {
                    "off" | "offline" => AppMode::Off,
                    "load" => AppMode::All,
                    "load-sync-only" => AppMode::SyncOnly,
                    _ => return Err(bad("want load, load-sync-only or off")),
                }
            }
            "rt-jar" => self.rt_jar = Some(PathBuf::from(value.trim())),
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn active(&self) -> bool {
        self.juc || self.app != AppMode::Off
    }
}

struct LoadHook {
    jvmti: Jvmti,
    options: LoadOptions,
    jdk: rewriter::Config,
    /// For [`is_synchronized_method_target`] classes defined after the hook is on: as `jdk`,
    /// with synchronized methods desugared into the model's monitor hooks.
    jdk_synchronized: rewriter::Config,
    jdk_collections: rewriter::Config,
    app: Option<rewriter::Config>,
    /// Rewritten application classes by (name, hash of the original bytes); `None`: unchanged.
    cache: Mutex<ClassCache>,
    /// `java.base` reads `RC`'s module: JDK classes may be rewritten.
    jdk_ready: AtomicBool,
    /// Application classes added to the hierarchy.
    known: Mutex<std::collections::HashSet<String>>,
}

/// Rewritten application classes by (name, hash of the original bytes); `None`: unchanged.
type ClassCache = HashMap<(String, u64), Option<Arc<Vec<u8>>>>;

static HOOK: OnceLock<LoadHook> = OnceLock::new();

/// The capabilities this module needs (added by `Agent_OnLoad` with the others).
pub fn capabilities(options: &LoadOptions, caps: &mut jvmtiCapabilities) {
    if options.active() {
        caps.set_can_retransform_classes(1);
        caps.set_can_generate_all_class_hook_events(1);
    }
}

/// The event callbacks of this module.
pub fn callbacks(options: &LoadOptions, callbacks: &mut jvmtiEventCallbacks) {
    if options.active() {
        callbacks.VMInit = Some(on_vm_init);
        callbacks.ClassFileLoadHook = Some(on_class_file_load);
    }
}

/// In `Agent_OnLoad`, after the capabilities and callbacks: puts the runtime jar on the boot
/// class path and asks for VMInit. Problems are said on stderr and switch the module off (the
/// run goes on as without it); nothing here is fatal.
pub fn on_load(jvmti: Jvmti, options: &LoadOptions) {
    if !options.active() {
        return;
    }
    let mut options = options.clone();
    if options.juc {
        let jar = options.rt_jar.clone().or_else(|| find_rt_jar(jvmti));
        let added = jar.as_ref().and_then(|j| {
            let c = CString::new(j.to_string_lossy().as_bytes()).ok()?;
            check(call!(jvmti.0, AddToBootstrapClassLoaderSearch, c.as_ptr())).ok()
        });
        if added.is_none() {
            eprintln!(
                "rankcheck agent: warning: the runtime jar was not found on the class path \
                 (give rt-jar=PATH); java.util.concurrent is not modelled"
            );
            options.juc = false;
        }
    }
    // The collections' hooks call `RC` from `java.base` as `java.util.concurrent`'s do.
    options.collections &= options.juc;
    let app = match options.app {
        AppMode::Off => None,
        AppMode::All => Some(rewriter::Config::all()),
        AppMode::SyncOnly => Some(rewriter::Config::sync_only()),
    };
    let _ = HOOK.set(LoadHook {
        jvmti,
        options,
        jdk: rewriter::Config::jdk(),
        jdk_synchronized: rewriter::Config {
            desugar_sync_methods: true,
            ..rewriter::Config::jdk()
        },
        jdk_collections: rewriter::Config::jdk_collections(),
        app,
        cache: Mutex::new(HashMap::new()),
        jdk_ready: AtomicBool::new(false),
        known: Mutex::new(std::collections::HashSet::new()),
    });
    if let Err(e) = Jvmti::enable(jvmti, jvmtiEvent_JVMTI_EVENT_VM_INIT) {
        eprintln!("rankcheck agent: warning: no VMInit event (error {})", e.0);
    }
}

/// The class-path entry that holds `rankcheck/rt/RC.class` (a jar names its entries in the
/// clear in its central directory; a directory holds the file).
fn find_rt_jar(jvmti: Jvmti) -> Option<PathBuf> {
    let mut value: *mut c_char = std::ptr::null_mut();
    check(call!(
        jvmti.0,
        GetSystemProperty,
        c"java.class.path".as_ptr(),
        &mut value
    ))
    .ok()?;
    // SAFETY: JVMTI returned a NUL-terminated string allocated with Allocate.
    let cp = unsafe { CStr::from_ptr(value) }
        .to_string_lossy()
        .into_owned();
    let _ = check(call!(jvmti.0, Deallocate, value as *mut c_uchar));
    cp.split(':').map(PathBuf::from).find(|p| holds_rc(p))
}

fn holds_rc(path: &std::path::Path) -> bool {
    const RC: &[u8] = b"rankcheck/rt/RC.class";
    if path.is_dir() {
        return path.join("rankcheck/rt/RC.class").is_file();
    }
    std::fs::read(path).is_ok_and(|bytes| bytes.windows(RC.len()).any(|w| w == RC))
}

unsafe extern "C" fn on_vm_init(_jvmti: *mut jvmtiEnv, env: *mut JNIEnv, _thread: jobject) {
    let _ = std::panic::catch_unwind(|| vm_init(env));
}

fn vm_init(env: *mut JNIEnv) {
    let Some(h) = HOOK.get() else { return };
    // Before the hook is enabled: which classes are the JDK's decides how each is rewritten.
    if let Err(why) = crate::platform::learn(env) {
        eprintln!(
            "rankcheck agent: warning: the JDK's packages are unknown ({why}): application classes in packages named jdk.*, sun.*, javax.* or com.sun.* are not instrumented"
        );
    }
    if h.options.juc {
        match base_reads_rc(h.jvmti, env) {
            Ok(()) => h.jdk_ready.store(true, Ordering::SeqCst),
            Err(why) => {
                eprintln!("rankcheck agent: warning: java.util.concurrent is not modelled ({why})")
            }
        }
    }
    if let Err(e) = h.jvmti.enable(jvmtiEvent_JVMTI_EVENT_CLASS_FILE_LOAD_HOOK) {
        eprintln!(
            "rankcheck agent: warning: no ClassFileLoadHook (error {}): nothing is rewritten at load time",
            e.0
        );
        return;
    }
    if h.jdk_ready.load(Ordering::SeqCst) {
        retransform_loaded(h);
    }
}

/// Makes `java.base` read the module of `RC` (the boot loader's unnamed module), so that the
/// rewritten JDK classes may call it.
fn base_reads_rc(jvmti: Jvmti, env: *mut JNIEnv) -> Result<(), String> {
    let class = |name: &CStr| {
        let c = call!(env, FindClass, name.as_ptr());
        if c.is_null() {
            call!(env, ExceptionClear);
        }
        c
    };
    let rc = class(c"rankcheck/rt/RC");
    let object = class(c"java/lang/Object");
    let class_class = class(c"java/lang/Class");
    if rc.is_null() || object.is_null() || class_class.is_null() {
        return Err("rankcheck.rt.RC is not on the boot class path".into());
    }
    let get_module = call!(
        env,
        GetMethodID,
        class_class,
        c"getModule".as_ptr(),
        c"()Ljava/lang/Module;".as_ptr()
    );
    if get_module.is_null() {
        call!(env, ExceptionClear);
        return Err("no Class.getModule".into());
    }
    let no_args: [jvalue; 0] = [];
    let module_of = |c: jclass| {
        let m = call!(env, CallObjectMethodA, c, get_module, no_args.as_ptr());
        if m.is_null() {
            call!(env, ExceptionClear);
        }
        m
    };
    let (base, rc_module) = (module_of(object), module_of(rc));
    if base.is_null() || rc_module.is_null() {
        return Err("modules not found".into());
    }
    check(call!(jvmti.0, AddModuleReads, base, rc_module))
        .map_err(|e| format!("AddModuleReads failed (error {})", e.0))
}

/// Retransforms the JDK classes to rewrite that were loaded before the hook was enabled.
fn retransform_loaded(h: &LoadHook) {
    let jvmti = h.jvmti;
    let mut count: jint = 0;
    let mut classes: *mut jclass = std::ptr::null_mut();
    if check(call!(jvmti.0, GetLoadedClasses, &mut count, &mut classes)).is_err() {
        return;
    }
    // SAFETY: JVMTI returned `count` class references at `classes`.
    let all = unsafe { std::slice::from_raw_parts(classes, count.max(0) as usize) };
    let targets: Vec<jclass> = all
        .iter()
        .copied()
        .filter(|&c| {
            let mut modifiable: u8 = 0;
            check(call!(jvmti.0, IsModifiableClass, c, &mut modifiable)).is_ok()
                && modifiable != 0
                && jvmti
                    .class_name(c)
                    .is_some_and(|n| h.jdk_config(&n, false).is_some())
        })
        .collect();
    let _ = check(call!(jvmti.0, Deallocate, classes as *mut c_uchar));
    if targets.is_empty() {
        return;
    }
    if let Err(crate::jvmti::JvmtiError(e)) = check(call!(
        jvmti.0,
        RetransformClasses,
        targets.len() as jint,
        targets.as_ptr()
    )) {
        // One by one, so that one class the JVM refuses does not leave the others alone.
        for &c in &targets {
            if check(call!(jvmti.0, RetransformClasses, 1, &c)).is_err() {
                let name = jvmti.class_name(c).unwrap_or_default();
                eprintln!(
                    "rankcheck agent: warning: {name} could not be retransformed (error {e})"
                );
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn on_class_file_load(
    _jvmti: *mut jvmtiEnv,
    env: *mut JNIEnv,
    redefined: jclass,
    loader: jobject,
    name: *const c_char,
    _protection_domain: jobject,
    len: jint,
    data: *const c_uchar,
    new_len: *mut jint,
    new_data: *mut *mut c_uchar,
) {
    if name.is_null() || data.is_null() || len <= 0 {
        return;
    }
    // SAFETY: JVMTI passes a NUL-terminated class name and `len` bytes of class file.
    let (name, bytes) = unsafe {
        (
            CStr::from_ptr(name).to_string_lossy(),
            std::slice::from_raw_parts(data, len as usize),
        )
    };
    let Some(h) = HOOK.get() else { return };
    let first_load = redefined.is_null();
    let rewritten = std::panic::catch_unwind(|| h.rewrite(env, loader, &name, bytes, first_load));
    let Ok(Some(out)) = rewritten else { return };
    let mut mem: *mut c_uchar = std::ptr::null_mut();
    if check(call!(h.jvmti.0, Allocate, out.len() as i64, &mut mem)).is_err() {
        return;
    }
    // SAFETY: `mem` has room for `out.len()` bytes; JVMTI takes ownership of it.
    unsafe {
        std::ptr::copy_nonoverlapping(out.as_ptr(), mem, out.len());
        *new_len = out.len() as jint;
        *new_data = mem;
    }
}

impl LoadHook {
    /// The new bytes of class `name`, or `None` to leave it as it is. `first_load`: the class
    /// is being defined (not retransformed), so its methods' modifiers may still change.
    fn rewrite(
        &self,
        env: *mut JNIEnv,
        loader: jobject,
        name: &str,
        bytes: &[u8],
        first_load: bool,
    ) -> Option<Arc<Vec<u8>>> {
        if is_jdk_class(name) || loader.is_null() {
            if !self.jdk_ready.load(Ordering::Relaxed) {
                return None;
            }
            let out = self.instrument(name, bytes, self.jdk_config(name, first_load)?);
            if out.is_some() {
                crate::juc::note_jdk_class(name);
            }
            return out;
        }
        // A test framework's class that starts the thread a test's body runs on gets the JDK's
        // rewriting (its thread start, monitors and waits become the model's) and no more,
        // whether or not application classes are rewritten here.
        if crate::juc::is_test_body_runner(name) && self.jdk_ready.load(Ordering::Relaxed) {
            return self.instrument(name, bytes, &self.jdk);
        }
        let config = self.app.as_ref()?;
        // A test framework's classes load once per JVM and run its bookkeeping, not the program:
        // hooks there would make an execution depend on what the JVM did before (juc.rs).
        if is_rankcheck_runtime(name) || crate::juc::is_test_framework(name) {
            return None;
        }
        let key = (name.to_string(), crate::hash::fnv(bytes));
        if let Some(hit) = self.lock_cache().get(&key) {
            return hit.clone();
        }
        self.learn_class(name, bytes, config);
        self.learn_owners(env, loader, bytes, config);
        let out = self.instrument(name, bytes, config);
        self.lock_cache().insert(key, out.clone());
        out
    }

    /// Adds a class to the hierarchy the rewriter resolves calls with.
    fn learn_class(&self, name: &str, bytes: &[u8], config: &rewriter::Config) {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if known.insert(name.to_string()) {
            config.hierarchy.add_class_bytes(bytes);
        }
    }

    /// Offline, the rewriter knows every class of the jar before it rewrites one; at load time
    /// a class is rewritten before the classes it calls are loaded. So the application classes
    /// that own a call the rewriter may replace (`worker.start()` on a `Thread` subclass), and
    /// their superclasses, are read through the class's loader and added to the hierarchy
    /// first: the same calls are replaced as offline.
    fn learn_owners(
        &self,
        env: *mut JNIEnv,
        loader: jobject,
        bytes: &[u8],
        config: &rewriter::Config,
    ) {
        let Ok(class) = rewriter::classfile::ClassFile::parse(bytes) else {
            return;
        };
        let mut todo: Vec<String> = Vec::new();
        let mut missing = 0;
        for index in 1..=u16::MAX {
            if class.cp.tag(index).is_none() {
                missing += 1;
                if missing > 1 {
                    break;
                }
                continue;
            }
            missing = 0;
            let Ok(m) = class.cp.member(index) else {
                continue;
            };
            let (owner, n, d) = (
                String::from_utf8_lossy(m.owner),
                String::from_utf8_lossy(m.name),
                String::from_utf8_lossy(m.descriptor),
            );
            if rewriter::passes::calls::is_replaced_name(&n, &d) {
                todo.push(owner.into_owned());
            }
        }
        let mut budget = 64;
        while let Some(owner) = todo.pop() {
            budget -= 1;
            if budget == 0 || is_jdk_class(&owner) || owner.starts_with('[') {
                continue;
            }
            if self
                .known
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(&owner)
            {
                continue;
            }
            let Some(bytes) = resources::resource_bytes(env, loader, &format!("{owner}.class"))
            else {
                continue;
            };
            self.learn_class(&owner, &bytes, config);
            if let Ok(c) = rewriter::classfile::ClassFile::parse(&bytes) {
                if let Some(s) = c.super_name {
                    todo.push(String::from_utf8_lossy(s).into_owned());
                }
            }
        }
    }

    /// How JDK class `name` is rewritten, if it is; `first_load`: it is being defined, so its
    /// synchronized methods may still be desugared (retransformation cannot change modifiers).
    fn jdk_config(&self, name: &str, first_load: bool) -> Option<&rewriter::Config> {
        if first_load && is_synchronized_method_target(name) {
            Some(&self.jdk_synchronized)
        } else if is_synchronization_target(name) || is_clock_target(name) {
            Some(&self.jdk)
        } else if self.options.collections && is_collection_target(name) {
            Some(&self.jdk_collections)
        } else {
            None
        }
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, ClassCache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn instrument(
        &self,
        name: &str,
        bytes: &[u8],
        config: &rewriter::Config,
    ) -> Option<Arc<Vec<u8>>> {
        match rewriter::instrument_class(bytes, config) {
            Ok(out) if out.changed => {
                add_sites(&out.sites);
                Some(Arc::new(out.bytes))
            }
            Ok(_) => None,
            Err(e) => {
                eprintln!("rankcheck agent: warning: {name} left uninstrumented: {e}");
                None
            }
        }
    }
}

/// Where the site table lines of classes rewritten at load time go (set by `Agent_OnLoad`:
/// the controller's site table, which sits above this module).
static SITE_SINK: OnceLock<fn(&str)> = OnceLock::new();

/// Sends the site table lines of classes rewritten at load time to `sink`.
pub fn on_sites(sink: fn(&str)) {
    let _ = SITE_SINK.set(sink);
}

/// Adds sites rewritten at load time to the agent's site table.
fn add_sites(sites: &[SiteRecord]) {
    if sites.is_empty() {
        return;
    }
    let Some(sink) = SITE_SINK.get() else {
        return;
    };
    let text: String = sites.iter().map(|s| s.to_line() + "\n").collect();
    sink(&text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let mut o = LoadOptions::default();
        assert!(o.juc);
        assert_eq!(o.set("instrument", "load"), Ok(true));
        assert_eq!(o.app, AppMode::All);
        assert_eq!(o.set("juc", "off"), Ok(true));
        assert!(!o.juc);
        assert_eq!(o.set("seed", "1"), Ok(false));
        assert!(o.set("instrument", "sometimes").is_err());
    }
}
