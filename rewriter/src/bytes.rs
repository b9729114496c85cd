//! Big-endian reading with bounds checks (a truncated class file is an error, never a panic) and
//! the matching writers.

use crate::RewriteError;

/// A cursor over class-file bytes. Every read checks bounds and reports a truncated file.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    pub fn at(bytes: &'a [u8], pos: usize) -> Self {
        Reader { bytes, pos }
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], RewriteError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(RewriteError::Truncated)?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub fn u1(&mut self) -> Result<u8, RewriteError> {
        Ok(self.take(1)?[0])
    }

    pub fn u2(&mut self) -> Result<u16, RewriteError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn u4(&mut self) -> Result<u32, RewriteError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn i4(&mut self) -> Result<i32, RewriteError> {
        Ok(self.u4()? as i32)
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
}

pub fn put_u2(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub fn put_u4(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Decodes the JVM's modified UTF-8 (JVMS §4.4.7): NUL as two bytes, supplementary characters as
/// surrogate pairs. Malformed input decodes lossily rather than failing: names only feed reports.
pub fn decode_mutf8(bytes: &[u8]) -> String {
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !bytes.contains(&0xED) {
            return s.to_string();
        }
    }
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            units.push(u16::from(b));
            i += 1;
        } else if b & 0xE0 == 0xC0 && i + 1 < bytes.len() {
            units.push((u16::from(b & 0x1F) << 6) | u16::from(bytes[i + 1] & 0x3F));
            i += 2;
        } else if b & 0xF0 == 0xE0 && i + 2 < bytes.len() {
            units.push(
                (u16::from(b & 0x0F) << 12)
                    | (u16::from(bytes[i + 1] & 0x3F) << 6)
                    | u16::from(bytes[i + 2] & 0x3F),
            );
            i += 3;
        } else {
            units.push(0xFFFD);
            i += 1;
        }
    }
    String::from_utf16_lossy(&units)
}

/// Encodes a Rust string as modified UTF-8.
pub fn encode_mutf8(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for unit in s.encode_utf16() {
        match unit {
            0x0001..=0x007F => out.push(unit as u8),
            0x0000 | 0x0080..=0x07FF => {
                out.push(0xC0 | (unit >> 6) as u8);
                out.push(0x80 | (unit & 0x3F) as u8);
            }
            _ => {
                out.push(0xE0 | (unit >> 12) as u8);
                out.push(0x80 | ((unit >> 6) & 0x3F) as u8);
                out.push(0x80 | (unit & 0x3F) as u8);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutf8_round_trips_nul_and_supplementary() {
        for s in ["plain", "a\0b", "é€", "𝄞x"] {
            assert_eq!(decode_mutf8(&encode_mutf8(s)), s);
        }
        assert_eq!(encode_mutf8("\0"), vec![0xC0, 0x80]);
    }

    #[test]
    fn reader_reports_truncation() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(r.u2().unwrap(), 0x0102);
        assert!(matches!(r.u2(), Err(RewriteError::Truncated)));
    }
}
