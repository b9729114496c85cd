//! Soundness of the alias analysis, checked against real runs: every (access site, variable)
//! pair a traced run touches must be one the analysis predicted.
//!
//! For each program of `tests/programs/`, `contest-bench/` and `tests/java/alias/`: compile it,
//! analyse it (`alias::analyze`, the JDK modelled from jmods), instrument it with every data and
//! allocation hook (`rankcheck instrument`), run it once on plain `java` with
//! `-Drankcheck.trace=…` (`rankcheck.rt.Trace`, no agent), and compare. Static accesses map to
//! the static-field variable, instance and array accesses to the allocation site of the object;
//! the check is that the site is among those `alias::selected_sites` picks for that variable.
//! Accesses to objects whose allocation the run did not see (made by the JDK, by `clone`, or
//! still in their constructor) cannot be named and are only counted.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use alias::{AnalysisFile, SiteKey, VariableKind};
use java_harness::hooks::{SiteKind, SiteRecord, SITE_TABLE_RESOURCE};
use rankcheck::suite::{compile, Program};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rankcheck-alias-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every program folder (with a manifest) below `dir`.
fn programs_in(dir: &Path) -> Vec<Program> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("manifest.toml").is_file())
        .collect();
    dirs.sort();
    dirs.iter().filter_map(|d| Program::load(d).ok()).collect()
}

/// Runs `cmd` with a time limit; on expiry sends SIGTERM (so shutdown hooks, and with them the
/// trace writer, still run), then SIGKILL.
fn run_limited(mut cmd: Command, limit: Duration) -> bool {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("java runs");
    let start = Instant::now();
    let pid = child.id().to_string();
    let waited = rankcheck::driver::child::wait_or_stop(&mut child, || {
        (start.elapsed() > limit).then(|| {
            let _ = Command::new("kill").args(["-TERM", &pid]).status();
            std::thread::sleep(Duration::from_secs(2));
        })
    });
    matches!(waited, Ok(rankcheck::driver::child::Waited::Exited(_)))
}

#[derive(Default, Debug)]
struct Outcome {
    observed: usize,
    checked: usize,
    unnamed: usize,
    misses: Vec<String>,
    finished: bool,
}

fn check_program(program: &Program, work: &Path, rt_jar: &Path) -> Result<Outcome, String> {
    let name = program.name().to_string();
    let classes = compile(program, &work.join("classes")).map_err(|e| e.to_string())?;
    let analysis = alias::analyze(&alias::Config {
        class_path: vec![classes.clone()],
        main: program.manifest.main.clone(),
        jmods: Some(alias::classpath::default_jmods()),
        jdk_bodies: false,
    })
    .map_err(|e| format!("analysis failed: {e}"))?;
    let dir = work.join(&name);
    std::fs::create_dir_all(&dir).unwrap();
    let inst = dir.join("inst");
    let status = Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .arg("instrument")
        .arg(&classes)
        .arg("-o")
        .arg(&inst)
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("instrument failed: {status}"));
    }
    let trace = dir.join("trace.tsv");
    let mut java = Command::new("java");
    java.arg(format!("-Drankcheck.trace={}", trace.display()))
        .arg("-cp")
        .arg(format!("{}:{}", inst.display(), rt_jar.display()))
        .arg(&program.manifest.main)
        .args(&program.manifest.args)
        .current_dir(&dir);
    let finished = run_limited(java, Duration::from_secs(6));
    let trace_text = std::fs::read_to_string(&trace)
        .map_err(|e| format!("no trace written ({e}); finished: {finished}"))?;
    let table = std::fs::read_to_string(inst.join(SITE_TABLE_RESOURCE))
        .map_err(|e| format!("no site table: {e}"))?;
    let records: HashMap<i64, SiteRecord> = table
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| SiteRecord::parse_line(l).ok())
        .map(|r| (r.id, r))
        .collect();
    let mut outcome = compare(&analysis, &records, &trace_text);
    outcome.finished = finished;
    Ok(outcome)
}

fn key_of(r: &SiteRecord) -> SiteKey {
    SiteKey {
        class: r.class.clone(),
        method: r.method.clone(),
        descriptor: r.descriptor.clone(),
        bci: r.bci,
    }
}

