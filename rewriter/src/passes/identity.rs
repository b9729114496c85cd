//! Pinned identity hash codes for the program's own objects.
//!
//! `Object.hashCode` is native and called from inside the JDK (a `HashMap` asks its keys), so a
//! call-site hook cannot reach it. The JVM's own identity hashes differ between the executions
//! of one JVM, and the CLI makes them all equal instead (`-XX:hashCode=2`), which turns every
//! hash table of such objects into one list. So a class at the top of the program's hierarchy
//! that inherits `Object.hashCode` gets an override, `hashCode() { return
//! RC.identityHashCode(this, site); }`: the pinned hash `System.identityHashCode` already gets,
//! distinct per object and the same in a replay. Its subclasses inherit it. `super.hashCode()`
//! calls that name `Object` (or `Thread`, which does not override it) go to the same hook.
//!
//! Left alone: interfaces, classes whose superclass is anything but `Object` or `Thread` (a JDK
//! superclass may define its own hash, or be `Enum`, whose `hashCode` is final), classes that
//! declare a `hashCode()` of their own, and classes that implement `Serializable` themselves
//! (the new method would change their default `serialVersionUID`).

use crate::bytes::{put_u2, put_u4};
use crate::classfile::{ClassFile, ACC_INTERFACE};
use crate::code::op;
use crate::constant_pool::ConstantPool;
use crate::{Config, RewriteError};
use java_harness::hooks::{Hook, RC_CLASS};

const ACC_PUBLIC: u16 = 0x0001;
const ACC_SYNTHETIC: u16 = 0x1000;

/// Superclasses that inherit `Object.hashCode` and whose subclasses may override it.
const PLAIN_SUPERS: [&[u8]; 2] = [b"java/lang/Object", b"java/lang/Thread"];

/// True when `owner.hashCode()I` called with `invokespecial` is `Object.hashCode`.
pub fn is_object_hash_code(owner: &[u8], name: &[u8], descriptor: &[u8]) -> bool {
    PLAIN_SUPERS.contains(&owner) && name == b"hashCode" && descriptor == b"()I"
}

/// True when the class gets the pinned `hashCode` override.
pub fn wants_override(class: &ClassFile, config: &Config) -> Result<bool, RewriteError> {
    // Pinned values are the application configurations' (JDK classes share objects with
    // threads rankcheck does not control); rankcheck's own classes never get here.
    if !config.pin_nondeterminism || class.access & ACC_INTERFACE != 0 {
        return Ok(false);
    }
    if !class.super_name.is_some_and(|s| PLAIN_SUPERS.contains(&s)) {
        return Ok(false);
    }
    if class
        .interfaces
        .iter()
        .any(|i| *i == b"java/io/Serializable" || *i == b"java/io/Externalizable")
    {
        return Ok(false);
    }
    for m in &class.methods {
        if class.cp.utf8(m.name_index)? == b"hashCode"
            && class.cp.utf8(m.descriptor_index)? == b"()I"
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The encoded method_info of `public synthetic int hashCode()`, which returns the pinned
/// identity hash of `this`. It passes site 0: the site table names instructions of the
/// original class, and this method has none (the hook does not use the site).
pub fn override_method(cp: &mut ConstantPool) -> Result<Vec<u8>, RewriteError> {
    let hook = cp.add_methodref(
        RC_CLASS,
        Hook::IdentityHashCode.name(),
        Hook::IdentityHashCode.descriptor(),
    )?;
    // aload_0; lconst_0; invokestatic RC.identityHashCode(Object, long); ireturn
    let mut code = vec![op::ALOAD_0, op::LCONST_0, op::INVOKESTATIC];
    put_u2(&mut code, hook);
    code.push(op::IRETURN);
    let mut attr = Vec::with_capacity(32);
    put_u2(&mut attr, cp.add_utf8("Code")?);
    put_u4(&mut attr, (2 + 2 + 4 + code.len() + 2 + 2) as u32);
    put_u2(&mut attr, 3); // max_stack: this and the long site
    put_u2(&mut attr, 1); // max_locals: this
    put_u4(&mut attr, code.len() as u32);
    attr.extend_from_slice(&code);
    put_u2(&mut attr, 0); // no exception table
    put_u2(&mut attr, 0); // no attributes
    let mut method = Vec::with_capacity(attr.len() + 8);
    put_u2(&mut method, ACC_PUBLIC | ACC_SYNTHETIC);
    put_u2(&mut method, cp.add_utf8("hashCode")?);
    put_u2(&mut method, cp.add_utf8("()I")?);
    put_u2(&mut method, 1);
    method.extend_from_slice(&attr);
    Ok(method)
}

#[cfg(test)]
mod tests {
    use crate::classfile::ClassFile;
    use crate::Config;

    const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/rewrite/rw/");

    /// The access flags of the `hashCode()I` the instrumented class declares, if any.
    fn hash_code_of(class: &str, config: &Config) -> Option<u16> {
        let bytes = std::fs::read(format!("{CORPUS}{class}.class")).unwrap();
        let out = crate::instrument_class(&bytes, config).unwrap();
        let cf = ClassFile::parse(&out.bytes).unwrap();
        cf.methods
            .iter()
            .find(|m| {
                cf.cp.utf8(m.name_index).unwrap() == b"hashCode"
                    && cf.cp.utf8(m.descriptor_index).unwrap() == b"()I"
            })
            .map(|m| m.access)
    }

    #[test]
    fn the_top_of_the_program_hierarchy_gets_the_pinned_hash() {
        let all = Config::all();
        // Extends Object, extends Thread: a public synthetic override.
        assert_eq!(hash_code_of("Basics", &all), Some(0x1001));
        assert_eq!(hash_code_of("Threads$Worker", &all), Some(0x1001));
        // Extends a program class (inherits the override), or Enum (final hashCode).
        assert_eq!(hash_code_of("Basics$Derived", &all), None);
        assert_eq!(hash_code_of("Basics$Color", &all), None);
        // Not for JDK classes, which share objects with threads rankcheck does not control.
        assert_eq!(hash_code_of("Basics", &Config::jdk()), None);
    }

    #[test]
    fn object_hash_code_names_only_classes_that_inherit_it() {
        assert!(super::is_object_hash_code(
            b"java/lang/Object",
            b"hashCode",
            b"()I"
        ));
        assert!(!super::is_object_hash_code(
            b"java/util/AbstractList",
            b"hashCode",
            b"()I"
        ));
    }
}
