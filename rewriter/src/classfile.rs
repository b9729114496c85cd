//! The class file's outer structure, indexed in place: the constant pool, the methods and their
//! attributes as byte ranges of the original. Anything not rewritten is written back as the
//! original bytes, so a class without changes round-trips byte for byte.

use crate::bytes::{put_u2, put_u4, Reader};
use crate::constant_pool::ConstantPool;
use crate::RewriteError;
use std::ops::Range;

pub const ACC_STATIC: u16 = 0x0008;
pub const ACC_VOLATILE: u16 = 0x0040;
pub const ACC_SYNCHRONIZED: u16 = 0x0020;
pub const ACC_NATIVE: u16 = 0x0100;
pub const ACC_INTERFACE: u16 = 0x0200;
pub const ACC_ABSTRACT: u16 = 0x0400;
pub const ACC_MODULE: u16 = 0x8000;

/// Newest class-file major version accepted (Java 25).
pub const MAX_MAJOR: u16 = 69;

#[derive(Clone, Debug)]
pub struct Attribute {
    pub name_index: u16,
    /// The attribute's info bytes (after the 6-byte header), in the original class file.
    pub info: Range<usize>,
}

#[derive(Clone, Debug)]
pub struct Method {
    /// The whole method_info in the original class file.
    pub range: Range<usize>,
    pub access: u16,
    pub name_index: u16,
    pub descriptor_index: u16,
    pub attributes: Vec<Attribute>,
    /// Index into `attributes` of the Code attribute.
    pub code: Option<usize>,
}

pub struct ClassFile<'a> {
    pub bytes: &'a [u8],
    pub major: u16,
    pub cp: ConstantPool<'a>,
    pub access: u16,
    pub this_class: u16,
    pub name: &'a [u8],
    pub super_name: Option<&'a [u8]>,
    /// Internal names of the interfaces the class lists itself (not inherited ones).
    pub interfaces: Vec<&'a [u8]>,
    /// The fields the class declares: (access flags, name).
    pub fields: Vec<(u16, &'a [u8])>,
    /// From access_flags up to (not including) methods_count.
    middle: Range<usize>,
    pub methods: Vec<Method>,
    pub attributes: Vec<Attribute>,
}

fn read_attributes(r: &mut Reader) -> Result<Vec<Attribute>, RewriteError> {
    let count = r.u2()?;
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let name_index = r.u2()?;
        let len = r.u4()? as usize;
        let start = r.pos;
        r.take(len)?;
        out.push(Attribute {
            name_index,
            info: start..start + len,
        });
    }
    Ok(out)
}

/// Checks magic and version and returns the major version.
pub fn check_header(bytes: &[u8]) -> Result<u16, RewriteError> {
    let mut r = Reader::new(bytes);
    let magic = r.u4()?;
    if magic != 0xCAFE_BABE {
        return Err(RewriteError::BadMagic(magic));
    }
    let _minor = r.u2()?;
    let major = r.u2()?;
    if !(45..=MAX_MAJOR).contains(&major) {
        return Err(RewriteError::UnsupportedVersion(major));
    }
    Ok(major)
}

impl<'a> ClassFile<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self, RewriteError> {
        let major = check_header(bytes)?;
        let (cp, cp_end) = ConstantPool::parse(bytes)?;
        let mut r = Reader::at(bytes, cp_end);
        let middle_start = r.pos;
        let access = r.u2()?;
        let this_class = r.u2()?;
        let super_class = r.u2()?;
        let name = cp.class_name(this_class)?;
        let super_name = if super_class == 0 {
            None
        } else {
            Some(cp.class_name(super_class)?)
        };
        let interface_count = r.u2()? as usize;
        let mut interfaces = Vec::with_capacity(interface_count);
        for _ in 0..interface_count {
            interfaces.push(cp.class_name(r.u2()?)?);
        }
        let field_count = r.u2()?;
        let mut fields = Vec::with_capacity(field_count as usize);
        for _ in 0..field_count {
            let access = r.u2()?;
            let name = cp.utf8(r.u2()?)?;
            r.u2()?;
            read_attributes(&mut r)?;
            fields.push((access, name));
        }
        let middle = middle_start..r.pos;
        let method_count = r.u2()?;
        let mut methods = Vec::with_capacity(method_count as usize);
        for _ in 0..method_count {
            let start = r.pos;
            let access = r.u2()?;
            let name_index = r.u2()?;
            let descriptor_index = r.u2()?;
            let attributes = read_attributes(&mut r)?;
            let mut code = None;
            for (i, a) in attributes.iter().enumerate() {
                if cp.utf8(a.name_index)? == b"Code" {
                    code = Some(i);
                }
            }
            methods.push(Method {
                range: start..r.pos,
                access,
                name_index,
                descriptor_index,
                attributes,
                code,
            });
        }
        let attributes = read_attributes(&mut r)?;
        if r.remaining() != 0 {
            return Err(RewriteError::Malformed(format!(
                "{} bytes after the end of the class",
                r.remaining()
            )));
        }
        Ok(ClassFile {
            bytes,
            major,
            cp,
            access,
            this_class,
            name,
            super_name,
            interfaces,
            fields,
            middle,
            methods,
            attributes,
        })
    }

    pub fn has_attribute(&self, name: &str) -> bool {
        self.attributes.iter().any(|a| {
            self.cp
                .utf8(a.name_index)
                .is_ok_and(|n| n == name.as_bytes())
        })
    }

    /// Writes the class: `methods[i]` replaced by `new_methods[i]` where that is `Some` (a whole
    /// encoded method_info), `added_methods` (whole method_infos) after them, and
    /// `extra_attributes` (encoded, header included) appended to the class attributes.
    pub fn write(
        &self,
        new_methods: &[Option<Vec<u8>>],
        added_methods: &[Vec<u8>],
        extra_attributes: &[Vec<u8>],
    ) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + 1024);
        out.extend_from_slice(&self.bytes[..8]);
        self.cp.write(&mut out);
        out.extend_from_slice(&self.bytes[self.middle.clone()]);
        put_u2(&mut out, (self.methods.len() + added_methods.len()) as u16);
        for (m, new) in self.methods.iter().zip(new_methods) {
            match new {
                Some(bytes) => out.extend_from_slice(bytes),
                None => out.extend_from_slice(&self.bytes[m.range.clone()]),
            }
        }
        for m in added_methods {
            out.extend_from_slice(m);
        }
        put_u2(
            &mut out,
            (self.attributes.len() + extra_attributes.len()) as u16,
        );
        for a in &self.attributes {
            put_u2(&mut out, a.name_index);
            put_u4(&mut out, a.info.len() as u32);
            out.extend_from_slice(&self.bytes[a.info.clone()]);
        }
        for a in extra_attributes {
            out.extend_from_slice(a);
        }
        out
    }
}

/// Internal name and superclass of a class, read without indexing its methods.
pub fn class_and_super(bytes: &[u8]) -> Result<(String, Option<String>, u16), RewriteError> {
    check_header(bytes)?;
    let (cp, end) = ConstantPool::parse(bytes)?;
    let mut r = Reader::at(bytes, end);
    let access = r.u2()?;
    let this = cp.class_name(r.u2()?)?;
    let sup = r.u2()?;
    let sup = if sup == 0 {
        None
    } else {
        Some(crate::bytes::decode_mutf8(cp.class_name(sup)?))
    };
    Ok((crate::bytes::decode_mutf8(this), sup, access))
}
