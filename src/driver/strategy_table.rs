//! The table of `rankcheck bench strategies`: per buggy program and strategy, the executions a
//! search needed to reach the first bug (mean over seeds, and how many seeds found it), and per
//! strategy the programs found within budgets of 100 / 1,000 / 10,000 executions, the geometric
//! mean and the median over programs, the time to the bug and the search time, from the sweep's
//! rows.

use super::baseline::geomean;
use super::sweep::Row;
use serde::Serialize;

/// One program under one strategy, over every seed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Seeds whose search found the bug.
    pub found: u64,
    /// Seeds searched (an errored search counts, as not found).
    pub seeds: u64,
    /// Mean executions to the bug over the seeds that found it.
    pub mean_found: Option<f64>,
    /// Mean over every seed, a seed that missed counted at the executions it ran (its budget):
    /// a lower bound when some seed missed. What the geometric mean is taken over, so that a
    /// strategy that misses a bug is not favoured by leaving the bug out.
    pub mean_all: f64,
    /// Seeds whose search ended in an error.
    pub errors: u64,
}

/// The budgets the summary counts finds within, those up to the run's budget, which is itself
/// one: one search at budget B tells whether the bug was found within every smaller budget.
pub const BUDGETS: [u64; 3] = [100, 1_000, 10_000];

/// Programs found within `budget` executions by every seed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FoundWithin {
    pub budget: u64,
    pub programs: usize,
}

/// One strategy's summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub strategy: String,
    /// Geometric mean over programs of [`Cell::mean_all`].
    pub geomean: Option<f64>,
    /// Median over programs of [`Cell::mean_all`].
    pub median: Option<f64>,
    /// Whether a missed seed went into them (then they are lower bounds).
    pub lower_bound: bool,
    /// Programs found by every seed, of all.
    pub programs_found: usize,
    /// Per budget of [`BUDGETS`] up to the run's, and the run's: programs every seed found
    /// within it.
    pub found_within: Vec<FoundWithin>,
    pub programs: usize,
    /// Mean seconds of the searches that found the bug (a search stops at its first bug).
    pub seconds_to_bug: Option<f64>,
    /// Seconds its searches took, summed.
    pub seconds: f64,
}

/// The whole table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table {
    pub strategies: Vec<String>,
    /// Program name and one cell per strategy, in `strategies` order.
    pub rows: Vec<(String, Vec<Cell>)>,
    pub summaries: Vec<Summary>,
}

/// The budgets a run at `budget` reports finds within: those of [`BUDGETS`] up to it, and it.
pub fn budgets(budget: u64) -> Vec<u64> {
    let mut out: Vec<u64> = BUDGETS.into_iter().filter(|b| *b < budget).collect();
    out.push(budget);
    out
}

/// The table of `rows` (the sweep's, one bound setting per search, each at most `budget`
/// executions), programs in the order they first appear.
pub fn table(rows: &[Row], strategies: &[&str], budget: u64) -> Table {
    let mut programs: Vec<&str> = Vec::new();
    for r in rows {
        if !programs.contains(&r.program.as_str()) {
            programs.push(&r.program);
        }
    }
    let cell = |program: &str, strategy: &str| {
        let runs: Vec<&Row> = rows
            .iter()
            .filter(|r| r.program == program && r.strategy == strategy)
            .collect();
        let found: Vec<f64> = runs
            .iter()
            .filter(|r| r.found)
            .map(|r| r.executions as f64)
            .collect();
        let all: Vec<f64> = runs.iter().map(|r| r.executions.max(1) as f64).collect();
        Cell {
            found: found.len() as u64,
            seeds: runs.len() as u64,
            mean_found: mean(&found),
            mean_all: mean(&all).unwrap_or(0.0),
            errors: runs.iter().filter(|r| r.error.is_some()).count() as u64,
        }
    };
    let table_rows: Vec<(String, Vec<Cell>)> = programs
        .iter()
        .map(|p| {
            (
                p.to_string(),
                strategies.iter().map(|s| cell(p, s)).collect(),
            )
        })
        .collect();
    let summaries = strategies
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let cells: Vec<&Cell> = table_rows.iter().map(|(_, c)| &c[i]).collect();
            let means: Vec<f64> = cells.iter().map(|c| c.mean_all).collect();
            let runs: Vec<&Row> = rows.iter().filter(|r| r.strategy == *s).collect();
            let found_seconds: Vec<f64> =
                runs.iter().filter(|r| r.found).map(|r| r.seconds).collect();
            Summary {
                strategy: s.to_string(),
                geomean: geomean(&means),
                median: median(&means),
                lower_bound: cells.iter().any(|c| c.found < c.seeds),
                programs_found: cells
                    .iter()
                    .filter(|c| c.seeds > 0 && c.found == c.seeds)
                    .count(),
                found_within: budgets(budget)
                    .into_iter()
                    .map(|b| FoundWithin {
                        budget: b,
                        programs: table_rows
                            .iter()
                            .filter(|(p, _)| found_within(&runs, p, b))
                            .count(),
                    })
                    .collect(),
                programs: cells.len(),
                seconds_to_bug: mean(&found_seconds),
                seconds: runs.iter().map(|r| r.seconds).sum(),
            }
        })
        .collect();
    Table {
        strategies: strategies.iter().map(|s| s.to_string()).collect(),
        rows: table_rows,
        summaries,
    }
}

