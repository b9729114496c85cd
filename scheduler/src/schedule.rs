//! Schedules: the record of every choice an execution made, and their text format.
//!
//! # Text format, version 15
//!
//! ```text
//! rankcheck-schedule 15
//! # anything after '#' on a line is a comment; blank lines are ignored
//! t0*3
//! t1
//! w2
//! t0*12
//! ```
//!
//! - Line 1 (the first non-blank, non-comment line) is the header `rankcheck-schedule 15`; another
//!   version number is rejected with a clear error, so the format can evolve.
//! - The version changes whenever the *meaning* of a schedule changes, not only its syntax: a
//!   choice is an index into what the model offers, so a new rule about what it offers makes
//!   old schedules diverge. Version 1: rankcheck 0.1.0–0.3.0. Version 2 (0.4.0): threads that
//!   spin are not offered while others can run (crate::fairness), and data accesses that are no
//!   scheduling points count as steps. Version 3 (0.7.0; the change came in 0.6.0, whose
//!   schedules say 2 and are refused too): a timed wait's timeout is offered only when no other
//!   thread can go on (`Timeouts::Idle`, the default `Config::timeouts`), so the timeout
//!   choices that version 2 offered at other steps are gone. Version 4 (0.7.0): of several
//!   timed waiters whose timeouts alone could fire, only the one whose timeout ends first is
//!   offered (timeouts carry their length; virtual time moves to each deadline that fires).
//!   Version 5 (0.7.0): thread ends and static initializers. Version 6 (0.7.0): a program's
//!   call of a thread-safe collection that takes its own lock (`LinkedBlockingQueue`,
//!   `CopyOnWriteArrayList`, …) is a point of its own, as calls of the lock-free ones were.
//!   Version 7 (0.7.0): the start of a program's static initializer is a scheduling point
//!   once other threads exist, and a thread waiting for another's class initialization is
//!   offered only once it ended. Version 8 (0.7.0): the calls of version 6 include `put`,
//!   `take`, `offer` and `poll` on a receiver typed by the queue's own class. Version 9
//!   (0.7.0): shutdown hooks run, and fork/join tasks announce their joins and completion.
//!   Version 10 (0.7.0): every synchronizer operation that may wait (a lock, an `await`, a
//!   future's `get`, a queue's `take`, …) is announced again as it returns. Version 11
//!   (0.7.0): a sleep moves virtual time to its end, and a timeout whose deadline has passed
//!   fires before anything else is offered. Version 12 (0.7.0): a thread whose timed waits keep
//!   timing out no longer lets another thread's later timeout fire while it can go on. Version 13
//!   (0.7.0): threads that wait to enter each other's monitors in a cycle end the execution as a
//!   deadlock at once, while other threads could still run.
//!   The test
//!   `sim::tests::the_schedule_version_changes_with_what_the_model_offers` pins `VERSION` with a
//!   fingerprint of what the model offers, so such a change cannot go unnoticed again.
//! - Every other token is one choice or a run of equal choices, in execution order:
//!   `t<N>` — thread `N` performed its pending operation at a scheduling point;
//!   `w<N>` — a `notify` woke waiter `N` (recorded only when it had two waiters or more);
//!   `…*<K>` — the same choice `K ≥ 1` times in a row.
//! - [`Schedule::to_text`] writes one token per line; [`Schedule::parse`] also accepts several
//!   whitespace-separated tokens per line. Errors name the 1-based line.
//!
//! A schedule holds *every* thread pick, forced ones included, so that a replay notices the first
//! point where the program no longer offers what the schedule says.

use crate::ids::ThreadId;
use std::fmt;

/// The format version this crate writes and reads.
pub const VERSION: u32 = 15;

/// The header line of [`VERSION`].
pub const HEADER: &str = "rankcheck-schedule 15";

/// One choice of an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    /// This thread performed its pending operation at a scheduling point.
    Thread(ThreadId),
    /// A `notify` woke this waiter.
    Waiter(ThreadId),
}

impl Choice {
    /// The thread picked.
    pub fn thread(self) -> ThreadId {
        match self {
            Choice::Thread(t) | Choice::Waiter(t) => t,
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Thread(t) => write!(f, "t{}", t.0),
            Choice::Waiter(t) => write!(f, "w{}", t.0),
        }
    }
}

