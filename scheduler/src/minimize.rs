//! Minimal failing schedules: shrink a failing schedule to the fewest preemptions, then the
//! fewest threads involved in them, then the shortest execution, by running candidates and
//! keeping only those that fail the same way.
//!
//! A candidate is a [`Guide`]: the switches of a schedule, each keyed by the thread switched
//! away from and where it stood (a site's occurrence in that thread, or its own step count),
//! and the waiters its `notify`s woke. The
//! [`Guided`] strategy runs a guide: the running thread keeps the turn while it is enabled
//! unless a preemption of the guide says to switch here; when it cannot go on (blocked,
//! finished, spinning), the guide's switch for that point picks the next thread, or else the
//! lowest enabled one, or the first enabled of the guide's preferred threads. So any subset
//! of a failing schedule's preemptions is a runnable candidate, and a guide with all of them
//! makes the original schedule again. Which thread runs where the running one cannot go on is
//! a free choice (no preemption), so a preference costs nothing in the ranking.
//!
//! [`minimize`] is the search: delta debugging (ddmin) over the preemptions, a pass that
//! redirects preemptions to threads already involved, and a pass that moves preemptions
//! earlier while the execution gets shorter, and passes that let a thread the failure is
//! about run first wherever the choice is free. Candidates are judged by a caller-supplied
//! oracle (a JVM, or the simulator), in batches, so that a caller that starts a process per
//! batch starts few. The execution of the chosen guide is recorded as usual: its ordinary
//! schedule replays with [`Replay`](crate::strategy::Replay).
//!
//! # Guide text format, version 1
//!
//! ```text
//! rankcheck-guide 1
//! p t1@3 t2     # preemption: when t1 has performed 3 steps and can go on, t2 runs
//! s t0@5 t1     # switch: when t0 has performed 5 steps and cannot go on, t1 runs
//! w t0@7 t2     # the notify of t0's 7th step wakes t2
//! p t1@0/-52 t2  # preemption before t1's first operation (occurrence 0) at site -52
//! p t2@0/-53+ t1 # preemption right after t2's first operation at site -53
//! f t3           # where no switch says who runs, t3 runs if it is enabled
//! ```
//!
//! A preemption found in a recording is keyed by the site where the preempted thread stood
//! and that site's occurrence in the thread, which survives other preemptions being dropped
//! even when the thread's path before it changes (a wait loop that ran once more or less).
//!
//! A file holds one guide or several, each starting with the header; execution `k` of a
//! [`Guided`] strategy follows guide `k`. `#` starts a comment.

use crate::ids::{ObjId, ThreadId};
use crate::schedule::{Choice, Schedule};
use crate::strategy::{ExecutionSummary, Pick, Strategy, View};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

/// The header line of a guide.
pub const GUIDE_HEADER: &str = "rankcheck-guide 1";

/// A thread switch of a guide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Switch {
    /// The thread that was running.
    pub from: ThreadId,
    /// How many steps `from` had performed (its next step is number `after + 1` of its own);
    /// with `site`, how many times it had performed an operation at that site.
    pub after: u64,
    /// The site of `from`'s pending operation: the switch is keyed by that site's occurrence,
    /// which does not move when the thread took another path before (a wait loop that ran
    /// once more or once less); `None` for operations without a site (begin, end, a wait's
    /// return) and switches where `from` could not go on.
    pub site: Option<i64>,
    /// With `site`: the switch comes right after `from` performed that occurrence, not before
    /// it (text: a `+` after the site), for a place past the last step the recording had.
    pub past: bool,
    /// The thread that runs next.
    pub to: ThreadId,
    /// A preemption (`from` could go on); else a switch made because `from` could not.
    pub preempt: bool,
}

/// Which waiter a `notify` wakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Wake {
    /// The notifying thread.
    pub notifier: ThreadId,
    /// Its steps performed, the notify included.
    pub after: u64,
    pub waiter: ThreadId,
}

/// One step of a recorded execution, as [`Guide::from_schedule`] needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracedStep {
    /// Its number (1-based) in the schedule.
    pub step: u64,
    pub thread: ThreadId,
    /// The site of its operation (`None` for begin, end and a wait's return).
    pub site: Option<i64>,
    /// It preempted the running thread, which could go on.
    pub preempted: bool,
}

impl TracedStep {
    /// The steps of an execution recorded with
    /// [`Execution::record_steps`](crate::Execution::record_steps): its events and marks.
    pub fn of_events(events: &crate::EventLog, marks: &[crate::StepMark]) -> Vec<TracedStep> {
        events
            .as_slice()
            .iter()
            .zip(marks)
            .map(|(e, m)| TracedStep {
                step: m.step,
                thread: e.thread,
                site: (!matches!(
                    e.kind,
                    crate::OpKind::Begin | crate::OpKind::End | crate::OpKind::WaitReturn
                ))
                .then_some(e.site),
                preempted: m.preempted,
            })
            .collect()
    }
}

/// A candidate schedule, as switches and wake-ups (module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guide {
    pub switches: Vec<Switch>,
    pub wakes: Vec<Wake>,
    /// Where the running thread cannot go on and no switch says who runs next: the first
    /// enabled of these, before the lowest enabled thread.
    pub prefer: Vec<ThreadId>,
}

