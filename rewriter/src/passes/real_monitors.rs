//! Real monitors: a call of a synchronized method of a JDK class that keeps the JVM's real
//! monitor (`StringBuffer.append`, `Hashtable.put`: [`crate::hierarchy::REAL_MONITOR_CLASSES`],
//! loaded before the agent) is wrapped in the model's monitor of its receiver, as if the
//! program had written `synchronized (sb) { sb.append(x); }`. The enter is a scheduling point
//! before the call, and the call is one step in the model as it is atomic in the JVM: a
//! check-then-act across two such calls can be interleaved.
//!
//! The receiver lies under the arguments, so the call becomes `ldc2_w <enter site>; ldc2_w
//! <exit site>; invokestatic <this class>.rankcheck$lock$N`, a bridge the class gets, one per
//! method called (owner as written, name, descriptor, and for interface calls the class
//! checked): receiver, then arguments, then the two sites. The bridge is a synchronized block
//! in bytecode, shaped as javac shapes one:
//!
//! ```text
//! aload_0; ifnonnull locked; aload_0; <load arguments>; invokevirtual …; <return>
//! locked: aload_0; dup; lload <enter>; invokestatic RC.monitorEnter; monitorenter
//! aload_0; <load arguments>; invokevirtual owner.name descriptor      ┐ catch-all
//! aload_0; monitorexit                                                 ┘
//! aload_0; lload <exit>; invokestatic RC.monitorExit; <return>
//! handler: aload_0; monitorexit (covered too); aload_0; lload <exit>;
//!          invokestatic RC.monitorExit; athrow
//! ```
//!
//! A call through a JDK interface that one of those classes implements (`invokeinterface
//! Map.put`, `CharSequence.length`: `Hierarchy::real_monitor_for_interface`) gets a bridge of
//! its own that looks at the receiver's class first: only a receiver of exactly that class
//! (`getClass() == Hashtable.class`) is locked; null, a program's subclass (which may override
//! the method unlocked), `Properties` and any other implementation get the plain interface call.
//! `ldc` of a class needs class-file version 49, so older classes keep their interface calls.
//!
//! ```text
//! aload_0; ifnull plain; aload_0; invokevirtual Object.getClass; ldc_w R; if_acmpeq locked
//! plain: aload_0; <load arguments>; invokeinterface …; <return>
//! locked: … as above, with invokeinterface
//! ```
//!
//! A call that, holding the receiver's monitor, takes an argument's monitor inside the JDK
//! ([`ARGUMENT_LOCKS`]: `a.append(b)` of two `StringBuffer`s, `t.equals(u)` of two
//! `Hashtable`s) gets two bridges: the receiver's block calls a second bridge that takes the
//! argument's monitor too when the argument is exactly of a class whose methods the call
//! locks (`getClass() == StringBuffer.class`), then makes the call. The model then sees the
//! nested acquisition, and `a.append(b)` ‖ `b.append(a)` deadlocks as it can on any JVM.
//!
//! Left alone: calls through a superclass the JDK class does not declare the method in, calls
//! through an interface on a subclass of the real classes (the exact-class guard lets them run
//! unlocked), `invokespecial` (`super.put`, which a static bridge cannot make), method
//! references, and call sites in interfaces (a bridge there would need an interface method
//! reference).

mod bridge_code;

use super::handles::params;
use super::MethodCtx;
use crate::bytes::{decode_mutf8, put_u2};
use crate::code::op;
use crate::constant_pool::ConstantPool;
use crate::RewriteError;
use java_harness::hooks::{SiteKind, LOCK_BRIDGE_PREFIX};

/// A synchronized method of a real-monitor class that, holding its receiver's monitor, calls
/// a synchronized method of one of its arguments when that argument is exactly of one of
/// `classes` (JDK 17's code: `append(StringBuffer)` reads the argument's `length()` under its
/// lock; `append(Object)` calls its `toString()`, synchronized in both classes;
/// `Hashtable.equals` calls the other table's `size()` and `get`). A program's subclass of
/// those classes is left out: it may override the methods unlocked.
pub struct ArgumentLock {
    pub class: &'static str,
    pub name: &'static str,
    pub descriptor: &'static str,
    /// The parameter (from 0, the receiver not counted) whose monitor the call takes.
    pub param: usize,
    pub classes: &'static [&'static str],
}

