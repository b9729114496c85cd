//! Jars and directories. Every entry is kept, in input order: classes are instrumented,
//! resources copied (zip entries raw, compressed bytes and all), signature files dropped (they
//! would no longer match), and the site table written as one more entry. Output bytes depend
//! only on the input and the options: written entries carry a fixed timestamp.

use crate::classfile::class_and_super;
use crate::{instrument_class, Config, Hierarchy};
use java_harness::hooks::{SiteRecord, SITE_TABLE_RESOURCE};
use std::collections::HashSet;
use std::fmt;
use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to do with a jar or directory.
pub struct JarOptions {
    pub config: Config,
    /// Only classes whose internal name starts with one of these (all when empty).
    pub include: Vec<String>,
    /// Never classes whose internal name starts with one of these.
    pub exclude: Vec<String>,
    /// Add these jar bytes' entries (the runtime classes) to the output.
    pub runtime_jar: Option<&'static [u8]>,
    /// Copy entries that are not valid classes through, with a warning, instead of failing.
    pub skip_bad: bool,
}

/// Counts for the summary line.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    /// Classes read.
    pub classes: usize,
    /// Classes rewritten.
    pub instrumented: usize,
    pub methods: usize,
    pub sites: usize,
    pub warnings: Vec<String>,
}

#[derive(Debug)]
pub enum JarError {
    /// One entry is bad: its name and why.
    Entry {
        entry: String,
        error: String,
    },
    /// The archive itself is unreadable.
    Archive(String),
    Io(String),
}

impl fmt::Display for JarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JarError::Entry { entry, error } => write!(f, "entry {entry}: {error}"),
            JarError::Archive(e) => write!(f, "not a readable jar: {e}"),
            JarError::Io(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for JarError {}

fn is_signature_file(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("META-INF/") else {
        return false;
    };
    !rest.contains('/')
        && [".SF", ".RSA", ".DSA", ".EC"]
            .iter()
            .any(|ext| rest.to_ascii_uppercase().ends_with(ext))
}

fn normalize_prefix(p: &str) -> String {
    p.replace('.', "/")
}

impl JarOptions {
    fn selects(&self, class: &str) -> bool {
        // A class in a jar or directory is the program's or a library's, even in a package
        // named like the JDK's (`jdk.sbhalt`, a `javax.inject` jar): the JDK's own classes
        // never load from the class path. Only `java.*` cannot be defined there at all.
        !class.starts_with("java/")
            && (self.include.is_empty()
                || self
                    .include
                    .iter()
                    .any(|p| class.starts_with(&normalize_prefix(p))))
            && !self
                .exclude
                .iter()
                .any(|p| class.starts_with(&normalize_prefix(p)))
    }
}

/// Names of the central directory's entries, in order, read directly (the zip reader keeps
/// only one entry per name, so duplicates would vanish silently).
fn central_directory_names(zip: &[u8]) -> Option<Vec<String>> {
    let tail = zip.len().saturating_sub(65_557);
    let eocd = (tail..zip.len().saturating_sub(21))
        .rev()
        .find(|&i| zip[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])?;
    let u2 = |i: usize| {
        zip.get(i..i + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
    };
    let u4 = |i: usize| {
        zip.get(i..i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let count = u2(eocd + 10)?;
    let mut pos = u4(eocd + 16)?;
    if count == 0xFFFF || pos == 0xFFFF_FFFF {
        return None; // zip64: leave it to the zip reader
    }
    let mut names = Vec::with_capacity(count);
    for _ in 0..count {
        if zip.get(pos..pos + 4)? != [0x50, 0x4b, 0x01, 0x02] {
            return None;
        }
        let (n, m, k) = (u2(pos + 28)?, u2(pos + 30)?, u2(pos + 32)?);
        names.push(String::from_utf8_lossy(zip.get(pos + 46..pos + 46 + n)?).into_owned());
        pos += 46 + n + m + k;
    }
    Some(names)
}

/// Where entries come from.
enum Source<'a> {
    Zip(zip::ZipArchive<Cursor<&'a [u8]>>),
    Dir(Vec<(String, PathBuf)>),
}

/// Where entries go.
enum Sink {
    Zip(Box<zip::ZipWriter<Cursor<Vec<u8>>>>),
    Dir(PathBuf),
}

fn io(e: impl fmt::Display) -> JarError {
    JarError::Io(e.to_string())
}

impl Sink {
    fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), JarError> {
        match self {
            Sink::Zip(w) => {
                let options = zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated)
                    .compression_level(Some(1))
                    .last_modified_time(zip::DateTime::default());
                w.start_file(name, options).map_err(io)?;
                w.write_all(bytes).map_err(io)
            }
            Sink::Dir(root) => {
                let path = safe_join(root, name)?;
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(io)?;
                }
                std::fs::write(&path, bytes).map_err(|e| io(format!("{}: {e}", path.display())))
            }
        }
    }

    fn directory(&mut self, name: &str) -> Result<(), JarError> {
        match self {
            Sink::Zip(w) => {
                let options = zip::write::SimpleFileOptions::default()
                    .last_modified_time(zip::DateTime::default());
                w.add_directory(name.trim_end_matches('/'), options)
                    .map_err(io)
            }
            Sink::Dir(root) => std::fs::create_dir_all(safe_join(root, name)?).map_err(io),
        }
    }
}

/// `root/name`, refusing names that would escape `root`.
fn safe_join(root: &Path, name: &str) -> Result<PathBuf, JarError> {
    if name.split('/').any(|c| c == "..") || name.starts_with('/') {
        return Err(JarError::Entry {
            entry: name.to_string(),
            error: "path escapes the output directory".into(),
        });
    }
    Ok(root.join(name))
}

fn list_dir(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<(), JarError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| io(format!("{}: {e}", dir.display())))?
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let rel = path
            .strip_prefix(root)
            .map_err(io)?
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            list_dir(root, &path, out)?;
        } else {
            out.push((rel, path));
        }
    }
    Ok(())
}

