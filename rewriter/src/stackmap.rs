//! StackMapTable frames (JVMS §4.7.4) at absolute offsets. Frames keep their kind across a
//! remap (each frame's meaning is relative to the previous frame's locals, not to offsets); only
//! the encoding of the offset is re-chosen, so `same` and `same_locals_1_stack_item` become their
//! extended forms when the delta no longer fits in 6 bits.

use crate::bytes::{put_u2, Reader};
use crate::RewriteError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VType {
    /// Top, Integer, Float, Double, Long, Null, UninitializedThis (tags 0–6).
    Simple(u8),
    /// Object(constant-pool class index).
    Object(u16),
    /// Uninitialized(offset of the `new` instruction).
    Uninitialized(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Same,
    SameLocals1(VType),
    Chop(u8),
    Append(Vec<VType>),
    Full(Vec<VType>, Vec<VType>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Absolute code offset.
    pub offset: u32,
    pub kind: FrameKind,
}

impl Frame {
    /// Rewrites every `Uninitialized(offset)` through `map`.
    pub fn remap_uninitialized(
        &mut self,
        map: impl Fn(u32) -> Result<u32, RewriteError>,
    ) -> Result<(), RewriteError> {
        let fix = |v: &mut VType| -> Result<(), RewriteError> {
            if let VType::Uninitialized(o) = v {
                *o = map(*o)?;
            }
            Ok(())
        };
        match &mut self.kind {
            FrameKind::Same | FrameKind::Chop(_) => {}
            FrameKind::SameLocals1(v) => fix(v)?,
            FrameKind::Append(vs) => vs.iter_mut().try_for_each(fix)?,
            FrameKind::Full(l, s) => {
                l.iter_mut().try_for_each(fix)?;
                s.iter_mut().try_for_each(fix)?;
            }
        }
        Ok(())
    }
}

fn read_vtype(r: &mut Reader) -> Result<VType, RewriteError> {
    Ok(match r.u1()? {
        t @ 0..=6 => VType::Simple(t),
        7 => VType::Object(r.u2()?),
        8 => VType::Uninitialized(u32::from(r.u2()?)),
        t => {
            return Err(RewriteError::Malformed(format!(
                "bad verification type tag {t}"
            )))
        }
    })
}

fn read_vtypes(r: &mut Reader, n: usize) -> Result<Vec<VType>, RewriteError> {
    (0..n).map(|_| read_vtype(r)).collect()
}

fn write_vtype(out: &mut Vec<u8>, v: &VType) {
    match v {
        VType::Simple(t) => out.push(*t),
        VType::Object(c) => {
            out.push(7);
            put_u2(out, *c);
        }
        VType::Uninitialized(o) => {
            out.push(8);
            put_u2(out, *o as u16);
        }
    }
}

/// Parses a StackMapTable attribute's info bytes into frames at absolute offsets.
pub fn parse(info: &[u8]) -> Result<Vec<Frame>, RewriteError> {
    let mut r = Reader::new(info);
    let n = r.u2()?;
    let mut frames = Vec::with_capacity(n as usize);
    let mut prev: Option<u32> = None;
    for _ in 0..n {
        let ty = r.u1()?;
        let (delta, kind) = match ty {
            0..=63 => (u32::from(ty), FrameKind::Same),
            64..=127 => (
                u32::from(ty - 64),
                FrameKind::SameLocals1(read_vtype(&mut r)?),
            ),
            247 => {
                let d = u32::from(r.u2()?);
                (d, FrameKind::SameLocals1(read_vtype(&mut r)?))
            }
            248..=250 => (u32::from(r.u2()?), FrameKind::Chop(251 - ty)),
            251 => (u32::from(r.u2()?), FrameKind::Same),
            252..=254 => {
                let d = u32::from(r.u2()?);
                (
                    d,
                    FrameKind::Append(read_vtypes(&mut r, (ty - 251) as usize)?),
                )
            }
            255 => {
                let d = u32::from(r.u2()?);
                let nl = r.u2()? as usize;
                let locals = read_vtypes(&mut r, nl)?;
                let ns = r.u2()? as usize;
                let stack = read_vtypes(&mut r, ns)?;
                (d, FrameKind::Full(locals, stack))
            }
            _ => {
                return Err(RewriteError::Malformed(format!(
                    "reserved stack map frame type {ty}"
                )))
            }
        };
        // The first frame's delta is its offset; later ones add delta + 1.
        let offset = match prev {
            None => delta,
            Some(p) => p + delta + 1,
        };
        prev = Some(offset);
        frames.push(Frame { offset, kind });
    }
    if r.remaining() != 0 {
        return Err(RewriteError::Malformed(
            "StackMapTable length mismatch".into(),
        ));
    }
    Ok(frames)
}

/// Encodes frames (sorted by offset, distinct) as a StackMapTable attribute's info bytes.
pub fn encode(frames: &[Frame]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frames.len() * 4 + 2);
    put_u2(&mut out, frames.len() as u16);
    let mut prev: Option<u32> = None;
    for f in frames {
        let delta = match prev {
            None => f.offset,
            Some(p) => f.offset - p - 1,
        };
        prev = Some(f.offset);
        match &f.kind {
            FrameKind::Same if delta <= 63 => out.push(delta as u8),
            FrameKind::Same => {
                out.push(251);
                put_u2(&mut out, delta as u16);
            }
            FrameKind::SameLocals1(v) if delta <= 63 => {
                out.push(64 + delta as u8);
                write_vtype(&mut out, v);
            }
            FrameKind::SameLocals1(v) => {
                out.push(247);
                put_u2(&mut out, delta as u16);
                write_vtype(&mut out, v);
            }
            FrameKind::Chop(k) => {
                out.push(251 - k);
                put_u2(&mut out, delta as u16);
            }
            FrameKind::Append(vs) => {
                out.push(251 + vs.len() as u8);
                put_u2(&mut out, delta as u16);
                vs.iter().for_each(|v| write_vtype(&mut out, v));
            }
            FrameKind::Full(l, s) => {
                out.push(255);
                put_u2(&mut out, delta as u16);
                put_u2(&mut out, l.len() as u16);
                l.iter().for_each(|v| write_vtype(&mut out, v));
                put_u2(&mut out, s.len() as u16);
                s.iter().for_each(|v| write_vtype(&mut out, v));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_frame_at_zero_and_wide_deltas_round_trip() {
        let frames = vec![
            Frame {
                offset: 0,
                kind: FrameKind::Same,
            },
            Frame {
                offset: 1,
                kind: FrameKind::SameLocals1(VType::Uninitialized(0)),
            },
            Frame {
                offset: 200,
                kind: FrameKind::Same,
            },
            Frame {
                offset: 400,
                kind: FrameKind::SameLocals1(VType::Object(3)),
            },
            Frame {
                offset: 401,
                kind: FrameKind::Full(vec![VType::Simple(4)], vec![]),
            },
        ];
        let bytes = encode(&frames);
        assert_eq!(parse(&bytes).unwrap(), frames);
        // Frame 0 at offset 0 is `same` with delta 0; the frame at 1 has delta 0 too.
        assert_eq!(&bytes[2..5], &[0, 64, 8]);
        // Deltas past 63 choose the extended forms.
        assert_eq!(bytes[7], 251);
    }
}
