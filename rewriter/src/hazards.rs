//! Patterns in a method whose failure a search of sequentially consistent interleavings cannot
//! show, noticed while the method is read for instrumentation and reported as warnings.
//!
//! rankcheck runs one thread at a time, so every read sees the latest write: bugs that need the
//! Java memory model's reorderings never fail under it. The one such bug common enough to look
//! for is double-checked locking on a field that is not `volatile`: a thread that reads the
//! field outside the lock may see the object before its constructor's writes (or a flag before
//! the state it guards). Likewise a JDK call whose inside rankcheck runs as one step although
//! the JDK does not make it atomic: `StringBuffer.append(StringBuffer)`. Saying so is all
//! rankcheck can do; silence would read as "correct".

use crate::bytes::decode_mutf8;
use crate::classfile::ACC_VOLATILE;
use crate::code::{op, CodeAttr, Kind};
use crate::constant_pool::ConstantPool;
use crate::RewriteError;
use std::collections::HashMap;

/// Every warning of this module for one method: the patterns below, in their order.
pub fn method_warnings(
    class_name: &str,
    method_name: &str,
    fields: &[(u16, &[u8])],
    code: &CodeAttr,
    cp: &ConstantPool,
    line_at: impl Fn(u32) -> Option<u32>,
) -> Result<Vec<String>, RewriteError> {
    let mut warnings = double_checked_locking(class_name, method_name, fields, code, cp, &line_at)?;
    warnings.extend(spin_on_plain_flag(
        class_name,
        method_name,
        fields,
        code,
        cp,
        &line_at,
    )?);
    warnings.extend(unsynchronized_buffer_copy(
        class_name,
        method_name,
        code,
        cp,
        &line_at,
    )?);
    Ok(warnings)
}

/// The class declares field `name` and not `volatile`.
fn declared_plain(fields: &[(u16, &[u8])], name: &[u8]) -> bool {
    fields
        .iter()
        .any(|&(access, n)| n == name && access & ACC_VOLATILE == 0)
}

/// How far a field has got through "read, lock, read again, write".
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    ReadOutside,
    Locked,
    ReadInside,
}