/// Progress reports: (entries done, entries total).
pub type Progress<'p> = &'p dyn Fn(usize, usize);

/// Instruments a jar (given as bytes) into new jar bytes.
pub fn instrument_jar(
    input: &[u8],
    options: &JarOptions,
    progress: Progress,
) -> Result<(Vec<u8>, Summary), JarError> {
    if let Some(names) = central_directory_names(input) {
        let mut seen = HashSet::with_capacity(names.len());
        for n in names {
            if !seen.insert(n.clone()) {
                return Err(JarError::Entry {
                    entry: n,
                    error: "duplicate entry".into(),
                });
            }
        }
    }
    let zip =
        zip::ZipArchive::new(Cursor::new(input)).map_err(|e| JarError::Archive(e.to_string()))?;
    let mut sink = Sink::Zip(Box::new(zip::ZipWriter::new(Cursor::new(
        Vec::with_capacity(input.len() + input.len() / 4),
    ))));
    let summary = run(Source::Zip(zip), &mut sink, options, progress)?;
    let Sink::Zip(w) = sink else { unreachable!() };
    let bytes = w.finish().map_err(io)?.into_inner();
    Ok((bytes, summary))
}

/// Instruments a directory of classes (and resources) into another directory.
pub fn instrument_dir(
    input: &Path,
    output: &Path,
    options: &JarOptions,
    progress: Progress,
) -> Result<Summary, JarError> {
    let mut files = Vec::new();
    list_dir(input, input, &mut files)?;
    std::fs::create_dir_all(output).map_err(|e| io(format!("{}: {e}", output.display())))?;
    run(
        Source::Dir(files),
        &mut Sink::Dir(output.to_path_buf()),
        options,
        progress,
    )
}

/// One input entry as read.
struct Entry {
    name: String,
    is_dir: bool,
    /// Contents, read for classes and the site table only (others are copied later).
    bytes: Option<Vec<u8>>,
}

fn read_entry(source: &mut Source, index: usize) -> Result<Vec<u8>, JarError> {
    match source {
        Source::Zip(z) => {
            let mut f = z
                .by_index(index)
                .map_err(|e| JarError::Archive(e.to_string()))?;
            let name = f.name().to_string();
            let mut v = Vec::with_capacity(f.size() as usize);
            f.read_to_end(&mut v).map_err(|e| JarError::Entry {
                entry: name,
                error: e.to_string(),
            })?;
            Ok(v)
        }
        Source::Dir(files) => {
            let (name, path) = &files[index];
            std::fs::read(path).map_err(|e| JarError::Entry {
                entry: name.clone(),
                error: e.to_string(),
            })
        }
    }
}

fn copy_entry(
    source: &mut Source,
    sink: &mut Sink,
    index: usize,
    name: &str,
) -> Result<(), JarError> {
    if let (Source::Zip(z), Sink::Zip(w)) = (&mut *source, &mut *sink) {
        let f = z
            .by_index_raw(index)
            .map_err(|e| JarError::Archive(e.to_string()))?;
        return w.raw_copy_file(f).map_err(io);
    }
    let bytes = read_entry(source, index)?;
    sink.write(name, &bytes)
}

