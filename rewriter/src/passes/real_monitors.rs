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
//! Left alone: calls through a superclass the JDK class does not declare the method in, calls
//! through an interface on a subclass of the real classes (the exact-class guard lets them run
//! unlocked), `invokespecial` (`super.put`, which a static bridge cannot make), method
//! references, and call sites in interfaces (a bridge there would need an interface method
//! reference).

use super::handles::{local_op, params, words};
use super::MethodCtx;
use crate::bytes::{decode_mutf8, put_u2, put_u4};
use crate::code::op;
use crate::constant_pool::ConstantPool;
use crate::stackmap::{Frame, FrameKind};
use crate::RewriteError;
use java_harness::hooks::{Hook, SiteKind, LOCK_BRIDGE_PREFIX, RC_CLASS};

/// The bridges one class gets, in the order they were first needed.
pub struct Bridges {
    /// False where no bridge may be added (an interface, or wrapping off).
    pub allowed: bool,
    calls: Vec<BridgedCall>,
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
}

impl Bridges {
    pub fn new(allowed: bool) -> Self {
        Bridges {
            allowed,
            calls: Vec::new(),
        }
    }
}

const ACC_PRIVATE: u16 = 0x0002;
const ACC_STATIC: u16 = 0x0008;
const ACC_SYNTHETIC: u16 = 0x1000;

/// The name of the `n`-th bridge.
fn bridge_name(n: usize) -> String {
    format!("{LOCK_BRIDGE_PREFIX}{n}")
}

/// The bridge's descriptor: the receiver, the call's parameters, the two sites.
fn bridge_descriptor(owner: &str, descriptor: &str) -> Option<String> {
    let (params, ret) = descriptor.strip_prefix('(')?.split_once(')')?;
    Some(format!("(L{owner};{params}JJ){ret}"))
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
    let (Some(bridge_desc), Some(_)) =
        (bridge_descriptor(&owner, &descriptor), params(&descriptor))
    else {
        return Ok(false);
    };
    let detail = format!("{declaring}.{name}");
    let key = BridgedCall {
        owner,
        name,
        descriptor,
        exact_class,
    };
    let n = match ctx.bridges.calls.iter().position(|c| *c == key) {
        Some(n) => n,
        None => {
            ctx.bridges.calls.push(key);
            ctx.bridges.calls.len() - 1
        }
    };
    let bci = ctx.code.insns[i].offset;
    let mut before = ctx.site(SiteKind::MonitorEnter, bci, detail.clone())?;
    before.extend(ctx.site(SiteKind::MonitorExit, bci, detail)?);
    let this_class = ctx.cp.class_name_string(ctx.this_class)?;
    let bridge = ctx
        .cp
        .add_methodref(&this_class, &bridge_name(n), &bridge_desc)?;
    let mut call = vec![op::INVOKESTATIC];
    put_u2(&mut call, bridge);
    ctx.edits.before[i].extend(before);
    ctx.edits.replace[i] = Some(call);
    ctx.edits.need_stack(4);
    Ok(true)
}

/// The encoded method_info of every bridge the class's calls need (none when none do).
pub fn bridge_methods(
    bridges: &Bridges,
    cp: &mut ConstantPool,
    major: u16,
) -> Result<Vec<Vec<u8>>, RewriteError> {
    bridges
        .calls
        .iter()
        .enumerate()
        .map(|(n, bridged)| bridge_method(cp, major, n, bridged))
        .collect()
}

