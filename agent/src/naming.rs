//! Which variable an access touches, as the agent sees it at run time (issue 5, design in
//! alias/src/naming.rs).
//!
//! **The tracked table.** A class path instrumented for a variable set (`rankcheck test
//! --selective`, `classpath::prepare_vars`) carries, in its site table, `#tracked` lines that
//! say which variables the set holds: the static fields (by every `owner.name:descriptor` a
//! selected site uses for them), the allocation sites (by site key) and the JVM types those
//! sites make. The analysis is imprecise, so a selected site may also touch objects of other
//! variables; with the table present, such an access is no scheduling point (it still counts as
//! a step of its thread). Without a table (full instrumentation) every access stays a point.
//!
//! **Soundness.** An object is dropped only when the agent knows it is not tracked: it was made
//! at an allocation site that carries the hook and is not a tracked one (`prepare_vars` puts
//! the hook on every allocation site of a tracked type), or it has no allocation record and its
//! class is none of the tracked types (a tracked allocation site makes exactly its type; a clone
//! has the class of its original, which the analysis counts as the original's variable). An
//! object of a tracked type with no record (under construction, a clone, made by reflection or
//! the JDK) stays a point, as a variable of the one tracked site that makes its type (the
//! analysis counts a clone as its original's variable), or [`VarId::UNKNOWN`] when several
//! tracked sites make it. Static-field sites are exact.
//!
//! **Cost.** After the first access to an object, the check is one JVMTI tag lookup (the
//! object id) and one hash probe ([`Names::var_of`]); the class of an object without a record is
//! looked up once.
//!
//! **Names.** Without the loop-iteration bound an object's variable is its allocation site (as
//! the analysis names it). With `l=` given, a tracked allocation is named by (allocation site,
//! allocating thread, application call stack, iteration number), the iteration number being how
//! many earlier allocations had the same site, thread and stack in this execution; it sits in
//! the low bits of the [`VarId`] ([`scheduler::strategy::rankchecker::named_var`]), where the
//! exhaustive RankChecker bounds it. The stack is JVMTI `GetStackTrace`, application frames
//! only, each frame hashed from its class, method name, descriptor and bytecode index (method
//! ids differ between JVMs; these strings do not).

use crate::ffi::call;
use crate::hash::mix;
use crate::jvmti::Jvmti;
use crate::sites::field_key;
use java_harness::agent_contract::TrackedLine;
use java_harness::hooks::{SiteKind, SiteRecord};
use jni::sys::{jmethodID, jobject, JNIEnv};
use rustc_hash::{FxHashMap as IdMap, FxHashSet as IdSet};
use scheduler::strategy::rankchecker::named_var;
use scheduler::{SiteId, ThreadId, VarId};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The agent's [`VarId`] for an access that is not a scheduling point because its object is
/// not one of the tracked variables; `Control::point` passes it (never announced).
pub const UNTRACKED: VarId = VarId(0x8000_0000);

/// Frames of the allocation stack looked at (innermost first).
const STACK_DEPTH: usize = 64;

/// A site key: (class, method, descriptor, original bytecode index).
type Key = (String, String, String, u32);

/// The variable set a class path was instrumented for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tracked {
    /// Field keys ([`field_key`]) of the tracked statics, under every name a site uses.
    statics: IdSet<u64>,
    /// Site keys of the tracked allocation sites, with the JVM signature of what each makes.
    alloc_keys: HashMap<Key, String>,
    /// Their site ids, resolved from the site table's `alloc` records.
    alloc_ids: IdSet<i64>,
    /// JVM signatures (`Lpkg/C;`, `[I`) of what the tracked allocation sites make, with the
    /// ids of the sites that make each.
    types: HashMap<String, Vec<i64>>,
}

impl Tracked {
    /// Reads the `#tracked` lines of a site table; `None` when there are none.
    pub fn parse(text: &str) -> Option<Tracked> {
        let mut table = Tracked::default();
        let mut any = false;
        for line in text.lines() {
            match TrackedLine::parse(line) {
                Some(TrackedLine::Set) => any = true,
                Some(TrackedLine::Static { detail }) => {
                    table.statics.insert(field_key(detail));
                    any = true;
                }
                Some(TrackedLine::Alloc {
                    class,
                    method,
                    descriptor,
                    bci,
                    signature,
                }) => {
                    if let Some(bci) = bci {
                        let key = (
                            class.to_string(),
                            method.to_string(),
                            descriptor.to_string(),
                            bci,
                        );
                        table.alloc_keys.insert(key, signature.to_string());
                    }
                    table.types.entry(signature.to_string()).or_default();
                    any = true;
                }
                None => {}
            }
        }
        any.then_some(table)
    }

