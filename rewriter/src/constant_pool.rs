//! The constant pool: indexed in place (entry offsets into the original bytes, nothing copied),
//! resolved on demand, and extended by appending entries. The original entries are written back
//! byte for byte.

use crate::bytes::{decode_mutf8, encode_mutf8, put_u2, Reader};
use crate::RewriteError;
use std::collections::HashMap;

pub const TAG_UTF8: u8 = 1;
pub const TAG_INTEGER: u8 = 3;
pub const TAG_FLOAT: u8 = 4;
pub const TAG_LONG: u8 = 5;
pub const TAG_DOUBLE: u8 = 6;
pub const TAG_CLASS: u8 = 7;
pub const TAG_STRING: u8 = 8;
pub const TAG_FIELDREF: u8 = 9;
pub const TAG_METHODREF: u8 = 10;
pub const TAG_INTERFACE_METHODREF: u8 = 11;
pub const TAG_NAME_AND_TYPE: u8 = 12;
pub const TAG_METHOD_HANDLE: u8 = 15;

/// `CONSTANT_MethodHandle` reference kinds (JVMS §5.4.3.5).
pub const REF_INVOKE_VIRTUAL: u8 = 5;
pub const REF_INVOKE_STATIC: u8 = 6;
pub const REF_INVOKE_INTERFACE: u8 = 9;

/// A member reference resolved to its three names (raw modified UTF-8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberRef<'a> {
    pub tag: u8,
    pub owner: &'a [u8],
    pub name: &'a [u8],
    pub descriptor: &'a [u8],
}

pub struct ConstantPool<'a> {
    /// The original class file (entries are read from here).
    bytes: &'a [u8],
    /// `offsets[i]`: where entry `i` (its tag byte) starts; 0 for index 0 and for the unusable
    /// slot after a long or double.
    offsets: Vec<u32>,
    /// Byte range of the original entries (after the count).
    original: std::ops::Range<usize>,
    /// Appended entries, encoded.
    appended: Vec<u8>,
    next_index: u32,
    utf8_cache: HashMap<Vec<u8>, u16>,
    class_cache: HashMap<Vec<u8>, u16>,
    nat_cache: HashMap<(u16, u16), u16>,
    /// (tag, class, name and type) → Methodref or InterfaceMethodref.
    method_cache: HashMap<(u8, u16, u16), u16>,
    long_cache: HashMap<i64, u16>,
    /// Original `CONSTANT_MethodHandle` entries rewritten in place: entry offset → (kind, ref).
    handle_patches: Vec<(usize, u8, u16)>,
}

impl<'a> ConstantPool<'a> {
    /// Parses the pool that starts at byte 8 of a class file; returns it and the offset just
    /// past it.
    pub fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RewriteError> {
        let mut r = Reader::at(bytes, 8);
        let count = r.u2()? as usize;
        if count == 0 {
            return Err(RewriteError::Malformed("constant pool count is 0".into()));
        }
        let start = r.pos;
        let mut offsets = vec![0u32; count];
        let mut i = 1;
        while i < count {
            offsets[i] = r.pos as u32;
            let tag = r.u1()?;
            let len = match tag {
                TAG_UTF8 => r.u2()? as usize,
                TAG_INTEGER
                | TAG_FLOAT
                | TAG_FIELDREF
                | TAG_METHODREF
                | TAG_INTERFACE_METHODREF
                | TAG_NAME_AND_TYPE
                | 17
                | 18 => 4,
                TAG_LONG | TAG_DOUBLE => 8,
                TAG_CLASS | TAG_STRING | 16 | 19 | 20 => 2,
                15 => 3,
                t => {
                    return Err(RewriteError::Malformed(format!(
                        "constant pool entry {i} has unknown tag {t}"
                    )))
                }
            };
            r.take(len)?;
            i += if tag == TAG_LONG || tag == TAG_DOUBLE {
                2
            } else {
                1
            };
        }
        if i > count {
            return Err(RewriteError::Malformed(
                "constant pool ends inside a long or double".into(),
            ));
        }
        let end = r.pos;
        Ok((
            ConstantPool {
                bytes,
                offsets,
                original: start..end,
                appended: Vec::new(),
                next_index: count as u32,
                utf8_cache: HashMap::new(),
                class_cache: HashMap::new(),
                nat_cache: HashMap::new(),
                method_cache: HashMap::new(),
                long_cache: HashMap::new(),
                handle_patches: Vec::new(),
            },
            end,
        ))
    }

