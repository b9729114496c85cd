//! Exit codes (shared/CLI.md) and the one error type that selects code 2.

use std::fmt;
use std::process::ExitCode;

/// How a subcommand that did not fail ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done, no bug found (for `replay`: the failure did not reproduce). Exit 0.
    Clean,
    /// A bug was found (for `replay`: the failure reproduced). Exit 1.
    Bug,
}

/// Bad input or a usage error: exit code 2 with this one line on stderr. Any other error from a
/// subcommand is rankcheck's own failure (exit 3).
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// No verdict, through no fault of rankcheck's: executions it could not control (a thread
/// blocked where it cannot see) or that were too long to explore. Exit code 3 with this line,
/// which says what to do.
#[derive(Debug)]
pub struct Inconclusive(pub String);

impl fmt::Display for Inconclusive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Inconclusive {}

/// Shorthand for a [`BadInput`] error.
#[allow(dead_code)]
pub fn bad_input(message: impl Into<String>) -> anyhow::Error {
    BadInput(message.into()).into()
}

pub fn exit_code(result: anyhow::Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Clean) => ExitCode::from(0),
        Ok(Outcome::Bug) => ExitCode::from(1),
        Err(e) => {
            if let Some(bad) = e.downcast_ref::<BadInput>() {
                eprintln!("rankcheck: error: {bad}");
                ExitCode::from(2)
            } else if let Some(why) = e.downcast_ref::<Inconclusive>() {
                eprintln!("rankcheck: inconclusive: {why}");
                ExitCode::from(3)
            } else {
                eprintln!("rankcheck: internal failure: {e:#}");
                ExitCode::from(3)
            }
        }
    }
}
