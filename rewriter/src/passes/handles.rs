//! Handles: atomic accesses the application makes through a `java.lang.invoke.VarHandle` or
//! `sun.misc.Unsafe` become scheduling points (announced accesses: a write for every mode that
//! may write — set, compareAndSet, compareAndExchange, getAndSet/Add/Bitwise… — a read for the
//! get modes). The field updaters (`Atomic*FieldUpdater`) are done on the JDK side, in
//! `passes::atomics`.
//!
//! **Where the hook goes.** `VarHandle` methods are signature polymorphic: each call site has
//! its own descriptor (`compareAndSet(LNode;II)Z`), so no fixed hook can replace them. The
//! call's arguments are stored in scratch locals, the hook gets copies of what it needs (the
//! handle, the first coordinate if it is a reference, the second if it is an `int`), and the
//! arguments are loaded back for the original call, which stays. `Unsafe` calls are done the
//! same way (the hook gets the object and the offset).
//!
//! **Which location.** The location of a field is (object, field): a compareAndSet through a
//! VarHandle and a plain `getfield` of the same field must be one location, or a check (plain
//! read) then act (CAS) would look independent to happens-before and the partial-order
//! strategies. A handle does not know its field's name, so the calls that make handles in
//! application code are replaced too (`Lookup.findVarHandle`, `findStaticVarHandle`,
//! `MethodHandles.arrayElementVarHandle`, `Unsafe.objectFieldOffset`) and `RC` remembers each
//! handle (weakly) with the key of `owner.name:descriptor`, the key data sites use; the
//! updaters' constructors do the same. At an access `RC` then announces (target, field) — for
//! an array-element handle (array, index), as an array store does. A handle made where
//! rankcheck did not see it (before the agent was on, by code that was not rewritten) is its
//! own location: every access through that handle conflicts with every other, which is
//! coarser than the field and so never hides an interleaving among those accesses; an
//! unknown `Unsafe` offset is the location (object, offset), the same for every Unsafe access
//! (static fields through `staticFieldBase`/`staticFieldOffset` and array elements through
//! `arrayBaseOffset` are such: they conflict with each other, not with `getstatic` or `iaload`).
//!
//! Only with data accesses on (application classes, not `Config::jdk`): the JDK's own VarHandle
//! uses (AQS state, queue nodes) stay plain; the synchronizers are modelled at their operations
//! and parks instead. The sites are not subject to `data_sites`: the points-to analysis does
//! not name them, and an extra scheduling point is sound.

use super::MethodCtx;
use crate::bytes::decode_mutf8;
use crate::code::op;
use crate::RewriteError;
use java_harness::hooks::{Hook, SiteKind};

const ICONST_M1: u8 = 0x02;
const ICONST_0: u8 = 0x03;
const ICONST_1: u8 = 0x04;

const VAR_HANDLE: &str = "java/lang/invoke/VarHandle";
const UNSAFE: &str = "sun/misc/Unsafe";

/// VarHandle access modes that only read.
const VH_READS: &[&str] = &["get", "getVolatile", "getOpaque", "getAcquire"];

/// Whether the VarHandle method `name` is an access mode that writes (`Some(true)`), reads
/// (`Some(false)`), or is not an access mode at all.
pub fn var_handle_mode(name: &str) -> Option<bool> {
    if VH_READS.contains(&name) {
        return Some(false);
    }
    let writes = name.starts_with("set")
        || name.starts_with("compareAnd")
        || name.starts_with("weakCompareAndSet")
        || name.starts_with("getAnd");
    writes.then_some(true)
}