impl Guide {
    /// The guide that makes `schedule` again. `steps` are the recorded execution's steps that
    /// went through the model, in order (steps passed in a quiet stretch have none): their
    /// thread, the site of their operation and whether they preempted an enabled thread.
    /// `complete` says they start at step 1; a switch at a step before the first entry counts
    /// as a preemption keyed by steps performed, so that minimizing may drop it.
    pub fn from_schedule(schedule: &Schedule, steps: &[TracedStep], complete: bool) -> Guide {
        let info: HashMap<u64, &TracedStep> = steps.iter().map(|t| (t.step, t)).collect();
        let first_known = if complete {
            0
        } else {
            steps.first().map_or(u64::MAX, |t| t.step)
        };
        // The thread of every step, and for every step the next step of the same thread.
        let mut by_step: Vec<ThreadId> = Vec::new();
        for &(choice, n) in schedule.runs() {
            if let Choice::Thread(x) = choice {
                by_step.extend(std::iter::repeat_n(x, n as usize));
            }
        }
        let mut next_same = vec![usize::MAX; by_step.len()];
        let mut seen: HashMap<ThreadId, usize> = HashMap::new();
        for i in (0..by_step.len()).rev() {
            if let Some(&j) = seen.get(&by_step[i]) {
                next_same[i] = j;
            }
            seen.insert(by_step[i], i);
        }
        let mut guide = Guide::default();
        let mut counts: HashMap<ThreadId, u64> = HashMap::new();
        let mut occurrences: HashMap<(ThreadId, i64), u64> = HashMap::new();
        let mut prev: Option<ThreadId> = None;
        let mut step = 0u64;
        for &(choice, n) in schedule.runs() {
            match choice {
                Choice::Thread(x) => {
                    for _ in 0..n {
                        step += 1;
                        if let Some(a) = prev.filter(|&a| a != x) {
                            let known = info.get(&step);
                            let preempt = step < first_known || known.is_some_and(|t| t.preempted);
                            // Where the preempted thread stood: the site of its next step.
                            let site = if preempt && known.is_some() {
                                let at = next_same[(step - 2) as usize];
                                (at != usize::MAX)
                                    .then(|| info.get(&(at as u64 + 1)))
                                    .flatten()
                                    .and_then(|t| t.site)
                            } else {
                                None
                            };
                            let after = match site {
                                Some(s) => occurrences.get(&(a, s)).copied().unwrap_or(0),
                                None => counts.get(&a).copied().unwrap_or(0),
                            };
                            guide.switches.push(Switch {
                                from: a,
                                after,
                                site,
                                past: false,
                                to: x,
                                preempt,
                            });
                        }
                        *counts.entry(x).or_insert(0) += 1;
                        if let Some(s) = info.get(&step).and_then(|t| t.site) {
                            *occurrences.entry((x, s)).or_insert(0) += 1;
                        }
                        prev = Some(x);
                    }
                }
                Choice::Waiter(w) => {
                    if let Some(a) = prev {
                        for _ in 0..n {
                            guide.wakes.push(Wake {
                                notifier: a,
                                after: counts.get(&a).copied().unwrap_or(0),
                                waiter: w,
                            });
                        }
                    }
                }
            }
        }
        guide
    }

    /// The preemptions.
    pub fn preemptions(&self) -> impl Iterator<Item = &Switch> {
        self.switches.iter().filter(|s| s.preempt)
    }

    /// The threads the preemptions involve (preempted or preempting).
    pub fn preempting_threads(&self) -> BTreeSet<ThreadId> {
        self.preemptions().flat_map(|s| [s.from, s.to]).collect()
    }

    /// This guide with `kept` as its preemptions (the other switches and wakes unchanged).
    fn with_preemptions(&self, kept: &[Switch]) -> Guide {
        let mut switches: Vec<Switch> = self
            .switches
            .iter()
            .filter(|s| !s.preempt)
            .copied()
            .collect();
        switches.extend_from_slice(kept);
        Guide {
            switches,
            wakes: self.wakes.clone(),
            prefer: self.prefer.clone(),
        }
    }

    /// This guide's preemptions alone, with `first` preferred wherever the choice is free.
    fn preferring(&self, first: ThreadId) -> Guide {
        Guide {
            switches: self.preemptions().copied().collect(),
            wakes: self.wakes.clone(),
            prefer: vec![first],
        }
    }

    /// The text form (module doc).
    pub fn to_text(&self) -> String {
        let mut out = format!("{GUIDE_HEADER}\n");
        for s in &self.switches {
            let kind = if s.preempt { 'p' } else { 's' };
            match s.site {
                Some(site) => out.push_str(&format!(
                    "{kind} t{}@{}/{site}{} t{}\n",
                    s.from.0,
                    s.after,
                    if s.past { "+" } else { "" },
                    s.to.0
                )),
                None => out.push_str(&format!("{kind} t{}@{} t{}\n", s.from.0, s.after, s.to.0)),
            }
        }
        for w in &self.wakes {
            out.push_str(&format!(
                "w t{}@{} t{}\n",
                w.notifier.0, w.after, w.waiter.0
            ));
        }
        for t in &self.prefer {
            out.push_str(&format!("f t{}\n", t.0));
        }
        out
    }

