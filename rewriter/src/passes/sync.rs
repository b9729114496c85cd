//! Sync: `MonitorEnter` before every monitorenter, `MonitorExit` after every monitorexit, and
//! synchronized methods desugared. The JVM takes a synchronized method's lock before its first
//! instruction — before any hook could announce it — which would defeat shadow locking, so the
//! flag is cleared and the body wrapped: lock object, `MonitorEnter`, monitorenter in a
//! prologue; monitorexit then `MonitorExit` before every return; and a catch-all handler that
//! does the same and rethrows.

use super::MethodCtx;
use crate::classfile::ACC_SYNCHRONIZED;
use crate::code::{op, AddedHandler};
use crate::stackmap::{Frame, FrameKind, VType};
use crate::RewriteError;
use java_harness::hooks::{Hook, SiteKind};

/// The local that holds a desugared static synchronized method's lock (its class object): the
/// first one past the method's own. HotSpot pairs monitorenter with monitorexit by where the
/// object came from, so every exit reloads it from this one local rather than from `ldc`.
pub fn lock_slot(access: u16, major: u16, max_locals: u16) -> Option<u16> {
    (access & ACC_SYNCHRONIZED != 0 && access & crate::classfile::ACC_STATIC != 0 && major >= 49)
        .then_some(max_locals)
}

/// Whether (and how) this method's synchronization is desugared: the bytes that push the lock.
fn lock_load(ctx: &MethodCtx) -> Option<Vec<u8>> {
    if ctx.access & ACC_SYNCHRONIZED == 0 || !ctx.config.desugar_sync_methods {
        return None;
    }
    if ctx.is_static() {
        lock_slot(ctx.access, ctx.major, ctx.code.max_locals).map(|n| {
            if n <= 255 {
                vec![op::ALOAD, n as u8]
            } else {
                let [a, b] = n.to_be_bytes();
                vec![op::WIDE, op::ALOAD, a, b]
            }
        })
    } else {
        // `this` must stay in local 0 for the handler to find it (javac never stores there).
        let stores_0 =
            (0..ctx.code.insns.len()).any(|i| ctx.code.local_written(i) == Some((op::ASTORE, 0)));
        (!stores_0).then(|| vec![op::ALOAD_0])
    }
}

/// The method's access flags once rewritten.
pub fn new_access(ctx: &MethodCtx) -> u16 {
    if lock_load(ctx).is_some() {
        ctx.access & !ACC_SYNCHRONIZED
    } else {
        ctx.access
    }
}

pub fn on_method_entry(ctx: &mut MethodCtx) -> Result<(), RewriteError> {
    let Some(lock) = lock_load(ctx) else {
        return Ok(());
    };
    let mut prologue = Vec::with_capacity(24);
    if let Some(n) = lock_slot(ctx.access, ctx.major, ctx.code.max_locals) {
        // ldc_w <this class>; astore n: the lock, kept in its own local.
        let [a, b] = ctx.this_class.to_be_bytes();
        prologue.extend([op::LDC_W, a, b]);
        if n <= 255 {
            prologue.extend([op::ASTORE, n as u8]);
        } else {
            let [a, b] = n.to_be_bytes();
            prologue.extend([op::WIDE, op::ASTORE, a, b]);
        }
        let class_class = ctx.cp.add_class("java/lang/Class")?;
        ctx.edits.lock_local = Some((n, class_class));
        ctx.edits.extra_locals = ctx.edits.extra_locals.max(1);
    }
    prologue.extend_from_slice(&lock);
    prologue.push(op::DUP);
    prologue.extend(ctx.site_and_hook(
        SiteKind::SyncMethodEnter,
        0,
        String::new(),
        Hook::MonitorEnter,
    )?);
    prologue.push(op::MONITORENTER);
    ctx.edits.prologue = prologue;
    ctx.edits.need_stack(4);
    Ok(())
}

/// `lock; monitorexit; lock; ldc2_w site; invokestatic MonitorExit`.
fn exit_sequence(ctx: &mut MethodCtx, lock: &[u8], bci: u32) -> Result<Vec<u8>, RewriteError> {
    let mut v = lock.to_vec();
    v.push(op::MONITOREXIT);
    v.extend_from_slice(lock);
    v.extend(ctx.site_and_hook(
        SiteKind::SyncMethodExit,
        bci,
        String::new(),
        Hook::MonitorExit,
    )?);
    Ok(v)
}

pub fn on_insn(ctx: &mut MethodCtx, i: usize) -> Result<(), RewriteError> {
    let insn = &ctx.code.insns[i];
    let (opc, bci) = (insn.op, insn.offset);
    match opc {
        op::MONITORENTER => {
            let mut v = vec![op::DUP];
            v.extend(ctx.site_and_hook(
                SiteKind::MonitorEnter,
                bci,
                String::new(),
                Hook::MonitorEnter,
            )?);
            ctx.edits.before[i].extend(v);
            ctx.edits.need_stack(3);
        }
        op::MONITOREXIT => {
            // Keep a copy of the lock across monitorexit for the hook that follows it.
            ctx.edits.before[i].push(op::DUP);
            let v =
                ctx.site_and_hook(SiteKind::MonitorExit, bci, String::new(), Hook::MonitorExit)?;
            ctx.edits.after[i].extend(v);
            ctx.edits.need_stack(3);
        }
        op::IRETURN..=op::RETURN => {
            if let Some(lock) = lock_load(ctx) {
                let v = exit_sequence(ctx, &lock, bci)?;
                // After its monitorexit, a return path is outside the catch-all.
                let hole = (ctx.edits.before[i].len() + lock.len() + 1) as u32;
                ctx.edits.before[i].extend(v);
                ctx.edits.need_stack(3);
                ctx.edits.holes.push((i, hole));
            }
        }
        _ => {}
    }
    Ok(())
}

pub fn on_method_exit(ctx: &mut MethodCtx) -> Result<(), RewriteError> {
    let Some(lock) = lock_load(ctx) else {
        return Ok(());
    };
    // The exceptional exit has no original instruction: its bci is the original code length.
    let bci = ctx.code.code.len() as u32;
    // The handler's own `lock; monitorexit` is covered by the handler too, as javac does for
    // synchronized blocks: the shape HotSpot's compilers expect of balanced monitors.
    let covers_own_start = (lock.len() + 1) as u16;
    let mut epilogue = exit_sequence(ctx, &lock, bci)?;
    epilogue.push(op::ATHROW);
    ctx.edits.epilogue = epilogue;
    let frame = if ctx.major >= 50 {
        let throwable = ctx.cp.add_class("java/lang/Throwable")?;
        // Top for every local but the one that holds the lock.
        let locals = match lock_slot(ctx.access, ctx.major, ctx.code.max_locals) {
            Some(n) => {
                let mut l = vec![VType::Simple(0); n as usize];
                l.push(VType::Object(ctx.cp.add_class("java/lang/Class")?));
                l
            }
            None => vec![VType::Object(ctx.this_class)],
        };
        Some(Frame {
            offset: 0,
            kind: FrameKind::Full(locals, vec![VType::Object(throwable)]),
        })
    } else {
        None
    };
    ctx.edits.handler = Some(AddedHandler {
        catch_type: 0,
        covers_own_start,
        frame,
    });
    Ok(())
}