/// Whether every seed of `program` among `runs` (one strategy's) found its bug within `budget`
/// executions: `executions` counts the execution that failed, so a find at execution k (from 0)
/// has k + 1 and is within every budget of at least k + 1.
fn found_within(runs: &[&Row], program: &str, budget: u64) -> bool {
    let mut of_program = runs.iter().filter(|r| r.program == program).peekable();
    of_program.peek().is_some() && of_program.all(|r| r.found && r.executions <= budget)
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The middle value, or the mean of the two middle ones.
fn median(xs: &[f64]) -> Option<f64> {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// A thousands separator, as the README writes budgets.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The table in markdown: a cell is `mean (found/seeds)`, `not found (0/3)` when no seed found
/// the bug; the last rows are the geometric means (`≥` when a miss went in) and the seconds.
pub fn markdown(t: &Table) -> String {
    let mut out = format!("| Program | {} |\n", t.strategies.join(" | "));
    out.push_str(&format!("|---|{}\n", "---:|".repeat(t.strategies.len())));
    for (program, cells) in &t.rows {
        let shown: Vec<String> = cells
            .iter()
            .map(|c| {
                let error = if c.errors > 0 {
                    format!(", {} error(s)", c.errors)
                } else {
                    String::new()
                };
                match c.mean_found {
                    Some(m) => format!("{m:.1} ({}/{}{error})", c.found, c.seeds),
                    None => format!("not found (0/{}{error})", c.seeds),
                }
            })
            .collect();
        out.push_str(&format!("| {program} | {} |\n", shown.join(" | ")));
    }
    out.push_str(&summary_markdown(t));
    out
}

/// The per-strategy rows: programs found within each budget by every seed, the geometric mean
/// and the median of executions to the bug (`≥` when a miss went in at its budget), the mean
/// seconds to the bug and the seconds of all searches.
pub fn summary_markdown(t: &Table) -> String {
    let line = |label: &str, cell: &dyn Fn(&Summary) -> String| {
        let cells: Vec<String> = t.summaries.iter().map(cell).collect();
        format!("| {label} | {} |\n", cells.join(" | "))
    };
    let bound = |s: &Summary, x: Option<f64>| match x {
        Some(x) if s.lower_bound => format!("≥ {x:.2}"),
        Some(x) => format!("{x:.2}"),
        None => "-".into(),
    };
    let mut out = String::new();
    if let Some(first) = t.summaries.first() {
        for (i, within) in first.found_within.iter().enumerate() {
            out.push_str(&line(
                &format!("found within {} executions", thousands(within.budget)),
                &|s| format!("{}/{}", s.found_within[i].programs, s.programs),
            ));
        }
    }
    out.push_str(&line("geometric mean of executions to the bug", &|s| {
        bound(s, s.geomean)
    }));
    out.push_str(&line("median of executions to the bug", &|s| {
        bound(s, s.median)
    }));
    out.push_str(&line(
        "mean seconds to the bug",
        &|s| match s.seconds_to_bug {
            Some(x) => format!("{x:.2}"),
            None => "-".into(),
        },
    ));
    out.push_str(&line("search seconds", &|s| format!("{:.1}", s.seconds)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(program: &str, strategy: &str, found: bool, executions: u64) -> Row {
        Row::for_test(program, strategy, executions, found, false)
    }

    #[test]
    fn means_count_misses_at_their_budget_and_say_so() {
        let rows = [
            row("A", "x", true, 2),
            row("A", "x", true, 4),
            row("A", "y", true, 8),
            row("A", "y", false, 100),
            row("B", "x", true, 9),
            row("B", "y", true, 1),
        ];
        let t = table(&rows, &["x", "y"], 100);
        assert_eq!(t.rows.len(), 2);
        let a = &t.rows[0].1;
        assert_eq!(a[0].mean_found, Some(3.0));
        assert_eq!((a[1].found, a[1].seeds), (1, 2));
        assert_eq!(a[1].mean_found, Some(8.0));
        assert_eq!(a[1].mean_all, 54.0);
        let x = &t.summaries[0];
        assert!((x.geomean.unwrap() - (3.0f64 * 9.0).sqrt()).abs() < 1e-9);
        assert_eq!(x.median, Some(6.0));
        assert!(!x.lower_bound && x.programs_found == 2);
        let y = &t.summaries[1];
        assert!((y.geomean.unwrap() - 54.0f64.sqrt()).abs() < 1e-9);
        assert_eq!(y.median, Some(27.5));
        assert!(y.lower_bound && y.programs_found == 1);
        assert!((y.seconds - 0.3).abs() < 1e-9);
        let md = markdown(&t);
        assert!(md.contains("| A | 3.0 (2/2) | 8.0 (1/2) |"), "{md}");
        assert!(
            md.contains("| found within 100 executions | 2/2 | 1/2 |"),
            "{md}"
        );
        assert!(
            md.contains("| geometric mean of executions to the bug | 5.20 | ≥ 7.35 |"),
            "{md}"
        );
        assert!(
            md.contains("| median of executions to the bug | 6.00 | ≥ 27.50 |"),
            "{md}"
        );
    }

    #[test]
    fn one_search_at_the_largest_budget_counts_for_every_smaller_budget() {
        let rows = [
            row("P1", "x", true, 1),
            row("P1", "x", true, 100),
            row("P2", "x", true, 101),
            row("P3", "x", true, 10_000),
            row("P4", "x", false, 10_000),
        ];
        let t = table(&rows, &["x"], 10_000);
        let within: Vec<(u64, usize)> = t.summaries[0]
            .found_within
            .iter()
            .map(|w| (w.budget, w.programs))
            .collect();
        assert_eq!(within, [(100, 1), (1_000, 2), (10_000, 3)]);
        assert_eq!(t.summaries[0].programs_found, 3);
        // Means 50.5, 101, 10,000 and 10,000 (the miss): the two middle ones.
        assert_eq!(t.summaries[0].median, Some(5_050.5));
        let md = markdown(&t);
        assert!(
            md.contains("| found within 1,000 executions | 2/4 |"),
            "{md}"
        );
        assert!(
            md.contains("| found within 10,000 executions | 3/4 |"),
            "{md}"
        );
    }

    #[test]
    fn a_run_reports_the_budgets_up_to_its_own_and_its_own() {
        assert_eq!(budgets(10_000), [100, 1_000, 10_000]);
        assert_eq!(budgets(1_000), [100, 1_000]);
        assert_eq!(budgets(500), [100, 500]);
        assert_eq!(budgets(50), [50]);
        assert_eq!(budgets(20_000), [100, 1_000, 10_000, 20_000]);
        assert_eq!(thousands(100), "100");
        assert_eq!(thousands(10_000), "10,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn the_time_to_the_bug_is_the_mean_over_the_searches_that_found_it() {
        let mut rows = [
            row("A", "x", true, 3),
            row("B", "x", true, 5),
            row("C", "x", false, 10),
        ];
        rows[0].seconds = 1.0;
        rows[1].seconds = 2.0;
        rows[2].seconds = 40.0;
        let t = table(&rows, &["x"], 10);
        assert_eq!(t.summaries[0].seconds_to_bug, Some(1.5));
        assert_eq!(t.summaries[0].seconds, 43.0);
        let none = table(&rows[2..], &["x"], 10);
        assert_eq!(none.summaries[0].seconds_to_bug, None);
        assert!(markdown(&none).contains("| mean seconds to the bug | - |"));
    }

    #[test]
    fn a_strategy_that_never_finds_is_not_found() {
        let t = table(&[row("A", "x", false, 10)], &["x"], 10);
        assert!(markdown(&t).contains("| A | not found (0/1) |"));
    }
}
