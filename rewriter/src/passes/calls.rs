//! Calls: every `Placement::Replace` hook. The invoke is replaced by `invokestatic RC.<hook>`
//! with the same arguments plus the site id, whatever the invoke kind, when its owner resolves
//! (through the class hierarchy) to the JDK method the hook stands for. `invokespecial` (super
//! calls, private methods) is left alone, except `new Random()`: `Random.<init>()V` becomes
//! `Random.<init>(J)V` with a seed from `RC.randomSeed`, and `super.hashCode()` reaching
//! `Object.hashCode`, which becomes the pinned identity hash (see `passes::identity`).
//! VarHandle and Unsafe accesses are `passes::handles`'s, called from here; the calls that
//! make handles are replaced only with data accesses on (they belong to them).

use super::MethodCtx;
use crate::bytes::{decode_mutf8, put_u2};
use crate::code::op;
use crate::constant_pool::{
    ConstantPool, MemberRef, REF_INVOKE_INTERFACE, REF_INVOKE_STATIC, REF_INVOKE_VIRTUAL,
};
use crate::{Config, RewriteError};
use java_harness::hooks::{Hook, Placement, SiteKind};

/// True when some hook replaces a method called `name` with `descriptor`.
pub fn is_replaced_name(name: &str, descriptor: &str) -> bool {
    Hook::ALL.iter().any(|h| {
        h.replaced_call()
            .is_some_and(|m| m.name == name && m.descriptor == descriptor)
    })
}

/// True for the hooks that remember which field a VarHandle or Unsafe offset stands for: part
/// of the data accesses (see `passes::handles`), so application classes only.
fn makes_handle(hook: Hook) -> bool {
    matches!(
        hook,
        Hook::FindVarHandle
            | Hook::FindStaticVarHandle
            | Hook::ArrayElementVarHandle
            | Hook::UnsafeObjectFieldOffset
    )
}

/// True when the hook replaces a static method (its descriptor has no receiver).
fn replaces_static(hook: Hook) -> bool {
    let m = hook.replaced_call().expect("replace hook");
    let (params, ret) = m.descriptor[1..].split_once(')').expect("descriptor");
    hook.descriptor() == format!("({params}J){ret}")
}

/// The hook that replaces a call of `m` (`is_static`: an `invokestatic`), if any.
fn replacing_hook(config: &Config, m: &MemberRef, is_static: bool) -> Option<Hook> {
    let name = decode_mutf8(m.name);
    let descriptor = decode_mutf8(m.descriptor);
    let owner = decode_mutf8(m.owner);
    Hook::ALL.iter().copied().find(|&h| {
        h.placement() == Placement::Replace
            && h != Hook::RandomSeed
            && (config.pin_nondeterminism || !h.pins_nondeterminism())
            && (config.data || !makes_handle(h))
            && h.replaced_call().is_some_and(|r| {
                r.name == name
                    && r.descriptor == descriptor
                    && replaces_static(h) == is_static
                    && (r.owner == owner
                        || config
                            .hierarchy
                            .resolves_to(&owner, r.owner, &name, &descriptor))
            })
    })
}

/// Points every method-handle constant that names a replaced JDK method (a method reference
/// such as `Thread::start`, or an `ldc` of a handle) at the hook's bridge in `RC`
/// ([`Hook::bridge_descriptor`]): without it the lambda calls the JDK method directly and the
/// thread it starts, the monitor it waits on, escape the scheduler. Returns how many changed.
pub fn redirect_method_handles(
    cp: &mut ConstantPool,
    config: &Config,
) -> Result<usize, RewriteError> {
    let mut changed = 0;
    for index in cp.method_handles() {
        let (kind, member) = cp.method_handle(index)?;
        if !matches!(
            kind,
            REF_INVOKE_VIRTUAL | REF_INVOKE_STATIC | REF_INVOKE_INTERFACE
        ) {
            continue;
        }
        let m = cp.member(member)?;
        let Some(hook) = replacing_hook(config, &m, kind == REF_INVOKE_STATIC) else {
            continue;
        };
        let Some(descriptor) = hook.bridge_descriptor() else {
            continue;
        };
        let bridge = cp.add_methodref(java_harness::hooks::RC_CLASS, hook.name(), &descriptor)?;
        cp.set_method_handle(index, REF_INVOKE_STATIC, bridge)?;
        changed += 1;
    }
    Ok(changed)
}

/// Handles instruction `i` if it is a replaced call; true when it was.
pub fn on_insn(ctx: &mut MethodCtx, i: usize) -> Result<bool, RewriteError> {
    let opc = ctx.code.insns[i].op;
    if !(op::INVOKEVIRTUAL..=op::INVOKEINTERFACE).contains(&opc) {
        return Ok(false);
    }
    if super::handles::on_insn(ctx, i)? {
        return Ok(true);
    }
    let m = ctx.cp.member(ctx.code.cp_operand(i))?;
    let bci = ctx.code.insns[i].offset;
    if opc == op::INVOKESPECIAL {
        if ctx.config.pin_nondeterminism
            && m.owner == b"java/util/Random"
            && m.name == b"<init>"
            && m.descriptor == b"()V"
        {
            let mut before = ctx.site_and_hook(
                SiteKind::Call(Hook::RandomSeed),
                bci,
                String::new(),
                Hook::RandomSeed,
            )?;
            let init = ctx.cp.add_methodref("java/util/Random", "<init>", "(J)V")?;
            let mut replace = vec![op::INVOKESPECIAL];
            put_u2(&mut replace, init);
            ctx.edits.before[i].append(&mut before);
            ctx.edits.replace[i] = Some(replace);
            ctx.edits.need_stack(2);
            return Ok(true);
        }
        if ctx.config.pin_nondeterminism
            && super::identity::is_object_hash_code(m.owner, m.name, m.descriptor)
        {
            // `super.hashCode()` reaching `Object.hashCode`: the pinned identity hash, as the
            // override `passes::identity` gives classes that inherit it.
            return replace_with(ctx, i, Hook::IdentityHashCode);
        }
        return Ok(false);
    }
    // Most calls are to no hooked method: compare the raw name before decoding anything.
    let hooked_name = Hook::ALL.iter().any(|h| {
        h.replaced_call()
            .is_some_and(|r| r.name.as_bytes() == m.name && r.descriptor.as_bytes() == m.descriptor)
    });
    if !hooked_name {
        return Ok(false);
    }
    match replacing_hook(ctx.config, &m, opc == op::INVOKESTATIC) {
        Some(hook) => replace_with(ctx, i, hook),
        None => Ok(false),
    }
}

/// Replaces the invoke at `i` by `ldc2_w <new site>; invokestatic RC.<hook>`.
fn replace_with(ctx: &mut MethodCtx, i: usize, hook: Hook) -> Result<bool, RewriteError> {
    let bci = ctx.code.insns[i].offset;
    let mut before = ctx.site(SiteKind::Call(hook), bci, String::new())?;
    ctx.edits.before[i].append(&mut before);
    ctx.edits.replace[i] = Some(ctx.call_hook(hook)?);
    ctx.edits.need_stack(2);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_and_instance_hooks_are_told_apart() {
        assert!(replaces_static(Hook::Sleep));
        assert!(replaces_static(Hook::Unpark));
        assert!(replaces_static(Hook::IdentityHashCode));
        assert!(!replaces_static(Hook::Join));
        assert!(!replaces_static(Hook::RuntimeExit));
        assert!(!replaces_static(Hook::WaitTimedNanos));
    }
}
