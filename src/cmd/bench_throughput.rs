//! `rankcheck bench throughput`. Not built yet: fails with exit code 3 and says so.

use crate::error::Outcome;

#[derive(clap::Args)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn run(_args: Args) -> anyhow::Result<Outcome> {
    anyhow::bail!("`rankcheck bench throughput` is not built yet")
}
