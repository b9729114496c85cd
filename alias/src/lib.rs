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

pub mod analysis;
pub mod bitset;
pub mod bytecode;
pub mod classes;
pub mod classpath;
pub mod format;
pub mod ir;
pub mod solver;

pub use analysis::{analyze, Config};
pub use format::{
    selected_sites, AnalysisFile, Site, SiteKey, SiteSelection, Variable, VariableKind,
};

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
