//! Instrumented programs run unchanged under plain `java` (no agent: every hook does what the
//! operation it stands for does), and the site table names real instructions.

mod rewriter_common;
use java_harness::hooks::{SiteKind, SiteRecord, SITE_TABLE_RESOURCE};
use rewriter_common::*;
use std::path::Path;

const MAINS: [&str; 5] = ["rw.Basics", "rw.Threads", "rw.Big", "rw.Hot", "rw.Monitors"];

fn run_main(cp: &str, main: &str) -> (String, String, Option<i32>) {
    let o = java().args(["-cp", cp, main]).output().unwrap();
    (stdout(&o), stderr(&o), o.status.code())
}

fn instrument_dir(name: &str, extra: &[&str]) -> (std::path::PathBuf, String, String) {
    let out = scratch(name).join("out");
    let o = instrument_ok(&program_corpus(), &out, extra);
    (out, stdout(&o), stderr(&o))
}

#[test]
fn instrumented_programs_print_the_same() {
    let (out, summary, warnings) = instrument_dir("programs", &["--self-contained"]);
    // One summary line: classes, methods, sites, seconds.
    let line = summary.trim();
    assert!(
        line.starts_with("15 classes, ") && line.contains(" methods, ") && line.ends_with(" s"),
        "summary: {line}"
    );
    // The near-64-KiB method stays as it was, with a warning; the one whose branches had to be
    // widened is instrumented.
    assert!(
        warnings.contains("rw/Big.huge(I)I left uninstrumented"),
        "{warnings}"
    );
    assert!(!warnings.contains("rw/Big.wide"), "{warnings}");
    // Double-checked locking on a plain field is a bug no interleaving shows: said, once.
    assert_eq!(
        warnings.matches("double-checked locking on").count(),
        2,
        "{warnings}"
    );
    assert!(warnings.contains("Lazy.shared (line 22): double-checked locking on Lazy.shared"));
    // The torn copy of `StringBuffer.append(StringBuffer)`: in Lazy once, in Monitors twice.
    assert_eq!(
        warnings
            .matches("StringBuffer.append(StringBuffer)")
            .count(),
        3,
        "{warnings}"
    );
    let original = program_corpus();
    for main in MAINS {
        let before = run_main(original.to_str().unwrap(), main);
        // --self-contained: the output directory alone is the class path.
        let after = run_main(out.to_str().unwrap(), main);
        assert_eq!(before.2, Some(0), "{main} failed originally: {}", before.1);
        assert_eq!(
            before, after,
            "{main} behaves differently once instrumented"
        );
    }
}

#[test]
fn jar_output_runs_with_the_runtime_jar() {
    let dir = scratch("programs-jar");
    let input = dir.join("in.jar");
    write_jar(&input, &files_under(&program_corpus()));
    let out = dir.join("out.jar");
    instrument_ok(&input, &out, &[]);
    let cp = format!("{}:{}", out.display(), rt_jar().display());
    for main in MAINS {
        let before = run_main(program_corpus().to_str().unwrap(), main);
        assert_eq!(before, run_main(&cp, main), "{main}");
    }
    // Without the runtime classes, instrumented code cannot find RC: proof the hooks are there.
    let (_, err, code) = run_main(out.to_str().unwrap(), "rw.Threads");
    assert_ne!(code, Some(0));
    assert!(err.contains("rankcheck/rt/RC"), "{err}");
}

fn site_table(dir: &Path) -> Vec<SiteRecord> {
    std::fs::read_to_string(dir.join(SITE_TABLE_RESOURCE))
        .unwrap()
        .lines()
        .filter(|l| java_harness::hooks::is_site_line(l))
        .map(|l| SiteRecord::parse_line(l).unwrap())
        .collect()
}

/// The opcode at `bci` of `method` in the original class.
fn opcode_at(class: &str, method: &str, descriptor: &str, bci: u32) -> Option<u8> {
    let bytes = std::fs::read(program_corpus().join(format!("{class}.class"))).unwrap();
    let cf = rewriter::classfile::ClassFile::parse(&bytes).unwrap();
    let m = cf.methods.iter().find(|m| {
        cf.cp.utf8_string(m.name_index).unwrap() == method
            && cf.cp.utf8_string(m.descriptor_index).unwrap() == descriptor
    })?;
    let code = rewriter::code::CodeAttr::parse(&bytes, m.attributes[m.code?].info.clone()).unwrap();
    if bci as usize == code.code.len() {
        return Some(0); // the exceptional exit of a synchronized method
    }
    let i = code.index(bci).ok()?;
    Some(code.insns[i].op)
}

