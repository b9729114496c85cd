//! The table of `rankcheck bench strategies`: per buggy program and strategy, the executions a
//! search needed to reach the first bug (mean over seeds, and how many seeds found it), and per
//! strategy their geometric mean over programs and the search time, from the sweep's rows.

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

/// One strategy's summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub strategy: String,
    /// Geometric mean over programs of [`Cell::mean_all`].
    pub geomean: Option<f64>,
    /// Whether a missed seed went into it (then it is a lower bound).
    pub lower_bound: bool,
    /// Programs found by every seed, of all.
    pub programs_found: usize,
    pub programs: usize,
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

/// The table of `rows` (the sweep's, one bound setting per search), programs in the order they
/// first appear.
pub fn table(rows: &[Row], strategies: &[&str]) -> Table {
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
            Summary {
                strategy: s.to_string(),
                geomean: geomean(&cells.iter().map(|c| c.mean_all).collect::<Vec<_>>()),
                lower_bound: cells.iter().any(|c| c.found < c.seeds),
                programs_found: cells
                    .iter()
                    .filter(|c| c.seeds > 0 && c.found == c.seeds)
                    .count(),
                programs: cells.len(),
                seconds: rows
                    .iter()
                    .filter(|r| r.strategy == *s)
                    .map(|r| r.seconds)
                    .sum(),
            }
        })
        .collect();
    Table {
        strategies: strategies.iter().map(|s| s.to_string()).collect(),
        rows: table_rows,
        summaries,
    }
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
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
    let geo: Vec<String> = t
        .summaries
        .iter()
        .map(|s| match s.geomean {
            Some(g) if s.lower_bound => format!("≥ {g:.2}"),
            Some(g) => format!("{g:.2}"),
            None => "-".into(),
        })
        .collect();
    out.push_str(&format!("| geometric mean | {} |\n", geo.join(" | ")));
    let found: Vec<String> = t
        .summaries
        .iter()
        .map(|s| format!("{}/{}", s.programs_found, s.programs))
        .collect();
    out.push_str(&format!(
        "| found by every seed | {} |\n",
        found.join(" | ")
    ));
    let secs: Vec<String> = t
        .summaries
        .iter()
        .map(|s| format!("{:.1}", s.seconds))
        .collect();
    out.push_str(&format!("| search seconds | {} |\n", secs.join(" | ")));
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
        let t = table(&rows, &["x", "y"]);
        assert_eq!(t.rows.len(), 2);
        let a = &t.rows[0].1;
        assert_eq!(a[0].mean_found, Some(3.0));
        assert_eq!((a[1].found, a[1].seeds), (1, 2));
        assert_eq!(a[1].mean_found, Some(8.0));
        assert_eq!(a[1].mean_all, 54.0);
        let x = &t.summaries[0];
        assert!((x.geomean.unwrap() - (3.0f64 * 9.0).sqrt()).abs() < 1e-9);
        assert!(!x.lower_bound && x.programs_found == 2);
        let y = &t.summaries[1];
        assert!((y.geomean.unwrap() - 54.0f64.sqrt()).abs() < 1e-9);
        assert!(y.lower_bound && y.programs_found == 1);
        assert!((y.seconds - 0.3).abs() < 1e-9);
        let md = markdown(&t);
        assert!(md.contains("| A | 3.0 (2/2) | 8.0 (1/2) |"), "{md}");
        assert!(md.contains("| geometric mean | 5.20 | ≥ 7.35 |"), "{md}");
        assert!(md.contains("| found by every seed | 2/2 | 1/2 |"), "{md}");
    }

    #[test]
    fn a_strategy_that_never_finds_is_not_found() {
        let t = table(&[row("A", "x", false, 10)], &["x"]);
        assert!(markdown(&t).contains("| A | not found (0/1) |"));
    }
}
