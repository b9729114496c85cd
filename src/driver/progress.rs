//! What a long command is doing, on stderr, for `test`, `junit` and `sweep` (docs/CLI.md): a
//! progress bar when stderr is a terminal, else one plain line at least every [`LINE_EVERY`]
//! (`rankcheck: progress: 1,234/5,000 executions, 0 bugs, 210 exec/s, 6 s elapsed, ~18 s left`),
//! so that a command is never silent for longer than that — not during instrumentation, a long
//! single execution, a replay or a sweep's long search. A ticker thread draws or prints; the
//! code doing the work only counts ([`Progress::executions`], [`Progress::bugs`],
//! [`Progress::searches`]) and says what it is doing besides executing ([`Progress::phase`]).

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The longest a non-terminal stderr goes without a progress line.
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// How often the ticker wakes (the bar's refresh).
const TICK: Duration = Duration::from_millis(250);

/// A handle on the progress shown; cheap to clone, shared by the threads of a search.
#[derive(Clone)]
pub struct Progress(Arc<Shared>);

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    /// `None`: plain lines.
    bar: Option<indicatif::ProgressBar>,
}

/// What is counted, as of one moment.
#[derive(Clone, Debug)]
struct State {
    /// Which search (`test 2/5 Cart#add`); empty for a single search.
    label: String,
    executions: u64,
    /// Executions the search may run (`test`'s and `junit`'s budget).
    budget: Option<u64>,
    /// A sweep's searches done and in all; then the line counts searches first.
    searches: Option<(u64, u64)>,
    bugs: u64,
    /// What runs besides executions (instrumenting, replaying a bug); shown in place of the
    /// time left.
    phase: Option<String>,
    /// A command that counts no executions of its own (a benchmark): what it does, shown
    /// with the time elapsed while no execution has been counted.
    task: Option<String>,
    /// The start of this count (`begin`).
    since: Instant,
    deadline: Option<Instant>,
    stopped: bool,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("bar", &self.0.bar.is_some())
            .finish()
    }
}

/// The ticker of a shown progress; dropping it stops the ticker (the bar is cleared).
pub struct Shown {
    progress: Progress,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Shown {
    /// Progress on stderr from now on: a bar when stderr is a terminal, else lines.
    pub fn start() -> Shown {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(1);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {bar:30} {wide_msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        });
        let progress = Progress(Arc::new(Shared {
            state: Mutex::new(State::new(Instant::now())),
            wake: Condvar::new(),
            bar,
        }));
        let ticking = progress.clone();
        let ticker = std::thread::Builder::new()
            .name("rankcheck-progress".into())
            .spawn(move || ticking.tick_until_stopped())
            .ok();
        Shown { progress, ticker }
    }

    pub fn handle(&self) -> Progress {
        self.progress.clone()
    }
}

impl Drop for Shown {
    fn drop(&mut self) {
        self.progress.0.state.lock().unwrap().stopped = true;
        self.progress.0.wake.notify_all();
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        if let Some(bar) = &self.progress.0.bar {
            bar.finish_and_clear();
        }
    }
}

impl Progress {
    /// A new count: executions and the clock start again (bugs and a sweep's searches go on).
    pub fn begin(&self, label: String, budget: Option<u64>, time_limit: Option<Duration>) {
        let now = Instant::now();
        let mut s = self.0.state.lock().unwrap();
        s.label = label;
        s.budget = budget;
        s.executions = 0;
        s.since = now;
        s.deadline = time_limit.map(|t| now + t);
        s.phase = None;
    }

    /// `n` more executions ran.
    pub fn executions(&self, n: u64) {
        self.0.state.lock().unwrap().executions += n;
    }

    /// `n` more failing executions.
    pub fn bugs(&self, n: u64) {
        self.0.state.lock().unwrap().bugs += n;
    }

    /// A sweep: `done` of `total` searches finished.
    pub fn searches(&self, done: u64, total: u64) {
        self.0.state.lock().unwrap().searches = Some((done, total));
    }

