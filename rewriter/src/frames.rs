//! Synthesizing one StackMapTable frame where a widened branch needs one that the method lacks.
//!
//! When a conditional branch grows past ±32 KiB it becomes `if<not cond> NEXT; goto_w TARGET`,
//! and NEXT (the original fall-through instruction) becomes a branch target that must have a
//! frame. Between the nearest frame before the branch (or the method entry) and the branch the
//! code is straight-line — any branch target or instruction after an unconditional jump would
//! carry a frame — so the state at NEXT is found by running the verifier's type transfer over
//! those instructions, starting from that frame.

use crate::code::{op, CodeAttr};
use crate::constant_pool::{
    ConstantPool, TAG_CLASS, TAG_DOUBLE, TAG_FLOAT, TAG_INTEGER, TAG_LONG, TAG_STRING,
};
use crate::stackmap::{Frame, FrameKind, VType};
use crate::RewriteError;

/// A verification type, with classes by name (arrays by descriptor).
#[derive(Clone, Debug, PartialEq, Eq)]
enum T {
    Top,
    Int,
    Float,
    Long,
    Double,
    Null,
    UninitThis,
    Uninit(u32),
    Obj(String),
}

impl T {
    fn wide(&self) -> bool {
        matches!(self, T::Long | T::Double)
    }
}

/// The method being simulated.
pub struct MethodInfo<'m> {
    pub class: &'m str,
    pub name: &'m str,
    pub descriptor: &'m str,
    pub is_static: bool,
}

fn bad(why: &str) -> RewriteError {
    RewriteError::Unsupported(format!("cannot synthesize a stack map frame: {why}"))
}

/// Parses one field type at `d[*i..]`.
fn field_type(d: &[u8], i: &mut usize) -> Result<T, RewriteError> {
    let c = *d.get(*i).ok_or_else(|| bad("descriptor"))?;
    *i += 1;
    Ok(match c {
        b'B' | b'C' | b'I' | b'S' | b'Z' => T::Int,
        b'F' => T::Float,
        b'J' => T::Long,
        b'D' => T::Double,
        b'L' => {
            let end = d[*i..]
                .iter()
                .position(|&b| b == b';')
                .ok_or_else(|| bad("descriptor"))?;
            let name = String::from_utf8_lossy(&d[*i..*i + end]).into_owned();
            *i += end + 1;
            T::Obj(name)
        }
        b'[' => {
            let start = *i - 1;
            field_type(d, i)?;
            T::Obj(String::from_utf8_lossy(&d[start..*i]).into_owned())
        }
        _ => return Err(bad("descriptor")),
    })
}

/// (parameter types, return type or None for void) of a method descriptor.
fn method_types(d: &[u8]) -> Result<(Vec<T>, Option<T>), RewriteError> {
    let mut i = 1;
    let mut params = Vec::new();
    while d.get(i) != Some(&b')') {
        params.push(field_type(d, &mut i)?);
    }
    i += 1;
    let ret = if d.get(i) == Some(&b'V') {
        None
    } else {
        Some(field_type(d, &mut i)?)
    };
    Ok((params, ret))
}

/// Slot form (a long or double takes two slots, the second Top) of encoded frame types.
fn to_slots(types: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(types.len() + 2);
    for t in types {
        out.push(t.clone());
        if t.wide() {
            out.push(T::Top);
        }
    }
    out
}

/// Encoded form of slot-form types (trailing Tops dropped when `trim`).
fn from_slots(slots: &[T], trim: bool) -> Vec<T> {
    let mut out = Vec::with_capacity(slots.len());
    let mut i = 0;
    while i < slots.len() {
        out.push(slots[i].clone());
        i += if slots[i].wide() { 2 } else { 1 };
    }
    if trim {
        while out.last() == Some(&T::Top) {
            out.pop();
        }
    }
    out
}

struct State {
    locals: Vec<T>,
    stack: Vec<T>,
}

impl State {
    fn push(&mut self, t: T) {
        let wide = t.wide();
        self.stack.push(t);
        if wide {
            self.stack.push(T::Top);
        }
    }

    fn pop_n(&mut self, slots: usize) -> Result<(), RewriteError> {
        if self.stack.len() < slots {
            return Err(bad("stack underflow"));
        }
        self.stack.truncate(self.stack.len() - slots);
        Ok(())
    }

    fn pop(&mut self) -> Result<T, RewriteError> {
        self.stack.pop().ok_or_else(|| bad("stack underflow"))
    }

