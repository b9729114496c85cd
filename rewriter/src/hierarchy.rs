//! Superclass chains, for deciding whether `invokevirtual MyThread.join()V` is `Thread.join`.
//!
//! Classes come from the input (registered by the caller) and, on demand, from the running JDK's
//! `jmods/java.base.jmod` (a 4-byte header, then a zip with classes under `classes/`). A class
//! found in neither is unknown, and an unknown owner is not a `Thread` (its call is left alone).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock, RwLock};

#[derive(Clone, Debug, Default)]
struct ClassInfo {
    super_name: Option<String>,
    /// `name descriptor` of methods the class declares that some hook replaces (overrides stop
    /// the resolution).
    declares: Vec<String>,
}

/// Input classes plus the JDK, behind one lookup.
#[derive(Default)]
pub struct Hierarchy {
    /// Behind a lock so that load-time instrumentation can register classes as they load,
    /// through the same shared `Arc<Hierarchy>` its `Config` holds.
    input: RwLock<HashMap<String, ClassInfo>>,
    jdk_cache: Mutex<HashMap<String, Option<String>>>,
}

impl Hierarchy {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers an input class: its superclass and the hook-replaced methods it declares.
    pub fn add_class(&self, name: &str, super_name: Option<&str>, declares: Vec<String>) {
        self.input
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                name.to_string(),
                ClassInfo {
                    super_name: super_name.map(str::to_string),
                    declares,
                },
            );
    }

    /// Registers the class in `bytes` (ignored if it does not parse).
    pub fn add_class_bytes(&self, bytes: &[u8]) {
        if let Ok(cf) = crate::classfile::ClassFile::parse(bytes) {
            let mut declares = Vec::new();
            for m in &cf.methods {
                if let (Ok(n), Ok(d)) = (
                    cf.cp.utf8_string(m.name_index),
                    cf.cp.utf8_string(m.descriptor_index),
                ) {
                    if crate::passes::calls::is_replaced_name(&n, &d) {
                        declares.push(format!("{n} {d}"));
                    }
                }
            }
            let name = crate::bytes::decode_mutf8(cf.name);
            let sup = cf.super_name.map(crate::bytes::decode_mutf8);
            self.add_class(&name, sup.as_deref(), declares);
        }
    }

    fn super_of(&self, name: &str) -> Option<String> {
        if let Some(info) = self
            .input
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
        {
            return info.super_name.clone();
        }
        let mut cache = self.jdk_cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = cache.get(name) {
            return s.clone();
        }
        let s = jdk_super(name);
        cache.insert(name.to_string(), s.clone());
        s
    }

    /// True when a call naming `owner` as its class resolves to the method `name descriptor`
    /// declared by `declaring`: `owner` is `declaring` or a subclass that does not override it.
    pub fn resolves_to(&self, owner: &str, declaring: &str, name: &str, descriptor: &str) -> bool {
        let mut current = owner.to_string();
        for _ in 0..64 {
            if current == declaring {
                return true;
            }
            let overridden = self
                .input
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .get(&current)
                .is_some_and(|info| info.declares.contains(&format!("{name} {descriptor}")));
            if overridden {
                return false;
            }
            match self.super_of(&current) {
                Some(s) => current = s,
                None => return false,
            }
        }
        false
    }
}

/// A file seen from byte `base` on: the zip inside a jmod, which starts after a 4-byte header.
struct FromOffset {
    file: std::fs::File,
    base: u64,
}

impl Read for FromOffset {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.file.read(buf)
    }
}

impl Seek for FromOffset {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        let pos = match pos {
            SeekFrom::Start(p) => SeekFrom::Start(p + self.base),
            other => other,
        };
        Ok(self.file.seek(pos)? - self.base)
    }
}

type Jmod = zip::ZipArchive<std::io::BufReader<FromOffset>>;

/// The JDK's java.base module, opened once (only its central directory is read up front).
fn jdk_base() -> Option<&'static Mutex<Jmod>> {
    static JMOD: OnceLock<Option<Mutex<Jmod>>> = OnceLock::new();
    JMOD.get_or_init(|| {
        let path = java_home()?.join("jmods").join("java.base.jmod");
        let mut file = std::fs::File::open(path).ok()?;
        file.seek(SeekFrom::Start(4)).ok()?;
        let reader = std::io::BufReader::new(FromOffset { file, base: 4 });
        zip::ZipArchive::new(reader).ok().map(Mutex::new)
    })
    .as_ref()
}

/// The JDK this process should read: `$JAVA_HOME`, else the `java` on PATH, else the default
/// OpenJDK 17 location.
pub fn java_home() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("JAVA_HOME") {
        return Some(PathBuf::from(h));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let java = dir.join("java");
            if java.is_file() {
                if let Ok(real) = std::fs::canonicalize(&java) {
                    if let Some(home) = real.parent().and_then(|b| b.parent()) {
                        if home.join("jmods").is_dir() {
                            return Some(home.to_path_buf());
                        }
                    }
                }
            }
        }
    }
    Some(PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64"))
}

fn jdk_super(name: &str) -> Option<String> {
    let zip = jdk_base()?;
    let mut zip = zip.lock().unwrap_or_else(|e| e.into_inner());
    let mut entry = zip.by_name(&format!("classes/{name}.class")).ok()?;
    let mut bytes = Vec::with_capacity(entry.size() as usize);
    entry.read_to_end(&mut bytes).ok()?;
    crate::classfile::class_and_super(&bytes).ok()?.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subclass_owners_resolve_through_input_and_jdk() {
        let h = Hierarchy::new();
        h.add_class("app/MyThread", Some("java/lang/Thread"), vec![]);
        h.add_class(
            "app/Custom",
            Some("java/lang/Thread"),
            vec!["start ()V".into()],
        );
        let t = "java/lang/Thread";
        assert!(h.resolves_to("app/MyThread", t, "join", "()V"));
        assert!(!h.resolves_to("app/Custom", t, "start", "()V"));
        assert!(!h.resolves_to("app/Unknown", t, "join", "()V"));
        // A JDK subclass of Thread, read from java.base.jmod.
        assert!(h.resolves_to(
            "java/util/concurrent/ForkJoinWorkerThread",
            t,
            "join",
            "()V"
        ));
        assert!(!h.resolves_to("java/lang/String", t, "join", "()V"));
    }
}