const BUFFER: &[&str] = &["java/lang/StringBuffer"];
const BUFFER_OR_TABLE: &[&str] = &["java/lang/StringBuffer", "java/util/Hashtable"];
const TABLE: &[&str] = &["java/util/Hashtable"];

/// Every JDK method whose call takes an argument's monitor inside its receiver's. Not here:
/// `insert(int, CharSequence)`, which is not synchronized (it reads the argument's length
/// before it takes the receiver's monitor); `Hashtable.putAll`, which iterates the argument's
/// entry set without its lock; `StringBuffer.compareTo`, which reads the argument's fields
/// without its lock.
pub const ARGUMENT_LOCKS: &[ArgumentLock] = &[
    ArgumentLock {
        class: "java/lang/StringBuffer",
        name: "append",
        descriptor: "(Ljava/lang/StringBuffer;)Ljava/lang/StringBuffer;",
        param: 0,
        classes: BUFFER,
    },
    ArgumentLock {
        class: "java/lang/StringBuffer",
        name: "append",
        descriptor: "(Ljava/lang/CharSequence;)Ljava/lang/StringBuffer;",
        param: 0,
        classes: BUFFER,
    },
    ArgumentLock {
        class: "java/lang/StringBuffer",
        name: "append",
        descriptor: "(Ljava/lang/CharSequence;II)Ljava/lang/StringBuffer;",
        param: 0,
        classes: BUFFER,
    },
    ArgumentLock {
        class: "java/lang/StringBuffer",
        name: "append",
        descriptor: "(Ljava/lang/Object;)Ljava/lang/StringBuffer;",
        param: 0,
        classes: BUFFER_OR_TABLE,
    },
    ArgumentLock {
        class: "java/lang/StringBuffer",
        name: "insert",
        descriptor: "(ILjava/lang/CharSequence;II)Ljava/lang/StringBuffer;",
        param: 1,
        classes: BUFFER,
    },
    ArgumentLock {
        class: "java/lang/StringBuffer",
        name: "insert",
        descriptor: "(ILjava/lang/Object;)Ljava/lang/StringBuffer;",
        param: 1,
        classes: BUFFER_OR_TABLE,
    },
    ArgumentLock {
        class: "java/util/Hashtable",
        name: "equals",
        descriptor: "(Ljava/lang/Object;)Z",
        param: 0,
        classes: TABLE,
    },
];

/// The argument lock of `class.name descriptor`, the method a call resolved to.
fn argument_lock(class: &str, name: &str, descriptor: &str) -> Option<&'static ArgumentLock> {
    ARGUMENT_LOCKS
        .iter()
        .find(|l| l.class == class && l.name == name && l.descriptor == descriptor)
}

/// The bridges one class gets, in the order they were first needed.
pub struct Bridges {
    /// False where no bridge may be added (an interface, or wrapping off).
    pub allowed: bool,
    calls: Vec<BridgedCall>,
}

/// Whose monitor a bridge takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Locked {
    Receiver,
    /// Parameter `param`'s, when it is exactly of one of `classes`.
    Argument {
        param: usize,
        classes: &'static [&'static str],
    },
}

/// The call a bridge makes; classes get one bridge per distinct call.
#[derive(Clone, PartialEq, Eq)]
struct BridgedCall {
    /// The owner as written at the call site.
    owner: String,
    name: String,
    descriptor: String,
    /// For a call through an interface (`invokeinterface`): the real-monitor class the
    /// receiver must be exactly for the call to be locked; `None` for `invokevirtual`.
    exact_class: Option<String>,
    locked: Locked,
    /// The argument's bridge this receiver's bridge calls inside its block.
    inner: Option<usize>,
}

impl Bridges {
    pub fn new(allowed: bool) -> Self {
        Bridges {
            allowed,
            calls: Vec::new(),
        }
    }

    /// The index of the bridge for `call`, added if new.
    fn index(&mut self, call: BridgedCall) -> usize {
        match self.calls.iter().position(|c| *c == call) {
            Some(n) => n,
            None => {
                self.calls.push(call);
                self.calls.len() - 1
            }
        }
    }
}

/// The name of the `n`-th bridge.
fn bridge_name(n: usize) -> String {
    format!("{LOCK_BRIDGE_PREFIX}{n}")
}

