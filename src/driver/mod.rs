//! The driver: everything between a command line and the JVMs it starts — instrumenting the
//! class path (cached), launching the harness under the agent, spreading a search session over
//! parallel JVMs, writing and re-reading bug reports, replaying them, and the coverage
//! statement. `run`, `test`, `replay`, `sweep` and the benchmarks are thin layers over it.
//!
//! **Architecture invariant:** no strategy logic here; the driver only names strategies and
//! reads the results the agent writes.

pub mod baseline;
pub mod bench_suite;
pub mod child;
pub mod classpath;
pub mod explain;
pub mod field_flags;
pub mod folder;
pub mod junit;
pub mod jvm;
pub mod minimize;
pub mod plots;
pub mod program;
pub mod progress;
pub mod replay;
pub mod report;
pub mod runtime;
pub mod search;
pub mod search_merge;
pub mod session;
pub mod shard;
pub mod shard_file;
pub mod strategy;
pub mod strategy_table;
pub mod sweep;
pub mod tables;