#[test]
fn site_table_names_original_instructions() {
    let (out, _, _) = instrument_dir("sites", &[]);
    let sites = site_table(&out);
    assert!(sites.len() > 200, "{} sites", sites.len());
    let mut ids = std::collections::HashSet::new();
    for s in &sites {
        assert!(ids.insert(s.id), "duplicate id {:x}", s.id);
        let op = opcode_at(&s.class, &s.method, &s.descriptor, s.bci)
            .unwrap_or_else(|| panic!("{} does not name an instruction", s.to_line()));
        let expected: &[u8] = match s.kind {
            SiteKind::FieldRead => &[0xb4],
            SiteKind::FieldWrite => &[0xb5],
            SiteKind::StaticRead => &[0xb2],
            SiteKind::StaticWrite => &[0xb3],
            SiteKind::ArrayRead => &[0x2e, 0x2f, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35],
            SiteKind::ArrayWrite => &[0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56],
            SiteKind::Alloc => &[0xbb, 0xbc, 0xbd, 0xc5],
            // Or the invokevirtual or invokeinterface of a call into a JDK class's real
            // monitor (its bridge enters and exits the model's monitor:
            // `passes::real_monitors`).
            SiteKind::MonitorEnter => &[0xc2, 0xb6, 0xb9],
            SiteKind::MonitorExit => &[0xc3, 0xb6, 0xb9],
            SiteKind::SyncMethodEnter | SiteKind::ClassInitBegin => {
                &[op_at_zero(&s.class, &s.method, &s.descriptor)]
            }
            SiteKind::SyncMethodExit => &[0, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1],
            SiteKind::Call(_) => &[0xb6, 0xb7, 0xb8, 0xb9],
            SiteKind::ClassInitWait => panic!("{}: only the agent learns such sites", s.to_line()),
        };
        assert!(
            expected.contains(&op),
            "{} names opcode {op:#x}",
            s.to_line()
        );
    }
    let has = |kind: SiteKind, method: &str, detail: &str| {
        sites
            .iter()
            .any(|s| s.kind == kind && s.method == method && s.detail.contains(detail))
    };
    assert!(has(SiteKind::FieldWrite, "fields", "rw/Basics.longField:J"));
    assert!(has(
        SiteKind::StaticWrite,
        "fields",
        "rw/Basics.staticDouble:D"
    ));
    assert!(has(SiteKind::ArrayWrite, "arrays", "J"));
    assert!(has(SiteKind::Alloc, "arrays", "[[[I"));
    assert!(has(SiteKind::Alloc, "main", "rw/Basics$Derived"));
    assert!(has(SiteKind::SyncMethodEnter, "incStatic", ""));
    assert!(has(SiteKind::MonitorEnter, "put", ""));
    assert!(has(
        SiteKind::MonitorEnter,
        "main",
        "java/util/Hashtable.containsKey"
    ));
    assert!(has(
        SiteKind::MonitorExit,
        "main",
        "java/lang/StringBuffer.append"
    ));
    assert!(has(
        SiteKind::Call(java_harness::hooks::Hook::Join),
        "main",
        ""
    ));
    assert!(has(
        SiteKind::Call(java_harness::hooks::Hook::RandomSeed),
        "main",
        ""
    ));
    // Worker extends Thread: `ws[i].start()` names rw/Threads$Worker as owner.
    assert!(
        sites
            .iter()
            .filter(|s| s.kind == SiteKind::Call(java_harness::hooks::Hook::ThreadStart))
            .count()
            >= 4
    );
    // Lines come from the LineNumberTable.
    assert!(sites.iter().all(|s| s.line.is_some()));
    // `this.k = …` in Inner's constructor runs after super(); this$0 before it is not a site.
    assert!(!has(
        SiteKind::FieldWrite,
        "<init>",
        "rw/Basics$Inner.this$0"
    ));
    assert!(has(SiteKind::FieldWrite, "<init>", "rw/Basics$Inner.k"));
}

fn op_at_zero(class: &str, method: &str, descriptor: &str) -> u8 {
    opcode_at(class, method, descriptor, 0).unwrap()
}

#[test]
fn sync_only_and_filters_limit_what_is_instrumented() {
    let (out, _, _) = instrument_dir("sync-only", &["--sync-only"]);
    let sites = site_table(&out);
    assert!(!sites.is_empty());
    assert!(sites
        .iter()
        .all(|s| !s.kind.is_data() && s.kind != SiteKind::Alloc));
    let (out, _, _) = instrument_dir("exclude", &["--exclude", "rw.Big"]);
    assert_eq!(
        std::fs::read(out.join("rw/Big.class")).unwrap(),
        std::fs::read(program_corpus().join("rw/Big.class")).unwrap()
    );
    assert!(site_table(&out).iter().all(|s| s.class != "rw/Big"));
}