/// The bridge's descriptor: the receiver, the call's parameters, `site_pairs` pairs of sites
/// (enter and exit of each monitor it takes, its own and its inner bridge's).
fn bridge_descriptor(owner: &str, descriptor: &str, site_pairs: usize) -> Option<String> {
    let (params, ret) = descriptor.strip_prefix('(')?.split_once(')')?;
    Some(format!(
        "(L{owner};{params}{}){ret}",
        "JJ".repeat(site_pairs)
    ))
}

/// Handles instruction `i` if it calls a synchronized method of a real-monitor JDK class;
/// true when it did.
pub fn on_insn(ctx: &mut MethodCtx, i: usize) -> Result<bool, RewriteError> {
    let opc = ctx.code.insns[i].op;
    // `ldc` of a class constant, which the interface bridge's guard needs, came with 49.
    let through_interface = opc == op::INVOKEINTERFACE && ctx.major >= 49;
    if !(opc == op::INVOKEVIRTUAL || through_interface) || !ctx.bridges.allowed {
        return Ok(false);
    }
    let m = ctx.cp.member(ctx.code.cp_operand(i))?;
    let name = decode_mutf8(m.name);
    let descriptor = decode_mutf8(m.descriptor);
    if !crate::hierarchy::is_real_monitor_name(&name, &descriptor) {
        return Ok(false);
    }
    let owner = decode_mutf8(m.owner);
    let hierarchy = &ctx.config.hierarchy;
    // Through an interface the call resolves in the real-monitor class the receiver must be.
    let exact_class = if through_interface {
        let Some(class) = hierarchy.real_monitor_for_interface(&owner, &name, &descriptor) else {
            return Ok(false);
        };
        Some(class)
    } else {
        None
    };
    let resolved_in = exact_class.as_deref().unwrap_or(&owner);
    let Some(declaring) = hierarchy.real_monitor_method(resolved_in, &name, &descriptor) else {
        return Ok(false);
    };
    if bridge_descriptor(&owner, &descriptor, 2).is_none() || params(&descriptor).is_none() {
        return Ok(false);
    }
    // `ldc` of the argument's class, which its guard needs, came with 49 too.
    let argument = argument_lock(&declaring, &name, &descriptor).filter(|_| ctx.major >= 49);
    let detail = format!("{declaring}.{name}");
    let receiver = BridgedCall {
        owner,
        name,
        descriptor,
        exact_class,
        locked: Locked::Receiver,
        inner: None,
    };
    let inner = argument.map(|lock| {
        ctx.bridges.index(BridgedCall {
            locked: Locked::Argument {
                param: lock.param,
                classes: lock.classes,
            },
            ..receiver.clone()
        })
    });
    let descriptor = bridge_descriptor(
        &receiver.owner,
        &receiver.descriptor,
        1 + usize::from(inner.is_some()),
    );
    let n = ctx.bridges.index(BridgedCall { inner, ..receiver });
    let bci = ctx.code.insns[i].offset;
    let mut before = ctx.site(SiteKind::MonitorEnter, bci, detail.clone())?;
    before.extend(ctx.site(SiteKind::MonitorExit, bci, detail.clone())?);
    if inner.is_some() {
        let detail = format!("{detail} (its argument)");
        before.extend(ctx.site(SiteKind::MonitorEnter, bci, detail.clone())?);
        before.extend(ctx.site(SiteKind::MonitorExit, bci, detail)?);
    }
    let this_class = ctx.cp.class_name_string(ctx.this_class)?;
    let bridge = ctx.cp.add_methodref(
        &this_class,
        &bridge_name(n),
        &descriptor.unwrap_or_default(),
    )?;
    let mut call = vec![op::INVOKESTATIC];
    put_u2(&mut call, bridge);
    ctx.edits.before[i].extend(before);
    ctx.edits.replace[i] = Some(call);
    ctx.edits.need_stack(if inner.is_some() { 8 } else { 4 });
    Ok(true)
}