/// The choices of one execution, stored as runs of equal choices (a thread usually performs
/// several steps in a row, so this stays small).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    runs: Vec<(Choice, u32)>,
    len: u64,
}

/// A schedule file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "schedule line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

impl Schedule {
    /// An empty schedule.
    pub fn new() -> Schedule {
        Schedule::default()
    }

    /// Appends a choice.
    pub fn push(&mut self, choice: Choice) {
        self.push_run(choice, 1);
    }

    /// Appends `count` equal choices.
    pub fn push_many(&mut self, choice: Choice, count: u64) {
        let mut left = count;
        while left > 0 {
            let part = left.min(u64::from(u32::MAX)) as u32;
            self.push_run(choice, part);
            left -= u64::from(part);
        }
    }

    fn push_run(&mut self, choice: Choice, count: u32) {
        self.len += u64::from(count);
        if let Some((last, n)) = self.runs.last_mut() {
            if *last == choice {
                if let Some(sum) = n.checked_add(count) {
                    *n = sum;
                    return;
                }
            }
        }
        self.runs.push((choice, count));
    }

    /// Number of choices.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no choices.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every choice (keeping the allocation).
    pub fn clear(&mut self) {
        self.runs.clear();
        self.len = 0;
    }

    /// The runs of equal choices, in order.
    pub fn runs(&self) -> &[(Choice, u32)] {
        &self.runs
    }

    /// Every choice, in order.
    pub fn iter(&self) -> impl Iterator<Item = Choice> + '_ {
        self.runs
            .iter()
            .flat_map(|&(c, n)| std::iter::repeat_n(c, n as usize))
    }

    /// The first `n` choices.
    pub fn prefix(&self, n: u64) -> Schedule {
        let mut out = Schedule::new();
        let mut left = n;
        for &(c, k) in &self.runs {
            if left == 0 {
                break;
            }
            let take = u64::from(k).min(left);
            out.push_run(c, take as u32);
            left -= take;
        }
        out
    }

    /// The text form (see the module doc).
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(HEADER.len() + 1 + self.runs.len() * 8);
        out.push_str(HEADER);
        out.push('\n');
        for &(c, n) in &self.runs {
            if n == 1 {
                out.push_str(&format!("{c}\n"));
            } else {
                out.push_str(&format!("{c}*{n}\n"));
            }
        }
        out
    }

    /// Reads the text form (see the module doc).
    pub fn parse(text: &str) -> Result<Schedule, ParseError> {
        let mut schedule = Schedule::new();
        let mut seen_header = false;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let err = |message: String| ParseError {
                line: line_no,
                message,
            };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if !seen_header {
                let mut words = line.split_whitespace();
                if words.next() != Some("rankcheck-schedule") {
                    return Err(err(format!(
                        "expected the header `{HEADER}`, found `{line}`"
                    )));
                }
                match (words.next(), words.next()) {
                    (Some(v), None) if v == VERSION.to_string() => {}
                    (Some(v), None) => {
                        let hint = if v.parse::<u32>().is_ok_and(|v| v < VERSION) {
                            "; it was recorded by an older rankcheck, whose choices mean something \
                             else now: run the search again to record it anew"
                        } else {
                            ""
                        };
                        return Err(err(format!(
                            "schedule format version {v} is not supported (this rankcheck reads \
                             version {VERSION}){hint}"
                        )));
                    }
                    _ => return Err(err(format!("malformed header `{line}`"))),
                }
                seen_header = true;
                continue;
            }
            for token in line.split_whitespace() {
                let (choice, count) = parse_token(token).map_err(err)?;
                schedule.push_run(choice, count);
            }
        }
        if !seen_header {
            return Err(ParseError {
                line: 1,
                message: format!("empty schedule (expected the header `{HEADER}`)"),
            });
        }
        Ok(schedule)
    }
}

