//! The instrumentation passes and the one function that assembles them.
//!
//! Each pass looks at one instruction at a time (and, for the sync pass, at the method as a
//! whole) and records its changes in the method's [`Edits`]; the Code layer then lays out and
//! re-encodes the method once. Sites are numbered in method order, then bytecode order.

pub mod alloc;
pub mod atomics;
pub mod calls;
pub mod collection_calls;
pub mod data;
pub mod handles;
pub mod identity;
pub mod real_monitors;
pub mod sync;

use crate::bytes::{decode_mutf8, put_u2, put_u4};
use crate::classfile::{
    ClassFile, ACC_ABSTRACT, ACC_INTERFACE, ACC_MODULE, ACC_NATIVE, ACC_STATIC,
};
use crate::code::{op, CodeAttr, Edits};
use crate::constant_pool::ConstantPool;
use crate::{Config, Instrumented, RewriteError};
use java_harness::hooks::{site_id, Hook, SiteKind, SiteRecord, INSTRUMENTED_ATTRIBUTE, RC_CLASS};

/// The source line of byte offset `bci`, from a method's `(start offset, line)` table.
fn line_at(lines: &[(u32, u32)], bci: u32) -> Option<u32> {
    let i = lines.partition_point(|&(pc, _)| pc <= bci);
    (i > 0).then(|| lines[i - 1].1)
}

/// Everything a pass sees while it works on one method.
pub struct MethodCtx<'m, 'a> {
    pub config: &'m Config,
    pub class_name: &'m str,
    pub this_class: u16,
    pub major: u16,
    pub method_name: String,
    pub descriptor: String,
    pub access: u16,
    pub code: &'m CodeAttr<'a>,
    pub cp: &'m mut ConstantPool<'a>,
    pub edits: Edits,
    lines: Vec<(u32, u32)>,
    sites: &'m mut Vec<SiteRecord>,
    /// For constructors: the instruction index of the `super(…)`/`this(…)` call; `putfield`
    /// before it writes to an uninitialized `this`.
    pub super_call: Option<usize>,
    /// First local free for scratch use (the method's own max_locals).
    pub scratch_local: u16,
    /// The class's bridges for calls into real monitors (see `passes::real_monitors`).
    pub bridges: &'m mut real_monitors::Bridges,
}

impl MethodCtx<'_, '_> {
    pub fn is_static(&self) -> bool {
        self.access & ACC_STATIC != 0
    }

    fn line_at(&self, bci: u32) -> Option<u32> {
        line_at(&self.lines, bci)
    }

    /// Records a site and returns `ldc2_w <site id>`.
    pub fn site(
        &mut self,
        kind: SiteKind,
        bci: u32,
        detail: String,
    ) -> Result<Vec<u8>, RewriteError> {
        let index = self.sites.len() as u32;
        if index >= java_harness::hooks::MAX_SITES_PER_CLASS {
            return Err(RewriteError::TooLarge("too many sites in one class".into()));
        }
        let id = site_id(self.class_name, index);
        self.sites.push(SiteRecord {
            id,
            class: self.class_name.to_string(),
            method: self.method_name.clone(),
            descriptor: self.descriptor.clone(),
            bci,
            line: self.line_at(bci),
            kind,
            detail,
        });
        let c = self.cp.add_long(id)?;
        let mut v = vec![op::LDC2_W];
        put_u2(&mut v, c);
        Ok(v)
    }

    /// `invokestatic RC.<hook>`.
    pub fn call_hook(&mut self, hook: Hook) -> Result<Vec<u8>, RewriteError> {
        let m = self
            .cp
            .add_methodref(RC_CLASS, hook.name(), hook.descriptor())?;
        let mut v = vec![op::INVOKESTATIC];
        put_u2(&mut v, m);
        Ok(v)
    }

    /// `ldc2_w site; invokestatic RC.<hook>` for a new site.
    pub fn site_and_hook(
        &mut self,
        kind: SiteKind,
        bci: u32,
        detail: String,
        hook: Hook,
    ) -> Result<Vec<u8>, RewriteError> {
        let mut v = self.site(kind, bci, detail)?;
        v.extend(self.call_hook(hook)?);
        Ok(v)
    }

    fn selected(
        &self,
        filter: &Option<std::sync::Arc<std::collections::HashSet<crate::SiteKey>>>,
        bci: u32,
    ) -> bool {
        match filter {
            None => true,
            Some(set) => set.contains(&(
                self.class_name.to_string(),
                self.method_name.clone(),
                self.descriptor.clone(),
                bci,
            )),
        }
    }

    /// True when the data site at `bci` is selected (no filter selects all).
    pub fn data_selected(&self, bci: u32) -> bool {
        self.selected(&self.config.data_sites, bci)
    }

