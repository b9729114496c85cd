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
            } else {
                eprintln!("rankcheck: internal failure: {e:#}");
                ExitCode::from(3)
            }
        }
    }
}
