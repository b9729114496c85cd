//! The class table: classes parsed on first use, the hierarchy, method and field resolution,
//! and subtyping. A class that is missing or cannot be parsed is remembered as missing, with one
//! warning; callers then answer conservatively.

use std::collections::HashMap;

use ristretto_classfile::{ClassAccessFlags, ClassFile, FieldAccessFlags, MethodAccessFlags};

use crate::classpath::{ClassPath, Origin};

/// Index of a loaded class in [`Classes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId(pub u32);

pub struct FieldDecl {
    pub name: String,
    pub descriptor: String,
    pub is_static: bool,
    /// Public or protected: code of other packages may access it.
    pub is_exported: bool,
}

pub struct MethodDecl {
    pub name: String,
    pub descriptor: String,
    pub flags: MethodAccessFlags,
}

impl MethodDecl {
    pub fn is_static(&self) -> bool {
        self.flags.contains(MethodAccessFlags::STATIC)
    }
    pub fn is_abstract(&self) -> bool {
        self.flags.contains(MethodAccessFlags::ABSTRACT)
    }
    pub fn is_native(&self) -> bool {
        self.flags.contains(MethodAccessFlags::NATIVE)
    }
}

pub struct ClassInfo {
    pub name: String,
    pub origin: Origin,
    pub super_name: Option<String>,
    pub interfaces: Vec<String>,
    pub is_interface: bool,
    pub fields: Vec<FieldDecl>,
    pub methods: Vec<MethodDecl>,
    pub file: ClassFile<'static>,
}

/// A method of a loaded class: (class, index into its `methods`).
pub type MethodLoc = (ClassId, usize);

pub struct Classes {
    path: ClassPath,
    by_name: HashMap<String, Option<ClassId>>,
    infos: Vec<ClassInfo>,
    /// Classes asked for but not found or not parseable, with why.
    pub missing: Vec<String>,
}