/// Whether the Unsafe method `name(descriptor)` accesses an (object, offset) and writes
/// (`Some(true)`) or reads (`Some(false)`); `None` for everything else (raw addresses,
/// `copyMemory`, offsets, fences, …).
pub fn unsafe_mode(name: &str, descriptor: &str) -> Option<bool> {
    if !descriptor.starts_with("(Ljava/lang/Object;J") {
        return None;
    }
    if name.starts_with("compareAndSwap") || name.starts_with("getAnd") || name.starts_with("put") {
        return Some(true);
    }
    let read = name.starts_with("get")
        && name[3..]
            .trim_end_matches("Volatile")
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase());
    read.then_some(false)
}

/// The parameter types of a method descriptor, one char each (`L` for any reference).
pub(super) fn params(descriptor: &str) -> Option<Vec<u8>> {
    let inner = descriptor.strip_prefix('(')?.split_once(')')?.0.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < inner.len() {
        let start = i;
        while inner.get(i) == Some(&b'[') {
            i += 1;
        }
        let c = *inner.get(i)?;
        match c {
            b'L' => i += inner[i..].iter().position(|&b| b == b';')? + 1,
            b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' => i += 1,
            _ => return None,
        }
        out.push(if i - start > 1 && inner[start] == b'[' {
            b'L'
        } else {
            c
        });
    }
    Some(out)
}

pub(super) fn words(t: u8) -> u16 {
    if matches!(t, b'J' | b'D') {
        2
    } else {
        1
    }
}

/// `xload`/`xstore` of local `slot` for a value of type `t`.
pub(super) fn local_op(t: u8, slot: u16, store: bool) -> Vec<u8> {
    let k = match t {
        b'J' => 1,
        b'F' => 2,
        b'D' => 3,
        b'L' => 4,
        _ => 0,
    };
    let opc = if store { op::ISTORE } else { op::ILOAD } + k;
    match u8::try_from(slot) {
        Ok(s) => vec![opc, s],
        Err(_) => {
            let [a, b] = slot.to_be_bytes();
            vec![op::WIDE, opc, a, b]
        }
    }
}

/// A call's arguments stored in scratch locals above the slots other passes use, so that a
/// hook can be called with some of them (or the receiver beneath them) and the arguments
/// loaded back for the call.
pub(super) struct Spill {
    types: Vec<u8>,
    slots: Vec<u16>,
    /// Scratch slots used past the method's own locals.
    pub used: u16,
}

impl Spill {
    pub(super) fn new(ctx: &MethodCtx, types: Vec<u8>) -> Spill {
        let mut slots = Vec::with_capacity(types.len());
        let mut next = ctx.scratch_local;
        for &t in &types {
            slots.push(next);
            next += words(t);
        }
        Spill {
            types,
            slots,
            used: next - ctx.code.max_locals,
        }
    }

    /// Stores every argument, last first (the stack then holds what lay beneath them).
    pub(super) fn store(&self) -> Vec<u8> {
        let mut v = Vec::new();
        for (k, &t) in self.types.iter().enumerate().rev() {
            v.extend(local_op(t, self.slots[k], true));
        }
        v
    }

    /// Loads argument `k` (of type `t`).
    pub(super) fn load_one(&self, k: usize, t: u8) -> Vec<u8> {
        local_op(t, self.slots[k], false)
    }

    /// Loads every argument back, first first.
    pub(super) fn load(&self) -> Vec<u8> {
        let mut v = Vec::new();
        for (k, &t) in self.types.iter().enumerate() {
            v.extend(local_op(t, self.slots[k], false));
        }
        v
    }
}