    /// Adds `other`'s entries (several tables on one class path).
    fn merge(&mut self, other: Tracked) {
        self.statics.extend(other.statics);
        self.alloc_keys.extend(other.alloc_keys);
        self.alloc_ids.extend(other.alloc_ids);
        for (sig, ids) in other.types {
            let mine = self.types.entry(sig).or_default();
            mine.extend(ids);
            mine.sort_unstable();
            mine.dedup();
        }
    }

    /// Learns the ids of tracked allocation sites from site records.
    fn resolve<'a>(&mut self, records: impl IntoIterator<Item = &'a SiteRecord>) {
        for r in records.into_iter().filter(|r| r.kind == SiteKind::Alloc) {
            let key = (
                r.class.clone(),
                r.method.clone(),
                r.descriptor.clone(),
                r.bci,
            );
            if let Some(sig) = self.alloc_keys.get(&key) {
                self.alloc_ids.insert(r.id);
                let ids = self.types.entry(sig.clone()).or_default();
                if !ids.contains(&r.id) {
                    ids.push(r.id);
                    ids.sort_unstable();
                }
            }
        }
    }

    pub fn tracks_static(&self, field: u64) -> bool {
        self.statics.contains(&field)
    }

    pub fn tracks_alloc(&self, site: SiteId) -> bool {
        self.alloc_ids.contains(&site)
    }

    pub fn tracks_type(&self, signature: &str) -> bool {
        self.types.contains_key(signature)
    }

    /// The variable of an object of a tracked type without an allocation record: the variable
    /// of the one tracked site that makes that type (a clone is its original's variable, an
    /// object under construction its site's), [`VarId::UNKNOWN`] when several sites do.
    fn maybe_var(&self, signature: &str) -> VarId {
        match self.types.get(signature).map(Vec::as_slice) {
            Some([site]) => site_var(*site),
            _ => VarId::UNKNOWN,
        }
    }
}

/// The table of this JVM's class path (the harness hands the site tables over before the first
/// execution, and again, unchanged, before each one).
static TABLE: RwLock<Option<Arc<Tracked>>> = RwLock::new(None);

/// Takes note of a site table's tracked lines and allocation records.
pub fn register(text: &str, records: &[SiteRecord]) {
    let mut slot = TABLE.write().unwrap_or_else(|e| e.into_inner());
    let mut table = slot.as_deref().cloned();
    if let Some(new) = Tracked::parse(text) {
        table.get_or_insert_with(Tracked::default).merge(new);
    }
    if let Some(t) = table.as_mut() {
        t.resolve(records);
    }
    if table.as_ref() != slot.as_deref() {
        *slot = table.map(Arc::new);
    }
}

/// The tracked table, if the class path has one.
pub fn table() -> Option<Arc<Tracked>> {
    TABLE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The variable of a static field.
pub fn static_var(field: u64) -> VarId {
    named_var(mix(1, field), 0)
}

/// The variable of every object made at allocation site `site` (the analysis's naming).
pub fn site_var(site: SiteId) -> VarId {
    named_var(mix(2, site as u64), 0)
}

/// What the agent knows of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    /// One of the tracked variables (or, without a table, any recorded allocation).
    Var(VarId),
    /// Not tracked: its accesses are no scheduling points.
    Untracked,
    /// No allocation record, of a tracked type: may be tracked (the variable its type
    /// suggests).
    Maybe(VarId),
}

/// One execution's names.
#[derive(Debug, Default)]
pub struct Names {
    /// The tracked table, looked up at the execution's first access or allocation.
    table: Option<Option<Arc<Tracked>>>,
    /// Object id → what is known of it.
    objects: IdMap<u64, Known>,
    /// (site, thread, stack hash) → allocations so far.
    counters: HashMap<(SiteId, u32, u64), u64>,
    /// Method id → hash of its class, name and descriptor; `None` for frames that are not the
    /// application's.
    methods: IdMap<usize, Option<u64>>,
}

impl Names {
    fn table(&mut self) -> Option<&Tracked> {
        self.table.get_or_insert_with(table).as_deref()
    }

    /// The variable of object `id` (`obj`), or [`UNTRACKED`].
    pub fn var_of(&mut self, jvmti: Jvmti, id: u64, obj: jobject) -> VarId {
        match self.objects.get(&id) {
            Some(Known::Var(v)) => return *v,
            Some(Known::Untracked) => return UNTRACKED,
            Some(Known::Maybe(v)) => return *v,
            None => {}
        }
        let Some(table) = self.table() else {
            return VarId::UNKNOWN;
        };
        let known = match class_signature(jvmti, obj) {
            Some(sig) if !table.tracks_type(&sig) => Known::Untracked,
            Some(sig) => Known::Maybe(table.maybe_var(&sig)),
            None => Known::Maybe(VarId::UNKNOWN),
        };
        self.objects.insert(id, known);
        match known {
            Known::Var(v) | Known::Maybe(v) => v,
            Known::Untracked => UNTRACKED,
        }
    }

