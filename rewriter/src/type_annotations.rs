//! Offsets inside type annotations on code (JVMS §4.7.20): `localvar_target` ranges and the
//! `offset_target` / `type_argument_target` instruction offsets are remapped; everything else is
//! copied.

use crate::bytes::{put_u2, Reader};
use crate::RewriteError;

type Map<'m> = &'m dyn Fn(u32) -> Result<u32, RewriteError>;
type RangeMap<'m> = &'m dyn Fn(u32, u32) -> Result<(u32, u32), RewriteError>;

/// Remaps a Runtime(In)VisibleTypeAnnotations attribute of a Code attribute. `insn` maps the
/// offset of an instruction; `range` maps a (start, length) local-variable range.
pub fn remap(info: &[u8], insn: Map, range: RangeMap) -> Result<Vec<u8>, RewriteError> {
    let mut r = Reader::new(info);
    let mut out = Vec::with_capacity(info.len());
    let n = r.u2()?;
    put_u2(&mut out, n);
    for _ in 0..n {
        let target = r.u1()?;
        out.push(target);
        match target {
            0x00 | 0x01 | 0x16 => out.extend_from_slice(r.take(1)?),
            0x10 | 0x17 | 0x42 => out.extend_from_slice(r.take(2)?),
            0x11 | 0x12 => out.extend_from_slice(r.take(2)?),
            0x13..=0x15 => {}
            0x40 | 0x41 => {
                let len = r.u2()?;
                put_u2(&mut out, len);
                for _ in 0..len {
                    let (s, l) = range(u32::from(r.u2()?), u32::from(r.u2()?))?;
                    put_u2(&mut out, s as u16);
                    put_u2(&mut out, l as u16);
                    out.extend_from_slice(r.take(2)?);
                }
            }
            0x43..=0x46 => put_u2(&mut out, insn(u32::from(r.u2()?))? as u16),
            0x47..=0x4B => {
                put_u2(&mut out, insn(u32::from(r.u2()?))? as u16);
                out.extend_from_slice(r.take(1)?);
            }
            t => {
                return Err(RewriteError::Malformed(format!(
                    "unknown type annotation target {t:#x}"
                )))
            }
        }
        let path_len = r.u1()?;
        out.push(path_len);
        out.extend_from_slice(r.take(2 * path_len as usize)?);
        let start = r.pos;
        skip_annotation(&mut r)?;
        out.extend_from_slice(&info[start..r.pos]);
    }
    if r.remaining() != 0 {
        return Err(RewriteError::Malformed(
            "type annotation length mismatch".into(),
        ));
    }
    Ok(out)
}

fn skip_annotation(r: &mut Reader) -> Result<(), RewriteError> {
    r.take(2)?;
    let pairs = r.u2()?;
    for _ in 0..pairs {
        r.take(2)?;
        skip_element_value(r)?;
    }
    Ok(())
}

fn skip_element_value(r: &mut Reader) -> Result<(), RewriteError> {
    match r.u1()? {
        b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' | b's' | b'c' => {
            r.take(2)?;
        }
        b'e' => {
            r.take(4)?;
        }
        b'@' => skip_annotation(r)?,
        b'[' => {
            let n = r.u2()?;
            for _ in 0..n {
                skip_element_value(r)?;
            }
        }
        t => {
            return Err(RewriteError::Malformed(format!(
                "bad element value tag {t}"
            )))
        }
    }
    Ok(())
}
