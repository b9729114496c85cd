//! What the program's class files say of its fields, for wording a failure's cause: which
//! are `volatile` (`scheduler::cause::Step::sync`: a volatile write orders its thread's past
//! before later reads, and two volatile accesses are never a data race) and which are
//! `static final` (written once, in the class's static initializer, whose end the JVM publishes
//! to every thread: a read of one is never a cause). The site table names a field as its
//! access site does (`owner.name`, where the owner may be a subclass of the declaring class),
//! so each field is listed under every class of the class path that inherits it. Reads files
//! only; decides nothing else.

use rewriter::classfile::ClassFile;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The JVM's field flags.
const ACC_STATIC: u16 = 0x0008;
const ACC_FINAL: u16 = 0x0010;
const ACC_VOLATILE: u16 = 0x0040;

/// Fields as `owner.name` (internal class name, `/`-separated).
#[derive(Debug, Default)]
pub struct FieldFlags {
    pub volatile: HashSet<String>,
    /// `static final` fields.
    pub constants: HashSet<String>,
}

/// The flags of the fields the classes on `classpath` declare or inherit from one another.
/// Entries or classes that cannot be read are skipped: the answer is for wording a cause,
/// never for a verdict.
pub fn field_flags(classpath: &[PathBuf]) -> FieldFlags {
    // class → (superclass, its own fields with their flags)
    type Own = Vec<(u16, String)>;
    let mut classes: HashMap<String, (Option<String>, Own)> = HashMap::new();
    for entry in classpath {
        for bytes in class_files(entry) {
            let Ok(class) = ClassFile::parse(&bytes) else {
                continue;
            };
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let own = class
                .fields
                .iter()
                .map(|(access, name)| (*access, text(name)))
                .collect();
            classes
                .entry(text(class.name))
                .or_insert((class.super_name.map(text), own));
        }
    }
    let mut out = FieldFlags::default();
    for name in classes.keys() {
        let mut at = Some(name.as_str());
        // A class hierarchy has no cycles, but a broken class path might: stop after a bound.
        for _ in 0..64 {
            let Some((sup, own)) = at.and_then(|c| classes.get(c)) else {
                break;
            };
            for (access, f) in own {
                if access & ACC_VOLATILE != 0 {
                    out.volatile.insert(format!("{name}.{f}"));
                }
                if access & (ACC_STATIC | ACC_FINAL) == ACC_STATIC | ACC_FINAL {
                    out.constants.insert(format!("{name}.{f}"));
                }
            }
            at = sup.as_deref();
        }
    }
    out
}

/// The bytes of every class file in a class path entry (a directory or a jar).
fn class_files(entry: &Path) -> Vec<Vec<u8>> {
    if entry.is_dir() {
        let mut out = Vec::new();
        let mut dirs = vec![entry.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = e.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "class") {
                    out.extend(std::fs::read(&path).ok());
                }
            }
        }
        return out;
    }
    std::fs::read(entry)
        .ok()
        .and_then(|bytes| rewriter::jar::read_classes(&bytes).ok())
        .map(|classes| classes.into_iter().map(|(_, b)| b).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volatile_and_static_final_fields_are_found_with_their_inheritors() {
        let dir = std::env::temp_dir().join(format!("rankcheck-volatile-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            src.join("Base.java"),
            "public class Base { volatile boolean ready; int plain; static final Object LOCK = new Object(); }\n",
        )
        .unwrap();
        std::fs::write(
            src.join("Sub.java"),
            "public class Sub extends Base { long count; }\n",
        )
        .unwrap();
        let classes = dir.join("classes");
        let status = std::process::Command::new("javac")
            .arg("-d")
            .arg(&classes)
            .arg(src.join("Base.java"))
            .arg(src.join("Sub.java"))
            .status()
            .unwrap();
        assert!(status.success());
        let flags = field_flags(&[classes]);
        let sorted = |set: &HashSet<String>| {
            let mut v: Vec<String> = set.iter().cloned().collect();
            v.sort();
            v
        };
        assert_eq!(sorted(&flags.volatile), ["Base.ready", "Sub.ready"]);
        assert_eq!(sorted(&flags.constants), ["Base.LOCK", "Sub.LOCK"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
