//! `rankcheck test --selective` (issue 5): v-bounded strategies find bugs while instrumenting
//! only the data sites the points-to analysis says may touch the chosen variable set.

mod cli_support;

use cli_support::*;

/// `(instrumented, all)` data-site counts of every variable set the search announced.
fn instrumented_sites(stderr: &str) -> Vec<(usize, usize)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split("}: ").nth(1)?;
            let mut words = rest.split_whitespace();
            let n = words.next()?.parse().ok()?;
            let all = words.nth(1)?.parse().ok()?;
            Some((n, all))
        })
        .collect()
}

#[test]
fn v_bounded_strategies_find_bugs_instrumenting_only_selected_sites() {
    for strategy in ["pctvb", "rankchecker"] {
        for program in ["LostUpdate", "TwoVarAtomicity", "LockOrderDeadlock"] {
            let dir = scratch(&format!("selective-{strategy}-{program}"));
            let manifest = root().join("tests/programs").join(program);
            let ran = rankcheck(
                &dir,
                &[
                    "test",
                    "--manifest",
                    manifest.to_str().unwrap(),
                    "--strategy",
                    strategy,
                    "-c",
                    "1",
                    "-v",
                    "1",
                    "-t",
                    "2",
                    "--selective",
                    "--budget",
                    "2000",
                    "-j",
                    "1",
                ],
                LIMIT,
            );
            assert_eq!(ran.code, 1, "{strategy} {program}: {}", ran.both());
            let sets = instrumented_sites(&ran.stderr);
            assert!(
                !sets.is_empty(),
                "no variable set announced: {}",
                ran.both()
            );
            assert!(
                sets.iter().all(|&(n, all)| n < all),
                "{strategy} {program}: a set instrumented every data site: {sets:?}"
            );
        }
    }
}

#[test]
fn selective_needs_a_strategy_that_bounds_v() {
    let dir = scratch("selective-usage");
    let manifest = root().join("tests/programs/LostUpdate");
    assert_usage_error(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--strategy",
            "random",
            "--selective",
        ],
        "--selective needs a strategy that bounds v",
    );
}
