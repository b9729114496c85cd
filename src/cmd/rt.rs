//! `rankcheck rt` (docs/CLI.md): prints the paths of the runtime jar and of the agent library
//! (or of the JUnit library, `--junit`), unpacked from the `rankcheck` binary into a cache
//! directory on first use (`driver::runtime`), for people who write the `java -agentpath:…`
//! line or a test class path by hand.

use crate::driver::runtime::runtime;
use crate::error::Outcome;

#[derive(clap::Args)]
pub struct Args {
    /// Print the runtime jar only.
    #[arg(long, conflicts_with_all = ["agent", "junit"])]
    pub jar: bool,
    /// Print the agent library only.
    #[arg(long, conflicts_with = "junit")]
    pub agent: bool,
    /// Print the JUnit library only (`@RankcheckTest`; it goes on a test class path).
    #[arg(long)]
    pub junit: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let rt = runtime()?;
    if args.junit {
        println!("{}", rt.junit.display());
        return Ok(Outcome::Clean);
    }
    if !args.agent {
        println!("{}", rt.jar.display());
    }
    if !args.jar {
        println!("{}", rt.agent.display());
    }
    Ok(Outcome::Clean)
}
