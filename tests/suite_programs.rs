//! The benchmark-program suites against a real JVM: every manifest of `tests/programs`,
//! `tests/perf-programs` and `contest-bench` (when it holds programs) loads, every program
//! compiles with javac, and every correct program passes under plain `java -ea`: exit status as
//! expected, no uncaught exception in any thread, no oracle match. Buggy programs are not run
//! here (their bugs are rare natively; finding them is rankcheck's job).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use rankcheck::suite::{compile, Program, Suite};

/// Longest a correct program may take natively before the test calls it hung.
const NATIVE_TIME_LIMIT: Duration = Duration::from_secs(60);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn class_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("suite-classes")
}

fn load(relative: &str) -> Suite {
    let dir = repo().join(relative);
    Suite::load(&dir).unwrap_or_else(|e| panic!("{e}"))
}

/// `contest-bench` is filled by another part of the project; until it holds a program folder
/// there is nothing to check.
fn contest_bench() -> Option<Suite> {
    let dir = repo().join("contest-bench");
    let has_folder = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .any(|e| e.path().is_dir() && !e.file_name().to_string_lossy().starts_with('.'));
    has_folder.then(|| load("contest-bench"))
}

struct NativeRun {
    status: ExitStatus,
    output: String,
    seconds: f64,
}

/// Runs `program` under `java -ea` in a fresh work dir, killing it after [`NATIVE_TIME_LIMIT`].
fn run_native(program: &Program, classes: &Path, work_dir: &Path) -> NativeRun {
    std::fs::create_dir_all(work_dir).unwrap();
    let started = Instant::now();
    let mut child = Command::new(java())
        .arg("-ea")
        .arg("-cp")
        .arg(classes)
        .arg(&program.manifest.main)
        .args(&program.manifest.args)
        .current_dir(work_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("java runs");
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let status = wait_with_limit(&mut child, program.name());
    let seconds = started.elapsed().as_secs_f64();
    let output = stdout.join().unwrap() + &stderr.join().unwrap();
    NativeRun {
        status,
        output,
        seconds,
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

fn wait_with_limit(child: &mut Child, name: &str) -> ExitStatus {
    rankcheck::driver::child::wait_within(child, NATIVE_TIME_LIMIT)
        .unwrap()
        .unwrap_or_else(|| panic!("{name} did not end within {NATIVE_TIME_LIMIT:?} natively"))
}

fn java() -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) if !home.is_empty() => Path::new(&home).join("bin").join("java"),
        _ => PathBuf::from("java"),
    }
}