/// Handles instruction `i` if it is a VarHandle or Unsafe access; true when it was.
pub fn on_insn(ctx: &mut MethodCtx, i: usize) -> Result<bool, RewriteError> {
    if ctx.code.insns[i].op != op::INVOKEVIRTUAL || !ctx.config.data {
        return Ok(false);
    }
    let m = ctx.cp.member(ctx.code.cp_operand(i))?;
    let is_vh = m.owner == VAR_HANDLE.as_bytes();
    if !is_vh && m.owner != UNSAFE.as_bytes() {
        return Ok(false);
    }
    let name = decode_mutf8(m.name);
    let descriptor = decode_mutf8(m.descriptor);
    let write = if is_vh {
        var_handle_mode(&name)
    } else {
        unsafe_mode(&name, &descriptor)
    };
    let (Some(write), Some(types)) = (write, params(&descriptor)) else {
        return Ok(false);
    };
    let (first, second) = (types.first().copied(), types.get(1).copied());
    let spill = Spill::new(ctx, types);
    let mut v = spill.store();
    let hook = if is_vh {
        // [handle] → [handle, handle, coord0 | null, coord1 | -1]
        v.push(op::DUP);
        match first {
            Some(b'L') => v.extend(spill.load_one(0, b'L')),
            _ => v.push(op::ACONST_NULL),
        }
        match second {
            Some(b'I') => v.extend(spill.load_one(1, b'I')),
            _ => v.push(ICONST_M1),
        }
        Hook::VarHandleAccess
    } else {
        // [unsafe] → [unsafe, object, offset]
        v.extend(spill.load_one(0, b'L'));
        v.extend(spill.load_one(1, b'J'));
        Hook::UnsafeAccess
    };
    v.push(if write { ICONST_1 } else { ICONST_0 });
    let bci = ctx.code.insns[i].offset;
    let owner = if is_vh { VAR_HANDLE } else { UNSAFE };
    let site = ctx.site(SiteKind::Call(hook), bci, format!("{owner}.{name}"))?;
    v.extend(&site);
    v.extend(ctx.call_hook(hook)?);
    v.extend(spill.load());
    ctx.edits.before[i].extend(v);
    ctx.edits.need_stack(6);
    if super::atomics::is_compare_and_set(&name, &descriptor) {
        let report = super::atomics::cas_report(ctx, &site)?;
        ctx.edits.after[i].extend(report);
    }
    ctx.edits.extra_locals = ctx.edits.extra_locals.max(spill.used);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_modes_read_or_write() {
        assert_eq!(var_handle_mode("compareAndSet"), Some(true));
        assert_eq!(var_handle_mode("weakCompareAndSetPlain"), Some(true));
        assert_eq!(var_handle_mode("compareAndExchangeAcquire"), Some(true));
        assert_eq!(var_handle_mode("getAndBitwiseXorRelease"), Some(true));
        assert_eq!(var_handle_mode("setOpaque"), Some(true));
        assert_eq!(var_handle_mode("getAcquire"), Some(false));
        assert_eq!(var_handle_mode("get"), Some(false));
        assert_eq!(var_handle_mode("varType"), None);
        assert_eq!(var_handle_mode("toMethodHandle"), None);
        let d = "(Ljava/lang/Object;JII)Z";
        assert_eq!(unsafe_mode("compareAndSwapInt", d), Some(true));
        assert_eq!(
            unsafe_mode("getAndAddLong", "(Ljava/lang/Object;JJ)J"),
            Some(true)
        );
        assert_eq!(
            unsafe_mode("putOrderedInt", "(Ljava/lang/Object;JI)V"),
            Some(true)
        );
        assert_eq!(
            unsafe_mode("getIntVolatile", "(Ljava/lang/Object;J)I"),
            Some(false)
        );
        assert_eq!(
            unsafe_mode("getObject", "(Ljava/lang/Object;J)Ljava/lang/Object;"),
            Some(false)
        );
        assert_eq!(unsafe_mode("getInt", "(J)I"), None);
        assert_eq!(
            unsafe_mode("copyMemory", "(Ljava/lang/Object;JLjava/lang/Object;JJ)V"),
            None
        );
    }

    #[test]
    fn descriptors_split_into_parameters() {
        assert_eq!(
            params("(LNode;[[IJLjava/lang/String;D)Z").unwrap(),
            b"LLJLD".to_vec()
        );
        assert_eq!(params("()V").unwrap(), Vec::<u8>::new());
        assert!(params("(Q)V").is_none());
    }
}
