//! `--strategy mcr` on a real JVM: it finds the bugs of bundled buggy programs (and each one
//! replays, or the exit would not be 1), and on a correct program its worklist runs empty and
//! the search ends clean with MCR's own coverage statement.

mod cli_support;

use cli_support::*;

fn mcr(program: &str, suite: &str) -> Ran {
    let dir = scratch(&format!("mcr-{program}"));
    let manifest = root().join(suite).join(program);
    rankcheck(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--strategy",
            "mcr",
            "--budget",
            "2000",
            "-j",
            "1",
            "--no-minimize",
        ],
        LIMIT,
    )
}

#[test]
fn mcr_finds_bundled_bugs() {
    for (program, suite) in [
        ("LostUpdate", "tests/programs"),
        ("CheckThenAct", "tests/programs"),
        ("TwoVarAtomicity", "tests/programs"),
        ("Account", "contest-bench"),
    ] {
        let ran = mcr(program, suite);
        assert_eq!(ran.code, 1, "{program}: {}", ran.both());
    }
}

#[test]
fn mcr_exhausts_a_correct_program() {
    let ran = mcr("LostUpdateFixed", "tests/programs");
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.both()
            .contains("MCR explored every reads-from combination reachable under this input"),
        "{}",
        ran.both()
    );
}

/// A correct program whose threads wait and notify: MCR keeps those in their recorded order,
/// so its worklist runs empty without the whole claim. The search still ends as stated (exit
/// 0, not a JVM that "stopped without saying why") and says what it did not try.
#[test]
fn mcr_ends_a_wait_notify_program_clean_and_says_what_it_kept_in_order() {
    for program in ["MissedSignalFixed", "IfInsteadOfWhileFixed"] {
        let ran = mcr(program, "tests/programs");
        assert_eq!(ran.code, 0, "{program}: {}", ran.both());
        assert!(
            ran.both().contains("in their recorded order") && ran.both().contains("not exhausted"),
            "{program}: {}",
            ran.both()
        );
    }
}