    /// What runs besides executions (`None`: executions again). A sweep's line counts its
    /// searches and leaves out the phases of the searches running at once.
    pub fn phase(&self, what: Option<&str>) {
        self.0.state.lock().unwrap().phase = what.map(str::to_string);
    }

    /// What a command that counts no executions is doing (`benchmarking overhead`).
    pub fn task(&self, what: &str) {
        self.0.state.lock().unwrap().task = Some(what.to_string());
    }

    /// Runs `f` (which prints) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn tick_until_stopped(&self) {
        let mut last_line = Instant::now();
        let mut state = self.0.state.lock().unwrap();
        loop {
            state = self.0.wake.wait_timeout(state, TICK).unwrap().0;
            if state.stopped {
                return;
            }
            let now = Instant::now();
            match &self.0.bar {
                Some(bar) => {
                    let (pos, len) = state.position();
                    bar.set_length(len);
                    bar.set_position(pos);
                    bar.set_message(state.text(now));
                    bar.tick();
                }
                None if now.duration_since(last_line) >= LINE_EVERY => {
                    eprintln!("rankcheck: progress: {}", state.text(now));
                    last_line = now;
                }
                None => {}
            }
        }
    }
}

impl State {
    fn new(now: Instant) -> State {
        State {
            label: String::new(),
            executions: 0,
            budget: None,
            searches: None,
            bugs: 0,
            phase: None,
            task: None,
            since: now,
            deadline: None,
            stopped: false,
        }
    }

    /// The bar's position and length: searches for a sweep, else executions of the budget;
    /// an empty bar before there is either (a length of 0 would draw a full one).
    fn position(&self) -> (u64, u64) {
        match (self.searches, self.budget) {
            (Some((done, total)), _) => (done, total.max(1)),
            (None, Some(budget)) => (self.executions.min(budget), budget),
            (None, None) => (0, 1),
        }
    }

    /// The line's text after `rankcheck: progress: `.
    fn text(&self, now: Instant) -> String {
        let elapsed = now.saturating_duration_since(self.since);
        let secs = elapsed.as_secs_f64();
        if let (Some(task), 0, None) = (&self.task, self.executions, self.searches) {
            return format!("{task}, {} elapsed", duration(elapsed));
        }
        let mut parts = Vec::new();
        match (self.searches, self.budget) {
            (Some((done, total)), _) => {
                parts.push(format!("{}/{} searches", thousands(done), thousands(total)));
                parts.push(format!("{} executions", thousands(self.executions)));
            }
            (None, Some(budget)) => parts.push(format!(
                "{}/{} executions",
                thousands(self.executions),
                thousands(budget)
            )),
            (None, None) => parts.push(format!("{} executions", thousands(self.executions))),
        }
        parts.push(match self.bugs {
            1 => "1 bug".to_string(),
            n => format!("{} bugs", thousands(n)),
        });
        let rate = if secs > 0.0 {
            self.executions as f64 / secs
        } else {
            0.0
        };
        parts.push(if rate < 10.0 {
            format!("{rate:.1} exec/s")
        } else {
            format!("{} exec/s", thousands(rate.round() as u64))
        });
        parts.push(format!("{} elapsed", duration(elapsed)));
        let phase = self.phase.as_ref().filter(|_| self.searches.is_none());
        match (phase, self.left(now, secs, rate)) {
            (Some(phase), _) => parts.push(phase.clone()),
            (None, Some(left)) => parts.push(format!("~{} left", duration(left))),
            (None, None) => {}
        }
        let head = if self.label.is_empty() {
            String::new()
        } else {
            format!("{}: ", self.label)
        };
        format!("{head}{}", parts.join(", "))
    }