fn parse_token(token: &str) -> Result<(Choice, u32), String> {
    let (body, count) = match token.split_once('*') {
        Some((b, n)) => {
            let n: u32 = n
                .parse()
                .map_err(|_| format!("bad repeat count in `{token}`"))?;
            if n == 0 {
                return Err(format!("repeat count 0 in `{token}`"));
            }
            (b, n)
        }
        None => (token, 1),
    };
    let make: fn(ThreadId) -> Choice = match body.as_bytes().first() {
        Some(b't') => Choice::Thread,
        Some(b'w') => Choice::Waiter,
        _ => {
            return Err(format!(
                "bad choice `{token}` (expected t<N> or w<N>, optionally *<count>)"
            ))
        }
    };
    let id: u32 = body[1..]
        .parse()
        .map_err(|_| format!("bad thread number in `{token}`"))?;
    Ok((make(ThreadId(id)), count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{RandomSource, SeededRandom};

    #[test]
    fn text_layout_is_as_documented() {
        let mut s = Schedule::new();
        for c in [0, 0, 0, 1].map(|t| Choice::Thread(ThreadId(t))) {
            s.push(c);
        }
        s.push(Choice::Waiter(ThreadId(2)));
        assert_eq!(s.to_text(), "rankcheck-schedule 15\nt0*3\nt1\nw2\n");
        assert_eq!(s.len(), 5);
    }

    /// Property: parse(to_text(s)) == s for random schedules (and iter() agrees).
    #[test]
    fn round_trip_random_schedules() {
        let mut rng = SeededRandom::new(42);
        for _ in 0..500 {
            let mut s = Schedule::new();
            let mut expanded = Vec::new();
            for _ in 0..rng.below(60) {
                let t = ThreadId(rng.below(5) as u32);
                let c = if rng.below(6) == 0 {
                    Choice::Waiter(t)
                } else {
                    Choice::Thread(t)
                };
                for _ in 0..=rng.below(4) {
                    s.push(c);
                    expanded.push(c);
                }
            }
            let back = Schedule::parse(&s.to_text()).unwrap();
            assert_eq!(back, s);
            assert_eq!(back.iter().collect::<Vec<_>>(), expanded);
            assert_eq!(back.len(), expanded.len() as u64);
        }
    }

    #[test]
    fn parse_accepts_comments_and_several_tokens_per_line() {
        let s = Schedule::parse("# made by hand\n\nrankcheck-schedule 15\nt0 t0 t1*2 # run\nw1\n")
            .unwrap();
        assert_eq!(s.to_text(), "rankcheck-schedule 15\nt0*2\nt1*2\nw1\n");
    }

    #[test]
    fn the_header_names_the_version() {
        assert_eq!(HEADER, format!("rankcheck-schedule {VERSION}"));
    }

    #[test]
    fn parse_errors_name_the_line() {
        let h = HEADER;
        let future = VERSION + 1;
        let cases = [
            ("".to_string(), 1, "empty schedule".to_string()),
            ("hello\n".into(), 1, "expected the header".into()),
            (
                "rankcheck-schedule 1\n".into(),
                1,
                "version 1 is not supported".into(),
            ),
            (
                format!("rankcheck-schedule {future}\n"),
                1,
                format!("version {future} is not supported"),
            ),
            (format!("{h}\nt0\nx3\n"), 3, "bad choice `x3`".into()),
            (format!("{h}\nt0*0\n"), 2, "repeat count 0".into()),
            (format!("{h}\n\ntq\n"), 3, "bad thread number".into()),
            (format!("{h}\nt1*z\n"), 2, "bad repeat count".into()),
        ];
        // Every older version is refused with the advice to search again, so a bump of
        // `VERSION` needs no edit here.
        let older = (2..VERSION).map(|v| {
            (
                format!("rankcheck-schedule {v}\n"),
                1,
                "run the search again".to_string(),
            )
        });
        for (text, line, needle) in cases.into_iter().chain(older) {
            let e = Schedule::parse(&text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(&needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn prefix_cuts_inside_runs() {
        let s = Schedule::parse("rankcheck-schedule 15\nt0*3\nt1*2\n").unwrap();
        assert_eq!(s.prefix(4).to_text(), "rankcheck-schedule 15\nt0*3\nt1\n");
        assert_eq!(s.prefix(0).len(), 0);
    }
}