    /// Several guides in one text (execution `k` follows the `k`-th).
    pub fn many_to_text(guides: &[Guide]) -> String {
        guides.iter().map(Guide::to_text).collect()
    }

    /// Reads one guide or several (module doc).
    pub fn parse_many(text: &str) -> Result<Vec<Guide>, GuideError> {
        let mut guides: Vec<Guide> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let err = |message: String| GuideError {
                line: line_no,
                message,
            };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if line.starts_with("rankcheck-guide") {
                if line != GUIDE_HEADER {
                    return Err(err(format!(
                        "unsupported guide header `{line}` (expected `{GUIDE_HEADER}`)"
                    )));
                }
                guides.push(Guide::default());
                continue;
            }
            let Some(guide) = guides.last_mut() else {
                return Err(err(format!("expected the header `{GUIDE_HEADER}`")));
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            if let ["f", first] = words[..] {
                guide.prefer.push(thread(first).map_err(&err)?);
                continue;
            }
            let [kind, at, to] = words[..] else {
                return Err(err(format!("expected `KIND tN@STEPS tM`, found `{line}`")));
            };
            let (from, after) = at
                .split_once('@')
                .ok_or_else(|| err(format!("expected tN@STEPS, found `{at}`")))?;
            let from = thread(from).map_err(&err)?;
            let (after, site, past) = match after.split_once('/') {
                Some((n, s)) => {
                    let (s, past) = match s.strip_suffix('+') {
                        Some(s) => (s, true),
                        None => (s, false),
                    };
                    let site = s
                        .parse::<i64>()
                        .map_err(|_| err(format!("bad site in `{at}`")))?;
                    (n, Some(site), past)
                }
                None => (after, None, false),
            };
            let after: u64 = after
                .parse()
                .map_err(|_| err(format!("bad step count in `{at}`")))?;
            let to = thread(to).map_err(&err)?;
            match kind {
                "p" | "s" => guide.switches.push(Switch {
                    from,
                    after,
                    site,
                    past,
                    to,
                    preempt: kind == "p",
                }),
                "w" if site.is_none() => guide.wakes.push(Wake {
                    notifier: from,
                    after,
                    waiter: to,
                }),
                _ => {
                    return Err(err(format!(
                        "unknown entry `{kind}` (expected p, s, w or f)"
                    )))
                }
            }
        }
        if guides.is_empty() {
            return Err(GuideError {
                line: 1,
                message: format!("empty guide (expected the header `{GUIDE_HEADER}`)"),
            });
        }
        Ok(guides)
    }
}

fn thread(word: &str) -> Result<ThreadId, String> {
    word.strip_prefix('t')
        .and_then(|n| n.parse().ok())
        .map(ThreadId)
        .ok_or_else(|| format!("bad thread `{word}` (expected t<N>)"))
}

/// A guide file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuideError {
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for GuideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "guide line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for GuideError {}

/// The strategy that runs guides: execution `k` (counted from the first it is given) follows
/// guide `k`; after the last guide it wants no more executions.
#[derive(Clone, Debug)]
pub struct Guided {
    guides: Vec<Guide>,
    /// Executions begun so far.
    begun: usize,
    /// The current guide's switches and wakes by (thread, its steps performed), and its
    /// preemptions keyed by a site by (thread, site, occurrences).
    switches: HashMap<(ThreadId, u64), Switch>,
    at_sites: HashMap<(ThreadId, i64, u64), Switch>,
    past_sites: HashMap<(ThreadId, i64, u64), Switch>,
    occurrences: HashMap<(ThreadId, i64), u64>,
    /// Each thread's last operation with a site: the site and its occurrence (0-based).
    last_done: HashMap<ThreadId, (i64, u64)>,
    wakes: HashMap<(ThreadId, u64), ThreadId>,
    prefer: Vec<ThreadId>,
    /// Steps performed by each thread in this execution.
    counts: Vec<u64>,
    last: Option<ThreadId>,
}

impl Guided {
    /// Runs `guides` (at least one; an empty list runs the non-preemptive schedule once).
    pub fn new(guides: Vec<Guide>) -> Guided {
        let guides = if guides.is_empty() {
            vec![Guide::default()]
        } else {
            guides
        };
        Guided {
            guides,
            begun: 0,
            switches: HashMap::new(),
            at_sites: HashMap::new(),
            past_sites: HashMap::new(),
            occurrences: HashMap::new(),
            last_done: HashMap::new(),
            wakes: HashMap::new(),
            prefer: Vec::new(),
            counts: Vec::new(),
            last: None,
        }
    }

    fn count(&self, t: ThreadId) -> u64 {
        self.counts.get(t.index()).copied().unwrap_or(0)
    }

    fn performed(&mut self, t: ThreadId, n: u64) {
        if self.counts.len() <= t.index() {
            self.counts.resize(t.index() + 1, 0);
        }
        self.counts[t.index()] += n;
        self.last = Some(t);
    }
}