    /// The time left: the budget (or a sweep's searches) at the rate so far, or the time limit
    /// when it comes sooner; `None` before there is a rate to go by.
    fn left(&self, now: Instant, secs: f64, rate: f64) -> Option<Duration> {
        let estimate = match (self.searches, self.budget) {
            (Some((done, total)), _) if done > 0 => {
                Some(secs * (total.saturating_sub(done)) as f64 / done as f64)
            }
            (None, Some(budget)) if rate > 0.0 => {
                Some(budget.saturating_sub(self.executions) as f64 / rate)
            }
            _ => None,
        }
        .map(Duration::from_secs_f64);
        let limit = self.deadline.map(|d| d.saturating_duration_since(now));
        match (estimate, limit) {
            (Some(e), Some(l)) => Some(e.min(l)),
            (e, l) => e.or(l),
        }
    }
}

/// `1234567` → `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `6 s`, `2 min 5 s`, `1 h 3 min`.
fn duration(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// Counts a running JVM's executions as they end, for the progress shown and for stopping it:
/// called on every poll of the JVM (every 10 ms), it reads the results file's new lines every
/// 25th, and [`LiveCount::finish`] adds what was not counted yet once the JVM's results are in.
pub struct LiveCount<'a> {
    progress: Option<&'a Progress>,
    results: &'a std::path::Path,
    polls: std::cell::Cell<u32>,
    read: std::cell::Cell<u64>,
    counted: std::cell::Cell<u64>,
}

impl<'a> LiveCount<'a> {
    pub fn new(progress: Option<&'a Progress>, results: &'a std::path::Path) -> Self {
        LiveCount {
            progress,
            results,
            polls: Default::default(),
            read: Default::default(),
            counted: Default::default(),
        }
    }

    /// One poll of the running JVM.
    pub fn poll(&self) {
        self.polls.set(self.polls.get() + 1);
        if self.polls.get() % 25 == 0 {
            let (lines, to) = count_new_lines(self.results, self.read.get());
            self.read.set(to);
            self.counted.set(self.counted.get() + lines);
            if let Some(progress) = self.progress {
                progress.executions(lines);
            }
        }
    }

    /// Executions the JVM has reported so far, as of the last poll that read its results.
    pub fn lines(&self) -> u64 {
        self.counted.get()
    }

    /// The JVM ended with `total` results: counts those the polls did not.
    pub fn finish(&self, total: u64) {
        if let Some(progress) = self.progress {
            progress.executions(total.saturating_sub(self.counted.get()));
        }
    }
}