fn bridge_method(
    cp: &mut ConstantPool,
    major: u16,
    n: usize,
    bridged: &BridgedCall,
) -> Result<Vec<u8>, RewriteError> {
    let (owner, name, descriptor) = (&bridged.owner, &bridged.name, &bridged.descriptor);
    let bad = || RewriteError::Malformed(format!("method descriptor {descriptor}"));
    let bridge_desc = bridge_descriptor(owner, descriptor).ok_or_else(bad)?;
    let types = params(descriptor).ok_or_else(bad)?;
    let ret = descriptor.rsplit(')').next().and_then(|r| r.bytes().next());
    let ret_op = match ret {
        Some(b'V') => op::RETURN,
        Some(b'J') => op::IRETURN + 1,
        Some(b'F') => op::IRETURN + 2,
        Some(b'D') => op::IRETURN + 3,
        Some(b'L' | b'[') => op::IRETURN + 4,
        Some(_) => op::IRETURN,
        None => return Err(bad()),
    };
    let ret_words = match ret {
        Some(b'V') => 0,
        Some(t) => words(t),
        None => 0,
    };
    let arg_words: u16 = types.iter().map(|&t| words(t)).sum();
    let enter_slot = 1 + arg_words;
    let exit_slot = enter_slot + 2;
    let (invoke_op, called) = match bridged.exact_class {
        Some(_) => (
            op::INVOKEINTERFACE,
            cp.add_interface_methodref(owner, name, descriptor)?,
        ),
        None => (
            op::INVOKEVIRTUAL,
            cp.add_methodref(owner, name, descriptor)?,
        ),
    };
    let enter_hook = cp.add_methodref(
        RC_CLASS,
        Hook::MonitorEnter.name(),
        Hook::MonitorEnter.descriptor(),
    )?;
    let exit_hook = cp.add_methodref(
        RC_CLASS,
        Hook::MonitorExit.name(),
        Hook::MonitorExit.descriptor(),
    )?;
    let invoke = |code: &mut Vec<u8>, m: u16| {
        code.push(op::INVOKESTATIC);
        put_u2(code, m);
    };
    // The original call: `aload_0; <load arguments>; invoke… owner.name descriptor`.
    let call = |code: &mut Vec<u8>| {
        code.push(op::ALOAD_0);
        let mut slot = 1;
        for &t in &types {
            code.extend(local_op(t, slot, false));
            slot += words(t);
        }
        code.push(invoke_op);
        put_u2(code, called);
        if invoke_op == op::INVOKEINTERFACE {
            code.extend([(1 + arg_words) as u8, 0]);
        }
    };
    // The exit: `aload_0; lload <exit>; invokestatic RC.monitorExit`.
    let announce_exit = |code: &mut Vec<u8>| {
        code.push(op::ALOAD_0);
        code.extend(local_op(b'J', exit_slot, false));
        invoke(code, exit_hook);
    };
    // A null receiver: the call alone, which throws the JVM's own NullPointerException (no
    // monitor of null is announced, none is taken). Through an interface, also a receiver of
    // any class but exactly the real-monitor one: a subclass may override the method unlocked.
    let mut code = vec![op::ALOAD_0];
    let mut frames_at = Vec::new();
    let to_locked = match &bridged.exact_class {
        None => {
            code.extend([op::IFNONNULL, 0, 0]);
            1
        }
        Some(class) => {
            let get_class =
                cp.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;")?;
            let class = cp.add_class(class)?;
            code.extend([op::IFNULL, 0, 0, op::ALOAD_0, op::INVOKEVIRTUAL]);
            put_u2(&mut code, get_class);
            code.push(op::LDC_W);
            put_u2(&mut code, class);
            code.extend([op::IF_ACMPEQ, 0, 0]);
            let plain = code.len();
            code[2..4].copy_from_slice(&((plain - 1) as u16).to_be_bytes());
            frames_at.push(plain);
            plain - 3
        }
    };
    call(&mut code);
    code.push(ret_op);
    let locked = code.len();
    frames_at.push(locked);
    code[to_locked + 1..to_locked + 3]
        .copy_from_slice(&((locked - to_locked) as u16).to_be_bytes());
    code.extend([op::ALOAD_0, op::DUP]);
    code.extend(local_op(b'J', enter_slot, false));
    invoke(&mut code, enter_hook);
    code.push(op::MONITORENTER);
    let start = code.len();
    call(&mut code);
    code.extend([op::ALOAD_0, op::MONITOREXIT]);
    let end = code.len();
    announce_exit(&mut code);
    code.push(ret_op);
    let handler = code.len();
    code.extend([op::ALOAD_0, op::MONITOREXIT]);
    let handler_end = code.len();
    announce_exit(&mut code);
    code.push(op::ATHROW);

    let mut attrs = Vec::new();
    if major >= 50 {
        let mut frames: Vec<Frame> = frames_at
            .iter()
            .map(|&offset| Frame {
                offset: offset as u32,
                kind: FrameKind::Same,
            })
            .collect();
        frames.push(crate::frames::static_handler_frame(
            cp,
            &bridge_desc,
            handler as u32,
            "java/lang/Throwable",
        )?);
        let table = crate::stackmap::encode(&frames);
        put_u2(&mut attrs, cp.add_utf8("StackMapTable")?);
        put_u4(&mut attrs, table.len() as u32);
        attrs.extend(table);
    }
    // Stack: receiver, copy, long site at the enter; receiver and arguments at the call; the
    // result, the receiver and a long site at the exit; the same with a throwable at the throw;
    // the receiver's class and the real-monitor class at the guard.
    let max_stack = (1 + arg_words).max(ret_words + 3).max(4).max(2);
    let max_locals = exit_slot + 2;
    let mut attr = Vec::with_capacity(code.len() + 64);
    put_u2(&mut attr, max_stack);
    put_u2(&mut attr, max_locals);
    put_u4(&mut attr, code.len() as u32);
    attr.extend_from_slice(&code);
    put_u2(&mut attr, 2);
    for (from, to) in [(start, end), (handler, handler_end)] {
        put_u2(&mut attr, from as u16);
        put_u2(&mut attr, to as u16);
        put_u2(&mut attr, handler as u16);
        put_u2(&mut attr, 0);
    }
    put_u2(&mut attr, u16::from(!attrs.is_empty()));
    attr.extend(attrs);

    let mut method = Vec::with_capacity(attr.len() + 16);
    put_u2(&mut method, ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC);
    put_u2(&mut method, cp.add_utf8(&bridge_name(n))?);
    put_u2(&mut method, cp.add_utf8(&bridge_desc)?);
    put_u2(&mut method, 1);
    put_u2(&mut method, cp.add_utf8("Code")?);
    put_u4(&mut method, attr.len() as u32);
    method.extend(attr);
    Ok(method)
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
        // Eight appends (seven widths and a char array) and one on a null receiver.
        assert_eq!(count("java/lang/StringBuffer.append"), 9);
        assert_eq!(count("java/lang/StringBuffer.reverse"), 2);
        assert_eq!(count("java/lang/StringBuffer.setLength"), 1);
        // Two on the buffer, one through `CharSequence`.
        assert_eq!(count("java/lang/StringBuffer.length"), 3);
        assert_eq!(count("java/lang/StringBuffer.charAt"), 3);
        // Three on the table and four through `Map` (on the table twice, on the subclass, on
        // Properties: bridged, with the class checked when they run); `registry.put` calls the
        // override and is not bridged.
        assert_eq!(count("java/util/Hashtable.put"), 7);
        // On the table, on the program's subclass, which inherits them, and through `Map`.
        assert_eq!(count("java/util/Hashtable.containsKey"), 3);
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
        // Map: put, containsKey, get, size; CharSequence: length, charAt.
        assert_eq!(through(&descriptors, "java/util/Map"), 4, "{descriptors:?}");
        assert_eq!(through(&descriptors, "java/lang/CharSequence"), 2);
        // Before 49 no `ldc` of a class: the guard cannot be written, interface calls stay.
        let mut old = MONITORS.to_vec();
        old[6..8].copy_from_slice(&48u16.to_be_bytes());
        let descriptors = bridge_descriptors(&old, &config());
        assert_eq!(through(&descriptors, "java/util/Map"), 0, "{descriptors:?}");
        assert!(through(&descriptors, "java/util/Hashtable") > 0);
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