/// One warning per field of this class the method uses for double-checked locking without
/// `volatile`: a read tested at once (against null, or as a flag), then a lock (`monitorenter`
/// or a `lock()` call), a tested read again, then a write. Only reference and `boolean` fields of the class itself count (a flag or a lazily made
/// object; the class's own fields are the ones whose declaration is at hand).
fn double_checked_locking(
    class_name: &str,
    method_name: &str,
    fields: &[(u16, &[u8])],
    code: &CodeAttr,
    cp: &ConstantPool,
    line_at: impl Fn(u32) -> Option<u32>,
) -> Result<Vec<String>, RewriteError> {
    let plain = |name: &[u8]| declared_plain(fields, name);
    let mut stages: HashMap<Vec<u8>, Stage> = HashMap::new();
    let mut warnings = Vec::new();
    // Locks held, in code order; the exception paths' extra releases are clamped at zero.
    let mut held = 0u32;
    for (i, insn) in code.insns.iter().enumerate() {
        match insn.op {
            op::MONITORENTER => {
                held += 1;
                lock(&mut stages);
            }
            op::MONITOREXIT => held = held.saturating_sub(1),
            op::INVOKEVIRTUAL | op::INVOKEINTERFACE => {
                let m = cp.member(code.cp_operand(i))?;
                if m.name == b"lock" && m.descriptor == b"()V" {
                    held += 1;
                    lock(&mut stages);
                } else if m.name == b"unlock" && m.descriptor == b"()V" {
                    held = held.saturating_sub(1);
                }
            }
            op::GETSTATIC | op::GETFIELD | op::PUTSTATIC | op::PUTFIELD => {
                let m = cp.member(code.cp_operand(i))?;
                let shape = matches!(m.descriptor.first(), Some(b'L' | b'[' | b'Z'));
                if decode_mutf8(m.owner) != class_name || !shape || !plain(m.name) {
                    continue;
                }
                let read = matches!(insn.op, op::GETSTATIC | op::GETFIELD);
                if read && !tested(code, i) {
                    continue;
                }
                let stage = stages.get(m.name).copied();
                match (read, stage) {
                    (true, None) if held == 0 => {
                        stages.insert(m.name.to_vec(), Stage::ReadOutside);
                    }
                    (true, Some(Stage::Locked)) if held > 0 => {
                        stages.insert(m.name.to_vec(), Stage::ReadInside);
                    }
                    (false, Some(Stage::ReadInside)) => {
                        stages.remove(m.name);
                        let simple = simple_name(class_name);
                        let field = decode_mutf8(m.name);
                        let place = place(class_name, method_name, line_at(insn.offset));
                        warnings.push(format!(
                            "{place}: double-checked locking on {simple}.{field}, which is not \
                             volatile: another thread may see it set before the writes it \
                             publishes (the Java memory model allows it). rankcheck runs \
                             sequentially consistent interleavings and cannot show that \
                             failure; declare the field volatile"
                        ));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    Ok(warnings)
}

/// The value read by instruction `i` goes straight to a null or flag test, perhaps through a
/// local (`Foo r = instance; if (r == null)`).
fn tested(code: &CodeAttr, i: usize) -> bool {
    let is_test = |j: usize| {
        code.insns
            .get(j)
            .is_some_and(|n| matches!(n.op, op::IFNULL | op::IFNONNULL | op::IFEQ | op::IFNE))
    };
    let through_local = i + 1 < code.insns.len()
        && code.local_written(i + 1).is_some()
        && code.insns.get(i + 2).is_some_and(|n| {
            matches!(n.op, op::ALOAD | op::ILOAD)
                || (op::ILOAD + 5..=op::ALOAD_0 + 3).contains(&n.op)
        });
    is_test(i + 1) || (through_local && is_test(i + 3))
}

/// One warning per call of `StringBuffer.append(StringBuffer)` in the method: the JDK reads
/// the argument's length under the argument's lock, then copies its characters without it, so
/// a thread that shortens the argument in between tears the copy. rankcheck runs each call of
/// a `StringBuffer` method as one step (its monitors are the JVM's), so it cannot show that.
fn unsynchronized_buffer_copy(
    class_name: &str,
    method_name: &str,
    code: &CodeAttr,
    cp: &ConstantPool,
    line_at: impl Fn(u32) -> Option<u32>,
) -> Result<Vec<String>, RewriteError> {
    let mut warnings = Vec::new();
    for (i, insn) in code.insns.iter().enumerate() {
        if insn.op != op::INVOKEVIRTUAL {
            continue;
        }
        let m = cp.member(code.cp_operand(i))?;
        if m.owner == b"java/lang/StringBuffer"
            && m.name == b"append"
            && m.descriptor == b"(Ljava/lang/StringBuffer;)Ljava/lang/StringBuffer;"
        {
            let place = place(class_name, method_name, line_at(insn.offset));
            warnings.push(format!(
                "{place}: StringBuffer.append(StringBuffer) reads the argument's length, then \
                 copies its characters without its lock: a thread that changes the argument in \
                 between tears the copy, and rankcheck, which runs the call as one step, cannot \
                 show that; append(other.toString()) copies under the argument's lock"
            ));
        }
    }
    Ok(warnings)
}

/// One warning per `boolean` field of this class, not `volatile`, that a loop of the method spins
/// on: the loop (a backward branch and the code back to its target) reads the field and tests
/// it at once, and calls nothing, takes no lock and does not write the field. The JIT may then
/// read the field once and never see another thread's write (the Java memory model allows it),
/// so the loop can spin for ever where every interleaving rankcheck runs ends it. A call in the
/// loop (`Thread.onSpinWait()`, `sleep`) keeps the JIT from hoisting the read.
fn spin_on_plain_flag(
    class_name: &str,
    method_name: &str,
    fields: &[(u16, &[u8])],
    code: &CodeAttr,
    cp: &ConstantPool,
    line_at: impl Fn(u32) -> Option<u32>,
) -> Result<Vec<String>, RewriteError> {
    let plain_flag = |name: &[u8], descriptor: &[u8], owner: &[u8]| {
        descriptor == b"Z" && decode_mutf8(owner) == class_name && declared_plain(fields, name)
    };
    let mut warned: Vec<Vec<u8>> = Vec::new();
    let mut warnings = Vec::new();
    for (end, insn) in code.insns.iter().enumerate() {
        let (Kind::Branch(target) | Kind::BranchWide(target)) = insn.kind else {
            continue;
        };
        if target > insn.offset {
            continue;
        }
        let start = code.index(target)?;
        let body = &code.insns[start..=end];
        let opaque = body.iter().any(|b| {
            matches!(
                b.op,
                op::INVOKEVIRTUAL
                    | op::INVOKESPECIAL
                    | op::INVOKESTATIC
                    | op::INVOKEINTERFACE
                    | op::INVOKEDYNAMIC
                    | op::MONITORENTER
                    | op::MONITOREXIT
            )
        });
        if opaque {
            continue;
        }
        for i in start..=end {
            let read = code.insns[i].op;
            if !matches!(read, op::GETSTATIC | op::GETFIELD)
                || !code
                    .insns
                    .get(i + 1)
                    .is_some_and(|n| matches!(n.op, op::IFEQ | op::IFNE))
            {
                continue;
            }
            let m = cp.member(code.cp_operand(i))?;
            if !plain_flag(m.name, m.descriptor, m.owner) || warned.iter().any(|w| w == m.name) {
                continue;
            }
            let written = (start..=end).any(|k| {
                matches!(code.insns[k].op, op::PUTSTATIC | op::PUTFIELD)
                    && cp
                        .member(code.cp_operand(k))
                        .is_ok_and(|w| w.name == m.name && w.owner == m.owner)
            });
            if written {
                continue;
            }
            warned.push(m.name.to_vec());
            let simple = simple_name(class_name);
            let field = decode_mutf8(m.name);
            let place = place(class_name, method_name, line_at(code.insns[i].offset));
            warnings.push(format!(
                "{place}: a loop that calls nothing spins on {simple}.{field}, which is not \
                 volatile: the JIT may read it once and never see another thread's write (the \
                 Java memory model allows it), so the loop may spin for ever. rankcheck runs \
                 sequentially consistent interleavings and cannot show that; declare the field \
                 volatile"
            ));
        }
    }
    Ok(warnings)
}

/// `Main` of `p/Main`.
fn simple_name(class_name: &str) -> &str {
    class_name.rsplit('/').next().unwrap_or(class_name)
}

/// `Main.get (line 8)`, or `Main.get` without a line table.
fn place(class_name: &str, method_name: &str, line: Option<u32>) -> String {
    let simple = simple_name(class_name);
    match line {
        Some(line) => format!("{simple}.{method_name} (line {line})"),
        None => format!("{simple}.{method_name}"),
    }
}

/// A lock taken: every field read before it has been checked outside the lock.
fn lock(stages: &mut HashMap<Vec<u8>, Stage>) {
    for stage in stages.values_mut() {
        if *stage == Stage::ReadOutside {
            *stage = Stage::Locked;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{instrument_class, Config};

    const LAZY: &[u8] = include_bytes!("../../tests/corpus/rewrite/rw/Lazy.class");

    #[test]
    fn only_unsafe_double_checked_locking_and_the_torn_buffer_copy_are_warned() {
        let out = instrument_class(LAZY, &Config::sync_only()).unwrap();
        let warned: Vec<&str> = out
            .warnings
            .iter()
            .filter_map(|w| w.split_once(':').map(|(place, _)| place))
            .collect();
        assert_eq!(
            warned,
            [
                "Lazy.shared (line 22)",
                "Lazy.load (line 50)",
                "Lazy.copies (line 85)",
                "Lazy.spinUntilStopped (line 97)"
            ],
            "{:#?}",
            out.warnings
        );
        assert!(out.warnings[0].contains("on Lazy.shared, which is not volatile"));
        assert!(out.warnings[1].contains("on Lazy.loaded, which is not volatile"));
        assert!(out.warnings[2].contains("StringBuffer.append(StringBuffer) reads the argument"));
        assert!(out.warnings[3].contains("spins on Lazy.stopped, which is not volatile"));
    }
}
