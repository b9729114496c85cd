//! The class-file rewriter.
//!
//! **Its one job:** turn class files and jars into instrumented ones the JVM accepts, calling the
//! hooks of `java_harness::hooks` at exactly the instrumented places, and write the site table.
//!
//! **Architecture invariant:** knows nothing about strategies or the agent; it places calls.
//!
//! Layers, bottom up:
//! - [`classfile`] / [`constant_pool`]: the class file indexed in place; untouched parts are
//!   written back as the original bytes, so a class with no changes round-trips byte for byte.
//! - [`code`] (with [`stackmap`] and [`type_annotations`]): the Code attribute, owned here —
//!   instructions with offsets, the insertion editor, and re-encoding with every offset remapped.
//! - [`passes`]: data, sync, calls, real monitors and allocations, assembled in one function (`passes::instrument_method`) with comments on their order.
//! - [`jar`]: jars and directories.
//! - [`hazards`]: patterns whose failure the search cannot show (double-checked locking without
//!   `volatile`), noticed while methods are read and reported as warnings.
//!
//! The entry point for one class is [`instrument_class`]; the agent's load-time hook can call it
//! on the bytes it is given, with one shared [`Config`] whose [`Hierarchy`] it feeds
//! ([`Hierarchy::add_class_bytes`]) as classes load, so that calls naming an application
//! subclass of `Thread` resolve.
//!
//! Limits, by design:
//! - a method whose code would pass 65,535 bytes, or whose visible type annotations cannot be
//!   remapped, is left uninstrumented with a warning (in [`Instrumented::warnings`]);
//! - an instance synchronized method that stores into local 0 keeps its flag (the desugared
//!   handler needs `this` there); javac never emits that;
//! - `Allocated` follows only the `new; dup; …; <init>` shape compilers emit;
//! - in a multi-release jar each version of a class is instrumented, and its sites share ids
//!   (ids depend on the class name): the site table lists the base version first, then the
//!   versions in jar order.

pub mod bytes;
pub mod classfile;
pub mod code;
pub mod constant_pool;
pub mod frames;
pub mod hazards;
pub mod hierarchy;
pub mod jar;
pub mod passes;
pub mod stackmap;
pub mod type_annotations;

use java_harness::hooks::SiteRecord;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

pub use hierarchy::Hierarchy;
pub use passes::round_trip;

/// Why a class could not be rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewriteError {
    Truncated,
    BadMagic(u32),
    UnsupportedVersion(u16),
    Malformed(String),
    /// A limit of the class-file format would be exceeded (code size, constant pool).
    TooLarge(String),
    /// Something this rewriter does not handle in one method (the method is left alone).
    Unsupported(String),
}

impl fmt::Display for RewriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RewriteError::Truncated => f.write_str("truncated class file"),
            RewriteError::BadMagic(m) => write!(f, "not a class file (magic {m:#010x})"),
            RewriteError::UnsupportedVersion(v) => {
                write!(f, "unsupported class-file version {v}")
            }
            RewriteError::Malformed(m) => write!(f, "malformed class file: {m}"),
            RewriteError::TooLarge(m) => write!(f, "too large: {m}"),
            RewriteError::Unsupported(m) => write!(f, "unsupported: {m}"),
        }
    }
}

impl std::error::Error for RewriteError {}

/// A data access site chosen for instrumentation: (class, method, descriptor, original bci).
pub type SiteKey = (String, String, String, u32);

