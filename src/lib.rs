//! The `rankcheck` command line as a library: the subcommands (`cmd`), the exit-code mapping
//! (`error`) and the benchmark-suite manifests (`suite`), so the integration tests in `tests/` can
//! use the same code the binary runs.

pub mod cmd;
pub mod digest;
pub mod driver;
pub mod error;
pub mod suite;
