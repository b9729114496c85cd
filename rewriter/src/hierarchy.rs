//! Superclass chains, for deciding whether `invokevirtual MyThread.join()V` is `Thread.join`,
//! and whether `invokevirtual Cache.put(…)` runs a synchronized method of `Hashtable`.
//!
//! Classes come from the input (registered by the caller) and, on demand, from the running JDK's
//! `jmods/java.base.jmod` (a 4-byte header, then a zip with classes under `classes/`). A class
//! found in neither is unknown, and an unknown owner is not a `Thread` (its call is left alone).

use crate::classfile::{ACC_STATIC, ACC_SYNCHRONIZED};
use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// The JDK classes whose synchronized methods keep the JVM's real monitors under rankcheck,
/// with their JDK subclasses (`Properties`): a program shares them as thread-safe containers,
/// and the JVM loads them during its start-up, before the agent's class-file hook is on, so
/// their `synchronized` flags stay (retransformation cannot change a method's modifiers).
/// `Vector` and `Stack` load later and are desugared by the agent; the
/// `Collections.synchronized*` wrappers lock in blocks, which are rewritten at any time.
pub const REAL_MONITOR_CLASSES: &[&str] = &["java/lang/StringBuffer", "java/util/Hashtable"];

/// `name descriptor` of every synchronized instance method of [`REAL_MONITOR_CLASSES`] and of
/// `Properties` (the JDK's public subclass of `Hashtable`, with its own, such as
/// `setProperty`): the calls worth resolving, and the overrides an input class must record.
fn real_monitor_names() -> &'static HashSet<String> {
    static NAMES: OnceLock<HashSet<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        REAL_MONITOR_CLASSES
            .iter()
            .chain(&["java/util/Properties"])
            .filter_map(|c| jdk_class(c))
            .flat_map(|c| {
                c.methods
                    .into_iter()
                    .filter(|&(_, access)| synchronized_instance(access))
                    .map(|(key, _)| key)
            })
            .collect()
    })
}

/// True for the access flags of a synchronized instance method.
fn synchronized_instance(access: u16) -> bool {
    access & (ACC_SYNCHRONIZED | ACC_STATIC) == ACC_SYNCHRONIZED
}

/// True when some synchronized method of [`REAL_MONITOR_CLASSES`] is called `name` with
/// `descriptor` (a cheap first test before a call's owner is resolved).
pub fn is_real_monitor_name(name: &str, descriptor: &str) -> bool {
    real_monitor_names().contains(&format!("{name} {descriptor}"))
}

#[derive(Clone, Debug, Default)]
struct ClassInfo {
    super_name: Option<String>,
    /// `name descriptor` of methods the class declares that some hook replaces, or that are
    /// synchronized in [`REAL_MONITOR_CLASSES`] (overrides stop the resolution).
    declares: Vec<String>,
}

/// A JDK class, read from `java.base.jmod`: its superclass, interfaces and its methods'
/// access flags.
#[derive(Debug, Default)]
struct JdkClass {
    super_name: Option<String>,
    /// The interfaces the class (or interface) names as its direct superinterfaces.
    interfaces: Vec<String>,
    /// `name descriptor` → access flags.
    methods: HashMap<String, u16>,
}

/// Input classes plus the JDK, behind one lookup.
#[derive(Default)]
pub struct Hierarchy {
    /// Behind a lock so that load-time instrumentation can register classes as they load,
    /// through the same shared `Arc<Hierarchy>` its `Config` holds.
    input: RwLock<HashMap<String, ClassInfo>>,
    jdk_cache: Mutex<HashMap<String, Option<Arc<JdkClass>>>>,
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
                    if crate::passes::calls::is_replaced_name(&n, &d)
                        || is_real_monitor_name(&n, &d)
                    {
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
        self.jdk(name)?.super_name.clone()
    }

    /// The JDK class `name`, read once.
    fn jdk(&self, name: &str) -> Option<Arc<JdkClass>> {
        let mut cache = self.jdk_cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(name.to_string())
            .or_insert_with(|| jdk_class(name).map(Arc::new))
            .clone()
    }

