//! The Code attribute, owned here: instructions decoded with their byte offsets, an editor that
//! inserts branch-free code before and after instructions (or replaces an instruction by
//! branch-free code), and re-encoding that recomputes every offset the attribute holds —
//! branches (widened past ±32 KiB), switch padding, the exception table, line and local-variable
//! tables, StackMapTable frames (with `Uninitialized(offset)`) and type-annotation offsets.
//!
//! Where inserted code sits, relative to jumps and tables:
//! - code inserted *before* instruction `i` is entered by every jump to `i`, and belongs to `i`
//!   for exception ranges, line numbers and frames (it runs with the state `i` starts with);
//! - code inserted *after* `i` runs only when `i` completes normally and falls through; jumps to
//!   `i + 1` skip it, and an exception range that ends at `i + 1` does not cover it;
//! - the method prologue runs once: jumps to offset 0 land after it;
//! - `Uninitialized(offset)` keeps naming the `new` instruction itself.

use crate::bytes::{put_u2, put_u4, Reader};
use crate::classfile::Attribute;
use crate::constant_pool::ConstantPool;
use crate::stackmap::{self, Frame};
use crate::RewriteError;

pub mod op {
    pub const ACONST_NULL: u8 = 0x01;
    pub const LDC_W: u8 = 0x13;
    pub const LDC2_W: u8 = 0x14;
    pub const LCONST_0: u8 = 0x09;
    pub const ILOAD: u8 = 0x15;
    pub const LLOAD: u8 = 0x16;
    pub const FLOAD: u8 = 0x17;
    pub const DLOAD: u8 = 0x18;
    pub const ALOAD: u8 = 0x19;
    pub const ALOAD_0: u8 = 0x2a;
    pub const IALOAD: u8 = 0x2e;
    pub const SALOAD: u8 = 0x35;
    pub const ISTORE: u8 = 0x36;
    pub const LSTORE: u8 = 0x37;
    pub const FSTORE: u8 = 0x38;
    pub const DSTORE: u8 = 0x39;
    pub const ASTORE: u8 = 0x3a;
    pub const ASTORE_0: u8 = 0x4b;
    pub const IASTORE: u8 = 0x4f;
    pub const LASTORE: u8 = 0x50;
    pub const FASTORE: u8 = 0x51;
    pub const DASTORE: u8 = 0x52;
    pub const AASTORE: u8 = 0x53;
    pub const BASTORE: u8 = 0x54;
    pub const CASTORE: u8 = 0x55;
    pub const SASTORE: u8 = 0x56;
    pub const POP: u8 = 0x57;
    pub const POP2: u8 = 0x58;
    pub const DUP: u8 = 0x59;
    pub const DUP_X2: u8 = 0x5b;
    pub const DUP2: u8 = 0x5c;
    pub const DUP2_X1: u8 = 0x5d;
    pub const IFEQ: u8 = 0x99;
    pub const IFNE: u8 = 0x9a;
    pub const IF_ACMPEQ: u8 = 0xa5;
    pub const IF_ACMPNE: u8 = 0xa6;
    pub const GOTO: u8 = 0xa7;
    pub const JSR: u8 = 0xa8;
    pub const TABLESWITCH: u8 = 0xaa;
    pub const LOOKUPSWITCH: u8 = 0xab;
    pub const IRETURN: u8 = 0xac;
    pub const RETURN: u8 = 0xb1;
    pub const GETSTATIC: u8 = 0xb2;
    pub const PUTSTATIC: u8 = 0xb3;
    pub const GETFIELD: u8 = 0xb4;
    pub const PUTFIELD: u8 = 0xb5;
    pub const INVOKEVIRTUAL: u8 = 0xb6;
    pub const INVOKESPECIAL: u8 = 0xb7;
    pub const INVOKESTATIC: u8 = 0xb8;
    pub const INVOKEINTERFACE: u8 = 0xb9;
    pub const INVOKEDYNAMIC: u8 = 0xba;
    pub const NEW: u8 = 0xbb;
    pub const NEWARRAY: u8 = 0xbc;
    pub const ANEWARRAY: u8 = 0xbd;
    pub const ATHROW: u8 = 0xbf;
    pub const MONITORENTER: u8 = 0xc2;
    pub const MONITOREXIT: u8 = 0xc3;
    pub const WIDE: u8 = 0xc4;
    pub const MULTIANEWARRAY: u8 = 0xc5;
    pub const IFNULL: u8 = 0xc6;
    pub const IFNONNULL: u8 = 0xc7;
    pub const GOTO_W: u8 = 0xc8;
    pub const JSR_W: u8 = 0xc9;
}

