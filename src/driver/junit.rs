//! JUnit test classes as programs: which class-path entries are the test framework's and which
//! the program's, and which test methods there are, as the JUnit Platform Launcher discovers
//! them (a JVM without the agent running `rankcheck.harness.Framework discover`); and the plain
//! launcher's repetition of one test, the throughput baseline. Each discovered test is then
//! searched like a program whose `main` is the test method (`search::Program::framework`).

use super::classpath::{self, Mode};
use super::jvm::{java_binary, join_paths};
use super::report::Origin;
use super::search::Program;
use crate::error::bad_input;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One test method the launcher found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestCase {
    /// `CLASS#METHOD`, or `CLASS#METHOD(TYPES)` for a method with parameters.
    pub id: String,
    pub display_name: String,
    /// The settings of its `@RankcheckTest`, `(key, value)`: `executions`, `strategy`, `seed`,
    /// bounds; empty when it has none.
    pub settings: Vec<(String, String)>,
}

/// What discovery found on a class path.
#[derive(Clone, Debug, Default)]
pub struct Discovered {
    /// The test framework's entries (JUnit's jars, with a launcher added when the class path had
    /// none): loaded once per JVM, never instrumented.
    pub framework: Vec<PathBuf>,
    /// The program's entries: the tests and the code they test, instrumented.
    pub app: Vec<PathBuf>,
    pub tests: Vec<TestCase>,
    /// Things to tell the user (a launcher taken from the system).
    pub notes: Vec<String>,
}

impl Discovered {
    /// The program its tests are searched as: the program's entries instrumented at every site
    /// (cached), the framework beside them; `main` is left for the test.
    pub fn program(&self) -> anyhow::Result<Program> {
        let app = join_paths(&self.app);
        let prepared = classpath::prepare_report(&app, Mode::All)?;
        Ok(Program {
            classpath: prepared.entries.clone(),
            framework: self.framework.clone(),
            main: String::new(),
            args: Vec::new(),
            fail_on_output: Vec::new(),
            fail_on_file: Vec::new(),
            expect_exit: 0,
            private_cwd: false,
            load_time: false,
            origin: Some(Origin::of(&app, Mode::All, None)),
            uninstrumented_classes: prepared.uninstrumented.len(),
            warnings: prepared.warning_lines(),
        })
    }
}

/// Discovers the test methods of `cp` (`:`-separated) that `selectors` (`CLASS` or
/// `CLASS#METHOD`; none: every test on the program's entries) pick. Bad input when the class
/// path holds no JUnit, a selector matches nothing, or a test class cannot be loaded.
pub fn discover(cp: &str, selectors: &[String]) -> anyhow::Result<Discovered> {
    let mut args = vec!["discover".to_string()];
    for s in selectors {
        args.push("--select".into());
        args.push(s.clone());
    }
    let text = framework_command(cp, &args)?;
    parse(&text)
}

/// Reads `Framework discover`'s lines.
fn parse(text: &str) -> anyhow::Result<Discovered> {
    let mut found = Discovered::default();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["framework", path] => found.framework.push(PathBuf::from(path)),
            ["app", path] => found.app.push(PathBuf::from(path)),
            ["note", text] => found.notes.push(text.to_string()),
            ["test", id, name, settings] => found.tests.push(TestCase {
                id: id.to_string(),
                display_name: name.to_string(),
                settings: settings
                    .split_whitespace()
                    .filter_map(|w| w.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }),
            _ => {}
        }
    }
    Ok(found)
}

/// Runs `rankcheck.harness.Framework` (no agent) on `cp` and returns its stdout; its `error`
/// line is bad input.
fn framework_command(cp: &str, args: &[String]) -> anyhow::Result<String> {
    for entry in cp.split(':').filter(|e| !e.is_empty()) {
        if !Path::new(entry).exists() {
            return Err(bad_input(format!(
                "class path entry {entry}: no such file or directory"
            )));
        }
    }
    let runtime = super::runtime::runtime()?;
    let output = Command::new(java_binary())
        .arg("-cp")
        .arg(&runtime.jar)
        .arg("rankcheck.harness.Framework")
        .args(args)
        .arg("--lib")
        .arg(&runtime.junit)
        .arg("--cp")
        .arg(cp)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", java_binary().display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => Ok(stdout),
        Some(2) => Err(bad_input(
            stdout
                .lines()
                .find_map(|l| l.strip_prefix("error\t"))
                .unwrap_or("JUnit discovery rejected the class path")
                .to_string(),
        )),
        _ => anyhow::bail!(
            "JUnit discovery failed ({}): {}",
            output.status,
            stderr.trim()
        ),
    }
}

/// The plain launcher's run of one test, repeated in one JVM.
#[derive(Clone, Copy, Debug)]
pub struct Repeated {
    /// Wall time, JVM start-up included.
    pub seconds: f64,
    /// Runs the engine reported failed.
    pub failures: u64,
}

/// Runs `test` `times` times with the plain launcher in one JVM (classes loaded once, no
/// agent): the throughput baseline of `bench throughput`.
pub fn repeat_plain(
    framework: &[PathBuf],
    app: &[PathBuf],
    test: &str,
    times: u64,
) -> anyhow::Result<Repeated> {
    let cp = join_paths(&[framework, app].concat());
    let started = Instant::now();
    let args = [
        "repeat".to_string(),
        "--test".into(),
        test.to_string(),
        "--times".into(),
        times.to_string(),
    ];
    let text = framework_command(&cp, &args)?;
    let seconds = started.elapsed().as_secs_f64();
    let failures = text
        .lines()
        .find_map(|l| l.strip_prefix("ran\t"))
        .and_then(|rest| rest.rsplit('\t').next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("the plain launcher said nothing of {test}"))?;
    Ok(Repeated { seconds, failures })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_lines_are_read() {
        let text = "framework\t/usr/share/java/junit-jupiter-api.jar\napp\t/tmp/t\n\
                    note\tusing a launcher\n\
                    test\tshop.CartTest#racy\tracy()\texecutions=50 strategy=pct d=2\n\
                    test\tshop.CartTest#safe\tsafe()\t\n";
        let d = parse(text).unwrap();
        assert_eq!(
            d.framework,
            vec![PathBuf::from("/usr/share/java/junit-jupiter-api.jar")]
        );
        assert_eq!(d.app, vec![PathBuf::from("/tmp/t")]);
        assert_eq!(d.notes, vec!["using a launcher".to_string()]);
        assert_eq!(d.tests.len(), 2);
        assert_eq!(d.tests[0].id, "shop.CartTest#racy");
        assert_eq!(d.tests[0].settings[1], ("strategy".into(), "pct".into()));
        assert!(d.tests[1].settings.is_empty());
    }
}