    /// Whether an access to static field `field` is tracked.
    pub fn static_tracked(&mut self, field: u64) -> bool {
        self.table().is_none_or(|t| t.tracks_static(field))
    }

    /// Object `id` was just made at allocation site `site` by thread `me`; `by_name`: name it
    /// by site, thread, stack and iteration (the loop-iteration bound is on).
    pub fn allocated(&mut self, jvmti: Jvmti, id: u64, site: SiteId, me: ThreadId, by_name: bool) {
        let tracked = self.table().is_none_or(|t| t.tracks_alloc(site));
        let known = if !tracked {
            Known::Untracked
        } else if by_name {
            let stack = self.stack_hash(jvmti);
            let count = self.counters.entry((site, me.0, stack)).or_insert(0);
            let i = *count;
            *count += 1;
            let base = mix(mix(mix(3, site as u64), u64::from(me.0)), stack);
            Known::Var(named_var(mix(base, i), i))
        } else {
            Known::Var(site_var(site))
        };
        self.objects.insert(id, known);
    }

    /// A hash of the current thread's application frames (method and bytecode index each).
    fn stack_hash(&mut self, jvmti: Jvmti) -> u64 {
        // SAFETY: jvmtiFrameInfo is plain data.
        let mut frames: [crate::jvmti_sys::jvmtiFrameInfo; STACK_DEPTH] =
            unsafe { std::mem::zeroed() };
        let mut count = 0;
        // SAFETY: a null thread means the current one; the buffer holds STACK_DEPTH frames.
        let err = call!(
            jvmti.0,
            GetStackTrace,
            std::ptr::null_mut(),
            0,
            STACK_DEPTH as i32,
            frames.as_mut_ptr(),
            &mut count,
        );
        if err != crate::jvmti_sys::jvmtiError_JVMTI_ERROR_NONE {
            return 0;
        }
        let n = count.clamp(0, STACK_DEPTH as i32) as usize;
        let mut hash = crate::hash::FOLD_SEED;
        // Outermost first: the hash of a frame's callers comes before it.
        for frame in frames[..n].iter().rev() {
            let method = *self
                .methods
                .entry(frame.method as usize)
                .or_insert_with(|| method_hash(jvmti, frame.method));
            if let Some(m) = method {
                hash = mix(mix(hash, m), frame.location as u64);
            }
        }
        hash
    }
}

/// Whether a class (JVM signature) is the application's: not the JDK's, not rankcheck's, not a
/// hidden class (lambda proxies are numbered per JVM, so their names are not stable; the
/// lambda body's own frame follows them).
pub fn is_application_class(signature: &str) -> bool {
    const NOT_APP: &[&str] = &[
        "Ljava/",
        "Ljavax/",
        "Ljdk/",
        "Lsun/",
        "Lcom/sun/",
        "Lrankcheck/",
    ];
    !NOT_APP.iter().any(|p| signature.starts_with(p))
        && !signature.contains("$$Lambda")
        && !signature.contains(".0x")
        && !signature.contains("/0x")
}

/// The hash of an application method's class, name and descriptor; `None` for other methods.
fn method_hash(jvmti: Jvmti, method: jmethodID) -> Option<u64> {
    // `method` comes from GetStackTrace of a live frame.
    let class = jvmti.class_signature(jvmti.declaring_class(method)?)?;
    if !is_application_class(&class) {
        return None;
    }
    let (name, desc) = jvmti.method_name(method)?;
    Some(field_key(&format!("{class}.{name}{desc}")))
}

/// The JVM signature of `obj`'s class.
pub(crate) fn class_signature(jvmti: Jvmti, obj: jobject) -> Option<String> {
    let env: *mut JNIEnv = crate::ffi::current_env();
    if env.is_null() || obj.is_null() {
        return None;
    }
    // SAFETY: `env` is this thread's JNIEnv and `obj` a live reference passed to a native.
    let class = call!(env, GetObjectClass, obj);
    if class.is_null() {
        return None;
    }
    let sig = jvmti.class_signature(class);
    // SAFETY: `class` is a local reference this function made.
    call!(env, DeleteLocalRef, class);
    sig
}

#[cfg(test)]
mod tests {
    use super::*;
    use java_harness::hooks::site_id;