impl Strategy for Guided {
    fn begin_execution(&mut self, _index: u64) {
        let guide = &self.guides[self.begun.min(self.guides.len() - 1)];
        self.begun += 1;
        self.switches = guide
            .switches
            .iter()
            .filter(|s| s.site.is_none())
            .map(|s| ((s.from, s.after), *s))
            .collect();
        self.at_sites = guide
            .switches
            .iter()
            .filter(|s| !s.past)
            .filter_map(|s| s.site.map(|site| ((s.from, site, s.after), *s)))
            .collect();
        self.past_sites = guide
            .switches
            .iter()
            .filter(|s| s.past)
            .filter_map(|s| s.site.map(|site| ((s.from, site, s.after), *s)))
            .collect();
        self.occurrences.clear();
        self.last_done.clear();
        self.wakes = guide
            .wakes
            .iter()
            .map(|w| ((w.notifier, w.after), w.waiter))
            .collect();
        self.prefer = guide.prefer.clone();
        self.counts.clear();
        self.last = None;
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        let lowest = self
            .prefer
            .iter()
            .copied()
            .find(|&t| view.candidate(t).is_some())
            .unwrap_or(view.enabled[0].thread);
        let picked = match view.running {
            None => lowest,
            Some(a) => {
                let at_site = view
                    .candidate(a)
                    .and_then(|c| c.op.site())
                    .and_then(|site| {
                        let n = self.occurrences.get(&(a, site)).copied().unwrap_or(0);
                        self.at_sites.get(&(a, site, n))
                    });
                let past = view
                    .running_enabled
                    .then(|| self.last_done.get(&a))
                    .flatten()
                    .and_then(|&(site, n)| self.past_sites.get(&(a, site, n)));
                let planned = at_site
                    .or(past)
                    .or_else(|| self.switches.get(&(a, self.count(a))))
                    .filter(|s| view.candidate(s.to).is_some());
                match planned {
                    // A preemption happens only where the guide says; a switch the running
                    // thread could avoid is never made otherwise.
                    Some(s) if s.preempt || !view.running_enabled => s.to,
                    _ if view.running_enabled => a,
                    _ => lowest,
                }
            }
        };
        if let Some(site) = view.candidate(picked).and_then(|c| c.op.site()) {
            let n = self.occurrences.entry((picked, site)).or_insert(0);
            self.last_done.insert(picked, (site, *n));
            *n += 1;
        }
        self.performed(picked, 1);
        Ok(picked)
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        let wanted = self
            .last
            .and_then(|a| self.wakes.get(&(a, self.count(a))))
            .copied()
            .filter(|w| waiters.contains(w));
        Ok(wanted.unwrap_or(waiters[0]))
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        self.begun < self.guides.len()
    }

    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), crate::strategy::Stop> {
        self.performed(thread, steps);
        Ok(())
    }
}

impl crate::coverage::Covering for Guided {
    fn coverage(&self) -> String {
        format!(
            "minimization candidates: {} of {} run",
            self.begun,
            self.guides.len()
        )
    }
}

/// What the oracle says of one candidate: `None` when it did not fail the same way, else the
/// length of its execution (steps) and whatever the caller keeps of it (its schedule, its
/// result).
pub type Tested<T> = Option<(u64, T)>;

/// Runs a batch of candidates; `None` when it ran none (time is up).
pub type Oracle<'a, T> = dyn FnMut(&[Guide]) -> Option<Vec<Tested<T>>> + 'a;

/// Limits of a minimization (the caller's clock decides when time is up: the oracle returns
/// `None` for a batch it did not run).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Candidates at most, over every pass.
    pub candidates: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { candidates: 400 }
    }
}

/// The smallest candidate found, and what it cost.
#[derive(Clone, Debug)]
pub struct Minimized<T> {
    pub guide: Guide,
    /// The oracle's data of its execution (`None`: no candidate reproduced the failure, not
    /// even the original's own guide).
    pub found: Option<(u64, T)>,
    /// Preemptions of the original guide and of the result.
    pub preemptions_before: usize,
    pub preemptions: usize,
    /// Threads the result's preemptions involve.
    pub threads: usize,
    /// Candidates run.
    pub tried: usize,
    /// Every pass ran to its end (false: the limits or the time stopped it; the result is the
    /// smallest seen).
    pub complete: bool,
}

/// Orders candidates: fewer preemptions, then fewer threads involved, then shorter.
fn rank(guide: &Guide, length: u64) -> (usize, usize, u64) {
    (
        guide.preemptions().count(),
        guide.preempting_threads().len(),
        length,
    )
}

/// Switches a batch of candidates may hold in all (about 160 MB): a livelock's schedule under
/// a strategy that switches at every access (surw) has hundreds of thousands of preemptions,
/// and every candidate is a whole guide, so even a few hundred candidates would not fit in
/// memory. A batch is cut after the first candidate that reaches it, and the search stops
/// there, as at the candidate limit.
pub const BATCH_SWITCHES: usize = 1 << 22;

/// How many of `batch`'s candidates fit in [`BATCH_SWITCHES`] (the first always does).
fn fitting(batch: &[Guide]) -> usize {
    let mut total = 0;
    batch
        .iter()
        .take_while(|g| {
            let first = total == 0;
            total += g.switches.len().max(1);
            first || total <= BATCH_SWITCHES
        })
        .count()
}

