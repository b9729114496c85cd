//! Bad input through the real binary: one clear line naming the entry, exit code 2, never a
//! panic; `--skip-bad` copies bad entries through with a warning. Also the jar conventions:
//! signature files dropped, manifest and resources kept, multi-release classes instrumented,
//! module-info untouched.

mod rewriter_common;
use rewriter_common::*;

fn good_class() -> Vec<u8> {
    std::fs::read(program_corpus().join("rw/Threads.class")).unwrap()
}

fn assert_bad(o: &std::process::Output, names: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let lines: Vec<_> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected: {err}");
    assert!(lines[0].contains(names), "{err} does not name {names}");
}

/// (entry name, bytes, what the message says) for each kind of bad class.
fn bad_classes() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let good = good_class();
    let mut wrong_version = good.clone();
    wrong_version[6..8].copy_from_slice(&200u16.to_be_bytes());
    let mut bad_cp = good.clone();
    bad_cp[10] = 99; // first constant's tag
    vec![
        (
            "app/Truncated.class",
            good[..good.len() / 2].to_vec(),
            "truncated",
        ),
        (
            "app/Magic.class",
            b"PK\x03\x04 not a class at all".to_vec(),
            "not a class file",
        ),
        (
            "app/Version.class",
            wrong_version,
            "unsupported class-file version 200",
        ),
        ("app/Pool.class", bad_cp, "unknown tag 99"),
        ("app/Empty.class", Vec::new(), "truncated"),
    ]
}

#[test]
fn bad_classes_in_a_jar_name_the_entry() {
    let dir = scratch("bad-jar");
    for (i, (name, bytes, why)) in bad_classes().into_iter().enumerate() {
        let input = dir.join(format!("in{i}.jar"));
        write_jar(
            &input,
            &[
                ("rw/Threads.class".into(), good_class()),
                (name.into(), bytes),
            ],
        );
        let o = instrument_cli(&input, &dir.join(format!("out{i}.jar")), &[]);
        assert_bad(&o, name);
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
    }
}

#[test]
fn bad_class_in_a_directory_names_the_file() {
    let dir = scratch("bad-dir");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("app")).unwrap();
    std::fs::write(input.join("app/Broken.class"), &good_class()[..100]).unwrap();
    assert_bad(
        &instrument_cli(&input, &dir.join("out"), &[]),
        "app/Broken.class",
    );
}