fn run(
    mut source: Source,
    sink: &mut Sink,
    options: &JarOptions,
    progress: Progress,
) -> Result<Summary, JarError> {
    let count = match &source {
        Source::Zip(z) => z.len(),
        Source::Dir(f) => f.len(),
    };
    // Pass 1: read every class (and an existing site table), learn the class hierarchy.
    let mut entries = Vec::with_capacity(count);
    let hierarchy = Hierarchy::new();
    for i in 0..count {
        let (name, is_dir) = match &mut source {
            Source::Zip(z) => {
                let f = z
                    .by_index_raw(i)
                    .map_err(|e| JarError::Archive(e.to_string()))?;
                (f.name().to_string(), f.is_dir())
            }
            Source::Dir(f) => (f[i].0.clone(), false),
        };
        let wanted = !is_dir && (name.ends_with(".class") || name == SITE_TABLE_RESOURCE);
        let bytes = if wanted {
            Some(read_entry(&mut source, i)?)
        } else {
            None
        };
        if let Some(b) = &bytes {
            if name.ends_with(".class") {
                hierarchy.add_class_bytes(b);
            }
        }
        entries.push(Entry {
            name,
            is_dir,
            bytes,
        });
    }
    let config = Config {
        hierarchy: Arc::new(hierarchy),
        ..options.config.clone()
    };

    // Pass 2: write every entry in input order.
    let mut summary = Summary::default();
    let mut sites: Vec<SiteRecord> = Vec::new();
    let mut old_table = String::new();
    let mut written: HashSet<String> = HashSet::with_capacity(count);
    for (i, e) in entries.iter().enumerate() {
        progress(i, count);
        if e.is_dir {
            sink.directory(&e.name)?;
            written.insert(e.name.clone());
            continue;
        }
        if is_signature_file(&e.name) {
            summary.warnings.push(format!(
                "dropped signature file {} (the classes change)",
                e.name
            ));
            continue;
        }
        if e.name == SITE_TABLE_RESOURCE {
            old_table =
                String::from_utf8_lossy(e.bytes.as_deref().unwrap_or_default()).into_owned();
            continue;
        }
        written.insert(e.name.clone());
        let Some(bytes) = e.bytes.as_deref().filter(|_| e.name.ends_with(".class")) else {
            copy_entry(&mut source, sink, i, &e.name)?;
            continue;
        };
        summary.classes += 1;
        let result = class_and_super(bytes).and_then(|(class, _, _)| {
            if options.selects(&class) {
                instrument_class(bytes, &config).map(Some)
            } else {
                Ok(None)
            }
        });
        match result {
            Ok(Some(out)) if out.changed => {
                summary.instrumented += 1;
                summary.methods += out.methods;
                summary.sites += out.sites.len();
                summary.warnings.extend(out.warnings);
                sites.extend(out.sites);
                sink.write(&e.name, &out.bytes)?;
            }
            Ok(other) => {
                if let Some(out) = other {
                    summary.warnings.extend(out.warnings);
                }
                copy_entry(&mut source, sink, i, &e.name)?;
            }
            Err(err) if options.skip_bad => {
                summary
                    .warnings
                    .push(format!("entry {} copied unchanged: {err}", e.name));
                copy_entry(&mut source, sink, i, &e.name)?;
            }
            Err(err) => {
                return Err(JarError::Entry {
                    entry: e.name.clone(),
                    error: err.to_string(),
                })
            }
        }
    }
    progress(count, count);

    if let Some(rt) = options.runtime_jar {
        let mut z = zip::ZipArchive::new(Cursor::new(rt)).map_err(io)?;
        for i in 0..z.len() {
            let mut f = z.by_index(i).map_err(io)?;
            let name = f.name().to_string();
            if name == "META-INF/MANIFEST.MF" || written.contains(&name) {
                continue;
            }
            let mut v = Vec::new();
            f.read_to_end(&mut v).map_err(io)?;
            drop(f);
            if name.ends_with('/') {
                sink.directory(&name)?;
            } else {
                sink.write(&name, &v)?;
            }
        }
    }
    if !sites.is_empty() || !old_table.is_empty() {
        let mut table = old_table;
        if !table.is_empty() && !table.ends_with('\n') {
            table.push('\n');
        }
        for s in &sites {
            table.push_str(&s.to_line());
            table.push('\n');
        }
        sink.write(SITE_TABLE_RESOURCE, table.as_bytes())?;
    }
    Ok(summary)
}

/// Every `.class` entry of a jar or jmod (a jmod is a 4-byte `JM\x01\x00` header, then a zip),
/// as (entry name, bytes), in archive order.
pub fn read_classes(archive: &[u8]) -> Result<Vec<(String, Vec<u8>)>, JarError> {
    let zip_bytes = if archive.starts_with(b"JM\x01\x00") {
        &archive[4..]
    } else {
        archive
    };
    let mut z = zip::ZipArchive::new(Cursor::new(zip_bytes))
        .map_err(|e| JarError::Archive(e.to_string()))?;
    let mut out = Vec::new();
    for i in 0..z.len() {
        let mut f = z
            .by_index(i)
            .map_err(|e| JarError::Archive(e.to_string()))?;
        if f.is_dir() || !f.name().ends_with(".class") {
            continue;
        }
        let name = f.name().to_string();
        let mut v = Vec::with_capacity(f.size() as usize);
        f.read_to_end(&mut v).map_err(|e| JarError::Entry {
            entry: name.clone(),
            error: e.to_string(),
        })?;
        out.push((name, v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_files_are_recognized() {
        assert!(is_signature_file("META-INF/FOO.SF"));
        assert!(is_signature_file("META-INF/foo.rsa"));
        assert!(!is_signature_file("META-INF/versions/9/a.SF"));
        assert!(!is_signature_file("META-INF/MANIFEST.MF"));
    }
}
