//! The sweep's outputs: JSON and CSV of every row, markdown tables shaped like RankChecker's
//! Table 1 (per program: size, threads, variables, the smallest (c, v, t) that finds the bug,
//! schedules explored) and Table 4 (with and without v, t bounding), a per-strategy summary,
//! and two SVG plots. Everything but the seconds columns depends only on the rows, so the same
//! seeds give the same tables.

use super::sweep::{bound_key, Config, ProgramInfo, Row};
use scheduler::strategy::{ICB, RANDOM, RANKCHECKER};
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The strategy Table 1 is about: the first of rankchecker, icb (the bounded ones) and then the
/// swept order that ran at least once without an error (all failing: rankchecker or the first).
fn main_strategy(config: &Config, rows: &[Row]) -> &'static str {
    let swept = |name: &str| config.strategies.iter().any(|s| s.name == name);
    let works = |name: &str| rows.iter().any(|r| r.strategy == name && r.error.is_none());
    let mut order: Vec<&'static str> = [RANKCHECKER, ICB]
        .into_iter()
        .filter(|n| swept(n))
        .collect();
    order.extend(config.strategies.iter().map(|s| s.name));
    order
        .iter()
        .copied()
        .find(|n| works(n))
        .or(order.first().copied())
        .unwrap_or(RANDOM)
}

/// Per (program, strategy): how the search went over the seeds.
#[derive(Debug, Default)]
struct Outcome {
    seeds_found: u64,
    /// Smallest setting (by c, v, t) that found it in some seed.
    first_find: Option<super::strategy::Bounds>,
    /// Every execution of every setting run, summed over seeds.
    explored: u64,
    error: Option<String>,
    false_alarm: bool,
}

fn outcome(rows: &[Row], program: &str, strategy: &str) -> Outcome {
    let mut o = Outcome::default();
    let mine: Vec<&Row> = rows
        .iter()
        .filter(|r| r.program == program && r.strategy == strategy && !r.unbounded)
        .collect();
    let mut seeds = std::collections::BTreeSet::new();
    for r in &mine {
        o.explored += r.executions;
        if r.found {
            seeds.insert(r.seed);
            if r.correct {
                o.false_alarm = true;
            }
            let b = r.bounds();
            if o.first_find.is_none_or(|f| bound_key(&b) < bound_key(&f)) {
                o.first_find = Some(b);
            }
        }
        if o.error.is_none() {
            o.error = r.error.clone();
        }
    }
    o.seeds_found = seeds.len() as u64;
    o
}

fn triple(b: &super::strategy::Bounds) -> String {
    let show = |x: Option<u32>| x.map_or("-".to_string(), |v| v.to_string());
    format!("({}, {}, {})", show(b.c), show(b.v), show(b.t))
}

/// Table 1: one row per buggy program, for the main strategy.
pub fn table1(config: &Config, programs: &[ProgramInfo], rows: &[Row]) -> String {
    let strategy = main_strategy(config, rows);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Table 1 ({strategy}, budget {} per setting, {} seed(s)): bug found, (c, v, t) of the first find, schedules explored (mean per seed, every setting up to the find)\n",
        config.budget, config.seeds
    );
    s.push_str("| Program | SLOC | Threads | Variables | Sites | Bug found | (c, v, t) first find | Schedules explored | Expected (c, v, t) |\n");
    s.push_str("|---|---:|---:|---:|---:|---|---|---:|---|\n");
    for p in programs.iter().filter(|p| !p.correct) {
        let o = outcome(rows, &p.name, strategy);
        let found = match (&o.error, o.seeds_found) {
            (Some(e), 0) => format!("error: {}", short(e)),
            (_, 0) => "no".into(),
            (_, k) => format!("yes ({k}/{})", config.seeds),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.name,
            p.sloc,
            p.threads,
            p.variables,
            p.sites,
            found,
            o.first_find.as_ref().map_or("-".into(), triple),
            if o.error.is_some() && o.seeds_found == 0 {
                "-".to_string()
            } else {
                format!("{:.1}", o.explored as f64 / config.seeds.max(1) as f64)
            },
            p.expected.replace(' ', ", "),
        );
    }
    s.push_str("\nCorrect variants (must get no report):\n\n| Program | Strategies | Executions | Reports |\n|---|---|---:|---|\n");
    for p in programs.iter().filter(|p| p.correct) {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.program == p.name).collect();
        let alarms = mine.iter().filter(|r| r.found).count();
        let errors = mine.iter().filter(|r| r.error.is_some()).count();
        let verdict = match (alarms, errors) {
            (0, 0) => "none".to_string(),
            (0, e) => format!("none ({e} run(s) failed)"),
            (a, _) => format!("FALSE ALARM in {a} run(s)"),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            p.name,
            config.strategies.len(),
            mine.iter().map(|r| r.executions).sum::<u64>(),
            verdict
        );
    }
    s
}

