//! Allocations: `Allocated` after an object's `<init>` completes (so the hook sees an
//! initialized object) and after newarray/anewarray/multianewarray. Objects are matched to
//! their `new` in instruction order; only the `new; dup; …; invokespecial <init>` shape (what
//! compilers emit) leaves the object on the stack for the hook, so other shapes are skipped.

use super::MethodCtx;
use crate::bytes::decode_mutf8;
use crate::code::op;
use crate::RewriteError;
use java_harness::hooks::{Hook, SiteKind};

/// `new` instructions whose `<init>` has not been seen yet: the site prepared for each (None
/// when no `dup` follows the `new`).
#[derive(Default)]
pub struct AllocState {
    pending: Vec<Option<Vec<u8>>>,
}

fn after_hook(site: Vec<u8>, ctx: &mut MethodCtx) -> Result<Vec<u8>, RewriteError> {
    let mut v = vec![op::DUP];
    v.extend(site);
    v.extend(ctx.call_hook(Hook::Allocated)?);
    ctx.edits.need_stack(3);
    Ok(v)
}

pub fn on_insn(ctx: &mut MethodCtx, state: &mut AllocState, i: usize) -> Result<(), RewriteError> {
    let code = ctx.code;
    let insn = &code.insns[i];
    let (opc, bci) = (insn.op, insn.offset);
    match opc {
        op::NEW => {
            let dup_follows = code.insns.get(i + 1).is_some_and(|n| n.op == op::DUP);
            let site = if dup_follows && ctx.alloc_selected(bci) {
                let class = decode_mutf8(ctx.cp.class_name(code.cp_operand(i))?);
                Some(ctx.site(SiteKind::Alloc, bci, class)?)
            } else {
                None
            };
            state.pending.push(site);
        }
        op::INVOKESPECIAL => {
            let is_init = ctx.cp.member(code.cp_operand(i))?.name == b"<init>";
            if is_init {
                if let Some(Some(site)) = state.pending.pop() {
                    let v = after_hook(site, ctx)?;
                    ctx.edits.after[i].extend(v);
                }
            }
        }
        op::NEWARRAY | op::ANEWARRAY | op::MULTIANEWARRAY if ctx.alloc_selected(bci) => {
            let detail = match opc {
                op::NEWARRAY => {
                    let atype = code.bytes_of(i)[1];
                    let d = ["Z", "C", "F", "D", "B", "S", "I", "J"];
                    format!("[{}", d.get(atype.wrapping_sub(4) as usize).unwrap_or(&"?"))
                }
                op::ANEWARRAY => {
                    let c = decode_mutf8(ctx.cp.class_name(code.cp_operand(i))?);
                    if c.starts_with('[') {
                        format!("[{c}")
                    } else {
                        format!("[L{c};")
                    }
                }
                _ => decode_mutf8(ctx.cp.class_name(code.cp_operand(i))?),
            };
            let site = ctx.site(SiteKind::Alloc, bci, detail)?;
            let v = after_hook(site, ctx)?;
            ctx.edits.after[i].extend(v);
        }
        _ => {}
    }
    Ok(())
}
