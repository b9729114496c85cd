//! Bad input to `rankcheck analyze`: unusable class paths are one clear error (exit 2); a
//! corrupt class or a missing library degrades to warnings and a conservative answer.

use std::path::{Path, PathBuf};
use std::process::Command;

use alias::AnalysisFile;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("rankcheck-alias-bad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn analyze(cp: &Path, main: &str, out: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .arg("analyze")
        .arg("--cp")
        .arg(cp)
        .args(["--main", main, "-o"])
        .arg(out)
        .output()
        .expect("rankcheck runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn compile_missing_lib(dir: &Path) -> PathBuf {
    let classes = dir.join("classes");
    let src = root().join("tests/java/alias/MissingLib/src/missing");
    let ok = Command::new("javac")
        .args(["--release", "17", "-d"])
        .arg(&classes)
        .arg(src.join("Main.java"))
        .arg(src.join("Lib.java"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "javac failed");
    classes
}

#[test]
fn unusable_class_paths_are_exit_2_with_one_line() {
    let dir = scratch("cp");
    let out = dir.join("a.json");
    let (code, err) = analyze(Path::new("/no/such/dir.jar"), "Main", &out);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("does not exist"), "{err}");

    let classes = compile_missing_lib(&dir);
    let (code, err) = analyze(&classes, "missing.NoSuchMain", &out);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not on the class path"), "{err}");
    assert!(!out.exists());
}

#[test]
fn a_missing_library_class_gives_warnings_and_conservative_sites() {
    let dir = scratch("missing");
    let classes = compile_missing_lib(&dir);
    let out = dir.join("full.json");
    let (code, err) = analyze(&classes, "missing.Main", &out);
    assert_eq!(code, 0, "{err}");
    let full = AnalysisFile::read(&out).unwrap();
    assert!(full.complete, "{:?}", full.warnings);
    let on_event = |f: &AnalysisFile| {
        f.sites
            .iter()
            .filter(|s| s.method == "onEvent")
            .cloned()
            .collect::<Vec<_>>()
    };
    // With the library present, the call-back is found and its field site names both boxes.
    let sites = on_event(&full);
    assert!(!sites.is_empty());
    assert!(sites.iter().all(|s| s.reached && !s.all), "{sites:?}");

    // Without it: a warning, and the call-back's sites may touch anything.
    std::fs::remove_file(classes.join("missing/Lib.class")).unwrap();
    std::fs::remove_file(classes.join("missing/Lib$Listener.class")).unwrap();
    let out = dir.join("missing.json");
    let (code, err) = analyze(&classes, "missing.Main", &out);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("missing/Lib"),
        "no warning about the library: {err}"
    );
    let partial = AnalysisFile::read(&out).unwrap();
    assert!(!partial.complete);
    let sites = on_event(&partial);
    assert!(!sites.is_empty());
    assert!(sites.iter().all(|s| s.all), "{sites:?}");
    // The object handed to the missing library may be written by it: main's read of
    // `handed.x` must name the handed box.
    let handed = partial
        .variables
        .iter()
        .find(|v| v.name.contains("main([Ljava/lang/String;)V@8 new"))
        .expect("the handed box is a variable");
    let selected = partial.select(&[handed.id]).unwrap();
    assert!(selected
        .data_sites
        .iter()
        .any(|k| k.method == "main" && k.class == "missing/Main"));
}

#[test]
fn a_corrupt_class_is_a_warning_not_a_crash() {
    let dir = scratch("corrupt");
    let classes = compile_missing_lib(&dir);
    std::fs::write(
        classes.join("missing/Broken.class"),
        b"\xca\xfe\xba\xbe not a class",
    )
    .unwrap();
    // A corrupt class that the program uses: Lib.
    std::fs::write(
        classes.join("missing/Lib.class"),
        b"\xca\xfe\xba\xbe\x00\x00\x00\x3d garbage",
    )
    .unwrap();
    let out = dir.join("a.json");
    let (code, err) = analyze(&classes, "missing.Main", &out);
    assert_eq!(code, 0, "{err}");
    let file = AnalysisFile::read(&out).unwrap();
    assert!(!file.complete);
    assert!(
        file.warnings.iter().any(|w| w.contains("missing/Broken")),
        "{:?}",
        file.warnings
    );
    assert!(
        file.warnings.iter().any(|w| w.contains("missing/Lib")),
        "{:?}",
        file.warnings
    );
    assert!(file
        .sites
        .iter()
        .filter(|s| s.method == "onEvent")
        .all(|s| s.all));
}

#[test]
fn selected_sites_rejects_unknown_variables_and_other_files() {
    let dir = scratch("select");
    let classes = compile_missing_lib(&dir);
    let out = dir.join("a.json");
    assert_eq!(analyze(&classes, "missing.Main", &out).0, 0);
    assert!(alias::selected_sites(&out, &[100_000]).is_err());
    std::fs::write(dir.join("x.json"), "{\"hello\": 1}").unwrap();
    assert!(alias::selected_sites(&dir.join("x.json"), &[0]).is_err());
    assert!(alias::selected_sites(&dir.join("none.json"), &[0]).is_err());
    let sel = alias::selected_sites(&out, &[0]).unwrap();
    assert!(!sel.data_sites.is_empty());
}