/// Table 4: executions and seconds at the first find, with and without v, t bounding.
pub fn table4(config: &Config, programs: &[ProgramInfo], rows: &[Row]) -> String {
    let mut s = String::new();
    if !config.strategies.iter().any(|st| st.name == RANKCHECKER) {
        s.push_str("Table 4 needs rankchecker among --strategies.\n");
        return s;
    }
    let _ = writeln!(
        s,
        "Table 4 (rankchecker, budget {}): executions and seconds to the bug at the first find's (c, v, t), and at the same c without v and t bounding (v = t = 1000, i.e. every variable and thread order; means over the seeds that found it)\n",
        config.budget
    );
    s.push_str("| Program | c | With v, t: (v, t) | Executions | Seconds | Without v, t: executions | Seconds | Found without |\n");
    s.push_str("|---|---:|---|---:|---:|---:|---:|---|\n");
    for p in programs.iter().filter(|p| !p.correct) {
        let firsts: Vec<&Row> = (0..config.seeds)
            .filter_map(|seed| {
                rows.iter()
                    .filter(|r| {
                        r.program == p.name
                            && r.strategy == RANKCHECKER
                            && !r.unbounded
                            && r.found
                            && r.seed == seed
                    })
                    .min_by_key(|r| bound_key(&r.bounds()))
            })
            .collect();
        if firsts.is_empty() {
            let _ = writeln!(s, "| {} | - | not found | - | - | - | - | - |", p.name);
            continue;
        }
        let without: Vec<&Row> = rows
            .iter()
            .filter(|r| r.program == p.name && r.unbounded)
            .collect();
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
        let f = firsts[0];
        let _ = writeln!(
            s,
            "| {} | {} | ({}, {}) | {:.1} | {:.2} | {:.1} | {:.2} | {}/{} |",
            p.name,
            f.c.map_or("-".into(), |c| c.to_string()),
            f.v.map_or("-".into(), |v| v.to_string()),
            f.t.map_or("-".into(), |t| t.to_string()),
            mean(
                &firsts
                    .iter()
                    .map(|r| r.executions as f64)
                    .collect::<Vec<_>>()
            ),
            mean(&firsts.iter().map(|r| r.seconds).collect::<Vec<_>>()),
            mean(
                &without
                    .iter()
                    .map(|r| r.executions as f64)
                    .collect::<Vec<_>>()
            ),
            mean(&without.iter().map(|r| r.seconds).collect::<Vec<_>>()),
            without.iter().filter(|r| r.found).count(),
            without.len()
        );
    }
    s
}

