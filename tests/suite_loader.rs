//! `rankcheck::suite` on suites built in a scratch folder: the error each broken suite gives
//! (one line naming the file), and javac compilation with its source-hash cache.

use std::fs;
use std::path::{Path, PathBuf};

use rankcheck::suite::{compile, Suite, SuiteError};

/// A fresh, empty scratch folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("suite-loader")
        .join(format!("{test}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes program `name` (package `pkg`, class `Main` with `body` as the body of main) into
/// `suite`, with `extra` appended to a correct program's manifest.
fn program(suite: &Path, name: &str, body: &str, extra: &str) {
    let pkg = name.to_lowercase();
    let src = suite.join(name).join("src").join(&pkg);
    fs::create_dir_all(&src).unwrap();
    fs::write(
        src.join("Main.java"),
        format!(
            "package {pkg};\npublic class Main {{\n  public static void main(String[] a) {{ {body} }}\n}}\n"
        ),
    )
    .unwrap();
    fs::write(
        suite.join(name).join("manifest.toml"),
        format!(
            "name = \"{name}\"\nmain = \"{pkg}.Main\"\nthreads = 1\ndescription = \"test\"\n{extra}"
        ),
    )
    .unwrap();
}

const CORRECT: &str = "correct = true\n";

fn load_error(dir: &Path) -> String {
    let err = Suite::load(dir).expect_err("the suite is broken");
    let text = err.to_string();
    assert!(!text.contains('\n'), "one line: {text}");
    text
}

#[test]
fn loads_programs_sorted_by_name() {
    let dir = scratch("sorted");
    program(&dir, "Zeta", "", CORRECT);
    program(
        &dir,
        "Alpha",
        "",
        "correct = false\nfixed = \"Zeta\"\n[expected]\nc = 1\nv = 1\nt = 2\nkind = \"order\"\n",
    );
    let suite = Suite::load(&dir).unwrap();
    let names: Vec<_> = suite.programs.iter().map(|p| p.name()).collect();
    assert_eq!(names, ["Alpha", "Zeta"]);
    assert_eq!(suite.get("Zeta").unwrap().manifest.main, "zeta.Main");
    assert!(suite.get("Beta").is_none());
}

#[test]
fn unknown_key_names_the_file_and_the_key() {
    let dir = scratch("unknown-key");
    program(&dir, "Good", "", CORRECT);
    program(&dir, "Bad", "", "correct = true\ntimeout = 5\n");
    let err = load_error(&dir);
    assert!(err.contains("Bad/manifest.toml:6:"), "{err}");
    assert!(err.contains("timeout"), "{err}");
}

#[test]
fn unknown_key_in_a_table_is_an_error_too() {
    let dir = scratch("unknown-table-key");
    program(
        &dir,
        "Bad",
        "",
        "correct = true\n[oracle]\nfail_on_stdout = \"x\"\n",
    );
    let err = load_error(&dir);
    assert!(err.contains("fail_on_stdout"), "{err}");
}

#[test]
fn a_folder_without_manifest_is_an_error() {
    let dir = scratch("no-manifest");
    program(&dir, "Good", "", CORRECT);
    fs::create_dir_all(dir.join("Stray/src")).unwrap();
    let err = load_error(&dir);
    assert!(
        err.contains("Stray") && err.contains("manifest.toml"),
        "{err}"
    );
}

#[test]
fn an_empty_or_missing_suite_is_an_error() {
    let dir = scratch("empty");
    assert!(load_error(&dir).contains("no program folders"));
    assert!(matches!(
        Suite::load(&dir.join("absent")),
        Err(SuiteError::Io { .. })
    ));
}

#[test]
fn name_must_match_the_folder() {
    let dir = scratch("name-mismatch");
    program(&dir, "Good", "", CORRECT);
    fs::rename(dir.join("Good"), dir.join("Other")).unwrap();
    let err = load_error(&dir);
    assert!(
        err.contains("differs from the folder name `Other`"),
        "{err}"
    );
}

#[test]
fn main_class_needs_its_source() {
    let dir = scratch("missing-main");
    program(&dir, "Good", "", CORRECT);
    let manifest = dir.join("Good/manifest.toml");
    let text = fs::read_to_string(&manifest)
        .unwrap()
        .replace("good.Main", "good.Start");
    fs::write(&manifest, text).unwrap();
    assert!(load_error(&dir).contains("good.Start"));
}

#[test]
fn fixed_must_name_a_correct_program_of_the_suite() {
    let buggy = |fixed: &str| {
        format!(
            "correct = false\nfixed = \"{fixed}\"\n[expected]\nc = 1\nv = 1\nt = 2\nkind = \"x\"\n"
        )
    };
    let dir = scratch("fixed-missing");
    program(&dir, "Buggy", "", &buggy("Nowhere"));
    assert!(load_error(&dir).contains("`Nowhere` names no program"));

    let dir = scratch("fixed-buggy");
    program(&dir, "Buggy", "", &buggy("Other"));
    program(&dir, "Other", "", &buggy("Buggy"));
    assert!(load_error(&dir).contains("not correct"));
}

#[test]
fn compile_caches_by_source_hash() {
    let dir = scratch("compile");
    program(&dir, "Hello", "System.out.println(\"hi\");", CORRECT);
    let cache = dir.join("cache");
    let suite = Suite::load(&dir).unwrap();
    let p = suite.get("Hello").unwrap();
    let first = compile(p, &cache).unwrap();
    assert!(first.join("hello/Main.class").is_file());
    assert_eq!(
        compile(p, &cache).unwrap(),
        first,
        "unchanged sources reuse the classes"
    );

    program(&dir, "Hello", "System.out.println(\"changed\");", CORRECT);
    let changed = compile(p, &cache).unwrap();
    assert_ne!(changed, first, "changed sources compile anew");
    assert!(changed.join("hello/Main.class").is_file());
}

#[test]
fn compile_error_is_one_line_naming_the_program() {
    let dir = scratch("compile-error");
    program(&dir, "Broken", "int x = ;", CORRECT);
    let suite = Suite::load(&dir).unwrap();
    let err = compile(suite.get("Broken").unwrap(), &dir.join("cache")).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("compiling Broken: javac failed"), "{text}");
    assert!(text.contains("Main.java"), "{text}");
    assert!(!text.contains('\n'));
    assert!(!dir.join("cache").read_dir().unwrap().any(|e| {
        let e = e.unwrap();
        !e.file_name().to_string_lossy().starts_with('.') && e.path().is_dir()
    }));
}

#[test]
fn parallel_compiles_of_one_program_agree() {
    let dir = scratch("compile-parallel");
    program(&dir, "Shared", "System.out.println(1);", CORRECT);
    let cache = dir.join("cache");
    let suite = Suite::load(&dir).unwrap();
    let p = suite.get("Shared").unwrap();
    let results: Vec<PathBuf> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| compile(p, &cache))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().unwrap())
            .collect()
    });
    assert!(results.iter().all(|r| r == &results[0]));
    assert!(results[0].join("shared/Main.class").is_file());
}