/// A batch of candidates being built: a pass stops adding once it is [`full`](Batch::full),
/// one candidate past what can run (so that the search knows it was cut), instead of making
/// every candidate and cutting the list afterwards.
struct Batch {
    guides: Vec<Guide>,
    room: usize,
    switches: usize,
}

impl Batch {
    fn new(room: usize) -> Batch {
        Batch {
            guides: Vec::new(),
            room,
            switches: 0,
        }
    }

    /// More candidates than the search can run, or more switches than [`BATCH_SWITCHES`].
    fn full(&self) -> bool {
        self.guides.len() > self.room || self.switches > BATCH_SWITCHES
    }

    fn push(&mut self, guide: Guide) {
        self.switches += guide.switches.len().max(1);
        self.guides.push(guide);
    }

    fn is_empty(&self) -> bool {
        self.guides.is_empty()
    }
}

struct Search<'a, T> {
    oracle: &'a mut Oracle<'a, T>,
    limits: Limits,
    tried: usize,
    stopped: bool,
}

impl<T> Search<'_, T> {
    /// Candidates the limits still let run.
    fn room(&self) -> usize {
        if self.stopped {
            0
        } else {
            self.limits.candidates.saturating_sub(self.tried)
        }
    }

    /// An empty batch of what the limits still let run.
    fn batch(&self) -> Batch {
        Batch::new(self.room())
    }

    /// Runs `batch` (cut to what the limits allow: its room, and [`BATCH_SWITCHES`]); `None`
    /// once the limits or the oracle stop.
    fn test(&mut self, batch: Batch) -> Option<Vec<(Guide, Tested<T>)>> {
        let mut batch = batch.guides;
        if self.stopped {
            return None;
        }
        let room = self.limits.candidates.saturating_sub(self.tried);
        if room == 0 {
            self.stopped = true;
            return None;
        }
        let fit = fitting(&batch).min(room);
        if batch.len() > fit {
            batch.truncate(fit);
            self.stopped = true;
        }
        let results = (self.oracle)(&batch);
        let Some(results) = results else {
            self.stopped = true;
            return None;
        };
        self.tried += batch.len();
        Some(batch.into_iter().zip(results).collect())
    }
}

/// Shrinks `original` (a guide of a failing execution, [`Guide::from_schedule`]): ddmin over
/// its preemptions, then fewer threads, then a shorter execution. `oracle` runs a batch of
/// candidates and says for each whether it failed the same way (module doc); it returns
/// `None` when it ran nothing (time is up).
pub fn minimize<T>(
    original: &Guide,
    places: &[Place],
    limits: Limits,
    oracle: &mut Oracle<'_, T>,
) -> Minimized<T> {
    let mut search = Search {
        oracle,
        limits,
        tried: 0,
        stopped: false,
    };
    let before = original.preemptions().count();
    // Keeps the better of `best` and the reproducing candidates of a batch.
    fn better<T>(best: &mut Option<(Guide, u64, T)>, tested: Vec<(Guide, Tested<T>)>) -> bool {
        let mut improved = false;
        for (guide, result) in tested {
            if let Some((length, data)) = result {
                let wins = best
                    .as_ref()
                    .is_none_or(|(g, l, _)| rank(&guide, length) < rank(g, *l));
                if wins {
                    *best = Some((guide, length, data));
                    improved = true;
                }
            }
        }
        improved
    }

    // Two starts: the original with its other switches as hints, and its preemptions alone
    // (where the running thread cannot go on, the lowest enabled thread runs), which leaves
    // the order of threads free where the hints would fix it. Each with no preemption at all
    // too.
    let bare = Guide {
        switches: original.preemptions().copied().collect(),
        wakes: original.wakes.clone(),
        prefer: Vec::new(),
    };
    let mut start = search.batch();
    for guide in [
        original.clone(),
        original.with_preemptions(&[]),
        bare.clone(),
        bare.with_preemptions(&[]),
    ] {
        start.push(guide);
    }
    let mut bests: [Option<(Guide, u64, T)>; 2] = [None, None];
    if let Some(mut tested) = search.test(start) {
        let second = tested.split_off(2.min(tested.len()));
        better(&mut bests[0], tested);
        better(&mut bests[1], second);
    }
    for k in 0..bests.len() {
        // The free start cannot beat one preemption between two threads by much (a shorter
        // execution at most), and it costs as many candidates again.
        let reached = bests[..k]
            .iter()
            .flatten()
            .any(|(g, _, _)| g.preemptions().count() <= 1);
        if reached {
            continue;
        }
        let start = &mut bests[k];
        // Moving a preemption earlier can make another one needless: rounds until nothing
        // moves (the limits bound them).
        for round in 0..8 {
            if start.is_none() {
                break;
            }
            // A thread that must run early costs a preemption of every thread before it:
            // letting it run first where the choice is free makes most of them needless.
            let first = one_batch(&mut search, start, better, |g, b| preferences(g, places, b));
            ddmin(&mut search, start, better);
            let fewer = fewer_threads(&mut search, start, better);
            let moved = earlier(&mut search, start, better);
            let elsewhere =
                !moved && one_batch(&mut search, start, better, |g, b| relocations(g, places, b));
            // One preemption between two threads is as small as a schedule that depends on
            // them gets (none at all was tried first): only the length could still shrink,
            // which is not worth the user's wait for more rounds.
            let one_left = start
                .as_ref()
                .is_some_and(|(g, _, _)| g.preemptions().count() <= 1);
            if round == 7 || one_left || !(first || fewer || moved || elsewhere) {
                break;
            }
        }
    }
    // Few preemptions left: every schedule of one preemption, and of two that preempt each
    // other's threads, at the places the recorded execution went (on the free start).
    let smallest = bests
        .iter()
        .flatten()
        .map(|(g, _, _)| g.preemptions().count())
        .min();
    if smallest.is_some_and(|c| c >= 2) {
        let base = Guide {
            switches: Vec::new(),
            wakes: original.wakes.clone(),
            prefer: Vec::new(),
        };
        let focus = bests
            .iter()
            .flatten()
            .min_by_key(|(g, l, _)| rank(g, *l))
            .map(|(g, _, _)| focus(g, places))
            .unwrap_or_default();
        few(
            &mut search,
            &mut bests[1],
            better,
            places,
            &base,
            &focus,
            smallest.unwrap_or(0),
        );
    }
    let [hinted, free] = bests;
    let mut best = hinted;
    if let Some((guide, length, data)) = free {
        better(&mut best, vec![(guide, Some((length, data)))]);
    }
    let complete = !search.stopped;
    match best {
        Some((guide, length, data)) => Minimized {
            preemptions_before: before,
            preemptions: guide.preemptions().count(),
            threads: guide.preempting_threads().len(),
            guide,
            found: Some((length, data)),
            tried: search.tried,
            complete,
        },
        None => Minimized {
            guide: original.clone(),
            found: None,
            preemptions_before: before,
            preemptions: before,
            threads: original.preempting_threads().len(),
            tried: search.tried,
            complete,
        },
    }
}