    fn alloc_record(id: i64, bci: u32) -> SiteRecord {
        SiteRecord {
            id,
            class: "p/Main".into(),
            method: "main".into(),
            descriptor: "([Ljava/lang/String;)V".into(),
            bci,
            line: None,
            kind: SiteKind::Alloc,
            detail: "p/Cell".into(),
        }
    }

    #[test]
    fn the_tracked_table_names_statics_allocation_sites_and_types() {
        let text = "#tracked\tset\t3,7\n\
                    #tracked\tstatic\tp/Main.count:I\n\
                    #tracked\talloc\tp/Main\tmain\t([Ljava/lang/String;)V\t12\tLp/Cell;\n\
                    0000000000000001\tp/Main\tmain\t()V\t1\t-\tfield-read\tp/Cell.v:I\n";
        let mut t = Tracked::parse(text).expect("a table");
        assert!(t.tracks_static(field_key("p/Main.count:I")));
        assert!(!t.tracks_static(field_key("p/Main.other:I")));
        assert!(t.tracks_type("Lp/Cell;") && !t.tracks_type("Lp/Other;"));
        let (tracked, other) = (site_id("p/Main", 4), site_id("p/Main", 5));
        t.resolve(&[alloc_record(tracked, 12), alloc_record(other, 30)]);
        assert!(t.tracks_alloc(tracked) && !t.tracks_alloc(other));
        // A clone or an object under construction of the one tracked Cell site: its variable.
        assert_eq!(t.maybe_var("Lp/Cell;"), site_var(tracked));
        let mut two = Tracked::parse(
            "#tracked\talloc\tp/Main\tmain\t([Ljava/lang/String;)V\t12\tLp/Cell;\n\
             #tracked\talloc\tp/Main\tmain\t([Ljava/lang/String;)V\t30\tLp/Cell;\n",
        )
        .unwrap();
        two.resolve(&[alloc_record(tracked, 12), alloc_record(other, 30)]);
        assert_eq!(two.maybe_var("Lp/Cell;"), VarId::UNKNOWN);
        assert_eq!(
            Tracked::parse("0000000000000001\tp/Main\tm\t()V\t1\t-\talloc\tp/C\n"),
            None
        );
        assert!(Tracked::parse("#tracked\tset\t\n").is_some());
    }

    #[test]
    fn application_frames_exclude_the_jdk_rankcheck_and_lambda_proxies() {
        assert!(is_application_class("Lp/Main;"));
        assert!(is_application_class("LMain$Cell;"));
        assert!(!is_application_class("Ljava/lang/Thread;"));
        assert!(!is_application_class("Lrankcheck/rt/RC;"));
        assert!(!is_application_class(
            "LMain$$Lambda$14.0x0000000800c01200;"
        ));
        assert!(!is_application_class(
            "Ljdk/internal/reflect/NativeMethodAccessorImpl;"
        ));
    }

    #[test]
    fn without_a_table_every_allocation_is_a_variable_of_its_site() {
        let mut names = Names {
            table: Some(None),
            ..Names::default()
        };
        let jvmti = Jvmti(std::ptr::null_mut());
        names.allocated(jvmti, 5, 77, ThreadId(0), false);
        assert_eq!(names.var_of(jvmti, 5, std::ptr::null_mut()), site_var(77));
        assert!(names.static_tracked(1));
        // No record and no table: a point of an unknown variable.
        assert_eq!(names.var_of(jvmti, 6, std::ptr::null_mut()), VarId::UNKNOWN);
    }

    #[test]
    fn with_a_table_untracked_allocations_are_not_points() {
        let mut table = Tracked::parse(
            "#tracked\tstatic\tp/Main.count:I\n\
             #tracked\talloc\tp/Main\tmain\t([Ljava/lang/String;)V\t12\tLp/Cell;\n",
        )
        .unwrap();
        table.resolve(&[alloc_record(40, 12), alloc_record(41, 30)]);
        let mut names = Names {
            table: Some(Some(Arc::new(table))),
            ..Names::default()
        };
        let jvmti = Jvmti(std::ptr::null_mut());
        names.allocated(jvmti, 1, 40, ThreadId(0), false);
        names.allocated(jvmti, 2, 41, ThreadId(0), false);
        assert_eq!(names.var_of(jvmti, 1, std::ptr::null_mut()), site_var(40));
        assert_eq!(names.var_of(jvmti, 2, std::ptr::null_mut()), UNTRACKED);
        assert!(names.static_tracked(field_key("p/Main.count:I")));
        assert!(!names.static_tracked(field_key("p/Main.other:I")));
        // No record, class unknown (no JVM here): kept as a point.
        assert_eq!(names.var_of(jvmti, 3, std::ptr::null_mut()), VarId::UNKNOWN);
    }
}