fn compare(analysis: &AnalysisFile, records: &HashMap<i64, SiteRecord>, trace: &str) -> Outcome {
    let sites: HashMap<SiteKey, &alias::Site> =
        analysis.sites.iter().map(|s| (s.key(), s)).collect();
    let alloc_var: HashMap<&SiteKey, u32> = analysis
        .variables
        .iter()
        .filter_map(|v| v.site.as_ref().map(|s| (s, v.id)))
        .collect();
    let static_var: HashMap<&str, u32> = analysis
        .variables
        .iter()
        .filter(|v| v.kind == VariableKind::Static)
        .map(|v| (v.name.as_str(), v.id))
        .collect();
    let mut selections: HashMap<u32, alias::SiteSelection> = HashMap::new();
    let mut out = Outcome::default();
    for line in trace.lines().filter(|l| !l.is_empty()) {
        out.observed += 1;
        let Some((site_hex, what)) = line.split_once('\t') else {
            out.misses.push(format!("bad trace line {line:?}"));
            continue;
        };
        let site_id = u64::from_str_radix(site_hex, 16).unwrap_or(0) as i64;
        let Some(rec) = records.get(&site_id) else {
            out.misses.push(format!(
                "trace names site {site_hex}, not in the site table"
            ));
            continue;
        };
        if !rec.kind.is_data() {
            out.misses
                .push(format!("trace names non-data site {}", rec.to_line()));
            continue;
        }
        let key = key_of(rec);
        let Some(site) = sites.get(&key) else {
            out.misses
                .push(format!("site missing from the analysis: {}", rec.to_line()));
            continue;
        };
        let expected: Option<u32> = match what {
            "unknown" => {
                out.unnamed += 1;
                continue;
            }
            "static" if !matches!(rec.kind, SiteKind::StaticRead | SiteKind::StaticWrite) => {
                // `null` at an instance site: a NullPointerException, not an access.
                out.unnamed += 1;
                continue;
            }
            "static" => {
                // The site table names the referenced class; the analysis the declaring one.
                // No variable: a JDK static, or an inherited one named through a subclass.
                let field = rec.detail.split(':').next().unwrap_or("");
                static_var.get(field).copied()
            }
            alloc_hex => {
                let alloc_id = u64::from_str_radix(alloc_hex, 16).unwrap_or(0) as i64;
                let Some(arec) = records.get(&alloc_id) else {
                    out.misses.push(format!(
                        "trace names allocation {alloc_hex}, not in the table"
                    ));
                    continue;
                };
                match alloc_var.get(&key_of(arec)) {
                    Some(&v) => Some(v),
                    None => {
                        out.misses.push(format!(
                            "allocation site missing from the analysis: {}",
                            arec.to_line()
                        ));
                        continue;
                    }
                }
            }
        };
        let Some(var) = expected else { continue };
        out.checked += 1;
        // What `rankcheck instrument --analysis F --vars VAR` would instrument.
        let selection = selections
            .entry(var)
            .or_insert_with(|| analysis.select(&[var]).expect("known variable"));
        if !selection.data_sites.contains(&key) {
            out.misses.push(format!(
                "{} touched {} but the analysis says {:?}",
                rec.to_line(),
                analysis.variables[var as usize].name,
                site.vars
            ));
        }
    }
    out
}

#[test]
fn every_observed_access_is_predicted() {
    let work = scratch("soundness");
    let rt_jar = work.join("rankcheck-rt.jar");
    std::fs::write(&rt_jar, java_harness::RUNTIME_JAR).unwrap();
    let mut programs = Vec::new();
    for dir in ["tests/java/alias", "tests/programs", "contest-bench"] {
        programs.extend(programs_in(&root().join(dir)));
    }
    assert!(!programs.is_empty(), "no programs found");
    let results: Mutex<BTreeMap<String, Result<Outcome, String>>> = Mutex::new(BTreeMap::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(p) = programs.get(i) else { break };
                let r = check_program(p, &work, &rt_jar);
                results.lock().unwrap().insert(p.name().to_string(), r);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut failures = Vec::new();
    let (mut checked, mut traced) = (0, 0);
    let mut seen_names = HashSet::new();
    for (name, r) in &results {
        seen_names.insert(name.clone());
        match r {
            Ok(o) => {
                eprintln!(
                    "{name:28} observed {:4} checked {:4} unnamed {:4} misses {}{}",
                    o.observed,
                    o.checked,
                    o.unnamed,
                    o.misses.len(),
                    if o.finished { "" } else { " (timed out)" }
                );
                traced += 1;
                checked += o.checked;
                for m in &o.misses {
                    failures.push(format!("{name}: {m}"));
                }
            }
            Err(e) => eprintln!("{name:28} not checked: {e}"),
        }
    }
    eprintln!("{traced} programs traced, {checked} (site, variable) pairs checked");
    assert!(
        traced * 2 >= results.len(),
        "most programs must be traced (only {traced} of {})",
        results.len()
    );
    assert!(checked > 0, "nothing was checked");
    assert!(
        failures.is_empty(),
        "{} misses:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
