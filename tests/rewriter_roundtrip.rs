//! Round trips: a class the rewriter does not change comes out byte for byte, both through the
//! Code layer (every method decoded and re-encoded with no edits) and through the jar path.

mod rewriter_common;
use rewriter_common::*;

fn assert_deep_round_trip(label: &str, classes: &[(String, Vec<u8>)]) -> usize {
    let mut differ = Vec::new();
    for (name, bytes) in classes {
        match rewriter::round_trip(bytes) {
            Ok(out) if &out == bytes => {}
            Ok(_) => differ.push(format!("{name}: bytes differ")),
            Err(e) => differ.push(format!("{name}: {e}")),
        }
    }
    assert!(
        differ.is_empty(),
        "{label}: {} of {} classes do not round-trip, e.g. {:?}",
        differ.len(),
        classes.len(),
        &differ[..differ.len().min(5)]
    );
    eprintln!("{label}: {} classes byte-identical", classes.len());
    classes.len()
}

#[test]
fn java_base_round_trips_byte_for_byte() {
    let jmod = java_home().join("jmods/java.base.jmod");
    if !jmod.is_file() {
        eprintln!("note: {} is absent; skipped", jmod.display());
        return;
    }
    let classes = rewriter::jar::read_classes(&std::fs::read(&jmod).unwrap()).unwrap();
    assert!(assert_deep_round_trip("java.base.jmod", &classes) > 5000);
}

#[test]
fn library_jars_round_trip_byte_for_byte() {
    for jar in library_jars() {
        let classes = rewriter::jar::read_classes(&std::fs::read(&jar).unwrap()).unwrap();
        assert!(assert_deep_round_trip(&jar.display().to_string(), &classes) > 100);
    }
}

#[test]
fn committed_corpus_round_trips_byte_for_byte() {
    let classes: Vec<_> = files_under(&repo().join("tests/corpus"))
        .into_iter()
        .filter(|(n, _)| n.ends_with(".class"))
        .collect();
    assert!(assert_deep_round_trip("tests/corpus", &classes) >= 10);
}

/// With every class filtered out, the output jar holds the input's entries, same order, same
/// bytes (the classes included).
#[test]
fn unselected_jar_comes_out_unchanged() {
    let dir = scratch("unselected");
    let input = dir.join("in.jar");
    let mut entries = files_under(&program_corpus());
    entries.insert(
        0,
        (
            "META-INF/MANIFEST.MF".into(),
            b"Manifest-Version: 1.0\r\n\r\n".to_vec(),
        ),
    );
    entries.push(("data/notes.txt".into(), b"a resource".to_vec()));
    write_jar(&input, &entries);
    let out = dir.join("out.jar");
    instrument_ok(&input, &out, &["--include", "no/such/package/"]);
    assert_eq!(read_jar(&out), entries);
}

/// The same input and options give the same output bytes; instrumenting the output again
/// changes no class (each carries the rankcheck.Instrumented attribute).
#[test]
fn output_is_deterministic_and_not_instrumented_twice() {
    let dir = scratch("deterministic");
    let input = dir.join("in.jar");
    write_jar(&input, &files_under(&program_corpus()));
    let run = |from: &std::path::Path, to: &std::path::Path| {
        instrument_ok(from, to, &[]);
    };
    let (a, b, c) = (dir.join("a.jar"), dir.join("b.jar"), dir.join("c.jar"));
    run(&input, &a);
    run(&input, &b);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    run(&a, &c);
    let first = read_jar(&a);
    let second = read_jar(&c);
    assert_eq!(first.len(), second.len());
    for ((n1, b1), (n2, b2)) in first.iter().zip(&second) {
        assert_eq!(n1, n2);
        assert!(b1 == b2, "{n1} changed on the second run");
    }
}