#[test]
fn skip_bad_copies_bad_entries_through() {
    let dir = scratch("skip-bad");
    let input = dir.join("in.jar");
    let mut entries = vec![("rw/Threads.class".to_string(), good_class())];
    for (name, bytes, _) in bad_classes() {
        entries.push((name.to_string(), bytes));
    }
    write_jar(&input, &entries);
    let out = dir.join("out.jar");
    let o = instrument_cli(&input, &out, &["--skip-bad"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let written = read_jar(&out);
    for (name, bytes, _) in bad_classes() {
        assert!(
            err.contains(&format!("warning: entry {name} copied unchanged")),
            "{err}"
        );
        assert!(
            written.iter().any(|(n, b)| n == name && *b == bytes),
            "{name} not copied"
        );
    }
    // The good class was instrumented all the same.
    assert!(written
        .iter()
        .any(|(n, b)| n == "rw/Threads.class" && *b != good_class()));
}

#[test]
fn corrupt_and_duplicate_archives_are_bad_input() {
    let dir = scratch("bad-zip");
    let garbage = dir.join("garbage.jar");
    std::fs::write(&garbage, b"this is not a zip file, just text\n".repeat(10)).unwrap();
    assert_bad(
        &instrument_cli(&garbage, &dir.join("o1.jar"), &[]),
        "garbage.jar",
    );

    // A jar cut in half: its central directory is gone.
    let whole = dir.join("whole.jar");
    write_jar(&whole, &[("rw/Threads.class".into(), good_class())]);
    let bytes = std::fs::read(&whole).unwrap();
    let cut = dir.join("cut.jar");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_bad(&instrument_cli(&cut, &dir.join("o2.jar"), &[]), "cut.jar");

    // Two entries with one name: written as A and B, then B's name patched to A.
    let dup = dir.join("dup.jar");
    write_jar(
        &dup,
        &[
            ("app/A.class".into(), good_class()),
            ("app/B.class".into(), good_class()),
        ],
    );
    let mut bytes = std::fs::read(&dup).unwrap();
    for i in 0..bytes.len() - 11 {
        if &bytes[i..i + 11] == b"app/B.class" {
            bytes[i + 4] = b'A';
        }
    }
    std::fs::write(&dup, &bytes).unwrap();
    assert_bad(
        &instrument_cli(&dup, &dir.join("o3.jar"), &[]),
        "app/A.class",
    );
}

#[test]
fn usage_errors_are_bad_input() {
    let dir = scratch("usage");
    let o = instrument_cli(&dir.join("missing.jar"), &dir.join("o.jar"), &[]);
    assert_bad(&o, "missing.jar");
    let input = dir.join("in.jar");
    write_jar(&input, &[("rw/Threads.class".into(), good_class())]);
    let o = instrument_cli(
        &input,
        &dir.join("o.jar"),
        &["--analysis", "no-such-analysis.json", "--vars", "1,2"],
    );
    assert_bad(&o, "no-such-analysis.json");
}

#[test]
fn jar_conventions_signatures_manifest_versions_module_info() {
    let dir = scratch("conventions");
    let module_info = {
        // A module-info class compiled here would need javac; take java.base's.
        let jmod = std::fs::read(java_home().join("jmods/java.base.jmod")).unwrap();
        rewriter::jar::read_classes(&jmod)
            .unwrap()
            .into_iter()
            .find(|(n, _)| n == "classes/module-info.class")
            .unwrap()
            .1
    };
    let manifest = b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n".to_vec();
    let entries = vec![
        ("META-INF/MANIFEST.MF".to_string(), manifest.clone()),
        ("META-INF/SIGNER.SF".to_string(), b"sig".to_vec()),
        ("META-INF/SIGNER.RSA".to_string(), b"sig".to_vec()),
        ("module-info.class".to_string(), module_info.clone()),
        ("rw/Threads.class".to_string(), good_class()),
        (
            "META-INF/versions/11/rw/Threads.class".to_string(),
            good_class(),
        ),
        ("config/app.properties".to_string(), b"k=v\n".to_vec()),
    ];
    let input = dir.join("in.jar");
    write_jar(&input, &entries);
    let out = dir.join("out.jar");
    let o = instrument_cli(&input, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("dropped signature file META-INF/SIGNER.SF"));
    let written = read_jar(&out);
    let names: Vec<&str> = written.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "META-INF/MANIFEST.MF",
            "module-info.class",
            "rw/Threads.class",
            "META-INF/versions/11/rw/Threads.class",
            "config/app.properties",
            "META-INF/rankcheck/sites.tsv",
        ]
    );
    let get = |n: &str| &written.iter().find(|(m, _)| m == n).unwrap().1;
    assert_eq!(get("META-INF/MANIFEST.MF"), &manifest);
    assert_eq!(get("module-info.class"), &module_info);
    assert_eq!(get("config/app.properties"), b"k=v\n");
    assert_ne!(get("rw/Threads.class"), &good_class());
    assert_eq!(
        get("META-INF/versions/11/rw/Threads.class"),
        get("rw/Threads.class")
    );
}

#[test]
fn directory_resources_and_layout_are_kept() {
    let dir = scratch("dir-resources");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("rw")).unwrap();
    std::fs::create_dir_all(input.join("conf/deep")).unwrap();
    std::fs::write(input.join("rw/Threads.class"), good_class()).unwrap();
    std::fs::write(input.join("conf/deep/app.xml"), b"<a/>").unwrap();
    std::fs::write(input.join("README"), b"hello").unwrap();
    let out = dir.join("out");
    let o = instrument_cli(&input, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let files: Vec<String> = files_under(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        files,
        [
            "META-INF/rankcheck/sites.tsv",
            "README",
            "conf/deep/app.xml",
            "rw/Threads.class"
        ]
    );
    assert_eq!(
        std::fs::read(out.join("conf/deep/app.xml")).unwrap(),
        b"<a/>"
    );
    assert_ne!(
        std::fs::read(out.join("rw/Threads.class")).unwrap(),
        good_class()
    );
}