/// What an instruction refers to by offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No offsets inside: written back as its original bytes (or its replacement).
    Plain,
    /// A 16-bit branch (`if*`, `goto`, `jsr`) to an original offset.
    Branch(u32),
    /// `goto_w` / `jsr_w` to an original offset.
    BranchWide(u32),
    /// tableswitch (`keys` = None, targets for low..=high) or lookupswitch.
    Switch {
        default: u32,
        low: i32,
        keys: Option<Vec<i32>>,
        targets: Vec<u32>,
    },
}

#[derive(Clone, Debug)]
pub struct Insn {
    /// Offset in the original code.
    pub offset: u32,
    pub len: u32,
    pub op: u8,
    pub kind: Kind,
}

#[derive(Clone, Copy, Debug)]
pub struct ExceptionEntry {
    pub start: u32,
    pub end: u32,
    pub handler: u32,
    pub catch_type: u16,
}

/// A decoded Code attribute of one method.
pub struct CodeAttr<'a> {
    pub max_stack: u16,
    pub max_locals: u16,
    pub code: &'a [u8],
    pub insns: Vec<Insn>,
    /// `index_at[offset]`: the instruction starting at `offset`, or `u32::MAX`;
    /// `index_at[code.len()]` is `insns.len()`.
    pub index_at: Vec<u32>,
    pub exceptions: Vec<ExceptionEntry>,
    pub attributes: Vec<Attribute>,
    class_bytes: &'a [u8],
}

fn operand_u2(code: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([code[at], code[at + 1]])
}

impl<'a> CodeAttr<'a> {
    /// Decodes the Code attribute whose info bytes are `class_bytes[info]`.
    pub fn parse(
        class_bytes: &'a [u8],
        info: std::ops::Range<usize>,
    ) -> Result<Self, RewriteError> {
        let mut r = Reader::at(&class_bytes[..info.end], info.start);
        let max_stack = r.u2()?;
        let max_locals = r.u2()?;
        let code_len = r.u4()? as usize;
        if code_len == 0 || code_len > 65535 {
            return Err(RewriteError::Malformed(format!("code length {code_len}")));
        }
        let code = r.take(code_len)?;
        let n_exc = r.u2()?;
        let mut exceptions = Vec::with_capacity(n_exc as usize);
        for _ in 0..n_exc {
            exceptions.push(ExceptionEntry {
                start: u32::from(r.u2()?),
                end: u32::from(r.u2()?),
                handler: u32::from(r.u2()?),
                catch_type: r.u2()?,
            });
        }
        let n_attr = r.u2()?;
        let mut attributes = Vec::with_capacity(n_attr as usize);
        for _ in 0..n_attr {
            let name_index = r.u2()?;
            let len = r.u4()? as usize;
            let start = r.pos;
            r.take(len)?;
            attributes.push(Attribute {
                name_index,
                info: start..start + len,
            });
        }
        if r.pos != info.end {
            return Err(RewriteError::Malformed(
                "Code attribute length mismatch".into(),
            ));
        }
        let insns = decode(code)?;
        let mut index_at = vec![u32::MAX; code_len + 1];
        for (i, insn) in insns.iter().enumerate() {
            index_at[insn.offset as usize] = i as u32;
        }
        index_at[code_len] = insns.len() as u32;
        let this = CodeAttr {
            max_stack,
            max_locals,
            code,
            insns,
            index_at,
            exceptions,
            attributes,
            class_bytes,
        };
        for insn in &this.insns {
            match &insn.kind {
                Kind::Plain => {}
                Kind::Branch(t) | Kind::BranchWide(t) => {
                    this.index(*t)?;
                }
                Kind::Switch {
                    default, targets, ..
                } => {
                    this.index(*default)?;
                    for t in targets {
                        this.index(*t)?;
                    }
                }
            }
        }
        for e in &this.exceptions {
            if e.start >= e.end {
                return Err(RewriteError::Malformed("empty exception range".into()));
            }
            this.index(e.start)?;
            this.index_or_end(e.end)?;
            this.index(e.handler)?;
        }
        Ok(this)
    }

    /// The instruction at original offset `offset` (not the end of the code).
    pub fn index(&self, offset: u32) -> Result<usize, RewriteError> {
        match self.index_at.get(offset as usize) {
            Some(&i) if (i as usize) < self.insns.len() => Ok(i as usize),
            _ => Err(RewriteError::Malformed(format!(
                "offset {offset} is not an instruction boundary"
            ))),
        }
    }

    fn index_or_end(&self, offset: u32) -> Result<usize, RewriteError> {
        match self.index_at.get(offset as usize) {
            Some(&i) if i != u32::MAX => Ok(i as usize),
            _ => Err(RewriteError::Malformed(format!(
                "offset {offset} is not an instruction boundary"
            ))),
        }
    }

