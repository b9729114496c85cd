//! The JVM is the judge: with every hook, every class of the library jars loads, links and
//! passes the HotSpot verifier exactly as the original does, and a sample of java.base verifies
//! under --patch-module with boot-class verification on.

mod rewriter_common;
use rewriter_common::*;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Mutex;

/// VerifyAll outcomes of an original library jar, computed once per test binary.
fn original_outcomes(jar: &std::path::Path) -> BTreeMap<String, String> {
    static CACHE: Mutex<BTreeMap<PathBuf, BTreeMap<String, String>>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(jar.to_path_buf())
        .or_insert_with(|| verify_all(&[], &[jar.to_str().unwrap()]))
        .clone()
}

#[test]
fn every_library_class_verifies_as_before() {
    for jar in library_jars() {
        let name = jar.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = scratch(&format!("verify-{name}"));
        let out = dir.join(format!("{name}.rc.jar"));
        instrument_ok(&jar, &out, &[]);
        let original = original_outcomes(&jar);
        let instrumented = verify_all(&[], &[out.to_str().unwrap()]);
        assert!(
            original.len() > 100,
            "{name}: only {} classes",
            original.len()
        );
        assert_same_outcomes(&name, &original, &instrumented);
        let ok = original.values().filter(|o| *o == "OK").count();
        eprintln!(
            "{name}: {} classes, {ok} verify OK before and after",
            original.len()
        );
    }
}

/// java.base classes verified by the boot loader with -XX:+BytecodeVerificationLocal. Classes
/// the JVM initializes at startup are left out: they would run instrumented code while the
/// module system boots. The rest are only loaded and linked, never run, and RC stays reachable
/// (-Xbootclasspath/a plus --add-reads) should one run anyway.
#[test]
fn java_base_sample_verifies_with_patch_module() {
    let jmod = java_home().join("jmods/java.base.jmod");
    if !jmod.is_file() {
        eprintln!("note: {} is absent; skipped", jmod.display());
        return;
    }
    let dir = scratch("java-base");
    let (empty, original_dir, patched_dir, widened_dir) = (
        dir.join("empty"),
        dir.join("original"),
        dir.join("patched"),
        dir.join("widened"),
    );
    std::fs::create_dir_all(&empty).unwrap();
    let rt = rt_jar().to_str().unwrap().to_string();
    let flags = |patch: &std::path::Path| -> Vec<String> {
        [
            "-Xshare:off",
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:+BytecodeVerificationLocal",
            &format!("-Xbootclasspath/a:{rt}"),
            "--add-reads",
            "java.base=ALL-UNNAMED",
            "--patch-module",
            &format!("java.base={}", patch.display()),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };

    // Classes loaded while the JVM boots (with a patched java.base) and VerifyAll starts.
    let boot = java()
        .args(flags(&empty))
        .arg("-verbose:class")
        .arg("-cp")
        .arg(&rt)
        .args(["rankcheck.tools.VerifyAll", "--boot"])
        .arg(&empty)
        .output()
        .unwrap();
    let startup: HashSet<String> = String::from_utf8_lossy(&boot.stdout)
        .lines()
        .filter(|l| l.contains("source: jrt:/java.base"))
        .filter_map(|l| {
            l.split("] ")
                .nth(1)?
                .split(' ')
                .next()
                .map(|c| c.replace('.', "/"))
        })
        .collect();
    assert!(
        startup.len() > 300,
        "startup class list looks wrong: {}",
        startup.len()
    );

    let classes = rewriter::jar::read_classes(&std::fs::read(&jmod).unwrap()).unwrap();
    let config = rewriter::Config::all();
    let padded = padded_config(33_000);
    let mut sample = 0;
    let mut candidates = 0;
    for (entry, bytes) in &classes {
        let Some(class) = entry
            .strip_prefix("classes/")
            .and_then(|n| n.strip_suffix(".class"))
        else {
            continue;
        };
        if class == "module-info" || startup.contains(class) {
            continue;
        }
        candidates += 1;
        if candidates % 8 != 0 {
            continue;
        }
        let out = rewriter::instrument_class(bytes, &config).unwrap();
        let wide = rewriter::instrument_class(bytes, &padded).unwrap();
        for (root, data) in [
            (&original_dir, bytes),
            (&patched_dir, &out.bytes),
            (&widened_dir, &wide.bytes),
        ] {
            let path = root.join(format!("{class}.class"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, data).unwrap();
        }
        sample += 1;
    }
    let run = |d: &std::path::Path| {
        let f = flags(d);
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        verify_all(&f, &["--boot", d.to_str().unwrap()])
    };
    let original = run(&original_dir);
    let patched = run(&patched_dir);
    assert_eq!(original.len(), sample);
    assert_eq!(original, patched);
    // The same sample with every branch across the middle of each method widened.
    assert_eq!(original, run(&widened_dir));
    let ok = patched.values().filter(|o| *o == "OK").count();
    eprintln!("java.base sample: {sample} classes, {ok} verify OK with BytecodeVerificationLocal");
    assert!(
        ok >= 500,
        "only {ok} of {sample} sampled java.base classes verify"
    );
}

/// Widening on real code: with 33,000 `nop`s inserted in the middle of every method, every
/// branch across the middle exceeds ±32 KiB and is widened (conditionals inverted, with frames
/// synthesized at their fall-through); the classes must still verify as before.
#[test]
fn widened_branches_verify_on_library_code() {
    for jar in library_jars() {
        let name = jar.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = scratch(&format!("widen-{name}"));
        let options = jar_options(padded_config(33_000), None);
        let (bytes, summary) =
            rewriter::jar::instrument_jar(&std::fs::read(&jar).unwrap(), &options, &|_, _| {})
                .unwrap();
        let out = dir.join(format!("{name}.wide.jar"));
        std::fs::write(&out, bytes).unwrap();
        let original = original_outcomes(&jar);
        let widened = verify_all(&[], &[out.to_str().unwrap()]);
        assert_same_outcomes(&name, &original, &widened);
        eprintln!(
            "{name}: {} methods widened and verified ({} left alone as too large)",
            summary.methods,
            summary.warnings.len()
        );
        assert!(summary.methods > 1000);
    }
}