    fn pop_type(&mut self, t: &T) -> Result<(), RewriteError> {
        self.pop_n(if t.wide() { 2 } else { 1 })
    }

    fn load(&mut self, index: usize) -> Result<(), RewriteError> {
        let t = self
            .locals
            .get(index)
            .cloned()
            .ok_or_else(|| bad("local out of range"))?;
        self.push(t);
        Ok(())
    }

    fn store(&mut self, index: usize, wide: bool) -> Result<(), RewriteError> {
        let t = if wide {
            self.pop()?;
            self.pop()?
        } else {
            self.pop()?
        };
        let need = index + if wide { 2 } else { 1 };
        if self.locals.len() < need {
            self.locals.resize(need, T::Top);
        }
        if index > 0 && self.locals[index - 1].wide() {
            self.locals[index - 1] = T::Top;
        }
        if !wide && index + 1 < self.locals.len() && self.locals[index].wide() {
            self.locals[index + 1] = T::Top;
        }
        self.locals[index] = t;
        if wide {
            self.locals[index + 1] = T::Top;
        }
        Ok(())
    }

    /// Replaces every occurrence of an uninitialized type once its `<init>` ran.
    fn initialize(&mut self, from: &T, to: T) {
        for t in self.locals.iter_mut().chain(self.stack.iter_mut()) {
            if t == from {
                *t = to.clone();
            }
        }
    }
}

fn vtype_to_t(v: &VType, cp: &ConstantPool) -> Result<T, RewriteError> {
    Ok(match v {
        VType::Simple(0) => T::Top,
        VType::Simple(1) => T::Int,
        VType::Simple(2) => T::Float,
        VType::Simple(3) => T::Double,
        VType::Simple(4) => T::Long,
        VType::Simple(5) => T::Null,
        VType::Simple(6) => T::UninitThis,
        VType::Simple(_) => return Err(bad("verification type")),
        VType::Object(c) => T::Obj(cp.class_name_string(*c)?),
        VType::Uninitialized(o) => T::Uninit(*o),
    })
}

fn t_to_vtype(t: &T, cp: &mut ConstantPool) -> Result<VType, RewriteError> {
    Ok(match t {
        T::Top => VType::Simple(0),
        T::Int => VType::Simple(1),
        T::Float => VType::Simple(2),
        T::Double => VType::Simple(3),
        T::Long => VType::Simple(4),
        T::Null => VType::Simple(5),
        T::UninitThis => VType::Simple(6),
        T::Obj(name) => VType::Object(cp.add_class(name)?),
        T::Uninit(o) => VType::Uninitialized(*o),
    })
}

/// Locals and stack, in encoded form.
type DeclaredState = (Vec<T>, Vec<T>);

/// The state each frame declares, in encoded form (a long or double is one entry): the
/// implicit initial frame first, then one per frame in `frames`.
fn declared_states(
    cp: &ConstantPool,
    method: &MethodInfo,
    frames: &[Frame],
) -> Result<Vec<DeclaredState>, RewriteError> {
    let (params, _) = method_types(method.descriptor.as_bytes())?;
    let mut locals: Vec<T> = Vec::with_capacity(params.len() + 1);
    if !method.is_static {
        locals.push(
            if method.name == "<init>" && method.class != "java/lang/Object" {
                T::UninitThis
            } else {
                T::Obj(method.class.to_string())
            },
        );
    }
    locals.extend(params);
    let mut stack: Vec<T> = Vec::new();
    let mut out = Vec::with_capacity(frames.len() + 1);
    out.push((locals.clone(), stack.clone()));
    for f in frames {
        match &f.kind {
            FrameKind::Same => stack.clear(),
            FrameKind::SameLocals1(v) => stack = vec![vtype_to_t(v, cp)?],
            FrameKind::Chop(k) => {
                let keep = locals
                    .len()
                    .checked_sub(*k as usize)
                    .ok_or_else(|| bad("chop"))?;
                locals.truncate(keep);
                stack.clear();
            }
            FrameKind::Append(vs) => {
                for v in vs {
                    locals.push(vtype_to_t(v, cp)?);
                }
                stack.clear();
            }
            FrameKind::Full(l, s) => {
                locals = l
                    .iter()
                    .map(|v| vtype_to_t(v, cp))
                    .collect::<Result<_, _>>()?;
                stack = s
                    .iter()
                    .map(|v| vtype_to_t(v, cp))
                    .collect::<Result<_, _>>()?;
            }
        }
        out.push((locals.clone(), stack.clone()));
    }
    Ok(out)
}