/// Runs a correct program `times` times and checks each run passes every oracle of its
/// manifest; returns the runs.
fn check_passes(program: &Program, times: usize) -> Vec<NativeRun> {
    let classes = compile(program, &class_cache()).unwrap_or_else(|e| panic!("{e}"));
    let oracle = &program.manifest.oracle;
    let output_regex = oracle.output_regex();
    let file_oracle = oracle.file();
    let mut runs = Vec::new();
    for i in 0..times {
        let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("suite-work")
            .join(format!("{}-{}-{i}", program.name(), std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        let run = run_native(program, &classes, &work);
        let name = program.name();
        let out = &run.output;
        assert_eq!(
            run.status.code(),
            Some(oracle.exit_status()),
            "{name} run {i}: exit status\n{out}"
        );
        // An uncaught exception in a thread other than main leaves the exit status at 0; the
        // default handler's message is how it shows.
        assert!(
            !out.contains("Exception in thread"),
            "{name} run {i}: uncaught exception\n{out}"
        );
        if let Some(re) = &output_regex {
            assert!(
                !re.is_match(out),
                "{name} run {i}: fail_on_output matches\n{out}"
            );
        }
        if let Some(f) = &file_oracle {
            if let Ok(text) = std::fs::read_to_string(work.join(&f.path)) {
                assert!(
                    !f.pattern.is_match(&text),
                    "{name} run {i}: fail_on_file matches"
                );
            }
        }
        let _ = std::fs::remove_dir_all(&work);
        runs.push(run);
    }
    runs
}

#[test]
fn controlled_suite_manifests_are_valid() {
    let suite = load("tests/programs");
    let buggy: Vec<_> = suite
        .programs
        .iter()
        .filter(|p| !p.manifest.correct)
        .collect();
    let correct = suite.programs.len() - buggy.len();
    assert!(
        buggy.len() >= 25 && correct >= 15,
        "{} buggy, {correct} correct",
        buggy.len()
    );
    // Every fixed variant is named by exactly one buggy program, so none is orphaned.
    for p in suite
        .programs
        .iter()
        .filter(|p| p.name().ends_with("Fixed"))
    {
        let namers = buggy
            .iter()
            .filter(|b| b.manifest.fixed.as_deref() == Some(p.name()))
            .count();
        assert_eq!(
            namers,
            1,
            "{} is named as `fixed` by {namers} programs",
            p.name()
        );
    }
    for p in &buggy {
        let e = p.manifest.expected.as_ref().unwrap();
        assert!(
            e.c.is_some() && e.v.is_some() && e.t.is_some(),
            "{}: c, v and t",
            p.name()
        );
    }
}

#[test]
fn perf_suite_manifests_are_valid() {
    let suite = load("tests/perf-programs");
    assert!(suite.programs.len() >= 6);
    for p in &suite.programs {
        let m = &p.manifest;
        assert!(
            m.correct,
            "{}: perf programs are correct programs",
            p.name()
        );
        assert!(
            matches!(m.args.as_slice(), [size] if size.parse::<u64>().is_ok()),
            "{}: args must be exactly the size argument",
            p.name()
        );
        assert!(
            m.description.contains("size"),
            "{}: describe the size argument",
            p.name()
        );
        assert!(
            (2..=5).contains(&m.threads),
            "{}: 2-4 worker threads",
            p.name()
        );
    }
}

#[test]
fn every_program_compiles() {
    let mut suites = vec![
        load("tests/programs"),
        load("tests/perf-programs"),
        load("tests/deep-bugs"),
        load("tests/throughput-programs"),
    ];
    suites.extend(contest_bench());
    for suite in &suites {
        for p in &suite.programs {
            let classes = compile(p, &class_cache()).unwrap_or_else(|e| panic!("{e}"));
            let main_class = classes
                .join(p.manifest.main.replace('.', "/"))
                .with_extension("class");
            assert!(
                main_class.is_file(),
                "{}: no {}",
                p.name(),
                main_class.display()
            );
        }
    }
}

#[test]
fn correct_programs_pass_natively() {
    let suite = load("tests/programs");
    for p in suite.programs.iter().filter(|p| p.manifest.correct) {
        check_passes(p, 3);
    }
}

/// The many-thread programs of the throughput benchmark are correct; the deep-bug programs are
/// all buggy, with the bounds their bug needs.
#[test]
fn throughput_and_deep_bug_suites_say_what_they_are() {
    for p in &load("tests/throughput-programs").programs {
        assert!(p.manifest.correct, "{}: a correct program", p.name());
        check_passes(p, 2);
    }
    let deep = load("tests/deep-bugs");
    assert!(deep.programs.len() >= 10);
    for p in &deep.programs {
        assert!(!p.manifest.correct, "{}: a buggy program", p.name());
        assert!(p.manifest.expected.is_some(), "{}: its bounds", p.name());
    }
}

#[test]
fn perf_programs_pass_and_print_the_same_result_every_run() {
    let suite = load("tests/perf-programs");
    for p in &suite.programs {
        let runs = check_passes(p, 2);
        let last_line = |r: &NativeRun| r.output.lines().last().unwrap_or_default().to_string();
        assert!(
            !last_line(&runs[0]).is_empty(),
            "{}: prints a result",
            p.name()
        );
        assert_eq!(
            last_line(&runs[0]),
            last_line(&runs[1]),
            "{}: deterministic result",
            p.name()
        );
        eprintln!("{}: {:.2} s natively", p.name(), runs[0].seconds);
    }
}

#[test]
fn contest_bench_correct_programs_pass_natively() {
    let Some(suite) = contest_bench() else {
        eprintln!("contest-bench holds no programs yet");
        return;
    };
    for p in suite.programs.iter().filter(|p| p.manifest.correct) {
        check_passes(p, 2);
    }
}