/// The per-strategy summary printed at the end: for each program, schedules explored to the
/// bug (mean per seed) and the first-find setting, per strategy.
pub fn summary(config: &Config, programs: &[ProgramInfo], rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Schedules to the bug per strategy (mean per seed over every setting run up to the find; budget {} per setting)\n",
        config.budget
    );
    s.push_str("| Program | Expected |");
    for st in &config.strategies {
        let _ = write!(s, " {} |", st.name);
    }
    s.push_str("\n|---|---|");
    for _ in &config.strategies {
        s.push_str("---|");
    }
    s.push('\n');
    for p in programs {
        let _ = write!(
            s,
            "| {} | {} |",
            p.name,
            if p.correct { "correct" } else { &p.expected }
        );
        for st in &config.strategies {
            let o = outcome(rows, &p.name, st.name);
            let cell = if p.correct {
                if o.false_alarm {
                    "FALSE ALARM".into()
                } else if o.error.is_some() {
                    format!("error: {}", short(o.error.as_deref().unwrap()))
                } else {
                    "no report".into()
                }
            } else if o.seeds_found == 0 {
                match &o.error {
                    Some(e) => format!("error: {}", short(e)),
                    None => "not found".into(),
                }
            } else {
                let at = o
                    .first_find
                    .as_ref()
                    .map(|b| b.label())
                    .filter(|l| l != "-");
                format!(
                    "{:.1}{}",
                    o.explored as f64 / config.seeds.max(1) as f64,
                    at.map_or(String::new(), |l| format!(" [{l}]"))
                )
            };
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    s
}

fn short(e: &str) -> String {
    let one = e.lines().next().unwrap_or("");
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(60).collect::<String>())
    } else {
        one.to_string()
    }
}

/// Every row as CSV.
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "program,correct,strategy,c,v,t,seed,unbounded,found,kind,executions,seconds,error\n",
    );
    let opt = |x: Option<u32>| x.map_or(String::new(), |v| v.to_string());
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{:.3},{}",
            r.program,
            r.correct,
            r.strategy,
            opt(r.c),
            opt(r.v),
            opt(r.t),
            r.seed,
            r.unbounded,
            r.found,
            r.kind.as_deref().unwrap_or(""),
            r.executions,
            r.seconds,
            csv_field(r.error.as_deref().unwrap_or(""))
        );
    }
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes results.json, results.csv, table1.md, table4.md, summary.md and the plots into
/// `out`; returns the summary for printing.
pub fn write_all(
    config: &Config,
    programs: &[ProgramInfo],
    rows: &[Row],
    out: &Path,
) -> anyhow::Result<String> {
    std::fs::create_dir_all(out)?;
    let results = json!({"config": config.describe(), "programs": programs, "runs": rows});
    std::fs::write(
        out.join("results.json"),
        serde_json::to_string_pretty(&results)?,
    )?;
    std::fs::write(out.join("results.csv"), csv(rows))?;
    let t1 = table1(config, programs, rows);
    let t4 = table4(config, programs, rows);
    let sum = summary(config, programs, rows);
    std::fs::write(out.join("table1.md"), &t1)?;
    std::fs::write(out.join("table4.md"), &t4)?;
    std::fs::write(out.join("summary.md"), &sum)?;
    super::plots::schedules_to_bug(config, programs, rows, &out.join("schedules-to-bug.svg"))?;
    super::plots::bugs_vs_executions(config, programs, rows, &out.join("bugs-vs-executions.svg"))?;
    Ok(format!("{t1}\n{t4}\n{sum}"))
}

/// How one (strategy, buggy program, seed) ended, over its bound settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Find {
    /// Found after this many executions (every setting's, up to the find).
    Found(u64),
    /// Not found in this many executions.
    NotFound(u64),
    /// A search errored before any setting found the bug: no verdict.
    Error,
}

/// Per strategy and buggy program (its index among the buggy ones), how each seed ended: the
/// data of both plots.
pub fn explored_per_find(
    config: &Config,
    programs: &[ProgramInfo],
    rows: &[Row],
) -> BTreeMap<&'static str, Vec<(usize, Find)>> {
    let mut out = BTreeMap::new();
    for st in &config.strategies {
        let mut points = Vec::new();
        for (i, p) in programs.iter().filter(|p| !p.correct).enumerate() {
            for seed in 0..config.seeds {
                let mine: Vec<&Row> = rows
                    .iter()
                    .filter(|r| {
                        r.program == p.name
                            && r.strategy == st.name
                            && r.seed == seed
                            && !r.unbounded
                    })
                    .collect();
                let total: u64 = mine.iter().map(|r| r.executions).sum();
                let find = if mine.iter().any(|r| r.found) {
                    Find::Found(total)
                } else if mine.iter().any(|r| r.error.is_some()) {
                    Find::Error
                } else {
                    Find::NotFound(total)
                };
                points.push((i, find));
            }
        }
        out.insert(st.name, points);
    }
    out
}
