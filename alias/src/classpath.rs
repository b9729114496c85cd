//! Where class bytes come from: the program's class path (directories and jars) and the JDK's
//! `jmods/` (each a 4-byte `JM\x01\x00` header followed by a zip whose classes live under
//! `classes/`). Nothing is read until a class is asked for, apart from the zip directories.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use zip::ZipArchive;

use crate::Error;

/// Which side of the analysis boundary a class is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// From the program's class path: its sites are reported, its allocations are variables.
    App,
    /// From the JDK: analysed for the flows it carries, never instrumented.
    Jdk,
}

/// A reader that hides the first `skip` bytes of a file (the jmod header) from the zip reader.
struct Skip<R> {
    inner: R,
    skip: u64,
}

impl<R: Read> Read for Skip<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

impl<R: Seek> Seek for Skip<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        let pos = match pos {
            SeekFrom::Start(n) => SeekFrom::Start(n + self.skip),
            other => other,
        };
        let at = self.inner.seek(pos)?;
        at.checked_sub(self.skip).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the zip start",
            )
        })
    }
}

type Archive = ZipArchive<Skip<File>>;

enum Entry {
    Dir(PathBuf),
    /// A zip (jar or jmod) and the prefix of class entries inside it (`""` or `"classes/"`).
    Zip(Box<Archive>, &'static str),
}

/// The class path of one analysis: application entries first, then the JDK.
pub struct ClassPath {
    app: Vec<Entry>,
    jdk: Vec<Entry>,
    /// Internal class name → index into `jdk`, for the jmods (built from their directories).
    jdk_index: HashMap<String, usize>,
    /// Internal names of every class on the application class path.
    app_classes: Vec<String>,
}

fn open_zip(path: &Path, skip: u64) -> Result<Archive, Error> {
    let file = File::open(path)
        .map_err(|e| Error::BadInput(format!("cannot open {}: {e}", path.display())))?;
    ZipArchive::new(Skip { inner: file, skip })
        .map_err(|e| Error::BadInput(format!("{} is not a readable zip: {e}", path.display())))
}

fn walk_classes(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk_classes(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "class") {
            if let Ok(rel) = path.strip_prefix(root) {
                let name = rel.to_string_lossy().replace('\\', "/");
                out.push(name.trim_end_matches(".class").to_string());
            }
        }
    }
}

impl ClassPath {
    /// `app`: directories and jars of the program; `jmods`: the JDK's `jmods/` directory
    /// (`None`: analyse without the JDK, which makes every JDK call an unknown call).
    pub fn new(app: &[PathBuf], jmods: Option<&Path>) -> Result<ClassPath, Error> {
        let mut cp = ClassPath {
            app: Vec::new(),
            jdk: Vec::new(),
            jdk_index: HashMap::new(),
            app_classes: Vec::new(),
        };
        for path in app {
            if path.is_dir() {
                walk_classes(path, path, &mut cp.app_classes);
                cp.app.push(Entry::Dir(path.clone()));
            } else if path.is_file() {
                let zip = open_zip(path, 0)?;
                for name in zip.file_names() {
                    if let Some(class) = name.strip_suffix(".class") {
                        if !class.starts_with("META-INF/") && !class.ends_with("module-info") {
                            cp.app_classes.push(class.to_string());
                        }
                    }
                }
                cp.app.push(Entry::Zip(Box::new(zip), ""));
            } else {
                return Err(Error::BadInput(format!(
                    "class path entry {} does not exist",
                    path.display()
                )));
            }
        }
        cp.app_classes.sort();
        cp.app_classes.dedup();
        if let Some(dir) = jmods {
            let mut mods: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(|e| Error::BadInput(format!("cannot read {}: {e}", dir.display())))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "jmod"))
                .collect();
            mods.sort();
            for path in mods {
                let mut header = [0u8; 4];
                File::open(&path)
                    .and_then(|mut f| f.read_exact(&mut header))
                    .map_err(|e| Error::BadInput(format!("cannot read {}: {e}", path.display())))?;
                if &header != b"JM\x01\x00" {
                    return Err(Error::BadInput(format!("{} is not a jmod", path.display())));
                }
                let zip = open_zip(&path, 4)?;
                let at = cp.jdk.len();
                for name in zip.file_names() {
                    if let Some(class) = name
                        .strip_prefix("classes/")
                        .and_then(|n| n.strip_suffix(".class"))
                    {
                        cp.jdk_index.entry(class.to_string()).or_insert(at);
                    }
                }
                cp.jdk.push(Entry::Zip(Box::new(zip), "classes/"));
            }
            if !cp.jdk_index.contains_key("java/lang/Object") {
                return Err(Error::BadInput(format!(
                    "{} holds no java.base (java/lang/Object not found)",
                    dir.display()
                )));
            }
        }
        Ok(cp)
    }

    /// Every class on the application class path (internal names, sorted).
    pub fn app_classes(&self) -> &[String] {
        &self.app_classes
    }

    /// The bytes of class `name` (internal form) and where they came from. The application
    /// class path wins over the JDK, except for `java/` classes, which the JVM only takes
    /// from the JDK.
    pub fn load(&mut self, name: &str) -> Option<(Vec<u8>, Origin)> {
        let jdk_first = name.starts_with("java/");
        if !jdk_first {
            if let Some(bytes) = read_from(&mut self.app, name) {
                return Some((bytes, Origin::App));
            }
        }
        if let Some(&at) = self.jdk_index.get(name) {
            if let Some(bytes) = read_entry(&mut self.jdk[at], name) {
                return Some((bytes, Origin::Jdk));
            }
        }
        if jdk_first {
            return read_from(&mut self.app, name).map(|b| (b, Origin::App));
        }
        None
    }
}

fn read_from(entries: &mut [Entry], name: &str) -> Option<Vec<u8>> {
    entries.iter_mut().find_map(|e| read_entry(e, name))
}

fn read_entry(entry: &mut Entry, name: &str) -> Option<Vec<u8>> {
    match entry {
        Entry::Dir(dir) => std::fs::read(dir.join(format!("{name}.class"))).ok(),
        Entry::Zip(zip, prefix) => {
            let mut file = zip.by_name(&format!("{prefix}{name}.class")).ok()?;
            let mut bytes = Vec::with_capacity(file.size() as usize);
            file.read_to_end(&mut bytes).ok()?;
            Some(bytes)
        }
    }
}

/// The `jmods/` directory of the JDK rankcheck runs with: `$JAVA_HOME/jmods`, else the JDK 17
/// of the project's machines.
pub fn default_jmods() -> PathBuf {
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let p = PathBuf::from(home).join("jmods");
        if p.is_dir() {
            return p;
        }
    }
    PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64/jmods")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_object_from_the_jmods() {
        let mut cp = ClassPath::new(&[], Some(&default_jmods())).unwrap();
        let (bytes, origin) = cp.load("java/lang/Object").unwrap();
        assert_eq!(origin, Origin::Jdk);
        assert_eq!(&bytes[..4], &[0xca, 0xfe, 0xba, 0xbe]);
        assert!(cp.load("no/such/Class").is_none());
    }

    #[test]
    fn missing_entries_are_bad_input() {
        let err = ClassPath::new(&[PathBuf::from("/no/such.jar")], None)
            .err()
            .unwrap();
        assert!(matches!(err, Error::BadInput(_)));
    }
}