/// The encoded method_info of every bridge the class's calls need (none when none do).
pub fn bridge_methods(
    bridges: &Bridges,
    cp: &mut ConstantPool,
    major: u16,
    this_class: &str,
) -> Result<Vec<Vec<u8>>, RewriteError> {
    bridges
        .calls
        .iter()
        .enumerate()
        .map(|(n, bridged)| {
            let inner = bridged.inner.map(|m| (m, &bridges.calls[m]));
            bridge_code::bridge_method(cp, major, this_class, n, bridged, inner)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::classfile::ClassFile;
    use crate::{Config, Hierarchy};
    use java_harness::hooks::SiteKind;
    use std::sync::Arc;

    const MONITORS: &[u8] = include_bytes!("../../../tests/corpus/rewrite/rw/Monitors.class");
    const REGISTRY: &[u8] =
        include_bytes!("../../../tests/corpus/rewrite/rw/Monitors$Registry.class");

    fn config() -> Config {
        let hierarchy = Hierarchy::new();
        hierarchy.add_class_bytes(MONITORS);
        hierarchy.add_class_bytes(REGISTRY);
        Config {
            hierarchy: Arc::new(hierarchy),
            ..Config::all()
        }
    }

    /// The details of the wrapped calls' enter sites, in order, and the bridges' names.
    fn wrapped(bytes: &[u8], config: &Config) -> (Vec<String>, Vec<String>) {
        let out = crate::instrument_class(bytes, config).unwrap();
        let enters = out
            .sites
            .iter()
            .filter(|s| s.kind == SiteKind::MonitorEnter && !s.detail.is_empty())
            .map(|s| s.detail.clone())
            .collect();
        let cf = ClassFile::parse(&out.bytes).unwrap();
        let bridges = cf
            .methods
            .iter()
            .map(|m| cf.cp.utf8_string(m.name_index).unwrap())
            .filter(|n| n.starts_with(java_harness::hooks::LOCK_BRIDGE_PREFIX))
            .collect();
        (enters, bridges)
    }

    #[test]
    fn calls_into_real_monitors_are_bridged_once_per_method_called() {
        let (enters, bridges) = wrapped(MONITORS, &config());
        let count = |d: &str| enters.iter().filter(|e| *e == d).count();
        // Eight appends (seven widths and a char array), one on a null receiver, seven with a
        // buffer, a table, a string or null as the argument.
        assert_eq!(count("java/lang/StringBuffer.append"), 16);
        assert_eq!(count("java/lang/StringBuffer.reverse"), 2);
        assert_eq!(count("java/lang/StringBuffer.setLength"), 1);
        // Three on the buffer, one through `CharSequence`.
        assert_eq!(count("java/lang/StringBuffer.length"), 4);
        assert_eq!(count("java/lang/StringBuffer.charAt"), 3);
        // Three on the table and four through `Map` (on the table twice, on the subclass, on
        // Properties: bridged, with the class checked when they run); `registry.put` calls the
        // override and is not bridged.
        assert_eq!(count("java/util/Hashtable.put"), 7);
        // On the table, on the program's subclass, which inherits them, and through `Map`.
        assert_eq!(count("java/util/Hashtable.containsKey"), 3);
        assert_eq!(count("java/util/Hashtable.equals"), 2);
        assert_eq!(count("java/util/Hashtable.get"), 6);
        assert_eq!(count("java/util/Hashtable.size"), 5);
        // Properties: setProperty and its own put are synchronized; its get (which overrides
        // Hashtable's), getProperty and size are not.
        assert_eq!(count("java/util/Properties.setProperty"), 1);
        assert_eq!(count("java/util/Properties.put"), 1);
        assert_eq!(
            enters.iter().filter(|e| e.contains("Properties")).count(),
            2
        );
        // Every site has its exit, and one bridge serves each (owner, name, descriptor).
        let out = crate::instrument_class(MONITORS, &config()).unwrap();
        let exits = out
            .sites
            .iter()
            .filter(|s| s.kind == SiteKind::MonitorExit && !s.detail.is_empty())
            .count();
        assert_eq!(exits, enters.len());
        assert!(bridges.len() < enters.len(), "{bridges:?}");
        let mut names = bridges.clone();
        names.dedup();
        assert_eq!(names, bridges);
    }

    /// The descriptors of the class's bridges.
    fn bridge_descriptors(bytes: &[u8], config: &Config) -> Vec<String> {
        let out = crate::instrument_class(bytes, config).unwrap();
        let cf = ClassFile::parse(&out.bytes).unwrap();
        cf.methods
            .iter()
            .filter(|m| {
                cf.cp
                    .utf8_string(m.name_index)
                    .unwrap()
                    .starts_with(java_harness::hooks::LOCK_BRIDGE_PREFIX)
            })
            .map(|m| cf.cp.utf8_string(m.descriptor_index).unwrap())
            .collect()
    }

    #[test]
    fn interface_calls_get_their_own_bridges_from_class_file_49_on() {
        let through = |descriptors: &[String], owner: &str| {
            descriptors
                .iter()
                .filter(|d| d.starts_with(&format!("(L{owner};")))
                .count()
        };
        let descriptors = bridge_descriptors(MONITORS, &config());
        // Map: put, containsKey, get, size, equals and its argument's; CharSequence: length,
        // charAt.
        assert_eq!(through(&descriptors, "java/util/Map"), 6, "{descriptors:?}");
        assert_eq!(through(&descriptors, "java/lang/CharSequence"), 2);
        // Before 49 no `ldc` of a class: the guard cannot be written, interface calls stay.
        let mut old = MONITORS.to_vec();
        old[6..8].copy_from_slice(&48u16.to_be_bytes());
        let descriptors = bridge_descriptors(&old, &config());
        assert_eq!(through(&descriptors, "java/util/Map"), 0, "{descriptors:?}");
        assert!(through(&descriptors, "java/util/Hashtable") > 0);
    }

    #[test]
    fn calls_that_lock_an_argument_get_its_bridge_inside_the_receivers() {
        let (enters, _) = wrapped(MONITORS, &config());
        let argument = |d: &str| {
            let d = format!("{d} (its argument)");
            enters.iter().filter(|e| **e == d).count()
        };
        // Seven appends of a buffer, a char sequence, a table, a string or null (the guard
        // decides when they run), two inserts, two comparisons of tables (one through `Map`).
        assert_eq!(argument("java/lang/StringBuffer.append"), 7, "{enters:?}");
        assert_eq!(argument("java/lang/StringBuffer.insert"), 2);
        assert_eq!(argument("java/util/Hashtable.equals"), 2);
        // A receiver's bridge that calls an argument's passes it the argument's two sites.
        let descriptors = bridge_descriptors(MONITORS, &config());
        let outer =
            |d: &String| d.ends_with("JJJJ)Z") || d.ends_with("JJJJ)Ljava/lang/StringBuffer;");
        assert_eq!(
            descriptors.iter().filter(|d| outer(d)).count(),
            8,
            "{descriptors:?}"
        );
        // Before 49 the argument's guard cannot be written: the receiver alone is locked.
        let mut old = MONITORS.to_vec();
        old[6..8].copy_from_slice(&48u16.to_be_bytes());
        let (enters, _) = wrapped(&old, &config());
        assert!(
            enters.iter().all(|e| !e.ends_with("(its argument)")),
            "{enters:?}"
        );
    }

    #[test]
    fn overrides_and_jdk_classes_get_no_bridge() {
        let (enters, bridges) = wrapped(REGISTRY, &config());
        assert!(enters.is_empty() && bridges.is_empty(), "{enters:?}");
        let (enters, bridges) = wrapped(MONITORS, &Config::jdk());
        assert!(enters.is_empty() && bridges.is_empty(), "{enters:?}");
        let h = config().hierarchy;
        let put = "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;";
        assert_eq!(
            h.real_monitor_method(
                "java/util/Properties",
                "setProperty",
                "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/Object;"
            ),
            Some("java/util/Properties".to_string())
        );
        let get = "(Ljava/lang/Object;)Ljava/lang/Object;";
        assert_eq!(
            h.real_monitor_method("java/util/Properties", "get", get),
            None
        );
        assert_eq!(
            h.real_monitor_method("rw/Monitors$Registry", "put", put),
            None
        );
        assert_eq!(
            h.real_monitor_method("rw/Monitors$Registry", "get", get),
            Some("java/util/Hashtable".to_string())
        );
        // Vector is desugared by the agent; Thread's synchronized methods are not containers.
        assert_eq!(
            h.real_monitor_method("java/util/Vector", "size", "()I"),
            None
        );
        assert_eq!(
            h.real_monitor_method("java/lang/Thread", "join", "(J)V"),
            None
        );
    }
}