fn parse(bytes: &[u8], expected: &str, origin: Origin) -> Result<ClassInfo, String> {
    // A parser bug on hostile input must not take the analysis down: a panic is a bad class.
    let file = std::panic::catch_unwind(|| ClassFile::from_bytes(bytes))
        .map_err(|_| "cannot parse: the class-file reader failed on it".to_string())?
        .map_err(|e| format!("cannot parse: {e}"))?;
    let cp = &file.constant_pool;
    let text = |i: u16| -> Result<String, String> {
        cp.try_get_utf8(i)
            .map(|s| s.to_str_lossy().into_owned())
            .map_err(|e| format!("bad constant {i}: {e}"))
    };
    let class_name = |i: u16| -> Result<String, String> {
        cp.try_get_class(i)
            .map(|s| s.to_str_lossy().into_owned())
            .map_err(|e| format!("bad class constant {i}: {e}"))
    };
    let name = class_name(file.this_class)?;
    if name != expected {
        return Err(format!("file holds class {name}"));
    }
    let super_name = if file.super_class == 0 {
        None
    } else {
        Some(class_name(file.super_class)?)
    };
    let interfaces = file
        .interfaces
        .iter()
        .map(|&i| class_name(i))
        .collect::<Result<Vec<_>, _>>()?;
    let fields = file
        .fields
        .iter()
        .map(|f| {
            Ok(FieldDecl {
                name: text(f.name_index)?,
                descriptor: text(f.descriptor_index)?,
                is_static: f.access_flags.contains(FieldAccessFlags::STATIC),
                is_exported: f
                    .access_flags
                    .intersects(FieldAccessFlags::PUBLIC | FieldAccessFlags::PROTECTED),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let methods = file
        .methods
        .iter()
        .map(|m| {
            Ok(MethodDecl {
                name: text(m.name_index)?,
                descriptor: text(m.descriptor_index)?,
                flags: m.access_flags,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(ClassInfo {
        name,
        origin,
        super_name,
        interfaces,
        is_interface: file.access_flags.contains(ClassAccessFlags::INTERFACE),
        fields,
        methods,
        file,
    })
}

impl Classes {
    pub fn new(path: ClassPath) -> Classes {
        Classes {
            path,
            by_name: HashMap::new(),
            infos: Vec::new(),
            missing: Vec::new(),
        }
    }

    pub fn path(&self) -> &ClassPath {
        &self.path
    }

    /// The class `name` (internal form), loading it on first use; `None` if it is missing or
    /// corrupt (recorded in [`Classes::missing`]). Array types are never classes.
    pub fn get(&mut self, name: &str) -> Option<ClassId> {
        if let Some(&known) = self.by_name.get(name) {
            return known;
        }
        let result = if name.starts_with('[') || name.is_empty() {
            None
        } else {
            match self.path.load(name) {
                None => {
                    self.missing.push(format!("class {name} not found"));
                    None
                }
                Some((bytes, origin)) => match parse(&bytes, name, origin) {
                    Ok(info) => {
                        let id = ClassId(self.infos.len() as u32);
                        self.infos.push(info);
                        Some(id)
                    }
                    Err(why) => {
                        self.missing.push(format!("class {name}: {why}"));
                        None
                    }
                },
            }
        };
        self.by_name.insert(name.to_string(), result);
        result
    }

    pub fn info(&self, id: ClassId) -> &ClassInfo {
        &self.infos[id.0 as usize]
    }

    pub fn loaded_count(&self) -> usize {
        self.infos.len()
    }

    fn superclass(&mut self, id: ClassId) -> Option<ClassId> {
        let name = self.info(id).super_name.clone()?;
        self.get(&name)
    }

    fn find_declared(&self, id: ClassId, name: &str, desc: &str) -> Option<usize> {
        self.info(id)
            .methods
            .iter()
            .position(|m| m.name == name && m.descriptor == desc)
    }

    /// Method resolution (JVMS §5.4.3.3/4) from `class`: the class and its superclasses, then
    /// the superinterfaces (preferring a non-abstract method). Used for static and special calls.
    pub fn resolve_method(&mut self, class: &str, name: &str, desc: &str) -> Option<MethodLoc> {
        let start = self.get(class)?;
        let mut at = Some(start);
        while let Some(c) = at {
            if let Some(i) = self.find_declared(c, name, desc) {
                return Some((c, i));
            }
            at = self.superclass(c);
        }
        self.interface_method(start, name, desc)
    }

    /// Virtual dispatch on an object of class `class`: the first non-abstract declaration on the
    /// superclass chain, else a default method of a superinterface.
    pub fn dispatch(&mut self, class: &str, name: &str, desc: &str) -> Option<MethodLoc> {
        let start = self.get(class)?;
        let mut at = Some(start);
        while let Some(c) = at {
            if let Some(i) = self.find_declared(c, name, desc) {
                let m = &self.info(c).methods[i];
                if !m.is_static() && !m.is_abstract() {
                    return Some((c, i));
                }
                if !m.is_static() && m.is_abstract() {
                    // An abstract re-declaration hides inherited defaults only from classes;
                    // keep searching interfaces below.
                    break;
                }
            }
            at = self.superclass(c);
        }
        self.interface_method(start, name, desc)
            .filter(|&(c, i)| !self.info(c).methods[i].is_abstract())
    }

    /// Searches every superinterface of `start` (and of its superclasses), breadth first,
    /// preferring a non-abstract method (a default) over an abstract one.
    fn interface_method(&mut self, start: ClassId, name: &str, desc: &str) -> Option<MethodLoc> {
        let mut queue = Vec::new();
        let mut at = Some(start);
        while let Some(c) = at {
            queue.push(c);
            at = self.superclass(c);
        }
        let mut seen = std::collections::HashSet::new();
        let mut abstract_hit = None;
        let mut i = 0;
        while i < queue.len() {
            let c = queue[i];
            i += 1;
            let ifaces = self.info(c).interfaces.clone();
            for iface in ifaces {
                let Some(id) = self.get(&iface) else { continue };
                if !seen.insert(id) {
                    continue;
                }
                if let Some(m) = self.find_declared(id, name, desc) {
                    let decl = &self.info(id).methods[m];
                    if !decl.is_static() && !decl.flags.contains(MethodAccessFlags::PRIVATE) {
                        if !decl.is_abstract() {
                            return Some((id, m));
                        }
                        abstract_hit.get_or_insert((id, m));
                    }
                }
                queue.push(id);
            }
        }
        abstract_hit
    }

    /// Field resolution (JVMS §5.4.3.2): the class declaring field `name:desc` as seen from
    /// `class` (the class, its superinterfaces, then its superclass, recursively).
    pub fn resolve_field(&mut self, class: &str, name: &str, desc: &str) -> Option<ClassId> {
        let id = self.get(class)?;
        self.resolve_field_in(id, name, desc, 0)
    }

    fn resolve_field_in(
        &mut self,
        id: ClassId,
        name: &str,
        desc: &str,
        depth: u32,
    ) -> Option<ClassId> {
        if depth > 64 {
            return None;
        }
        if self
            .info(id)
            .fields
            .iter()
            .any(|f| f.name == name && f.descriptor == desc)
        {
            return Some(id);
        }
        for iface in self.info(id).interfaces.clone() {
            if let Some(i) = self.get(&iface) {
                if let Some(found) = self.resolve_field_in(i, name, desc, depth + 1) {
                    return Some(found);
                }
            }
        }
        let sup = self.superclass(id)?;
        self.resolve_field_in(sup, name, desc, depth + 1)
    }

    /// Whether a value of type `sub` may be stored in a variable of type `sup` (internal names
    /// or array descriptors). Unknown classes make the answer true: never drop an object
    /// because a class is missing.
    pub fn is_subtype(&mut self, sub: &str, sup: &str) -> bool {
        if sub == sup || sup == "java/lang/Object" {
            return true;
        }
        if let Some(elem) = sub.strip_prefix('[') {
            if sup == "java/lang/Cloneable" || sup == "java/io/Serializable" {
                return true;
            }
            let Some(sup_elem) = sup.strip_prefix('[') else {
                return false;
            };
            return match (class_of_desc(elem), class_of_desc(sup_elem)) {
                (Some(a), Some(b)) => self.is_subtype(&a, &b),
                _ => elem == sup_elem,
            };
        }
        if sup.starts_with('[') {
            return false;
        }
        let Some(start) = self.get(sub) else {
            return true;
        };
        let mut stack = vec![start];
        let mut seen = std::collections::HashSet::new();
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            let info = self.info(c);
            if info.name == sup {
                return true;
            }
            let mut next: Vec<String> = info.interfaces.clone();
            next.extend(info.super_name.clone());
            for n in next {
                match self.get(&n) {
                    Some(id) => stack.push(id),
                    None => return true,
                }
            }
        }
        false
    }
}

/// The class (internal name or array descriptor) a field descriptor names, or `None` for a
/// primitive: `Lp/C;` → `p/C`, `[I` → `[I`.
pub fn class_of_desc(desc: &str) -> Option<String> {
    if let Some(rest) = desc.strip_prefix('L') {
        Some(rest.trim_end_matches(';').to_string())
    } else if desc.starts_with('[') {
        Some(desc.to_string())
    } else {
        None
    }
}

/// The field descriptor of a class name or array descriptor (the inverse of [`class_of_desc`]).
pub fn desc_of_class(name: &str) -> String {
    if name.starts_with('[') {
        name.to_string()
    } else {
        format!("L{name};")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_class_files_are_missing_classes_not_crashes() {
        let mut cp = ClassPath::new(&[], Some(&crate::classpath::default_jmods())).unwrap();
        let (bytes, _) = cp.load("java/util/ArrayList").unwrap();
        let mut damaged = 0;
        for cut in (0..bytes.len()).step_by(97) {
            if parse(&bytes[..cut], "java/util/ArrayList", Origin::App).is_err() {
                damaged += 1;
            }
        }
        for at in (10..bytes.len()).step_by(53) {
            let mut b = bytes.clone();
            b[at] ^= 0xff;
            // Either parses (the flip hit a harmless byte) or is an error; never a panic.
            if let Ok(info) = parse(&b, "java/util/ArrayList", Origin::App) {
                for i in 0..info.methods.len() {
                    let _ = crate::ir::build(&info.file, i);
                }
            }
        }
        assert!(damaged > 10);
        assert!(parse(&bytes, "java/util/ArrayList", Origin::Jdk).is_ok());
    }
}
