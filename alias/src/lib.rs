//! The points-to analysis that picks which access sites to instrument.
//!
//! **Its one job:** read bytecode (the program and the JDK from `jmods/`), solve Andersen-style
//! inclusion constraints with an on-the-fly call graph, name the variables, and say which
//! variables each access site may touch.
//!
//! **Architecture invariant:** never runs program code, and never under-approximates: a site it
//! cannot resolve may touch every variable. The only I/O is reading the class files, jars and
//! jmods it is pointed to (and, in [`selected_sites`], the analysis file it is given).
//!
//! The file the analysis writes and the rewriter reads is described in [`format`].
//!
//! # How it works
//!
//! - [`classpath`] finds class bytes: the program's directories and jars, then the JDK's
//!   `jmods/` (read lazily: only the classes the analysis asks for are decompressed).
//! - [`classes`] parses them on first use (ristretto) and answers hierarchy questions: method
//!   resolution, virtual dispatch (with default methods), field resolution, subtyping.
//! - [`ir`] turns a method's bytecode into inclusion statements (locals and stack slots as
//!   variables) and lists its data-access and allocation sites by original byte offset
//!   ([`bytecode::byte_offsets`]: ristretto numbers instructions, site keys count bytes).
//! - [`solver`] solves Andersen's constraints with an on-the-fly call graph: only methods
//!   reachable from `main` (and the static initializers of application classes it touches) are
//!   translated. Field-sensitive, context-insensitive, one abstract element per array. One
//!   file per concern: the constraint graph and worklist, types, fields, calls and dispatch,
//!   library models, unknown code, statements (its module doc has the map).
//! - [`analysis`] names the variables (application static fields and allocation sites), maps
//!   each site to the variables it may touch, and computes which variables may be shared.
//!
//! # The JDK boundary
//!
//! JDK method bodies are analysed for the packages of a [`JdkScope`]; by default java.util,
//! java.util.concurrent (with .atomic and .locks) and java.util.function, the library through
//! which application objects travel between threads (collections, queues, executors, futures,
//! locks). Every other JDK method is *unknown code*.
//!
//! A call into unknown code lets its reference arguments escape into a global `unknown` node
//! and returns whatever `unknown` holds of the declared return type, plus an unknown object of
//! that type; an escaped object's fields may be read by unknown code, and written if a JDK
//! class declares them (array elements included) — fields an application class declares are
//! written by library code only through reflection, field updaters, VarHandles or Unsafe, so
//! they are treated as written by unknown code only once the application calls one of those
//! (or calls missing or untranslatable code, or a native method of its own); and unknown
//! code may call back every application method that overrides a JDK method (`run`,
//! `compareTo`, `toString`, `hashCode`, …) and every lambda it is given, with arguments from
//! `unknown` and objects unknown code made. JDK static fields are read and written by unknown
//! code. An unknown object of type `T` stands for any object of a subtype: a cast (or a typed
//! parameter or field) to a JDK type `S` that such an object may have sees it as the unknown
//! object of `S`. A handful of JDK methods have exact models (`System.arraycopy`,
//! `Object.clone`, `Thread.start` → `run`, and argument-keeping ones such as `Object.<init>`,
//! `Thread.join`); field accesses by offset (`Unsafe` get/put/CAS of references and `VarHandle`
//! access modes, which java.util.concurrent uses everywhere) store into and load from every
//! reference field of the base object (a store only into fields whose type the value's static
//! type can be cast to), so they do not make objects escape.
//!
//! Most of these models serve both sides of the boundary; a few are there because the bodies
//! are read: `Thread(Runnable)` keeps its Runnable in `Thread.target` and `Thread.run` calls
//! it (unknown code never touches `target`), so runnables, lambdas and executor tasks do not
//! escape; printing, `String.valueOf` and `StringBuilder.append(Object)` call `toString()`
//! instead of letting their argument escape; `Array.newInstance` makes a fresh array;
//! `LockSupport`'s `parkBlocker` is one global node. Unknown code receives only arguments of
//! their declared types, and never strings, boxes, classes or primitive arrays (they hold no
//! application state). Field accesses and virtual calls see only objects of the declaring
//! class (the verifier guarantees it; the flow-insensitive locals would mix in others).
//!
//! This is sound for the application's variables (every application object unknown code can
//! reach is in `unknown`, or reachable from an escaped object's fields) and fast: the boundary
//! cuts the analysis off from the JDK's start-up, I/O, reflection and `java.lang.invoke`
//! machinery. [`JdkScope::None`] treats the whole JDK as unknown code. [`JdkScope::All`]
//! analyses every reachable JDK body in a closed world (natives and method handles are the
//! only unknown code, with no call-backs, and JDK statics are unknown objects): about 6,300
//! JDK methods, 3–4 s and 150 MiB even for a two-thread program, and less precise than the
//! default (the more of the JDK is read context-insensitively, the more its shared helpers
//! merge unrelated objects). It too passed the soundness test (zero misses on the 107
//! programs), but is kept as an experiment.
//!
//! Measured with `rankcheck bench alias` (2-core machine shared with other work), the 107
//! bundled programs with the default scope: at most 0.09 s and 35 MiB each (up to 600 JDK
//! methods analysed); data sites instrumented for one variable, mean over programs, 13.4% of
//! all data sites on the 93 programs that existed before JDK bodies (13.5% with the library
//! as unknown code). Adding java.lang to the scope reaches ~500 more methods per program and
//! gains nothing on them.
//!
//! Debugging aids (stderr): `RANKCHECK_ALIAS_PROGRESS=1` prints solver progress every second,
//! `RANKCHECK_ALIAS_METHODS=1` every reached method, `RANKCHECK_ALIAS_DUMP=text` the
//! points-to sets of the IR variables of reached methods whose `class.name(desc)` contains
//! `text` (`RANKCHECK_ALIAS_DUMP=unknown`: every escaped object, with the node it escaped from).
//!
//! # Conservative answers
//!
//! Reflection, method handles, missing classes, corrupt classes and bytecode the translator
//! does not support (jsr/ret) become warnings; calls into them are unknown code, a method that
//! cannot be translated marks its sites `all` (may touch every variable), and when anything of
//! the sort happened in application code, sites in methods the analysis did not reach are
//! marked `all` too (something unseen might call them).
//!
//! # Not here
//!
//! Run-time naming for the exhaustive mode is a design in [`naming`]; the agent implements it.

pub mod analysis;
pub mod bitset;
pub mod bytecode;
pub mod classes;
pub mod classpath;
pub mod format;
pub mod ir;
pub mod naming;
pub mod scope;
pub mod solver;

pub use analysis::{analyze, analyze_with, Config};
pub use format::{
    selected_sites, AnalysisFile, Site, SiteKey, SiteSelection, Variable, VariableKind,
};
pub use scope::JdkScope;

use std::fmt;

/// What can go wrong, for the CLI to turn into one clear line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The analysis file cannot be read or is not one.
    BadAnalysisFile(String),
    /// A variable id that the analysis file does not define.
    UnknownVariable(String),
    /// The class path or the entry point is unusable (missing main class, unreadable jar, …).
    BadInput(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadAnalysisFile(m) => write!(f, "bad analysis file: {m}"),
            Error::UnknownVariable(m) => write!(f, "unknown variable: {m}"),
            Error::BadInput(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}