    /// Original bytes of instruction `i`.
    pub fn bytes_of(&self, i: usize) -> &'a [u8] {
        let insn = &self.insns[i];
        &self.code[insn.offset as usize..(insn.offset + insn.len) as usize]
    }

    /// The constant-pool operand of instruction `i` (for instructions that have one).
    pub fn cp_operand(&self, i: usize) -> u16 {
        operand_u2(self.code, self.insns[i].offset as usize + 1)
    }

    /// The local variable a load/store instruction (`xload n`, `xstore n`, wide) names, if any.
    pub fn local_written(&self, i: usize) -> Option<(u8, u16)> {
        let b = self.bytes_of(i);
        match b[0] {
            op::ISTORE..=op::ASTORE => Some((b[0], u16::from(b[1]))),
            0x3b..=0x4e => {
                let k = b[0] - 0x3b;
                Some((op::ISTORE + k / 4, u16::from(k % 4)))
            }
            op::WIDE if (op::ISTORE..=op::ASTORE).contains(&b[1]) => Some((b[1], operand_u2(b, 2))),
            _ => None,
        }
    }

    fn attribute_named(&self, cp: &ConstantPool, name: &str) -> Option<&Attribute> {
        self.attributes
            .iter()
            .find(|a| cp.utf8(a.name_index).is_ok_and(|n| n == name.as_bytes()))
    }

    /// Line-number table as (original start offset, line), if present.
    pub fn line_numbers(&self, cp: &ConstantPool) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for a in &self.attributes {
            if cp.utf8(a.name_index).is_ok_and(|n| n == b"LineNumberTable") {
                let mut r = Reader::at(&self.class_bytes[..a.info.end], a.info.start);
                let n = r.u2().unwrap_or(0);
                for _ in 0..n {
                    match (r.u2(), r.u2()) {
                        (Ok(pc), Ok(line)) => out.push((u32::from(pc), u32::from(line))),
                        _ => break,
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Original StackMapTable frames, if the method has them.
    pub fn frames(&self, cp: &ConstantPool) -> Result<Option<Vec<Frame>>, RewriteError> {
        match self.attribute_named(cp, "StackMapTable") {
            None => Ok(None),
            Some(a) => stackmap::parse(&self.class_bytes[a.info.clone()]).map(Some),
        }
    }
}

fn decode(code: &[u8]) -> Result<Vec<Insn>, RewriteError> {
    let mut insns = Vec::with_capacity(code.len() / 2);
    let mut r = Reader::new(code);
    let bad = |at: usize| RewriteError::Malformed(format!("bad instruction at offset {at}"));
    while r.remaining() > 0 {
        let at = r.pos;
        let opc = r.u1()?;
        let mut kind = Kind::Plain;
        match opc {
            0x00..=0x0f
            | 0x1a..=0x35
            | 0x3b..=0x83
            | 0x85..=0x98
            | 0xac..=0xb1
            | 0xbe
            | 0xbf
            | 0xc2
            | 0xc3 => {}
            0x10 | 0x12 | 0x15..=0x19 | 0x36..=0x3a | 0xa9 | 0xbc => {
                r.take(1)?;
            }
            0x11 | 0x13 | 0x14 | 0x84 | 0xb2..=0xb8 | 0xbb | 0xbd | 0xc0 | 0xc1 => {
                r.take(2)?;
            }
            0xb9 | 0xba => {
                r.take(4)?;
            }
            0xc5 => {
                r.take(3)?;
            }
            0x99..=0xa8 | op::IFNULL | op::IFNONNULL => {
                let d = r.u2()? as i16 as i64;
                kind = Kind::Branch(target(at, d).ok_or_else(|| bad(at))?);
            }
            op::GOTO_W | op::JSR_W => {
                let d = i64::from(r.i4()?);
                kind = Kind::BranchWide(target(at, d).ok_or_else(|| bad(at))?);
            }
            op::WIDE => {
                let inner = r.u1()?;
                match inner {
                    0x84 => {
                        r.take(4)?;
                    }
                    0x15..=0x19 | 0x36..=0x3a | 0xa9 => {
                        r.take(2)?;
                    }
                    _ => return Err(bad(at)),
                }
            }
            op::TABLESWITCH | op::LOOKUPSWITCH => {
                r.take((4 - (at + 1) % 4) % 4)?;
                let default = target(at, i64::from(r.i4()?)).ok_or_else(|| bad(at))?;
                let (low, keys, n) = if opc == op::TABLESWITCH {
                    let low = r.i4()?;
                    let high = r.i4()?;
                    if high < low {
                        return Err(bad(at));
                    }
                    (low, None, (i64::from(high) - i64::from(low) + 1) as usize)
                } else {
                    let n = r.i4()?;
                    if n < 0 {
                        return Err(bad(at));
                    }
                    (0, Some(Vec::with_capacity(n as usize)), n as usize)
                };
                if n > r.remaining() {
                    return Err(RewriteError::Truncated);
                }
                let mut keys = keys;
                let mut targets = Vec::with_capacity(n);
                for _ in 0..n {
                    if let Some(k) = keys.as_mut() {
                        k.push(r.i4()?);
                    }
                    targets.push(target(at, i64::from(r.i4()?)).ok_or_else(|| bad(at))?);
                }
                kind = Kind::Switch {
                    default,
                    low,
                    keys,
                    targets,
                };
            }
            _ => return Err(bad(at)),
        }
        insns.push(Insn {
            offset: at as u32,
            len: (r.pos - at) as u32,
            op: opc,
            kind,
        });
    }
    Ok(insns)
}

fn target(at: usize, delta: i64) -> Option<u32> {
    let t = at as i64 + delta;
    (0..=65535).contains(&t).then_some(t as u32)
}

/// A catch-all (or typed) handler added by a pass: it covers the whole original body (from
/// after the prologue to the end of the original code) and starts at the epilogue.
pub struct AddedHandler {
    pub catch_type: u16,
    /// When non-zero, the first this-many bytes of the epilogue are covered by the handler too
    /// (as javac does for a synchronized block's handler, so that its monitorexit is retried).
    pub covers_own_start: u16,
    /// The frame at the handler (required when the class has StackMapTables).
    pub frame: Option<Frame>,
}

/// Changes to one method's code, collected by the passes and applied at once.
pub struct Edits {
    pub before: Vec<Vec<u8>>,
    pub after: Vec<Vec<u8>>,
    pub replace: Vec<Option<Vec<u8>>>,
    pub prologue: Vec<u8>,
    pub epilogue: Vec<u8>,
    pub handler: Option<AddedHandler>,
    /// Holes in every exception range, original or added: `(i, k)` leaves out from byte `k`
    /// of the code inserted before instruction `i` to the end of `i` (a return path after its
    /// monitorexit, which must not enter a handler: HotSpot's compilers require every entry to
    /// a handler to hold the same monitors). Sorted by `i`.
    pub holes: Vec<(usize, u32)>,
    /// A local the prologue sets and every later frame must declare: (slot, class constant).
    pub lock_local: Option<(u16, u16)>,
    /// Operand-stack words the inserted code needs on top of what the method used.
    pub extra_stack: u16,
    /// Locals the inserted code uses beyond the method's own (scratch slots).
    pub extra_locals: u16,
}

impl Edits {
    pub fn new(n: usize) -> Self {
        Edits {
            before: vec![Vec::new(); n],
            after: vec![Vec::new(); n],
            replace: vec![None; n],
            prologue: Vec::new(),
            epilogue: Vec::new(),
            handler: None,
            holes: Vec::new(),
            lock_local: None,
            extra_stack: 0,
            extra_locals: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.prologue.is_empty()
            && self.epilogue.is_empty()
            && self.before.iter().all(Vec::is_empty)
            && self.after.iter().all(Vec::is_empty)
            && self.replace.iter().all(Option::is_none)
    }

    pub fn need_stack(&mut self, words: u16) {
        self.extra_stack = self.extra_stack.max(words);
    }
}

/// New positions of everything, after layout.
struct Layout {
    /// Start of the code inserted before instruction `i` (where jumps to `i` land);
    /// `start[n]` is the end of the original body (where the epilogue begins).
    start: Vec<u32>,
    /// Start of instruction `i` itself.
    at: Vec<u32>,
    /// End of instruction `i` itself (before the code inserted after it).
    end: Vec<u32>,
    widened: Vec<bool>,
    total: u32,
}

fn is_conditional(opc: u8) -> bool {
    (op::IFEQ..=op::IF_ACMPNE).contains(&opc) || opc == op::IFNULL || opc == op::IFNONNULL
}

fn invert(opc: u8) -> u8 {
    if opc == op::IFNULL || opc == op::IFNONNULL {
        opc ^ 1
    } else {
        ((opc - op::IFEQ) ^ 1) + op::IFEQ
    }
}

fn insn_size(code: &CodeAttr, edits: &Edits, i: usize, at: u32, widened: bool) -> u32 {
    let insn = &code.insns[i];
    match &insn.kind {
        Kind::Plain => edits.replace[i]
            .as_ref()
            .map_or(insn.len, |r| r.len() as u32),
        Kind::Branch(_) if widened => {
            if is_conditional(insn.op) {
                8
            } else {
                5
            }
        }
        Kind::Branch(_) => 3,
        Kind::BranchWide(_) => 5,
        Kind::Switch { keys, targets, .. } => {
            let pad = (4 - (at + 1) % 4) % 4;
            let fixed = if keys.is_some() { 8 } else { 12 };
            let per = if keys.is_some() { 8 } else { 4 };
            1 + pad + fixed + per * targets.len() as u32
        }
    }
}

fn layout(code: &CodeAttr, edits: &Edits) -> Result<Layout, RewriteError> {
    let n = code.insns.len();
    let mut widened = vec![false; n];
    loop {
        let mut start = Vec::with_capacity(n + 1);
        let mut at = Vec::with_capacity(n);
        let mut end = Vec::with_capacity(n);
        let mut pos = edits.prologue.len() as u32;
        for (i, &wide) in widened.iter().enumerate() {
            start.push(pos);
            pos += edits.before[i].len() as u32;
            at.push(pos);
            pos += insn_size(code, edits, i, pos, wide);
            end.push(pos);
            pos += edits.after[i].len() as u32;
        }
        start.push(pos);
        let total = pos + edits.epilogue.len() as u32;
        if total > 65535 {
            return Err(RewriteError::TooLarge(format!(
                "method code would be {total} bytes (limit 65535)"
            )));
        }
        let mut changed = false;
        for i in 0..n {
            if let Kind::Branch(t) = code.insns[i].kind {
                if !widened[i] {
                    let to = start[code.index(t)?] as i64;
                    let delta = to - at[i] as i64;
                    if delta < i16::MIN as i64 || delta > i16::MAX as i64 {
                        widened[i] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return Ok(Layout {
                start,
                at,
                end,
                widened,
                total,
            });
        }
    }
}

/// Re-encodes the Code attribute (its info bytes) with `edits` applied.
pub fn apply(
    code: &CodeAttr,
    edits: &Edits,
    cp: &mut ConstantPool,
    method: &crate::frames::MethodInfo,
    needs_frames: bool,
) -> Result<Vec<u8>, RewriteError> {
    let lay = layout(code, edits)?;
    let n = code.insns.len();
    let orig_len = code.code.len() as u32;
    let start_of = |off: u32| -> Result<u32, RewriteError> { Ok(lay.start[code.index(off)?]) };

    // Frames: the original ones, plus one at the fall-through of every widened conditional
    // (the inverted branch lands there) that lacks one, then all moved to their new offsets.
    let mut frames = code.frames(cp)?;
    if needs_frames {
        let mut targets = Vec::new();
        for (i, insn) in code.insns.iter().enumerate() {
            if lay.widened[i] && is_conditional(insn.op) {
                if i + 1 >= n {
                    return Err(RewriteError::Malformed(
                        "branch at the end of the code".into(),
                    ));
                }
                targets.push(i + 1);
            }
        }
        if !targets.is_empty() {
            let original = frames.take().unwrap_or_default();
            frames = Some(crate::frames::with_frames_at(
                code, cp, method, original, &targets,
            )?);
        }
    }
    if let (Some((slot, class)), true) = (edits.lock_local, needs_frames) {
        if let Some(fs) = frames.take() {
            frames = Some(crate::frames::with_local(cp, method, fs, slot, class)?);
        }
    }
    if let Some(fs) = frames.as_mut() {
        for f in fs.iter_mut() {
            f.offset = start_of(f.offset)?;
            f.remap_uninitialized(|off| Ok(lay.at[code.index(off)?]))?;
        }
    }

    let mut out_code = Vec::with_capacity(lay.total as usize);
    out_code.extend_from_slice(&edits.prologue);
    for i in 0..n {
        out_code.extend_from_slice(&edits.before[i]);
        let insn = &code.insns[i];
        let at = lay.at[i] as i64;
        let rel = |t: u32| -> Result<i64, RewriteError> { Ok(start_of(t)? as i64 - at) };
        match &insn.kind {
            Kind::Plain => match &edits.replace[i] {
                Some(r) => out_code.extend_from_slice(r),
                None => out_code.extend_from_slice(code.bytes_of(i)),
            },
            Kind::Branch(t) => {
                let d = rel(*t)?;
                if !lay.widened[i] {
                    out_code.push(insn.op);
                    out_code.extend_from_slice(&(d as i16).to_be_bytes());
                } else if is_conditional(insn.op) {
                    out_code.push(invert(insn.op));
                    out_code.extend_from_slice(&8i16.to_be_bytes());
                    out_code.push(op::GOTO_W);
                    out_code.extend_from_slice(&((d - 3) as i32).to_be_bytes());
                } else {
                    out_code.push(if insn.op == op::GOTO {
                        op::GOTO_W
                    } else {
                        op::JSR_W
                    });
                    out_code.extend_from_slice(&(d as i32).to_be_bytes());
                }
            }
            Kind::BranchWide(t) => {
                out_code.push(insn.op);
                out_code.extend_from_slice(&(rel(*t)? as i32).to_be_bytes());
            }
            Kind::Switch {
                default,
                low,
                keys,
                targets,
            } => {
                out_code.push(insn.op);
                while out_code.len() % 4 != 0 {
                    out_code.push(0);
                }
                out_code.extend_from_slice(&(rel(*default)? as i32).to_be_bytes());
                match keys {
                    None => {
                        out_code.extend_from_slice(&low.to_be_bytes());
                        let high = *low as i64 + targets.len() as i64 - 1;
                        out_code.extend_from_slice(&(high as i32).to_be_bytes());
                        for t in targets {
                            out_code.extend_from_slice(&(rel(*t)? as i32).to_be_bytes());
                        }
                    }
                    Some(keys) => {
                        out_code.extend_from_slice(&(keys.len() as i32).to_be_bytes());
                        for (k, t) in keys.iter().zip(targets) {
                            out_code.extend_from_slice(&k.to_be_bytes());
                            out_code.extend_from_slice(&(rel(*t)? as i32).to_be_bytes());
                        }
                    }
                }
            }
        }
        debug_assert_eq!(out_code.len() as u32, lay.end[i]);
        out_code.extend_from_slice(&edits.after[i]);
    }
    out_code.extend_from_slice(&edits.epilogue);
    debug_assert_eq!(out_code.len() as u32, lay.total);

    // An exception range [s, e) covers the code inserted before s, and ends where the original
    // instruction before e ends.
    let range_end = |e: u32| -> Result<u32, RewriteError> {
        let idx = code.index_or_end(e)?;
        Ok(lay.end[idx - 1])
    };
    let mut out = Vec::with_capacity(out_code.len() + 256);
    put_u2(
        &mut out,
        (u32::from(code.max_stack) + u32::from(edits.extra_stack)).min(65535) as u16,
    );
    put_u2(
        &mut out,
        (u32::from(code.max_locals) + u32::from(edits.extra_locals)).min(65535) as u16,
    );
    put_u4(&mut out, out_code.len() as u32);
    out.extend_from_slice(&out_code);
    // Every range, minus the holes inside it: (start, end, handler, catch type).
    let holes: Vec<(u32, u32)> = edits
        .holes
        .iter()
        .map(|&(i, k)| (lay.start[i] + k, lay.end[i]))
        .collect();
    let split = |from: u32, to: u32, handler: u32, catch_type: u16, out: &mut Vec<[u32; 4]>| {
        let mut from = from;
        for &(hs, he) in &holes {
            if hs >= from && he <= to {
                out.push([from, hs, handler, u32::from(catch_type)]);
                from = he;
            }
        }
        out.push([from, to, handler, u32::from(catch_type)]);
        out.retain(|r| r[0] < r[1]);
    };
    let mut table: Vec<[u32; 4]> = Vec::with_capacity(code.exceptions.len() + 2);
    for e in &code.exceptions {
        let handler = start_of(e.handler)?;
        split(
            start_of(e.start)?,
            range_end(e.end)?,
            handler,
            e.catch_type,
            &mut table,
        );
    }
    if let Some(h) = &edits.handler {
        // The whole body, then (like javac) the handler's own monitorexit.
        let at = lay.start[n];
        split(
            edits.prologue.len() as u32,
            at,
            at,
            h.catch_type,
            &mut table,
        );
        if h.covers_own_start > 0 {
            table.push([
                at,
                at + u32::from(h.covers_own_start),
                at,
                u32::from(h.catch_type),
            ]);
        }
    }
    put_u2(&mut out, table.len() as u16);
    for row in &table {
        row.iter().for_each(|&v| put_u2(&mut out, v as u16));
    }
    if let Some(h) = &edits.handler {
        if let Some(f) = &h.frame {
            let mut f = f.clone();
            f.offset = lay.start[n];
            frames.get_or_insert_with(Vec::new).push(f);
        }
    }

    // Attributes.
    let lvt_range = |s: u32, len: u32| -> Result<(u32, u32), RewriteError> {
        let e = s + len;
        if e > orig_len {
            return Err(RewriteError::Malformed(
                "local variable range past code end".into(),
            ));
        }
        let ns = lay.start[code.index_or_end(s)?];
        let ne = lay.start[code.index_or_end(e)?];
        Ok((ns, ne - ns))
    };
    let mut attrs: Vec<(u16, Vec<u8>)> = Vec::with_capacity(code.attributes.len() + 1);
    let mut wrote_frames = false;
    for a in &code.attributes {
        let name = cp.utf8(a.name_index)?;
        let info = &code.class_bytes[a.info.clone()];
        let new = match name {
            // Debug tables: an entry that names no instruction is dropped (it could only
            // make the class fail HotSpot's format checks), never a reason to fail.
            b"LineNumberTable" => {
                let mut r = Reader::new(info);
                let count = r.u2()?;
                let mut entries = Vec::with_capacity(info.len());
                let mut kept = 0u16;
                for _ in 0..count {
                    let pc = u32::from(r.u2()?);
                    let line = r.u2()?;
                    // Line entries at 0 keep covering the prologue.
                    let npc = if pc == 0 { Ok(0) } else { start_of(pc) };
                    if let Ok(npc) = npc {
                        put_u2(&mut entries, npc as u16);
                        put_u2(&mut entries, line);
                        kept += 1;
                    }
                }
                let mut v = Vec::with_capacity(entries.len() + 2);
                put_u2(&mut v, kept);
                v.extend(entries);
                v
            }
            b"LocalVariableTable" | b"LocalVariableTypeTable" => {
                let mut r = Reader::new(info);
                let count = r.u2()?;
                let mut entries = Vec::with_capacity(info.len());
                let mut kept = 0u16;
                for _ in 0..count {
                    let range = lvt_range(u32::from(r.u2()?), u32::from(r.u2()?));
                    let rest = r.take(6)?;
                    if let Ok((s, l)) = range {
                        put_u2(&mut entries, s as u16);
                        put_u2(&mut entries, l as u16);
                        entries.extend_from_slice(rest);
                        kept += 1;
                    }
                }
                let mut v = Vec::with_capacity(entries.len() + 2);
                put_u2(&mut v, kept);
                v.extend(entries);
                v
            }
            b"StackMapTable" => {
                wrote_frames = true;
                stackmap::encode(frames.as_deref().unwrap_or(&[]))
            }
            b"RuntimeVisibleTypeAnnotations" | b"RuntimeInvisibleTypeAnnotations" => {
                let remapped = crate::type_annotations::remap(
                    info,
                    &|off| Ok(lay.at[code.index(off)?]),
                    &lvt_range,
                );
                match remapped {
                    Ok(v) => v,
                    // Invisible ones only feed tools: drop them. Visible ones are read by
                    // reflection, so the method is left alone rather than misdescribed.
                    Err(_) if name == b"RuntimeInvisibleTypeAnnotations" => continue,
                    Err(e) => {
                        return Err(RewriteError::Unsupported(format!(
                            "type annotations on its code: {e}"
                        )))
                    }
                }
            }
            _ => info.to_vec(),
        };
        attrs.push((a.name_index, new));
    }
    if !wrote_frames && needs_frames {
        if let Some(fs) = frames.as_deref().filter(|fs| !fs.is_empty()) {
            attrs.push((cp.add_utf8("StackMapTable")?, stackmap::encode(fs)));
        }
    }
    put_u2(&mut out, attrs.len() as u16);
    for (name, info) in attrs {
        put_u2(&mut out, name);
        put_u4(&mut out, info.len() as u32);
        out.extend_from_slice(&info);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::MethodInfo;

    /// A class-file prefix with an empty constant pool, then a Code attribute's info bytes.
    fn code_attr(code: &[u8], exceptions: &[[u16; 4]]) -> (Vec<u8>, std::ops::Range<usize>) {
        let mut b = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52, 0, 1];
        let start = b.len();
        put_u2(&mut b, 2);
        put_u2(&mut b, 1);
        put_u4(&mut b, code.len() as u32);
        b.extend_from_slice(code);
        put_u2(&mut b, exceptions.len() as u16);
        for e in exceptions {
            e.iter().for_each(|&v| put_u2(&mut b, v));
        }
        put_u2(&mut b, 0);
        let end = b.len();
        (b, start..end)
    }

    const M: MethodInfo = MethodInfo {
        class: "T",
        name: "m",
        descriptor: "()V",
        is_static: true,
    };

    /// Applies `edit` and returns (code bytes, exception table).
    fn rewrite(code: &[u8], exc: &[[u16; 4]], edit: impl Fn(&mut Edits)) -> (Vec<u8>, Vec<u16>) {
        let (bytes, range) = code_attr(code, exc);
        let (mut cp, _) = ConstantPool::parse(&bytes).unwrap();
        let attr = CodeAttr::parse(&bytes, range).unwrap();
        let mut edits = Edits::new(attr.insns.len());
        edit(&mut edits);
        let out = apply(&attr, &edits, &mut cp, &M, false).unwrap();
        let mut r = Reader::new(&out);
        r.take(4).unwrap();
        let len = r.u4().unwrap() as usize;
        let new_code = r.take(len).unwrap().to_vec();
        let n = r.u2().unwrap();
        let table = (0..n * 4).map(|_| r.u2().unwrap()).collect();
        (new_code, table)
    }

    #[test]
    fn jumps_land_on_inserted_code_and_ranges_end_before_code_inserted_after() {
        // 0 iconst_0; 1 ifeq 7; 4 iconst_1; 5 pop; 6 nop; 7 return. try [4, 7) → 6.
        let code = [0x03, 0x99, 0x00, 0x06, 0x04, 0x57, 0x00, 0xb1];
        let (out, table) = rewrite(&code, &[[4, 7, 6, 0]], |e| {
            e.before[2] = vec![0x00; 2];
            e.after[3] = vec![0x00];
            e.before[5] = vec![0x00; 3];
        });
        // The branch to `return` lands on the three nops inserted before it (offset 10).
        assert_eq!(&out[..4], &[0x03, 0x99, 0x00, 0x09]);
        assert_eq!(out.len(), code.len() + 6);
        assert_eq!(out[13], 0xb1);
        // The range starts with the code inserted before its first instruction, ends where
        // its last original instruction (the nop, now at 9) ends: after `pop`'s after-code.
        assert_eq!(table, vec![4, 10, 9, 0]);
    }

    #[test]
    fn branches_past_32k_are_widened() {
        // 0 iconst_0; 1 ifeq 8; 4 goto 8; 7 nop; 8 return.
        let code = [0x03, 0x99, 0x00, 0x07, 0xa7, 0x00, 0x04, 0x00, 0xb1];
        let (out, _) = rewrite(&code, &[], |e| e.before[3] = vec![0x00; 40_000]);
        // ifeq → ifne +8; goto_w; goto → goto_w.
        assert_eq!(&out[..4], &[0x03, 0x9a, 0x00, 0x08]);
        assert_eq!(out[4], GOTO_W);
        let target = 4 + i32::from_be_bytes([out[5], out[6], out[7], out[8]]) as usize;
        assert_eq!(out[9], GOTO_W);
        let target2 = 9 + i32::from_be_bytes([out[10], out[11], out[12], out[13]]) as usize;
        assert_eq!(target, target2);
        assert_eq!(out[target], 0xb1);
        assert_eq!(target, 14 + 40_000 + 1);
    }

    #[test]
    fn switch_padding_follows_the_new_offset() {
        // 0 iconst_0; 1 tableswitch (2 padding bytes) default 24, 0..=1 → 24, 24; 24 return.
        let mut code = vec![0x03, TABLESWITCH, 0, 0];
        for v in [23i32, 0, 1, 23, 23] {
            code.extend_from_slice(&v.to_be_bytes());
        }
        code.push(0xb1);
        let (out, _) = rewrite(&code, &[], |e| e.before[1] = vec![0x00]);
        // Switch now at 2: one padding byte; targets relative to 2 still reach `return`.
        assert_eq!(out[2], TABLESWITCH);
        assert_eq!(out[3], 0);
        let default = i32::from_be_bytes([out[4], out[5], out[6], out[7]]);
        assert_eq!(out[(2 + default) as usize], 0xb1);
        assert_eq!(out.len(), code.len());
    }

    #[test]
    fn holes_split_exception_ranges() {
        // 0 nop; 1 nop; 2 return. try [0, 2) → 1; a hole from byte 1 of the code before insn 1.
        let code = [0x00, 0x00, 0xb1];
        let (_, table) = rewrite(&code, &[[0, 2, 1, 0]], |e| {
            e.before[1] = vec![0x00; 4];
            e.holes.push((1, 1));
        });
        // Insn 1 now starts at 1 + 4 = 5, ends at 6; its hole is [2, 6): the range [0, 6)
        // becomes [0, 2). Its handler is where jumps to insn 1 land: 1.
        assert_eq!(table, vec![0, 2, 1, 0]);
        let (_, table) = rewrite(&code, &[[0, 3, 1, 0]], |e| {
            e.before[1] = vec![0x00; 4];
            e.holes.push((1, 2));
        });
        assert_eq!(table, vec![0, 3, 1, 0, 6, 7, 1, 0]);
    }

    const GOTO_W: u8 = op::GOTO_W;
    const TABLESWITCH: u8 = op::TABLESWITCH;
}