type Better<T> = fn(&mut Option<(Guide, u64, T)>, Vec<(Guide, Tested<T>)>) -> bool;

/// Delta debugging over the preemptions of `best`'s guide: each round tries every chunk alone
/// and every complement (one batch), keeps the best that fails, and refines otherwise.
fn ddmin<T>(search: &mut Search<'_, T>, best: &mut Option<(Guide, u64, T)>, better: Better<T>) {
    let mut n = 2usize;
    loop {
        let Some((guide, _, _)) = best.as_ref() else {
            return;
        };
        let guide = guide.clone();
        let current: Vec<Switch> = guide.preemptions().copied().collect();
        if current.len() < 2 {
            return;
        }
        let n_now = n.min(current.len());
        let batch = ddmin_candidates(&guide, &current, n_now, search.batch());
        let Some(tested) = search.test(batch) else {
            return;
        };
        let before = current.len();
        better(best, tested);
        let after = best
            .as_ref()
            .map_or(before, |(g, _, _)| g.preemptions().count());
        if after < before {
            // A chunk alone failed: start over at two parts; a complement: keep the grain.
            n = if after <= before / n_now {
                2
            } else {
                (n_now - 1).max(2)
            };
        } else if n_now < current.len() {
            n = (n_now * 2).min(current.len());
        } else {
            return;
        }
    }
}

/// [`ddmin`]'s candidates for `current` (the preemptions of `guide`) in `n` chunks: each chunk
/// alone, and each complement when `n > 2`, until `batch` is full.
fn ddmin_candidates(guide: &Guide, current: &[Switch], n: usize, mut batch: Batch) -> Batch {
    let chunks: Vec<&[Switch]> = split(current, n);
    for (i, chunk) in chunks.iter().enumerate() {
        if batch.full() {
            break;
        }
        batch.push(guide.with_preemptions(chunk));
        if n > 2 && !batch.full() {
            let rest: Vec<Switch> = chunks
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .flat_map(|(_, c)| c.iter().copied())
                .collect();
            batch.push(guide.with_preemptions(&rest));
        }
    }
    batch
}

fn split<T>(items: &[T], n: usize) -> Vec<&[T]> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = start + (items.len() - start) / (n - i);
        out.push(&items[start..end]);
        start = end;
    }
    out
}

/// Points each preemption at another thread already involved, where that fails the same way
/// with fewer threads involved.
fn fewer_threads<T>(
    search: &mut Search<'_, T>,
    best: &mut Option<(Guide, u64, T)>,
    better: Better<T>,
) -> bool {
    let mut improved = false;
    loop {
        let Some((guide, _, _)) = best.as_ref() else {
            return improved;
        };
        let guide = guide.clone();
        let involved = guide.preempting_threads();
        if involved.len() <= 2 {
            return improved;
        }
        let batch = redirections(&guide, &involved, search.batch());
        let Some(tested) = search.test(batch) else {
            return improved;
        };
        if !better(best, tested) {
            return improved;
        }
        improved = true;
    }
}

/// [`fewer_threads`]' candidates: each preemption of `guide` pointed at each other thread of
/// `involved`, until `batch` is full.
fn redirections(guide: &Guide, involved: &BTreeSet<ThreadId>, mut batch: Batch) -> Batch {
    let current: Vec<Switch> = guide.preemptions().copied().collect();
    for (i, s) in current.iter().enumerate() {
        for &t in involved {
            if batch.full() {
                return batch;
            }
            if t != s.to && t != s.from {
                let mut changed = current.clone();
                changed[i].to = t;
                batch.push(guide.with_preemptions(&changed));
            }
        }
    }
    batch
}

