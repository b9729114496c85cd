//! One module per subcommand; each owns its flags (`Args`) and its `run`.

pub mod analyze;
pub mod bench;
pub mod instrument;
pub mod replay;
pub mod rt;
pub mod run;
pub mod sweep;
pub mod test;