    /// True when the allocation at `bci` is selected (no filter selects all).
    pub fn alloc_selected(&self, bci: u32) -> bool {
        self.selected(&self.config.alloc_sites, bci)
    }
}

/// For a constructor: the index of the instruction that calls `super(…)` or `this(…)` — the
/// first `invokespecial <init>` not matched by an earlier `new`.
fn find_super_call(code: &CodeAttr, cp: &ConstantPool) -> Option<usize> {
    let mut pending = 0usize;
    for (i, insn) in code.insns.iter().enumerate() {
        match insn.op {
            op::NEW => pending += 1,
            op::INVOKESPECIAL
                if cp
                    .member(code.cp_operand(i))
                    .is_ok_and(|m| m.name == b"<init>") =>
            {
                if pending == 0 {
                    return Some(i);
                }
                pending -= 1;
            }
            _ => {}
        }
    }
    None
}

/// `ldc_w <this class>; ldc2_w <site>; invokestatic RC.classInitBegin` first in a static
/// initializer (`ldc` of a class needs class file version 49).
fn class_init_mark(ctx: &mut MethodCtx) -> Result<(), RewriteError> {
    if !ctx.config.class_init_marks || ctx.method_name != "<clinit>" || ctx.major < 49 {
        return Ok(());
    }
    let [a, b] = ctx.this_class.to_be_bytes();
    let mut v = vec![op::LDC_W, a, b];
    v.extend(ctx.site_and_hook(
        SiteKind::ClassInitBegin,
        0,
        String::new(),
        Hook::ClassInitBegin,
    )?);
    ctx.edits.prologue.extend(v);
    ctx.edits.need_stack(3);
    Ok(())
}

/// Instruments one method; `None` when nothing changed.
fn instrument_method(ctx: &mut MethodCtx) -> Result<Option<Vec<u8>>, RewriteError> {
    let code = ctx.code;
    // The passes, in order. Collection calls first (a point before the call, with the stack
    // left as it was). Calls next: a replaced invoke is not looked at again; a call into a
    // real monitor is bridged (`real_monitors`), and not looked at again either. Sync next
    // (monitorenter/monitorexit, and the synchronized-method desugaring, which also hooks
    // every return). Data accesses and allocations last. Only a collection call and a real
    // monitor's bridge share an instruction, the first's code before the second's, so the
    // order only fixes the order of site numbers within an instruction.
    sync::on_method_entry(ctx)?;
    class_init_mark(ctx)?;
    if ctx.config.atomic_entry {
        atomics::on_method_entry(ctx)?;
    }
    let mut alloc = alloc::AllocState::default();
    for i in 0..code.insns.len() {
        // First, so that its code sees the call's arguments as they are (see there).
        collection_calls::on_insn(ctx, i)?;
        if calls::on_insn(ctx, i)? || real_monitors::on_insn(ctx, i)? {
            if ctx.config.allocations {
                alloc::on_insn(ctx, &mut alloc, i)?;
            }
            continue;
        }
        sync::on_insn(ctx, i)?;
        if ctx.config.data {
            data::on_insn(ctx, i)?;
        }
        if ctx.config.allocations {
            alloc::on_insn(ctx, &mut alloc, i)?;
        }
    }
    sync::on_method_exit(ctx)?;
    if ctx.config.stress_padding > 0 {
        // Test aid: nops in the middle of the method, so that branches across it widen.
        let mid = code.insns.len() / 2;
        let pad = ctx.config.stress_padding as usize;
        ctx.edits.before[mid].splice(0..0, std::iter::repeat_n(0u8, pad));
    }
    if ctx.edits.is_empty() {
        return Ok(None);
    }
    let needs_frames = ctx.major >= 50;
    let method = crate::frames::MethodInfo {
        class: ctx.class_name,
        name: &ctx.method_name,
        descriptor: &ctx.descriptor,
        is_static: ctx.is_static(),
    };
    crate::code::apply(code, &ctx.edits, ctx.cp, &method, needs_frames).map(Some)
}

fn encode_method(class: &ClassFile, index: usize, access: u16, new_code: Vec<u8>) -> Vec<u8> {
    let m = &class.methods[index];
    let mut out = Vec::with_capacity(new_code.len() + 64);
    put_u2(&mut out, access);
    put_u2(&mut out, m.name_index);
    put_u2(&mut out, m.descriptor_index);
    put_u2(&mut out, m.attributes.len() as u16);
    for (ai, a) in m.attributes.iter().enumerate() {
        put_u2(&mut out, a.name_index);
        if Some(ai) == m.code {
            put_u4(&mut out, new_code.len() as u32);
            out.extend_from_slice(&new_code);
        } else {
            put_u4(&mut out, a.info.len() as u32);
            out.extend_from_slice(&class.bytes[a.info.clone()]);
        }
    }
    out
}

