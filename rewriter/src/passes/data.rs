//! Data: `FieldRead`/`FieldWrite` before getfield/putfield (receiver) and getstatic/putstatic
//! (null), `ArrayRead`/`ArrayWrite` before every array load and store (array, index). Hooks get
//! copies of operands already on the stack; an array store's value is parked in a scratch local
//! while the array and index are copied. A putfield before `super(…)` in a constructor writes to
//! an uninitialized `this`, which no hook may receive (and which is not shared yet): skipped.

use super::MethodCtx;
use crate::bytes::decode_mutf8;
use crate::code::op;
use crate::RewriteError;
use java_harness::hooks::{Hook, SiteKind};

/// Element descriptor of an array load/store opcode's array (`L` for any reference, `B` for
/// byte or boolean).
fn element(opc: u8) -> &'static str {
    let base = if opc >= op::IASTORE {
        op::IASTORE
    } else {
        op::IALOAD
    };
    ["I", "J", "F", "D", "L", "B", "C", "S"][(opc - base) as usize]
}

/// `xstore`/`xload` of the scratch local for an array store's value.
fn scratch(ctx: &MethodCtx, base: u8, store: bool) -> Vec<u8> {
    let local = ctx.scratch_local;
    // iastore-family → store opcode: I, L, F, D, A, then B/C/S as int.
    let k = match base {
        op::IASTORE | op::BASTORE | op::CASTORE | op::SASTORE => 0,
        op::LASTORE => 1,
        op::FASTORE => 2,
        op::DASTORE => 3,
        _ => 4,
    };
    let opc = if store { op::ISTORE } else { op::ILOAD } + k;
    if local <= 255 {
        vec![opc, local as u8]
    } else {
        let [a, b] = local.to_be_bytes();
        vec![op::WIDE, opc, a, b]
    }
}

pub fn on_insn(ctx: &mut MethodCtx, i: usize) -> Result<(), RewriteError> {
    let insn = &ctx.code.insns[i];
    let (opc, bci) = (insn.op, insn.offset);
    let is_field = (op::GETSTATIC..=op::PUTFIELD).contains(&opc);
    let is_array_load = (op::IALOAD..=op::SALOAD).contains(&opc);
    let is_array_store = (op::IASTORE..=op::SASTORE).contains(&opc);
    if !(is_field || is_array_load || is_array_store) || !ctx.data_selected(bci) {
        return Ok(());
    }
    let mut v = Vec::with_capacity(12);
    if is_field {
        let m = ctx.cp.member(ctx.code.cp_operand(i))?;
        if opc == op::PUTFIELD
            && ctx.super_call.is_some_and(|s| i < s)
            && decode_mutf8(m.owner) == ctx.class_name
        {
            return Ok(());
        }
        let wide = matches!(m.descriptor.first(), Some(b'J' | b'D'));
        let detail = format!(
            "{}.{}:{}",
            decode_mutf8(m.owner),
            decode_mutf8(m.name),
            decode_mutf8(m.descriptor)
        );
        let (kind, hook) = match opc {
            op::GETSTATIC => {
                v.push(op::ACONST_NULL);
                (SiteKind::StaticRead, Hook::FieldRead)
            }
            op::PUTSTATIC => {
                v.push(op::ACONST_NULL);
                (SiteKind::StaticWrite, Hook::FieldWrite)
            }
            op::GETFIELD => {
                v.push(op::DUP);
                (SiteKind::FieldRead, Hook::FieldRead)
            }
            _ => {
                // [obj, value] → [obj, value, obj]
                if wide {
                    v.extend([op::DUP2_X1, op::POP2, op::DUP_X2]);
                } else {
                    v.extend([op::DUP2, op::POP]);
                }
                (SiteKind::FieldWrite, Hook::FieldWrite)
            }
        };
        v.extend(ctx.site_and_hook(kind, bci, detail, hook)?);
        ctx.edits.need_stack(3);
    } else if is_array_load {
        v.push(op::DUP2);
        v.extend(ctx.site_and_hook(
            SiteKind::ArrayRead,
            bci,
            element(opc).to_string(),
            Hook::ArrayRead,
        )?);
        ctx.edits.need_stack(4);
    } else {
        v.extend(scratch(ctx, opc, true));
        v.push(op::DUP2);
        v.extend(ctx.site_and_hook(
            SiteKind::ArrayWrite,
            bci,
            element(opc).to_string(),
            Hook::ArrayWrite,
        )?);
        v.extend(scratch(ctx, opc, false));
        ctx.edits.need_stack(4);
        let scratch_end = ctx.scratch_local - ctx.code.max_locals + 2;
        ctx.edits.extra_locals = ctx.edits.extra_locals.max(scratch_end);
    }
    ctx.edits.before[i].extend(v);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_descriptors_follow_opcode_order() {
        assert_eq!(element(op::IALOAD), "I");
        assert_eq!(element(op::SALOAD), "S");
        assert_eq!(element(op::IASTORE), "I");
        assert_eq!(element(op::AASTORE), "L");
        assert_eq!(element(op::DASTORE), "D");
    }
}