    fn entry(&self, index: u16, want: u8) -> Result<Reader<'a>, RewriteError> {
        let off = *self.offsets.get(index as usize).unwrap_or(&0) as usize;
        if off == 0 || self.bytes[off] != want {
            return Err(RewriteError::Malformed(format!(
                "constant pool index {index} is not of tag {want}"
            )));
        }
        Ok(Reader::at(self.bytes, off + 1))
    }

    /// The tag of entry `index`, if it is a usable original entry.
    pub fn tag(&self, index: u16) -> Option<u8> {
        let off = *self.offsets.get(index as usize)? as usize;
        (off != 0).then(|| self.bytes[off])
    }

    pub fn utf8(&self, index: u16) -> Result<&'a [u8], RewriteError> {
        let mut r = self.entry(index, TAG_UTF8)?;
        let len = r.u2()? as usize;
        r.take(len)
    }

    pub fn utf8_string(&self, index: u16) -> Result<String, RewriteError> {
        Ok(decode_mutf8(self.utf8(index)?))
    }

    pub fn class_name(&self, index: u16) -> Result<&'a [u8], RewriteError> {
        let mut r = self.entry(index, TAG_CLASS)?;
        self.utf8(r.u2()?)
    }

    /// The name of a class entry, original or appended.
    pub fn class_name_string(&self, index: u16) -> Result<String, RewriteError> {
        if let Some((name, _)) = self.class_cache.iter().find(|(_, &i)| i == index) {
            return Ok(decode_mutf8(name));
        }
        Ok(decode_mutf8(self.class_name(index)?))
    }

    /// A Fieldref, Methodref or InterfaceMethodref.
    pub fn member(&self, index: u16) -> Result<MemberRef<'a>, RewriteError> {
        let tag = self.tag(index).unwrap_or(0);
        if !matches!(tag, TAG_FIELDREF | TAG_METHODREF | TAG_INTERFACE_METHODREF) {
            return Err(RewriteError::Malformed(format!(
                "constant pool index {index} is not a member reference"
            )));
        }
        let mut r = self.entry(index, tag)?;
        let class = r.u2()?;
        let nat = r.u2()?;
        let mut n = self.entry(nat, TAG_NAME_AND_TYPE)?;
        let name = n.u2()?;
        let descriptor = n.u2()?;
        Ok(MemberRef {
            tag,
            owner: self.class_name(class)?,
            name: self.utf8(name)?,
            descriptor: self.utf8(descriptor)?,
        })
    }

    /// The descriptor of an InvokeDynamic (18) or Dynamic (17) entry's NameAndType.
    pub fn dynamic_descriptor(&self, index: u16) -> Result<&'a [u8], RewriteError> {
        let tag = self.tag(index).unwrap_or(0);
        if tag != 17 && tag != 18 {
            return Err(RewriteError::Malformed(format!(
                "constant pool index {index} is not a dynamic constant"
            )));
        }
        let mut r = self.entry(index, tag)?;
        r.u2()?;
        let mut n = self.entry(r.u2()?, TAG_NAME_AND_TYPE)?;
        n.u2()?;
        self.utf8(n.u2()?)
    }

    fn push(&mut self, slots: u32) -> Result<u16, RewriteError> {
        let index = self.next_index;
        if index + slots > 0xFFFF {
            return Err(RewriteError::TooLarge(
                "constant pool would exceed 65535 entries".into(),
            ));
        }
        self.next_index += slots;
        Ok(index as u16)
    }

    pub fn add_utf8(&mut self, text: &str) -> Result<u16, RewriteError> {
        let encoded = encode_mutf8(text);
        if let Some(&i) = self.utf8_cache.get(&encoded) {
            return Ok(i);
        }
        let i = self.push(1)?;
        self.appended.push(TAG_UTF8);
        put_u2(&mut self.appended, encoded.len() as u16);
        self.appended.extend_from_slice(&encoded);
        self.utf8_cache.insert(encoded, i);
        Ok(i)
    }

    pub fn add_class(&mut self, internal_name: &str) -> Result<u16, RewriteError> {
        if let Some(&i) = self.class_cache.get(internal_name.as_bytes()) {
            return Ok(i);
        }
        let name = self.add_utf8(internal_name)?;
        let i = self.push(1)?;
        self.appended.push(TAG_CLASS);
        put_u2(&mut self.appended, name);
        self.class_cache
            .insert(internal_name.as_bytes().to_vec(), i);
        Ok(i)
    }

    fn add_name_and_type(&mut self, name: &str, descriptor: &str) -> Result<u16, RewriteError> {
        let n = self.add_utf8(name)?;
        let d = self.add_utf8(descriptor)?;
        if let Some(&i) = self.nat_cache.get(&(n, d)) {
            return Ok(i);
        }
        let i = self.push(1)?;
        self.appended.push(TAG_NAME_AND_TYPE);
        put_u2(&mut self.appended, n);
        put_u2(&mut self.appended, d);
        self.nat_cache.insert((n, d), i);
        Ok(i)
    }

    /// A Methodref (class, not interface) entry.
    pub fn add_methodref(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<u16, RewriteError> {
        self.add_member_ref(TAG_METHODREF, owner, name, descriptor)
    }

    /// An InterfaceMethodref entry, which `invokeinterface` needs.
    pub fn add_interface_methodref(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<u16, RewriteError> {
        self.add_member_ref(TAG_INTERFACE_METHODREF, owner, name, descriptor)
    }

    fn add_member_ref(
        &mut self,
        tag: u8,
        owner: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<u16, RewriteError> {
        let c = self.add_class(owner)?;
        let nat = self.add_name_and_type(name, descriptor)?;
        if let Some(&i) = self.method_cache.get(&(tag, c, nat)) {
            return Ok(i);
        }
        let i = self.push(1)?;
        self.appended.push(tag);
        put_u2(&mut self.appended, c);
        put_u2(&mut self.appended, nat);
        self.method_cache.insert((tag, c, nat), i);
        Ok(i)
    }

    pub fn add_long(&mut self, value: i64) -> Result<u16, RewriteError> {
        if let Some(&i) = self.long_cache.get(&value) {
            return Ok(i);
        }
        let i = self.push(2)?;
        self.appended.push(TAG_LONG);
        self.appended.extend_from_slice(&value.to_be_bytes());
        self.long_cache.insert(value, i);
        Ok(i)
    }

    /// The indices of the original `CONSTANT_MethodHandle` entries.
    pub fn method_handles(&self) -> Vec<u16> {
        (1..self.offsets.len() as u16)
            .filter(|&i| self.tag(i) == Some(TAG_METHOD_HANDLE))
            .collect()
    }

    /// Entry `index` as a method handle: its reference kind and the index of the member it
    /// refers to.
    pub fn method_handle(&self, index: u16) -> Result<(u8, u16), RewriteError> {
        let mut r = self.entry(index, TAG_METHOD_HANDLE)?;
        Ok((r.u1()?, r.u2()?))
    }

    /// Makes original entry `index` a method handle of `kind` referring to entry `member`
    /// (written in place: every use of the constant sees the new target).
    pub fn set_method_handle(
        &mut self,
        index: u16,
        kind: u8,
        member: u16,
    ) -> Result<(), RewriteError> {
        self.entry(index, TAG_METHOD_HANDLE)?;
        let off = self.offsets[index as usize] as usize;
        self.handle_patches.retain(|(o, _, _)| *o != off);
        self.handle_patches.push((off, kind, member));
        Ok(())
    }

    /// True when entries were appended or rewritten.
    pub fn grew(&self) -> bool {
        !self.appended.is_empty() || !self.handle_patches.is_empty()
    }

    /// Writes `constant_pool_count` and every entry, original ones byte for byte (apart from the
    /// method handles [`set_method_handle`](Self::set_method_handle) rewrote).
    pub fn write(&self, out: &mut Vec<u8>) {
        put_u2(out, self.next_index as u16);
        let base = out.len();
        out.extend_from_slice(&self.bytes[self.original.clone()]);
        for &(off, kind, member) in &self.handle_patches {
            let at = base + off - self.original.start;
            out[at + 1] = kind;
            out[at + 2..at + 4].copy_from_slice(&member.to_be_bytes());
        }
        out.extend_from_slice(&self.appended);
    }
}