/// What to instrument.
#[derive(Clone)]
pub struct Config {
    /// Field, static and array accesses.
    pub data: bool,
    /// `Allocated` after every completed allocation (for variable bounding).
    pub allocations: bool,
    /// When set, only these data sites are instrumented (sync and calls always are).
    pub data_sites: Option<Arc<HashSet<SiteKey>>>,
    /// When set (and `allocations` is on), only these allocation sites (the `new` or
    /// `*newarray` instruction) get the `Allocated` hook.
    pub alloc_sites: Option<Arc<HashSet<SiteKey>>>,
    /// Superclass chains of the input (and, on demand, the JDK).
    pub hierarchy: Arc<Hierarchy>,
    /// Test aid: this many `nop`s inserted in the middle of every method, which makes branches
    /// across the middle exceed ±32 KiB (so tests can check widening on real code). Zero
    /// normally.
    #[doc(hidden)]
    pub stress_padding: u16,
    /// Desugar synchronized methods (see `passes::sync`). Off for a class the JVM already
    /// loaded: retransformation may not change a method's modifiers.
    pub desugar_sync_methods: bool,
    /// Replace identity hash codes, `Math.random` and `new Random()` with pinned values, and
    /// the other replacements of `Hook::pins_nondeterminism` (reflection's order). Off
    /// for JDK classes, which may share such values with threads rankcheck does not control.
    /// (Clock reads are replaced either way: timed waits in the JDK run on virtual time.)
    pub pin_nondeterminism: bool,
    /// At the entry of each public instance method of the scalar `java.util.concurrent.atomic`
    /// classes, announce a read or write of the atomic object (see `passes::atomics`).
    pub atomic_entry: bool,
    /// Wrap calls of synchronized methods of the JDK classes that keep the JVM's real monitors
    /// (`StringBuffer`, `Hashtable`) in the model's monitor of the receiver (see
    /// `passes::real_monitors`). Off for JDK classes.
    pub real_monitor_calls: bool,
    /// Begin every static initializer with `Hook::ClassInitBegin` (see there). Off for JDK
    /// classes.
    pub class_init_marks: bool,
}

impl Config {
    /// Every hook: data, sync, calls and allocations.
    pub fn all() -> Self {
        Config {
            data: true,
            allocations: true,
            data_sites: None,
            alloc_sites: None,
            hierarchy: Arc::new(Hierarchy::new()),
            stress_padding: 0,
            desugar_sync_methods: true,
            pin_nondeterminism: true,
            atomic_entry: false,
            real_monitor_calls: true,
            class_init_marks: true,
        }
    }

    /// Only synchronization and thread operations.
    pub fn sync_only() -> Self {
        Config {
            data: false,
            allocations: false,
            ..Config::all()
        }
    }

    /// For JDK classes rewritten by the agent at load time or by retransformation, so that
    /// `java.util.concurrent` reduces to modelled operations: monitors, waits, thread and
    /// `LockSupport` calls and clocks, plus atomic-object announcements; no data accesses, no
    /// modifier changes, no pinned hash codes.
    pub fn jdk() -> Self {
        Config {
            desugar_sync_methods: false,
            pin_nondeterminism: false,
            atomic_entry: true,
            real_monitor_calls: false,
            class_init_marks: false,
            ..Config::sync_only()
        }
    }

    /// For the JDK collection classes the agent rewrites at load time (`HashMap`,
    /// `ArrayList`, …): as [`Config::jdk`], plus their field and array accesses, so that a race
    /// inside a collection the program shares unsynchronized is a race rankcheck can schedule.
    pub fn jdk_collections() -> Self {
        Config {
            data: true,
            ..Config::jdk()
        }
    }
}

/// One instrumented class.
#[derive(Debug, Clone)]
pub struct Instrumented {
    /// The new class file (the original bytes when nothing changed).
    pub bytes: Vec<u8>,
    /// Internal name of the class.
    pub class: String,
    pub sites: Vec<SiteRecord>,
    /// Methods that were rewritten.
    pub methods: usize,
    /// False when the output is the input (already instrumented, module-info, nothing to do).
    pub changed: bool,
    /// Methods left alone, and why.
    pub warnings: Vec<String>,
}

/// Instruments one class file.
pub fn instrument_class(bytes: &[u8], config: &Config) -> Result<Instrumented, RewriteError> {
    passes::instrument_class(bytes, config)
}