/// Where a preemption may be placed: before a thread's `occurrence`-th operation (0-based) at
/// `site`, as the recorded execution performed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub thread: ThreadId,
    pub site: i64,
    pub occurrence: u64,
}

impl Place {
    /// Every place of a recorded execution's steps.
    pub fn of_steps(steps: &[TracedStep]) -> Vec<Place> {
        let mut occurrences: HashMap<(ThreadId, i64), u64> = HashMap::new();
        let mut out = Vec::new();
        for t in steps {
            if let Some(site) = t.site {
                let n = occurrences.entry((t.thread, site)).or_insert(0);
                out.push(Place {
                    thread: t.thread,
                    site,
                    occurrence: *n,
                });
                *n += 1;
            }
        }
        out
    }
}

/// Up to two preemptions anywhere the recorded execution went: singles first (one batch),
/// then pairs of two threads preempting each other, when `current` is above 2. Singles also
/// with each `focus` thread preferred where the choice is free, preempting it for another
/// focus thread (so that a long execution's are few too).
fn few<T>(
    search: &mut Search<'_, T>,
    best: &mut Option<(Guide, u64, T)>,
    better: Better<T>,
    places: &[Place],
    base: &Guide,
    focus: &[ThreadId],
    current: usize,
) {
    let at = |p: &(Place, bool), to: ThreadId| Switch {
        from: p.0.thread,
        after: p.0.occurrence,
        site: Some(p.0.site),
        past: p.1,
        to,
        preempt: true,
    };
    let mut singles = search.batch();
    for &first in focus {
        let preferred = Guide {
            prefer: vec![first],
            ..base.clone()
        };
        // Its last places: a thread that loops has thousands, and what went wrong is
        // usually near its end.
        let mine = spots(places, |t| t == first);
        for p in &mine[mine.len().saturating_sub(FOCUS_SPOTS)..] {
            for &to in focus.iter().filter(|&&t| t != p.0.thread) {
                if singles.full() {
                    break;
                }
                singles.push(preferred.with_preemptions(&[at(p, to)]));
            }
        }
    }
    // A long execution has too many places to try them all.
    if places.len() > 200 {
        if let Some(tested) = search.test(singles) {
            better(best, tested);
        }
        return;
    }
    let threads: BTreeSet<ThreadId> = places.iter().map(|p| p.thread).collect();
    let spots = spots(places, |_| true);
    for p in &spots {
        for &to in threads.iter().filter(|&&t| t != p.0.thread) {
            singles.push(base.with_preemptions(&[at(p, to)]));
        }
    }
    let Some(tested) = search.test(singles) else {
        return;
    };
    if better(best, tested) || current <= 2 || places.len() > 80 {
        return;
    }
    let mut pairs = search.batch();
    for (i, p) in spots.iter().enumerate() {
        for q in &spots[i + 1..] {
            if p.0.thread != q.0.thread {
                pairs.push(base.with_preemptions(&[at(p, q.0.thread), at(q, p.0.thread)]));
            }
        }
    }
    if let Some(tested) = search.test(pairs) {
        better(best, tested);
    }
}

/// Where a single preemption may go: before every place of the threads `of` keeps, and right
/// after each one's last.
fn spots(places: &[Place], of: impl Fn(ThreadId) -> bool) -> Vec<(Place, bool)> {
    let mut out: Vec<(Place, bool)> = places
        .iter()
        .filter(|p| of(p.thread))
        .map(|&p| (p, false))
        .collect();
    let threads: BTreeSet<ThreadId> = places.iter().map(|p| p.thread).collect();
    for t in threads.into_iter().filter(|&t| of(t)) {
        if let Some(&last) = places.iter().rev().find(|p| p.thread == t) {
            out.push((last, true));
        }
    }
    out
}

/// How many threads [`focus`] names at most: each is a base for a batch of candidates.
const FOCUS: usize = 4;

/// Of each focus thread's places, how many (its last) [`few`] tries a single preemption at.
const FOCUS_SPOTS: usize = 64;