/// True for rankcheck's own runtime classes (RC, the harness, the test tools), which are never
/// instrumented: they are what the hooks call.
pub fn is_rankcheck_runtime(name: &str) -> bool {
    ["rankcheck/rt/", "rankcheck/harness/", "rankcheck/tools/"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// True for names in the JDK's package prefixes (`java/`, `javax/`, `jdk/`, `sun/`,
/// `com/sun/`). Not every such class is the JDK's: the agent narrows it to the packages of the
/// JVM's boot layer (`agent::platform`), and the class path's own classes are instrumented.
pub fn is_jdk_class(name: &str) -> bool {
    ["java/", "javax/", "jdk/", "sun/", "com/sun/"]
        .iter()
        .any(|p| name.starts_with(p))
}

pub fn instrument_class(bytes: &[u8], config: &Config) -> Result<Instrumented, RewriteError> {
    let mut class = ClassFile::parse(bytes)?;
    let class_name = decode_mutf8(class.name);
    let unchanged = |class_name: String| Instrumented {
        bytes: bytes.to_vec(),
        class: class_name,
        sites: Vec::new(),
        methods: 0,
        changed: false,
        warnings: Vec::new(),
    };
    if class.access & ACC_MODULE != 0
        || class.has_attribute(INSTRUMENTED_ATTRIBUTE)
        || is_rankcheck_runtime(&class_name)
    {
        return Ok(unchanged(class_name));
    }
    let mut sites = Vec::new();
    let mut warnings = Vec::new();
    let mut new_methods: Vec<Option<Vec<u8>>> = vec![None; class.methods.len()];
    let mut count = 0;
    let mut bridges =
        real_monitors::Bridges::new(config.real_monitor_calls && class.access & ACC_INTERFACE == 0);
    let methods = class.methods.clone();
    for (mi, m) in methods.iter().enumerate() {
        let Some(code_index) = m.code else { continue };
        if m.access & (ACC_ABSTRACT | ACC_NATIVE) != 0 {
            continue;
        }
        let code = CodeAttr::parse(class.bytes, m.attributes[code_index].info.clone())?;
        let method_name = class.cp.utf8_string(m.name_index)?;
        let descriptor = class.cp.utf8_string(m.descriptor_index)?;
        let lines = code.line_numbers(&class.cp);
        let super_call = if method_name == "<init>" {
            find_super_call(&code, &class.cp)
        } else {
            None
        };
        warnings.extend(crate::hazards::method_warnings(
            &class_name,
            &method_name,
            &class.fields,
            &code,
            &class.cp,
            |bci| line_at(&lines, bci),
        )?);
        let sites_before = sites.len();
        let mut ctx = MethodCtx {
            config,
            class_name: &class_name,
            this_class: class.this_class,
            major: class.major,
            method_name,
            descriptor,
            access: m.access,
            // Past the lock local of a desugared static synchronized method, if any.
            scratch_local: code.max_locals
                + u16::from(sync::lock_slot(m.access, class.major, code.max_locals).is_some()),
            edits: Edits::new(code.insns.len()),
            code: &code,
            cp: &mut class.cp,
            lines,
            sites: &mut sites,
            super_call,
            bridges: &mut bridges,
        };
        match instrument_method(&mut ctx) {
            Ok(Some(new_code)) => {
                let access = sync::new_access(&ctx);
                new_methods[mi] = Some(encode_method(&class, mi, access, new_code));
                count += 1;
            }
            Ok(None) => {}
            Err(RewriteError::TooLarge(why) | RewriteError::Unsupported(why)) => {
                warnings.push(format!(
                    "{class_name}.{}{} left uninstrumented: {why}",
                    ctx.method_name, ctx.descriptor
                ));
                sites.truncate(sites_before);
            }
            Err(e) => return Err(e),
        }
    }
    // Method references to replaced JDK methods (`Thread::start`) are calls too.
    let handles = calls::redirect_method_handles(&mut class.cp, config)?;
    let mut added =
        real_monitors::bridge_methods(&bridges, &mut class.cp, class.major, &class_name)?;
    if identity::wants_override(&class, config)? {
        added.push(identity::override_method(&mut class.cp)?);
    }
    if count == 0 && handles == 0 && added.is_empty() {
        let mut out = unchanged(class_name);
        out.warnings = warnings;
        return Ok(out);
    }
    let mark = class.cp.add_utf8(INSTRUMENTED_ATTRIBUTE)?;
    let mut attr = Vec::with_capacity(6);
    put_u2(&mut attr, mark);
    put_u4(&mut attr, 0);
    let out = class.write(&new_methods, &added, &[attr]);
    Ok(Instrumented {
        bytes: out,
        class: class_name,
        sites,
        methods: count,
        changed: true,
        warnings,
    })
}

/// Parses `bytes` and writes it back with every Code attribute decoded and re-encoded through
/// the editor with no edits (instructions, tables, frames and type annotations all re-laid
/// out). The output equals the input for any class whose encoding was already canonical,
/// which is what compilers emit; it checks the Code layer on real classes.
pub fn round_trip(bytes: &[u8]) -> Result<Vec<u8>, RewriteError> {
    let mut class = ClassFile::parse(bytes)?;
    let methods = class.methods.clone();
    let mut new_methods: Vec<Option<Vec<u8>>> = vec![None; methods.len()];
    for (mi, m) in methods.iter().enumerate() {
        let Some(ci) = m.code else { continue };
        let code = CodeAttr::parse(class.bytes, m.attributes[ci].info.clone())?;
        let edits = Edits::new(code.insns.len());
        let class_name = decode_mutf8(class.name);
        let name = class.cp.utf8_string(m.name_index)?;
        let descriptor = class.cp.utf8_string(m.descriptor_index)?;
        let method = crate::frames::MethodInfo {
            class: &class_name,
            name: &name,
            descriptor: &descriptor,
            is_static: m.access & ACC_STATIC != 0,
        };
        let new_code =
            crate::code::apply(&code, &edits, &mut class.cp, &method, class.major >= 50)?;
        new_methods[mi] = Some(encode_method(&class, mi, m.access, new_code));
    }
    Ok(class.write(&new_methods, &[], &[]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;

    const BASICS: &[u8] = include_bytes!("../../../tests/corpus/rewrite/rw/Basics.class");
    const THREADS: &[u8] = include_bytes!("../../../tests/corpus/rewrite/rw/Threads.class");

    #[test]
    fn data_site_filter_keeps_sync_and_calls() {
        let all = instrument_class(BASICS, &Config::all()).unwrap();
        let chosen = all.sites.iter().find(|s| s.kind.is_data()).unwrap();
        let key = (
            chosen.class.clone(),
            chosen.method.clone(),
            chosen.descriptor.clone(),
            chosen.bci,
        );
        let config = Config {
            data_sites: Some(Arc::new(HashSet::from([key]))),
            ..Config::all()
        };
        let some = instrument_class(BASICS, &config).unwrap();
        let data: Vec<_> = some.sites.iter().filter(|s| s.kind.is_data()).collect();
        assert_eq!(data.len(), 1);
        assert_eq!((data[0].bci, &data[0].detail), (chosen.bci, &chosen.detail));
        let calls = |sites: &[SiteRecord]| {
            sites
                .iter()
                .filter(|s| matches!(s.kind, SiteKind::Call(_)))
                .count()
        };
        assert!(calls(&some.sites) > 0);
        assert_eq!(calls(&some.sites), calls(&all.sites));
    }

    #[test]
    fn synchronized_methods_are_desugared_once() {
        let out = instrument_class(THREADS, &Config::sync_only()).unwrap();
        let class = ClassFile::parse(&out.bytes).unwrap();
        for m in &class.methods {
            assert_eq!(m.access & crate::classfile::ACC_SYNCHRONIZED, 0);
        }
        let enters = out
            .sites
            .iter()
            .filter(|s| s.kind == SiteKind::SyncMethodEnter)
            .count();
        assert_eq!(enters, 8);
        // Marked, so a second pass changes nothing.
        let again = instrument_class(&out.bytes, &Config::all()).unwrap();
        assert!(!again.changed);
        assert_eq!(again.bytes, out.bytes);
    }

    #[test]
    fn site_ids_count_up_in_method_then_bytecode_order() {
        let out = instrument_class(BASICS, &Config::all()).unwrap();
        for (i, s) in out.sites.iter().enumerate() {
            assert_eq!(s.id, site_id("rw/Basics", i as u32));
        }
        let mut last: Option<(&str, &str, u32)> = None;
        for s in &out.sites {
            if let Some((m, d, bci)) = last {
                if m == s.method && d == s.descriptor {
                    assert!(s.bci >= bci, "{} after bci {bci}", s.to_line());
                }
            }
            last = Some((&s.method, &s.descriptor, s.bci));
        }
    }

    /// Corrupted and truncated classes give an error or a class, never a panic.
    #[test]
    fn mutated_classes_never_panic() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let config = Config::all();
        for original in [BASICS, THREADS] {
            for round in 0..800 {
                let mut bytes = original.to_vec();
                if round % 3 == 0 {
                    bytes.truncate(next() as usize % bytes.len());
                } else {
                    for _ in 0..1 + next() % 4 {
                        let i = next() as usize % bytes.len();
                        bytes[i] = next() as u8;
                    }
                }
                let _ = instrument_class(&bytes, &config);
                let _ = round_trip(&bytes);
            }
        }
    }
}