    /// `class`, then its superclasses as far as they are known (at most 64: a cycle is
    /// impossible in a loadable program, the cap only keeps a corrupt input finite).
    fn chain<'a>(&'a self, class: &str) -> impl Iterator<Item = String> + 'a {
        std::iter::successors(Some(class.to_string()), |c| self.super_of(c)).take(64)
    }

    fn is_input(&self, class: &str) -> bool {
        self.input
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(class)
    }

    /// Whether the input class `class` declares `key` (`name descriptor`); `None` when `class`
    /// is not an input class.
    fn input_declares(&self, class: &str, key: &str) -> Option<bool> {
        self.input
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(class)
            .map(|info| info.declares.iter().any(|d| d == key))
    }

    /// For a call naming `owner` (`invokevirtual`): the JDK class whose method `name
    /// descriptor` it runs, when that method is a synchronized instance method of one of
    /// [`REAL_MONITOR_CLASSES`] or of a JDK subclass. `None` when an input class on the way
    /// overrides it, when the method found first is not synchronized (`Properties.put`), and
    /// for any class not known.
    pub fn real_monitor_method(&self, owner: &str, name: &str, descriptor: &str) -> Option<String> {
        let key = format!("{name} {descriptor}");
        for class in self.chain(owner) {
            match self.input_declares(&class, &key) {
                Some(true) => return None,
                Some(false) => {}
                None => {
                    if let Some(&access) = self.jdk(&class)?.methods.get(&key) {
                        return (synchronized_instance(access)
                            && self.extends_real_monitor_class(&class))
                        .then_some(class);
                    }
                }
            }
        }
        None
    }

    /// For a call through the JDK interface `owner` (`invokeinterface`): the class of
    /// [`REAL_MONITOR_CLASSES`] that implements `owner` and whose own resolution of `name
    /// descriptor` is a synchronized method, the class a receiver must be exactly for the
    /// call to run under a real monitor. `None` for an input interface.
    pub fn real_monitor_for_interface(
        &self,
        owner: &str,
        name: &str,
        descriptor: &str,
    ) -> Option<String> {
        if self.is_input(owner) {
            return None;
        }
        REAL_MONITOR_CLASSES
            .iter()
            .find(|&&class| {
                self.jdk_implements(class, owner)
                    && self.real_monitor_method(class, name, descriptor).is_some()
            })
            .map(|class| class.to_string())
    }

    /// True when the JDK class `class` implements `interface`, through its superclasses'
    /// interfaces and their superinterfaces.
    fn jdk_implements(&self, class: &str, interface: &str) -> bool {
        let mut pending: Vec<String> = self
            .chain(class)
            .filter_map(|c| self.jdk(&c))
            .flat_map(|c| c.interfaces.clone())
            .collect();
        let mut seen = HashSet::new();
        while let Some(i) = pending.pop() {
            if i == interface {
                return true;
            }
            if seen.insert(i.clone()) {
                pending.extend(self.jdk(&i).into_iter().flat_map(|c| c.interfaces.clone()));
            }
        }
        false
    }

    /// True when `class` is one of [`REAL_MONITOR_CLASSES`] or extends one.
    fn extends_real_monitor_class(&self, class: &str) -> bool {
        self.chain(class)
            .any(|c| REAL_MONITOR_CLASSES.contains(&c.as_str()))
    }

    /// True when a call naming `owner` as its class resolves to the method `name descriptor`
    /// declared by `declaring`: `owner` is `declaring` or a subclass that does not override it.
    pub fn resolves_to(&self, owner: &str, declaring: &str, name: &str, descriptor: &str) -> bool {
        let key = format!("{name} {descriptor}");
        for class in self.chain(owner) {
            if class == declaring {
                return true;
            }
            if self.input_declares(&class, &key) == Some(true) {
                return false;
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

fn jdk_class(name: &str) -> Option<JdkClass> {
    let bytes = {
        let zip = jdk_base()?;
        let mut zip = zip.lock().unwrap_or_else(|e| e.into_inner());
        let mut entry = zip.by_name(&format!("classes/{name}.class")).ok()?;
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut bytes).ok()?;
        bytes
    };
    let cf = crate::classfile::ClassFile::parse(&bytes).ok()?;
    let methods = cf
        .methods
        .iter()
        .filter_map(|m| {
            let n = cf.cp.utf8_string(m.name_index).ok()?;
            let d = cf.cp.utf8_string(m.descriptor_index).ok()?;
            Some((format!("{n} {d}"), m.access))
        })
        .collect();
    Some(JdkClass {
        super_name: cf.super_name.map(crate::bytes::decode_mutf8),
        interfaces: cf
            .interfaces
            .iter()
            .map(|&i| crate::bytes::decode_mutf8(i))
            .collect(),
        methods,
    })
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

    #[test]
    fn interface_calls_find_the_real_monitor_class_that_implements_them() {
        let h = Hierarchy::new();
        let map = "java/util/Map";
        let object = "Ljava/lang/Object;";
        let hashtable = Some("java/util/Hashtable".to_string());
        for (name, descriptor) in [
            ("put", format!("({object}{object}){object}")),
            ("get", format!("({object}){object}")),
            ("containsKey", format!("({object})Z")),
            ("size", "()I".to_string()),
            // Hashtable overrides the default method, synchronized.
            ("forEach", "(Ljava/util/function/BiConsumer;)V".to_string()),
        ] {
            assert_eq!(
                h.real_monitor_for_interface(map, name, &descriptor),
                hashtable,
                "{name}"
            );
        }
        let buffer = Some("java/lang/StringBuffer".to_string());
        let chars = "java/lang/CharSequence";
        assert_eq!(h.real_monitor_for_interface(chars, "length", "()I"), buffer);
        assert_eq!(
            h.real_monitor_for_interface(chars, "charAt", "(I)C"),
            buffer
        );
        // Neither real-monitor class is a List; `chars()` is AbstractStringBuilder's, unlocked.
        assert_eq!(
            h.real_monitor_for_interface("java/util/List", "size", "()I"),
            None
        );
        assert_eq!(
            h.real_monitor_for_interface(chars, "chars", "()Ljava/util/stream/IntStream;"),
            None
        );
        // A program's interface, even one a real-monitor class could never implement.
        h.add_class("app/Sized", Some("java/lang/Object"), vec![]);
        assert_eq!(
            h.real_monitor_for_interface("app/Sized", "size", "()I"),
            None
        );
    }
}