/// The threads a failure is most likely about, first first: the thread of the recorded
/// execution's last step (the one that threw, or the last to block), then those `guide`'s
/// preemptions involve, the most preempted first.
fn focus(guide: &Guide, places: &[Place]) -> Vec<ThreadId> {
    let mut out: Vec<ThreadId> = places.last().map(|p| p.thread).into_iter().collect();
    let mut counts: HashMap<ThreadId, usize> = HashMap::new();
    for s in guide.preemptions() {
        *counts.entry(s.from).or_insert(0) += 1;
        *counts.entry(s.to).or_insert(0) += 1;
    }
    let mut involved: Vec<(ThreadId, usize)> = counts.into_iter().collect();
    involved.sort_by_key(|&(t, n)| (std::cmp::Reverse(n), t));
    for (t, _) in involved {
        if out.len() >= FOCUS {
            break;
        }
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Up to how many preemptions [`preferences`] tries each alone (one candidate per focus thread
/// and preemption); ddmin takes a longer list apart.
const PREFERRED_SINGLES: usize = 100;

/// Candidates that let each [`focus`] thread run first wherever the choice is free (dropping
/// the switches that fixed who ran there), with all of `guide`'s preemptions, each alone, and
/// none (a thread that must run early costs preemptions of every thread that ran before it),
/// until `batch` is full.
fn preferences(guide: &Guide, places: &[Place], mut batch: Batch) -> Batch {
    let current: Vec<Switch> = guide.preemptions().copied().collect();
    if current.is_empty() {
        return batch;
    }
    for first in focus(guide, places) {
        let base = guide.preferring(first);
        if base == *guide {
            continue;
        }
        batch.push(base.with_preemptions(&[]));
        if current.len() > 1 && current.len() <= PREFERRED_SINGLES {
            for s in &current {
                if batch.full() {
                    break;
                }
                batch.push(base.with_preemptions(&[*s]));
            }
        }
        batch.push(base);
        if batch.full() {
            break;
        }
    }
    batch
}

/// Runs the one batch `build` makes of `best`'s guide, and keeps the best of it.
fn one_batch<T>(
    search: &mut Search<'_, T>,
    best: &mut Option<(Guide, u64, T)>,
    better: Better<T>,
    build: impl FnOnce(&Guide, Batch) -> Batch,
) -> bool {
    let Some((guide, _, _)) = best.as_ref() else {
        return false;
    };
    let batch = build(guide, search.batch());
    if batch.is_empty() {
        return false;
    }
    match search.test(batch) {
        Some(tested) => better(best, tested),
        None => false,
    }
}

/// Candidates that drop one preemption and put another somewhere else the recorded execution
/// went (the preemptions a smaller schedule needs may sit where the search's schedule had
/// none), until `batch` is full: a long execution has millions of places,
/// and every candidate is a whole guide.
fn relocations(guide: &Guide, places: &[Place], mut batch: Batch) -> Batch {
    let current: Vec<Switch> = guide.preemptions().copied().collect();
    if current.len() < 2 || places.is_empty() {
        return batch;
    }
    for drop in 0..current.len() {
        for moved in (0..current.len()).filter(|&j| j != drop) {
            for place in places {
                if batch.full() {
                    return batch;
                }
                let to = if place.thread == current[moved].to {
                    current[moved].from
                } else {
                    current[moved].to
                };
                if to == place.thread {
                    continue;
                }
                let mut changed: Vec<Switch> = current
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != drop && k != moved)
                    .map(|(_, s)| *s)
                    .collect();
                changed.push(Switch {
                    from: place.thread,
                    after: place.occurrence,
                    site: Some(place.site),
                    past: false,
                    to,
                    preempt: true,
                });
                batch.push(guide.with_preemptions(&changed));
            }
        }
    }
    batch
}

/// Moves each preemption earlier in its thread's steps, keeping a candidate only when it
/// fails the same way in a shorter execution.
fn earlier<T>(
    search: &mut Search<'_, T>,
    best: &mut Option<(Guide, u64, T)>,
    better: Better<T>,
) -> bool {
    let mut improved = false;
    for _round in 0..4 {
        let Some((guide, _, _)) = best.as_ref() else {
            return improved;
        };
        let guide = guide.clone();
        let batch = moves_earlier(&guide, search.batch());
        if batch.is_empty() {
            return improved;
        }
        let Some(tested) = search.test(batch) else {
            return improved;
        };
        if !better(best, tested) {
            return improved;
        }
        improved = true;
    }
    improved
}

/// [`earlier`]'s candidates: each preemption of `guide` moved 1, 2 or 4 steps earlier, to half
/// its place, or to its thread's start, until `batch` is full.
fn moves_earlier(guide: &Guide, mut batch: Batch) -> Batch {
    let current: Vec<Switch> = guide.preemptions().copied().collect();
    // Where a preemption already stands: a move there would make two of one.
    let taken: HashSet<(ThreadId, u64, Option<i64>)> =
        current.iter().map(|c| (c.from, c.after, c.site)).collect();
    for (i, s) in current.iter().enumerate() {
        let mut to: BTreeSet<u64> = BTreeSet::new();
        for k in [1, 2, 4] {
            if s.after >= k {
                to.insert(s.after - k);
            }
        }
        to.insert(s.after / 2);
        to.insert(0);
        to.remove(&s.after);
        for after in to {
            if batch.full() {
                return batch;
            }
            if taken.contains(&(s.from, after, s.site)) {
                continue;
            }
            let mut changed = current.clone();
            changed[i].after = after;
            batch.push(guide.with_preemptions(&changed));
        }
    }
    batch
}

/// "1 preemption between t1 and t2": the preemptions of `guide` in words.
pub fn describe(preemptions: usize, threads: &BTreeSet<ThreadId>) -> String {
    let names: Vec<String> = threads.iter().map(|t| format!("t{}", t.0)).collect();
    let plural = if preemptions == 1 { "" } else { "s" };
    match names.len() {
        0 => format!("{preemptions} preemption{plural}"),
        1 => format!("{preemptions} preemption{plural} of {}", names[0]),
        _ => {
            let (last, first) = names.split_last().expect("two names or more");
            format!(
                "{preemptions} preemption{plural} between {} and {last}",
                first.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests;
