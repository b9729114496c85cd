//! Exit codes (docs/CLI.md) and the one error type that selects code 2.

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

/// The JSON object a `--json` run prints at its end, kept until the exit code is known: exactly
/// one object goes to stdout for every exit code, with `exit` and, for errors, `error`.
static JSON_REPORT: std::sync::Mutex<Option<serde_json::Value>> = std::sync::Mutex::new(None);

/// Sets the object a `--json` run prints when it ends ([`exit_code`] adds `exit`, and `error`
/// for exit codes 2 and 3).
pub fn set_json_report(value: serde_json::Value) {
    *JSON_REPORT.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
}

/// The exit code of `result`, with its line on stderr for errors; with `json`, also one JSON
/// object on stdout (the one given to [`set_json_report`], or an object of its own).
pub fn exit_code(result: anyhow::Result<Outcome>, json: bool) -> ExitCode {
    let (code, error) = match &result {
        Ok(Outcome::Clean) => (0, None),
        Ok(Outcome::Bug) => (1, None),
        Err(e) => {
            if let Some(bad) = e.downcast_ref::<BadInput>() {
                eprintln!("rankcheck: error: {bad}");
                (2, Some((bad.to_string(), "bad-input")))
            } else if let Some(why) = e.downcast_ref::<Inconclusive>() {
                eprintln!("rankcheck: inconclusive: {why}");
                (3, Some((format!("inconclusive: {why}"), "inconclusive")))
            } else {
                eprintln!("rankcheck: internal failure: {e:#}");
                (3, Some((format!("{e:#}"), "failure")))
            }
        }
    };
    if json {
        print_json(code, error);
    }
    ExitCode::from(code)
}

/// Prints the `--json` object of a run that ends with `code` (and `error` with its kind —
/// `bad-input`, `inconclusive` or `failure` — for 2 and 3).
pub fn print_json(code: u8, error: Option<(String, &str)>) {
    let stored = JSON_REPORT.lock().unwrap_or_else(|e| e.into_inner()).take();
    let mut value = match stored {
        Some(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    if let Some((message, kind)) = error {
        value.insert("error".into(), message.into());
        value.insert("error_kind".into(), kind.into());
    }
    value.insert("exit".into(), code.into());
    println!("{}", serde_json::Value::Object(value));
}
