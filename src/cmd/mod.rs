//! One module per subcommand (and per benchmark); each owns its flags (`Args`) and its `run`.

pub mod analyze;
pub mod bench;
pub mod bench_alias;
pub mod bench_junit;
pub mod bench_overhead;
pub mod bench_rewrite;
pub mod bench_strategies;
pub mod bench_throughput;
pub mod bench_whole;
pub mod instrument;
pub mod junit;
pub mod merge;
pub mod replay;
pub mod rt;
pub mod run;
pub mod search_args;
pub mod sweep;
pub mod test;