/// The `classpath` key: an entry that does not exist is named when the suite loads; the sources
/// compile against the entries (here a class folder next to the program, given relative to it),
/// and the library's identity is part of the cache key.
#[test]
fn classpath_libraries_are_checked_and_compiled_against() {
    let dir = scratch("classpath");
    program(
        &dir,
        "User",
        "System.out.println(lib.Greeting.TEXT);",
        "correct = true\nclasspath = [\"../greeting-classes\"]\n",
    );
    let err = load_error(&dir);
    assert!(
        err.contains("User/manifest.toml") && err.contains("greeting-classes"),
        "{err}"
    );

    // The library: one class, compiled with javac like any program.
    let lib_src = dir.join("greeting-src/lib");
    fs::create_dir_all(&lib_src).unwrap();
    fs::write(
        lib_src.join("Greeting.java"),
        "package lib;\npublic class Greeting { public static final String TEXT = \"hi\"; }\n",
    )
    .unwrap();
    let status = std::process::Command::new("javac")
        .args(["-d"])
        .arg(dir.join("greeting-classes"))
        .arg(lib_src.join("Greeting.java"))
        .status()
        .unwrap();
    assert!(status.success());
    fs::rename(dir.join("greeting-src"), dir.join(".greeting-src")).unwrap();
    fs::rename(dir.join("greeting-classes"), dir.join(".greeting-classes")).unwrap();
    let manifest = dir.join("User/manifest.toml");
    let text = fs::read_to_string(&manifest)
        .unwrap()
        .replace("../greeting-classes", "../.greeting-classes");
    fs::write(&manifest, text).unwrap();

    let suite = Suite::load(&dir).unwrap();
    let user = suite.get("User").unwrap();
    assert_eq!(user.libraries(), [dir.join("User/../.greeting-classes")]);
    let cache = dir.join("cache");
    let classes = compile(user, &cache).unwrap();
    assert!(classes.join("user/Main.class").is_file());

    // Another library path is another compilation (a jar upgraded in place would be too).
    let mut moved = user.clone();
    fs::rename(dir.join(".greeting-classes"), dir.join(".greeting-v2")).unwrap();
    moved.manifest.classpath = vec!["../.greeting-v2".into()];
    let again = compile(&moved, &cache).unwrap();
    assert_ne!(again, classes);
}
