//! The bytecode of one bridge: a synchronized block around one call, shaped as javac shapes
//! one, behind a guard that decides whether the block is needed at all.

use super::super::handles::{local_op, params, words};
use super::{bridge_descriptor, bridge_name, BridgedCall, Locked};
use crate::bytes::{put_u2, put_u4};
use crate::code::op;
use crate::constant_pool::ConstantPool;
use crate::stackmap::{Frame, FrameKind};
use crate::RewriteError;
use java_harness::hooks::{Hook, RC_CLASS};

const ACC_PRIVATE: u16 = 0x0002;
const ACC_STATIC: u16 = 0x0008;
const ACC_SYNTHETIC: u16 = 0x1000;

/// The encoded method_info of the `n`-th bridge; `inner` is what its locked block calls
/// instead of the method itself (the argument's bridge, with the argument's two sites).
pub(super) fn bridge_method(
    cp: &mut ConstantPool,
    major: u16,
    this_class: &str,
    n: usize,
    bridged: &BridgedCall,
    inner: Option<(usize, &BridgedCall)>,
) -> Result<Vec<u8>, RewriteError> {
    let (owner, name, descriptor) = (&bridged.owner, &bridged.name, &bridged.descriptor);
    let bad = || RewriteError::Malformed(format!("method descriptor {descriptor}"));
    let site_pairs = if inner.is_some() { 2 } else { 1 };
    let bridge_desc = bridge_descriptor(owner, descriptor, site_pairs).ok_or_else(bad)?;
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
        Some(b'V') | None => 0,
        Some(t) => words(t),
    };
    let arg_words: u16 = types.iter().map(|&t| words(t)).sum();
    let enter_slot = 1 + arg_words;
    let exit_slot = enter_slot + 2;
    // The local holding the object whose monitor the block takes.
    let locked_slot = match bridged.locked {
        Locked::Receiver => 0,
        Locked::Argument { param, .. } => {
            1 + types[..param.min(types.len())]
                .iter()
                .map(|&t| words(t))
                .sum::<u16>()
        }
    };
    let through_interface = bridged.exact_class.is_some();
    let (invoke_op, called) = if through_interface {
        (
            op::INVOKEINTERFACE,
            cp.add_interface_methodref(owner, name, descriptor)?,
        )
    } else {
        (
            op::INVOKEVIRTUAL,
            cp.add_methodref(owner, name, descriptor)?,
        )
    };
    let this_class_bridge = match inner {
        Some((m, inner_call)) => Some(cp.add_methodref(
            this_class,
            &bridge_name(m),
            &bridge_descriptor(&inner_call.owner, &inner_call.descriptor, 1).ok_or_else(bad)?,
        )?),
        None => None,
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
    let load_call_arguments = |code: &mut Vec<u8>| {
        code.push(op::ALOAD_0);
        let mut slot = 1;
        for &t in &types {
            code.extend(local_op(t, slot, false));
            slot += words(t);
        }
    };
    // The original call: `aload_0; <load arguments>; invoke… owner.name descriptor`.
    let call = |code: &mut Vec<u8>| {
        load_call_arguments(code);
        code.push(invoke_op);
        put_u2(code, called);
        if invoke_op == op::INVOKEINTERFACE {
            code.extend([(1 + arg_words) as u8, 0]);
        }
    };
    // Inside the block: the call, or the inner bridge with the argument's two sites.
    let locked_call = |code: &mut Vec<u8>| match this_class_bridge {
        Some(bridge) => {
            load_call_arguments(code);
            code.extend(local_op(b'J', exit_slot + 2, false));
            code.extend(local_op(b'J', exit_slot + 4, false));
            invoke(code, bridge);
        }
        None => call(code),
    };
    let load_locked = |code: &mut Vec<u8>| code.extend(local_op(b'L', locked_slot, false));
    // The exit: `aload <locked>; lload <exit>; invokestatic RC.monitorExit`.
    let announce_exit = |code: &mut Vec<u8>| {
        load_locked(code);
        code.extend(local_op(b'J', exit_slot, false));
        invoke(code, exit_hook);
    };
    // The guard. A null receiver: the call alone, which throws the JVM's own
    // NullPointerException (no monitor of null is announced, none is taken). Through an
    // interface, also a receiver of any class but exactly the real-monitor one: a subclass may
    // override the method unlocked. An argument is locked only when it is exactly of a class
    // whose methods the call takes its monitor in.
    let guard_classes: Vec<String> = match &bridged.locked {
        Locked::Receiver => bridged.exact_class.iter().cloned().collect(),
        Locked::Argument { classes, .. } => classes.iter().map(|c| c.to_string()).collect(),
    };
    let mut code = Vec::new();
    let mut frames_at = Vec::new();
    // Offsets of the two-byte branch operands to patch to the locked block.
    let mut to_locked = Vec::new();
    load_locked(&mut code);
    if guard_classes.is_empty() {
        code.extend([op::IFNONNULL, 0, 0]);
        to_locked.push(code.len() - 3);
    } else {
        code.extend([op::IFNULL, 0, 0]);
        let to_plain = code.len() - 3;
        let get_class = cp.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;")?;
        for class in &guard_classes {
            let class = cp.add_class(class)?;
            load_locked(&mut code);
            code.push(op::INVOKEVIRTUAL);
            put_u2(&mut code, get_class);
            code.push(op::LDC_W);
            put_u2(&mut code, class);
            code.extend([op::IF_ACMPEQ, 0, 0]);
            to_locked.push(code.len() - 3);
        }
        let plain = code.len();
        code[to_plain + 1..to_plain + 3]
            .copy_from_slice(&((plain - to_plain) as u16).to_be_bytes());
        frames_at.push(plain);
    }
    call(&mut code);
    code.push(ret_op);
    let locked = code.len();
    frames_at.push(locked);
    for at in to_locked {
        code[at + 1..at + 3].copy_from_slice(&((locked - at) as u16).to_be_bytes());
    }
    load_locked(&mut code);
    code.push(op::DUP);
    code.extend(local_op(b'J', enter_slot, false));
    invoke(&mut code, enter_hook);
    code.push(op::MONITORENTER);
    let start = code.len();
    locked_call(&mut code);
    load_locked(&mut code);
    code.push(op::MONITOREXIT);
    let end = code.len();
    announce_exit(&mut code);
    code.push(ret_op);
    let handler = code.len();
    load_locked(&mut code);
    code.push(op::MONITOREXIT);
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
    // Stack: the locked object, its copy and a long site at the enter; the receiver and the
    // arguments at the call (and two long sites for an inner bridge); the result, the locked
    // object and a long site at the exit; the same with a throwable at the throw; an object's
    // class and a class at the guard.
    let inner_sites = if inner.is_some() { 4 } else { 0 };
    let max_stack = (1 + arg_words + inner_sites).max(ret_words + 3).max(4);
    let max_locals = exit_slot + 2 + inner_sites;
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