/// The lines written to `path` after byte `from`, and the end of what was read: a results
/// file of executions that print a lot is not read again from the start every time.
pub fn count_new_lines(path: &std::path::Path, from: u64) -> (u64, u64) {
    use std::io::{Read, Seek, SeekFrom};
    let mut new = Vec::new();
    let read = std::fs::File::open(path).and_then(|mut f| {
        f.seek(SeekFrom::Start(from))?;
        f.read_to_end(&mut new)
    });
    // Up to the last whole line, so that a line being written is counted once, when done.
    let whole = new.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
    match read {
        Ok(_) => (
            new[..whole].iter().filter(|&&c| c == b'\n').count() as u64,
            from + whole as u64,
        ),
        Err(_) => (0, from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(since: Instant) -> State {
        State::new(since)
    }

    #[test]
    fn numbers_and_durations_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234), "1,234");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(duration(Duration::from_millis(6_400)), "6 s");
        assert_eq!(duration(Duration::from_millis(59_700)), "1 min 0 s");
        assert_eq!(duration(Duration::from_secs(125)), "2 min 5 s");
        assert_eq!(duration(Duration::from_secs(3_780)), "1 h 3 min");
    }

    #[test]
    fn new_lines_are_counted_once_and_a_partial_line_when_it_ends() {
        let path = std::env::temp_dir().join(format!("rankcheck-lines-{}", std::process::id()));
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").unwrap();
        let (n, at) = count_new_lines(&path, 0);
        assert_eq!((n, at), (1, 8));
        assert_eq!(count_new_lines(&path, at), (0, 8));
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n").unwrap();
        assert_eq!(count_new_lines(&path, at), (2, 24));
        let _ = std::fs::remove_file(&path);
        assert_eq!(count_new_lines(&path, 0), (0, 0), "no file yet");
    }

    #[test]
    fn a_task_that_counts_no_executions_says_what_it_does() {
        let start = Instant::now();
        let mut s = state(start);
        s.task = Some("bench overhead".into());
        assert_eq!(
            s.text(start + Duration::from_secs(20)),
            "bench overhead, 20 s elapsed"
        );
        // Once it counts executions (a benchmark that runs searches), the usual line.
        s.executions = 3;
        assert!(s
            .text(start + Duration::from_secs(20))
            .starts_with("3 executions"));
    }

    #[test]
    fn a_search_line_counts_the_budget_and_estimates_what_is_left() {
        let start = Instant::now();
        let mut s = state(start);
        s.budget = Some(5_000);
        s.executions = 1_250;
        let now = start + Duration::from_secs(6);
        // 1,250 in 6 s: 208 per second, 3,750 left: 18 s.
        assert_eq!(
            s.text(now),
            "1,250/5,000 executions, 0 bugs, 208 exec/s, 6 s elapsed, ~18 s left"
        );
        // A time limit that comes sooner is the time left.
        s.deadline = Some(start + Duration::from_secs(10));
        s.bugs = 1;
        assert_eq!(
            s.text(now),
            "1,250/5,000 executions, 1 bug, 208 exec/s, 6 s elapsed, ~4 s left"
        );
        // Nothing ran yet: no rate, no estimate (but the limit still).
        s.executions = 0;
        s.deadline = None;
        assert_eq!(
            s.text(now),
            "0/5,000 executions, 1 bug, 0.0 exec/s, 6 s elapsed"
        );
    }

    #[test]
    fn a_phase_replaces_the_estimate_and_a_label_leads() {
        let start = Instant::now();
        let mut s = state(start);
        s.label = "test 2/5 shop.CartTest#add".into();
        s.budget = Some(100);
        s.executions = 6;
        s.phase = Some("replaying the bug in a fresh JVM".into());
        assert_eq!(
            s.text(start + Duration::from_secs(12)),
            "test 2/5 shop.CartTest#add: 6/100 executions, 0 bugs, 0.5 exec/s, 12 s elapsed, \
             replaying the bug in a fresh JVM"
        );
    }

    #[test]
    fn a_sweep_line_counts_searches_and_ignores_phases() {
        let start = Instant::now();
        let mut s = state(start);
        s.searches = Some((3, 12));
        s.executions = 2_400;
        s.bugs = 2;
        s.phase = Some("replaying the bug in a fresh JVM".into());
        // 3 searches in 30 s: 9 more take 90 s.
        assert_eq!(
            s.text(start + Duration::from_secs(30)),
            "3/12 searches, 2,400 executions, 2 bugs, 80 exec/s, 30 s elapsed, ~1 min 30 s left"
        );
        assert_eq!(s.position(), (3, 12));
        assert_eq!(
            state(start).position(),
            (0, 1),
            "an empty bar, not a full one"
        );
    }

    #[test]
    fn begin_starts_a_new_count_and_keeps_the_bugs() {
        let progress = Progress(Arc::new(Shared {
            state: Mutex::new(State::new(Instant::now())),
            wake: Condvar::new(),
            bar: None,
        }));
        progress.begin("test 1/2 A#a".into(), Some(10), None);
        progress.executions(4);
        progress.bugs(1);
        progress.phase(Some("replaying"));
        progress.begin("test 2/2 A#b".into(), Some(20), None);
        let s = progress.0.state.lock().unwrap().clone();
        assert_eq!(
            (s.label.as_str(), s.executions, s.budget, s.bugs, s.phase),
            ("test 2/2 A#b", 0, Some(20), 1, None)
        );
    }
}