fn full_frame(
    cp: &mut ConstantPool,
    offset: u32,
    locals: &[T],
    stack: &[T],
) -> Result<Frame, RewriteError> {
    Ok(Frame {
        offset,
        kind: FrameKind::Full(
            locals
                .iter()
                .map(|t| t_to_vtype(t, cp))
                .collect::<Result<_, _>>()?,
            stack
                .iter()
                .map(|t| t_to_vtype(t, cp))
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// The frame of an exception handler at `offset` in a static method of `descriptor` that
/// never stores into its parameters: the parameters as locals, one `catch` on the stack.
pub fn static_handler_frame(
    cp: &mut ConstantPool,
    descriptor: &str,
    offset: u32,
    catch: &str,
) -> Result<Frame, RewriteError> {
    let (params, _) = method_types(descriptor.as_bytes())?;
    full_frame(cp, offset, &params, &[T::Obj(catch.to_string())])
}

/// `frames` (sorted, original offsets) with a frame synthesized at the start of each
/// instruction in `targets` that has none. A frame that follows a synthesized one is rewritten
/// as a full frame: its encoding was relative to the frame before it, which is no longer the
/// previous one.
pub fn with_frames_at(
    code: &CodeAttr,
    cp: &mut ConstantPool,
    method: &MethodInfo,
    frames: Vec<Frame>,
    targets: &[usize],
) -> Result<Vec<Frame>, RewriteError> {
    let states = declared_states(cp, method, &frames)?;
    let mut added: Vec<Frame> = Vec::new();
    for &target in targets {
        let offset = code.insns[target].offset;
        if frames.binary_search_by_key(&offset, |f| f.offset).is_ok()
            || added.iter().any(|f| f.offset == offset)
        {
            continue;
        }
        // The last frame before the target (or the method entry), then straight-line code.
        let k = frames.partition_point(|f| f.offset < offset);
        let (locals, stack) = &states[k];
        let from = if k == 0 { 0 } else { frames[k - 1].offset };
        let mut st = State {
            locals: to_slots(locals),
            stack: to_slots(stack),
        };
        for i in code.index(from)?..target {
            transfer(code, cp, method, &mut st, i)?;
        }
        let locals = from_slots(&st.locals, true);
        let stack = from_slots(&st.stack, false);
        added.push(full_frame(cp, offset, &locals, &stack)?);
    }
    if added.is_empty() {
        return Ok(frames);
    }
    let mut merged: Vec<(Frame, bool)> = frames.into_iter().map(|f| (f, false)).collect();
    merged.extend(added.into_iter().map(|f| (f, true)));
    merged.sort_by_key(|(f, _)| f.offset);
    let mut original_index = 0;
    let mut out = Vec::with_capacity(merged.len());
    let mut previous_synthesized = false;
    for (f, synthesized) in merged {
        if synthesized {
            out.push(f);
        } else {
            original_index += 1;
            if previous_synthesized {
                let (locals, stack) = &states[original_index];
                out.push(full_frame(cp, f.offset, locals, stack)?);
            } else {
                out.push(f);
            }
        }
        previous_synthesized = synthesized;
    }
    Ok(out)
}

/// Every frame rewritten as a full frame that also declares local `slot` as an object of the
/// class constant `class` (a local the prologue sets before any frame).
pub fn with_local(
    cp: &mut ConstantPool,
    method: &MethodInfo,
    frames: Vec<Frame>,
    slot: u16,
    class: u16,
) -> Result<Vec<Frame>, RewriteError> {
    let states = declared_states(cp, method, &frames)?;
    let mut out = Vec::with_capacity(frames.len());
    for (f, (locals, stack)) in frames.iter().zip(states.iter().skip(1)) {
        let mut slots = to_slots(locals);
        if slots.len() > slot as usize {
            return Err(bad("a frame declares more locals than max_locals"));
        }
        slots.resize(slot as usize, T::Top);
        let mut full = full_frame(cp, f.offset, &from_slots(&slots, false), stack)?;
        if let FrameKind::Full(l, _) = &mut full.kind {
            l.push(VType::Object(class));
        }
        out.push(full);
    }
    Ok(out)
}

fn class_operand(code: &CodeAttr, cp: &ConstantPool, i: usize) -> Result<String, RewriteError> {
    Ok(crate::bytes::decode_mutf8(
        cp.class_name(code.cp_operand(i))?,
    ))
}

fn array_of(element: &str) -> String {
    if element.starts_with('[') {
        format!("[{element}")
    } else {
        format!("[L{element};")
    }
}

/// The verifier's effect of instruction `i` on the state.
fn transfer(
    code: &CodeAttr,
    cp: &ConstantPool,
    method: &MethodInfo,
    st: &mut State,
    i: usize,
) -> Result<(), RewriteError> {
    let b = code.bytes_of(i);
    let opc = b[0];
    const NUM: [T; 4] = [T::Int, T::Long, T::Float, T::Double];
    match opc {
        0x00 => {}
        op::ACONST_NULL => st.push(T::Null),
        0x02..=0x08 | 0x10 | 0x11 => st.push(T::Int),
        0x09 | 0x0a => st.push(T::Long),
        0x0b..=0x0d => st.push(T::Float),
        0x0e | 0x0f => st.push(T::Double),
        0x12..=0x14 => {
            let index = if opc == 0x12 {
                u16::from(b[1])
            } else {
                code.cp_operand(i)
            };
            let t = match cp.tag(index) {
                Some(TAG_INTEGER) => T::Int,
                Some(TAG_FLOAT) => T::Float,
                Some(TAG_LONG) => T::Long,
                Some(TAG_DOUBLE) => T::Double,
                Some(TAG_STRING) => T::Obj("java/lang/String".into()),
                Some(TAG_CLASS) => T::Obj("java/lang/Class".into()),
                Some(15) => T::Obj("java/lang/invoke/MethodHandle".into()),
                Some(16) => T::Obj("java/lang/invoke/MethodType".into()),
                Some(17) => field_type(cp.dynamic_descriptor(index)?, &mut 0)?,
                _ => return Err(bad("ldc operand")),
            };
            st.push(t);
        }
        0x15..=0x19 => st.load(b[1] as usize)?,
        0x1a..=0x2d => st.load(((opc - 0x1a) % 4) as usize)?,
        0x2e..=0x35 => {
            st.pop()?;
            let array = st.pop()?;
            let t = match opc {
                0x2f => T::Long,
                0x30 => T::Float,
                0x31 => T::Double,
                0x32 => match array {
                    T::Obj(d) if d.starts_with('[') => field_type(&d.as_bytes()[1..], &mut 0)?,
                    _ => T::Null,
                },
                _ => T::Int,
            };
            st.push(t);
        }
        0x36..=0x3a => st.store(b[1] as usize, opc == 0x37 || opc == 0x39)?,
        0x3b..=0x4e => {
            let k = opc - 0x3b;
            st.store((k % 4) as usize, k / 4 == 1 || k / 4 == 3)?;
        }
        0x4f..=0x56 => st.pop_n(if opc == 0x50 || opc == 0x52 { 4 } else { 3 })?,
        op::POP => st.pop_n(1)?,
        op::POP2 => st.pop_n(2)?,
        0x59..=0x5f => {
            let n = st.stack.len();
            let need = match opc {
                0x59 => 1,
                0x5a | 0x5c | 0x5f => 2,
                0x5b | 0x5d => 3,
                _ => 4,
            };
            if n < need {
                return Err(bad("stack underflow"));
            }
            let s = &mut st.stack;
            match opc {
                0x59 => s.push(s[n - 1].clone()),
                0x5a => s.insert(n - 2, s[n - 1].clone()),
                0x5b => s.insert(n - 3, s[n - 1].clone()),
                0x5c => s.extend([s[n - 2].clone(), s[n - 1].clone()]),
                0x5d => {
                    let (a, c) = (s[n - 2].clone(), s[n - 1].clone());
                    s.splice(n - 3..n - 3, [a, c]);
                }
                0x5e => {
                    let (a, c) = (s[n - 2].clone(), s[n - 1].clone());
                    s.splice(n - 4..n - 4, [a, c]);
                }
                _ => s.swap(n - 1, n - 2),
            }
        }
        0x60..=0x73 => {
            let t = NUM[((opc - 0x60) % 4) as usize].clone();
            st.pop_type(&t)?;
            st.pop_type(&t)?;
            st.push(t);
        }
        0x74..=0x77 => {
            let t = NUM[((opc - 0x74) % 4) as usize].clone();
            st.pop_type(&t)?;
            st.push(t);
        }
        0x78..=0x7d => {
            let t = NUM[((opc - 0x78) % 2) as usize].clone();
            st.pop_n(1)?;
            st.pop_type(&t)?;
            st.push(t);
        }
        0x7e..=0x83 => {
            let t = NUM[((opc - 0x7e) % 2) as usize].clone();
            st.pop_type(&t)?;
            st.pop_type(&t)?;
            st.push(t);
        }
        0x84 => {}
        0x85..=0x93 => {
            // (from, to) of i2l … i2s.
            const CONV: [(usize, usize); 15] = [
                (0, 1),
                (0, 2),
                (0, 3),
                (1, 0),
                (1, 2),
                (1, 3),
                (2, 0),
                (2, 1),
                (2, 3),
                (3, 0),
                (3, 1),
                (3, 2),
                (0, 0),
                (0, 0),
                (0, 0),
            ];
            let (f, t) = CONV[(opc - 0x85) as usize];
            st.pop_type(&NUM[f])?;
            st.push(NUM[t].clone());
        }
        0x94 => {
            st.pop_n(4)?;
            st.push(T::Int);
        }
        0x95 | 0x96 => {
            st.pop_n(2)?;
            st.push(T::Int);
        }
        0x97 | 0x98 => {
            st.pop_n(4)?;
            st.push(T::Int);
        }
        0x99..=0x9e | op::IFNULL | op::IFNONNULL => st.pop_n(1)?,
        0x9f..=0xa6 => st.pop_n(2)?,
        op::GETSTATIC..=op::PUTFIELD => {
            let m = cp.member(code.cp_operand(i))?;
            let t = field_type(m.descriptor, &mut 0)?;
            match opc {
                op::GETSTATIC => st.push(t),
                op::PUTSTATIC => st.pop_type(&t)?,
                op::GETFIELD => {
                    st.pop_n(1)?;
                    st.push(t);
                }
                _ => {
                    st.pop_type(&t)?;
                    st.pop_n(1)?;
                }
            }
        }
        op::INVOKEVIRTUAL..=0xba => {
            let descriptor = if opc == 0xba {
                cp.dynamic_descriptor(code.cp_operand(i))?
            } else {
                cp.member(code.cp_operand(i))?.descriptor
            };
            let (params, ret) = method_types(descriptor)?;
            for p in params.iter().rev() {
                st.pop_type(p)?;
            }
            if opc != op::INVOKESTATIC && opc != 0xba {
                let receiver = st.pop()?;
                let m = cp.member(code.cp_operand(i))?;
                if opc == op::INVOKESPECIAL && m.name == b"<init>" {
                    let to = match &receiver {
                        T::UninitThis => T::Obj(method.class.to_string()),
                        T::Uninit(o) => {
                            let n = code.index(*o)?;
                            T::Obj(class_operand(code, cp, n)?)
                        }
                        _ => return Err(bad("<init> on an initialized object")),
                    };
                    st.initialize(&receiver, to);
                }
            }
            if let Some(r) = ret {
                st.push(r);
            }
        }
        op::NEW => st.push(T::Uninit(code.insns[i].offset)),
        op::NEWARRAY => {
            st.pop_n(1)?;
            let d = ["[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"];
            let t = d
                .get(b[1].wrapping_sub(4) as usize)
                .ok_or_else(|| bad("newarray type"))?;
            st.push(T::Obj((*t).to_string()));
        }
        op::ANEWARRAY => {
            st.pop_n(1)?;
            st.push(T::Obj(array_of(&class_operand(code, cp, i)?)));
        }
        0xbe => {
            st.pop_n(1)?;
            st.push(T::Int);
        }
        0xc0 => {
            st.pop_n(1)?;
            st.push(T::Obj(class_operand(code, cp, i)?));
        }
        0xc1 => {
            st.pop_n(1)?;
            st.push(T::Int);
        }
        op::MONITORENTER | op::MONITOREXIT => st.pop_n(1)?,
        op::WIDE => {
            let index = u16::from_be_bytes([b[2], b[3]]) as usize;
            match b[1] {
                0x15..=0x19 => st.load(index)?,
                0x36..=0x3a => st.store(index, b[1] == 0x37 || b[1] == 0x39)?,
                0x84 => {}
                _ => return Err(bad("wide ret")),
            }
        }
        op::MULTIANEWARRAY => {
            st.pop_n(b[3] as usize)?;
            st.push(T::Obj(class_operand(code, cp, i)?));
        }
        _ => return Err(bad("control transfer before the branch")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_parse_to_slots() {
        let (p, r) = method_types(b"(IJ[Ljava/lang/String;D)Ljava/lang/Object;").unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[2], T::Obj("[Ljava/lang/String;".into()));
        assert_eq!(r, Some(T::Obj("java/lang/Object".into())));
        let slots = to_slots(&p);
        assert_eq!(slots.len(), 6);
        assert_eq!(from_slots(&slots, true), p);
    }
}