/// With 33,000 `nop`s in the middle of every method, branches across the middle are widened
/// (conditionals inverted around a goto_w); the programs must still print the same.
#[test]
fn programs_with_widened_branches_print_the_same() {
    let out = scratch("programs-widened").join("out");
    let options = jar_options(padded_config(33_000), Some(java_harness::RUNTIME_JAR));
    let summary =
        rewriter::jar::instrument_dir(&program_corpus(), &out, &options, &|_, _| {}).unwrap();
    assert!(summary.methods > 30, "{summary:?}");
    // Hot is left out: methods that large are never compiled, and it loops long.
    for main in MAINS.iter().filter(|m| **m != "rw.Hot") {
        let before = run_main(program_corpus().to_str().unwrap(), main);
        assert_eq!(before, run_main(out.to_str().unwrap(), main), "{main}");
    }
}

/// Desugared synchronized methods keep HotSpot's compilers: every monitorexit pairs with its
/// monitorenter (static methods keep their class object in one local for that), and no return
/// path re-enters the catch-all handler after its monitorexit.
#[test]
fn desugared_synchronized_methods_still_compile() {
    let (out, _, _) = instrument_dir("jit", &["--self-contained"]);
    let o = java()
        .args(["-Xbatch", "-XX:+PrintCompilation", "-cp"])
        .arg(&out)
        .arg("rw.Hot")
        .output()
        .unwrap();
    let log = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    let skipped: Vec<_> = log
        .lines()
        .filter(|l| l.contains("rw.Hot::") && l.contains("COMPILE SKIPPED"))
        .collect();
    assert!(skipped.is_empty(), "{skipped:#?}");
    for m in [
        "rw.Hot::inc",
        "rw.Hot::add",
        "rw.Hot::next",
        "rw.Hot::maybeFail",
    ] {
        assert!(log.contains(m), "{m} was never compiled");
    }
}

/// `--analysis/--vars`: only the data sites the analysis says may touch the chosen variables,
/// and only those variables' allocation sites; sync and calls everywhere as always.
#[test]
fn analysis_selects_data_and_allocation_sites() {
    let dir = scratch("analysis");
    let analysis = dir.join("analysis.json");
    let o = rankcheck(&[
        "analyze",
        "--cp",
        program_corpus().to_str().unwrap(),
        "--main",
        "rw.Threads",
        "-o",
        analysis.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&analysis).unwrap()).unwrap();
    let id_of = |name: &str| {
        json["variables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"].as_str().unwrap().starts_with(name))
            .unwrap_or_else(|| panic!("no variable {name}"))["id"]
            .as_u64()
            .unwrap()
    };
    let shared = id_of("rw/Threads.shared");
    let threads = id_of("rw/Threads.main([Ljava/lang/String;)V@0 new rw/Threads");
    let out = dir.join("out");
    let vars = format!("{shared},{threads}");
    instrument_ok(
        &program_corpus(),
        &out,
        &["--analysis", analysis.to_str().unwrap(), "--vars", &vars],
    );
    let sites = site_table(&out);
    let static_sites: Vec<_> = sites
        .iter()
        .filter(|s| matches!(s.kind, SiteKind::StaticRead | SiteKind::StaticWrite))
        .collect();
    assert!(static_sites.len() >= 2, "{static_sites:?}");
    assert!(static_sites
        .iter()
        .all(|s| s.detail == "rw/Threads.shared:I"));
    let allocs: Vec<_> = sites.iter().filter(|s| s.kind == SiteKind::Alloc).collect();
    assert_eq!(allocs.len(), 1, "{allocs:?}");
    assert_eq!((allocs[0].method.as_str(), allocs[0].bci), ("main", 0));
    // Every field access of the Threads object the analysis tracks, none of Basics.
    assert!(sites
        .iter()
        .any(|s| s.detail == "rw/Threads.instanceCount:I"));
    assert!(sites
        .iter()
        .all(|s| s.class != "rw/Basics" || !s.kind.is_data()));
    // Sync and calls are not filtered.
    assert!(sites.iter().any(|s| s.kind == SiteKind::SyncMethodEnter));
    assert!(sites.iter().any(|s| matches!(s.kind, SiteKind::Call(_))));
    // And the program still runs the same.
    let cp = format!("{}:{}", out.display(), rt_jar().display());
    assert_eq!(
        run_main(program_corpus().to_str().unwrap(), "rw.Threads"),
        run_main(&cp, "rw.Threads")
    );
}
