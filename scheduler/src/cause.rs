//! The cause of a failure, read off the steps of the failing execution: which accesses raced,
//! which locks closed a deadlock cycle, which notify found no waiter.
//!
//! Input is the report's trace (agent/PROTOCOL.md, "Traces"): every performed step with its
//! thread, operation, location and site, and, for a deadlock, what each blocked thread waits
//! for. Happens-before comes from [`crate::hb::HbTracker`] fed with the synchronization alone
//! (monitors, wait/notify, start/end/join, park permits, and synchronizing accesses — atomic
//! ones and the JDK's concurrent classes' own — from a write to what accesses the location
//! after it: plain data accesses add no edge), so two plain accesses of different threads to
//! one location, one of them a write, *race* when neither happens before the other. Pure: no I/O; the CLI words and draws the answer.

use crate::hb::{HbTracker, Key, Mode, VectorClock};
use crate::op::OpKind;
use std::collections::HashMap;

mod sections;

/// One performed step, as the trace records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Step number in the schedule (1-based).
    pub step: u64,
    pub thread: u32,
    pub kind: OpKind,
    /// For accesses the location (same value, same memory); for monitor, wait and notify
    /// operations the object; for `Start` the child, for `Join`/`Interrupt`/`Unpark` the target
    /// thread.
    pub target: u64,
    pub site: i64,
    /// Performing this step took the turn from a running thread that could have gone on.
    pub preempted: bool,
    /// An access a library made for its own bookkeeping (a thread pool's state counter, a
    /// queue's count), not one the program asked for: never offered as the cause.
    pub library: bool,
    /// A synchronizing access: atomic (a `VarHandle`, `Unsafe` or field-updater access, a call
    /// of a concurrent collection) or inside the JDK's concurrent classes, whose own fields
    /// are volatile, CAS'd or guarded by their locks. A write publishes what its thread did
    /// before to whoever accesses the location after it (the JMM's volatile and CAS
    /// semantics); two such accesses never form a data race.
    pub sync: bool,
}

/// A thread blocked for ever at the end of a deadlock, with the operation it waits to perform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub thread: u32,
    pub kind: OpKind,
    /// As in [`Step::target`]: the monitor's object for `MonitorEnter`/`WaitReturn`, the
    /// target thread for `Join`, the initializer for `ClassInitWait` (the thread itself when
    /// unknown).
    pub target: u64,
    pub site: i64,
}

/// What a deadlocked thread waits for, and who stands in its way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Index into the `blocked` list.
    pub blocked: usize,
    /// The thread holding the monitor (or the joined thread).
    pub holder: Option<u32>,
    /// Index of the step at which the holder took the monitor (its outermost enter still held).
    pub taken: Option<usize>,
}

/// The explanation. Indices are into the `steps` given to [`explain`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// `thread` accessed a location at `first` and `second`, and another thread's conflicting
    /// access `between` them makes the pair unserializable (read-write-read, write-write-read,
    /// read-write-write, write-read-write).
    Atomicity {
        first: usize,
        between: usize,
        second: usize,
        /// When no synchronization is missing: the step at which the thread returned from a
        /// wait or a park (`Condition.await`, a lock it waited for) between its two accesses
        /// (it acted on a condition checked before waiting).
        woke: Option<usize>,
    },
    /// The failing thread saw one of another thread's two updates and not the other: of its
    /// reads `reads` (in order) of two locations, one came after the other thread's write of
    /// its location and one before, where `writes` are that thread's writes of the two
    /// locations in its order (each update atomic, the pair not: a two-stage access).
    Stages {
        writes: [usize; 2],
        reads: [usize; 2],
    },
    /// `read` (a read by the failing thread) came before the threads `behind`, started and not
    /// finished, had done their part.
    Order { read: usize, behind: Vec<u32> },
    /// Two conflicting accesses that no synchronization orders, the later one nearest the end.
    Race { first: usize, second: usize },
    /// Every blocked thread with who holds what it waits for; `chain` the links (indices into
    /// `links`) of threads each waiting for the next: a cycle when one exists (the last link's
    /// holder is the first link's thread), else the longest chain, which ends at a thread
    /// waiting for something no thread holds (a notify, a permit).
    Deadlock { links: Vec<Link>, chain: Vec<usize> },
    /// `notify` found no thread waiting on its object; `waiter` (index into `blocked`) waits on
    /// that object for ever.
    MissedSignal {
        notify: usize,
        waiter: Option<usize>,
    },
    /// `notify` woke the thread that returned from its wait at `woke` and waited again at
    /// `rewait`, while `waiter` (index into `blocked`), waiting then too, waits for ever: a
    /// `notify` that should have been a `notifyAll` (or a condition per role).
    WastedNotify {
        notify: usize,
        woke: usize,
        rewait: usize,
        waiter: usize,
    },
    /// `thread` held a monitor in two sections, entered at `first` and at `second`, and another
    /// thread's section on it began at `between`: each section is atomic, the two together
    /// are not (a check and an act in two calls of a synchronized collection). Offered only
    /// when no access explains the failure: the state the sections guard is out of rankcheck's
    /// sight (a JDK class's own fields), or its accesses show no stale check (a wrapper's map
    /// asked `containsKey` in one section and given a `put` in the next).
    LockSections {
        first: usize,
        between: usize,
        second: usize,
    },
    /// Nothing in the steps explains the failure (one thread alone, no shared location).
    Unknown,
}

const MONITOR: u64 = 1 << 60;
const LIFE: u64 = 2 << 60;
const PERMIT: u64 = 3 << 60;
/// One synchronizing write (by step index): what later synchronizing accesses of its location
/// join. A key per write, so that a read adds no edge towards later writes (a volatile read
/// orders nothing after it in other threads).
const PUBLISHED: u64 = 4 << 60;

/// Synchronization-only happens-before clocks, one per step.
pub fn sync_clocks(steps: &[Step]) -> Vec<VectorClock> {
    let mut hb = HbTracker::new();
    let mut seen = Vec::<bool>::new();
    let mut clocks = Vec::with_capacity(steps.len());
    let mut last_published: HashMap<u64, usize> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        let t = s.thread as usize;
        if seen.len() <= t {
            seen.resize(t + 1, false);
        }
        let mut touches: Vec<(Key, Mode)> = Vec::with_capacity(2);
        if !seen[t] {
            // A thread's first step comes after its start.
            seen[t] = true;
            touches.push((LIFE | u64::from(s.thread), Mode::Write));
        }
        let key = match s.kind {
            OpKind::MonitorEnter
            | OpKind::MonitorExit
            | OpKind::Wait
            | OpKind::WaitReturn
            | OpKind::Notify
            | OpKind::NotifyAll => Some(MONITOR | s.target),
            OpKind::Start | OpKind::Join => Some(LIFE | s.target),
            OpKind::End => Some(LIFE | u64::from(s.thread)),
            OpKind::Unpark => Some(PERMIT | s.target),
            OpKind::Park => Some(PERMIT | u64::from(s.thread)),
            _ => None,
        };
        if let Some(k) = key {
            touches.push((k, Mode::Write));
        }
        if s.sync && matches!(s.kind, OpKind::Read | OpKind::Write) {
            // Acquire: after the last synchronizing write of the location (a CAS reads too).
            if let Some(&w) = last_published.get(&s.target) {
                touches.push((PUBLISHED | w as u64, Mode::Read));
            }
            // Release: a write publishes this thread's past.
            if s.kind == OpKind::Write {
                touches.push((PUBLISHED | i as u64, Mode::Write));
                last_published.insert(s.target, i);
            }
        }
        clocks.push(hb.record(s.thread, s.kind as u64, &touches).clone());
    }
    clocks
}

/// Whether step `a` (earlier) happens before step `b` under `clocks`.
fn ordered(steps: &[Step], clocks: &[VectorClock], a: usize, b: usize) -> bool {
    let t = steps[a].thread as usize;
    clocks[a].get(t) <= clocks[b].get(t)
}

/// An access the program made (a library's own bookkeeping left out): what causes are made of.
fn is_access(s: &Step) -> bool {
    matches!(s.kind, OpKind::Read | OpKind::Write) && !s.library
}

/// The program's accesses (indices into `steps`), grouped by location, in order.
fn accesses_by_location(steps: &[Step]) -> HashMap<u64, Vec<usize>> {
    let mut by_loc: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, s) in steps.iter().enumerate().filter(|(_, s)| is_access(s)) {
        by_loc.entry(s.target).or_default().push(i);
    }
    by_loc
}

/// The cause of a failure: for a deadlock (`blocked` not empty) a missed signal when a waiter
/// waits on an object a notify found empty, else the blocked threads and their holders; for any
/// other failure the unserializable access triple nearest the end (preferring one whose thread
/// was preempted between its two accesses), else the last race.
///
/// `failing` is the thread whose throwable ended the execution, when one did.
pub fn explain(steps: &[Step], blocked: &[Blocked], failing: Option<u32>) -> Cause {
    if !blocked.is_empty() {
        // A notify lost before its waiter's thread had run at all says less than one that woke
        // the wrong waiter (a waiter that checks its condition in a loop never needed it).
        let early = |c: &Cause| match *c {
            Cause::MissedSignal {
                notify,
                waiter: Some(w),
            } => !steps[..notify]
                .iter()
                .any(|s| s.thread == blocked[w].thread),
            _ => false,
        };
        let cause = match missed_signal(steps, blocked) {
            Some(c) if early(&c) => wasted_notify(steps, blocked).or(Some(c)),
            Some(c) => Some(c),
            None => wasted_notify(steps, blocked),
        };
        if let Some(c) = cause {
            return c;
        }
        let links = deadlock_links(steps, blocked);
        let chain = chain(&links, blocked);
        return Cause::Deadlock { links, chain };
    }
    let clocks = sync_clocks(steps);
    let triple = atomicity(steps, &clocks, failing);
    // A race explains more than a stale condition; of stale conditions, the failing thread's
    // own, even across locations (it checked `size`, failed reading `first`).
    let stale = || failing.and_then(|f| stale_check(steps, f));
    match triple {
        Some(c @ Cause::Atomicity { woke: None, .. }) => return c,
        Some(Cause::Atomicity { first, .. }) if Some(steps[first].thread) == failing => {
            return triple.unwrap_or(Cause::Unknown)
        }
        Some(c) => return stale().unwrap_or(c),
        None => {
            if let Some(c) = stale() {
                return c;
            }
        }
    }
    race(steps, &clocks)
        .or_else(|| failing.and_then(|f| stages(steps, f)))
        .or_else(|| order(steps, failing))
        .or_else(|| sections::atomicity_across_sections(steps, failing))
        .or_else(|| sections::lock_sections(steps, true))
        .or_else(|| order_at_the_read(steps, failing))
        // Last: sections whose accesses explain nothing (a synchronized wrapper's map,
        // checked in one call and changed in the next).
        .or_else(|| sections::lock_sections(steps, false))
        .unwrap_or(Cause::Unknown)
}

/// The failing thread's last read of what a thread still behind had written (a partial state),
/// else of what another thread wrote after the reader started, else of a location nobody had
/// written (the default value a thread behind would have set), else of what another thread
/// wrote before the reader started, with the started threads that had not finished. Never a
/// read of what only the reader itself wrote: no thread behind could have changed that (a
/// test's own setup, read before the threads whose work the failure lacked had run). What the reader's starter wrote before the start is
/// ordered initialization (its own fields) and rarely the culprit; a location nobody wrote
/// includes the JDK's statics, so it comes after what the program's threads wrote.
fn order(steps: &[Step], failing: Option<u32>) -> Option<Cause> {
    let mut started = Vec::new();
    let mut ended = Vec::new();
    // Each thread's last step: one that ended parked or waiting has run out of work (an idle
    // pool worker waiting for its next task), it is not behind.
    let mut last_kind: HashMap<u32, OpKind> = HashMap::new();
    for s in steps {
        match s.kind {
            OpKind::Start => started.push(s.target as u32),
            OpKind::End => ended.push(s.thread),
            _ => {}
        }
        last_kind.insert(s.thread, s.kind);
    }
    let reader = failing.or_else(|| steps.last().map(|s| s.thread))?;
    let idle = |t: &u32| matches!(last_kind.get(t), Some(OpKind::Park | OpKind::Wait));
    let behind: Vec<u32> = started
        .into_iter()
        .filter(|t| *t != reader && !ended.contains(t) && !idle(t))
        .collect();
    if behind.is_empty() {
        return None;
    }
    let reader_start = steps
        .iter()
        .position(|s| s.kind == OpKind::Start && s.target as u32 == reader);
    let mut writers = Writers::default();
    let mut last = LastReads::default();
    for (i, s) in steps.iter().enumerate().filter(|(_, s)| !s.library) {
        if s.kind == OpKind::Write {
            writers.note(s, i, reader, reader_start);
        } else if s.kind == OpKind::Read && s.thread == reader && !writers.own(s.target, reader) {
            last.note(steps, i, writers.rank(s.target, &behind), ());
        }
    }
    let (read, ()) = last.cause(steps, 4)?;
    Some(Cause::Order { read, behind })
}

/// The reader's last read of each rank of [`Writers::rank`] (with what goes with it), and per
/// site its last read of an unwritten location.
struct LastReads<T> {
    by_rank: [Option<(usize, T)>; 4],
    unwritten_at: HashMap<i64, (usize, T)>,
}

impl<T> Default for LastReads<T> {
    fn default() -> Self {
        LastReads {
            by_rank: [None, None, None, None],
            unwritten_at: HashMap::new(),
        }
    }
}

impl<T: Clone> LastReads<T> {
    fn note(&mut self, steps: &[Step], i: usize, rank: usize, with: T) {
        if rank == 2 {
            self.unwritten_at.insert(steps[i].site, (i, with.clone()));
        }
        self.by_rank[rank] = Some((i, with));
    }

    /// The read of the best of the first `ranks` ranks. A read of what another thread wrote
    /// gives way to a read of an unwritten location at the same code: a loop that summed
    /// every worker's slot read the slots written and the one a worker behind had not
    /// written yet, and that one is what went wrong.
    fn cause(self, steps: &[Step], ranks: usize) -> Option<(usize, T)> {
        let LastReads {
            by_rank,
            mut unwritten_at,
        } = self;
        let (rank, (read, with)) = by_rank
            .into_iter()
            .take(ranks)
            .enumerate()
            .find_map(|(rank, r)| r.map(|r| (rank, r)))?;
        if rank == 1 {
            if let Some(unwritten) = unwritten_at.remove(&steps[read].site) {
                return Some(unwritten);
            }
        }
        Some((read, with))
    }
}

/// Per location, the threads that wrote it and whether one other than the reader did after
/// the reader started: what ranks a read in an order violation.
#[derive(Default)]
struct Writers(HashMap<u64, (Vec<u32>, bool)>);

impl Writers {
    /// Step `i`, a write, performed.
    fn note(&mut self, s: &Step, i: usize, reader: u32, reader_start: Option<usize>) {
        let (w, after_start) = self.0.entry(s.target).or_default();
        if !w.contains(&s.thread) {
            w.push(s.thread);
        }
        *after_start |= s.thread != reader && reader_start.is_none_or(|r| i > r);
    }

    /// Whether only `reader` wrote `target` (so far).
    fn own(&self, target: u64, reader: u32) -> bool {
        self.0.get(&target).is_some_and(|(w, _)| w == &[reader])
    }

    /// A read of `target`: 0 a partial state (written by a thread `behind`), 1 shared (written
    /// by another thread after the reader started), 2 unwritten, 3 initialized.
    fn rank(&self, target: u64, behind: &[u32]) -> usize {
        match self.0.get(&target) {
            Some((w, _)) if w.iter().any(|t| behind.contains(t)) => 0,
            Some((_, true)) => 1,
            None => 2,
            Some(_) => 3,
        }
    }
}

/// When every thread had finished by the end: the failing thread's last read, of what another
/// thread wrote, made while some started thread had not yet finished (nor run out of work),
/// ranked as in [`order`], with the threads behind at that moment. A check made too early whose failure shows only after
/// the others are done (main checks the array before the last sorter ran, then prints it).
fn order_at_the_read(steps: &[Step], failing: Option<u32>) -> Option<Cause> {
    let reader = failing.or_else(|| steps.last().map(|s| s.thread))?;
    let reader_start = steps
        .iter()
        .position(|s| s.kind == OpKind::Start && s.target as u32 == reader);
    let mut started: Vec<u32> = Vec::new();
    let mut ended: Vec<u32> = Vec::new();
    let mut last_kind: HashMap<u32, OpKind> = HashMap::new();
    let mut writers = Writers::default();
    // With who was behind then.
    let mut last = LastReads::default();
    for (i, s) in steps.iter().enumerate() {
        if s.kind == OpKind::Read && s.thread == reader && !s.library {
            let idle = |t: &u32| matches!(last_kind.get(t), Some(OpKind::Park | OpKind::Wait));
            let behind: Vec<u32> = started
                .iter()
                .copied()
                .filter(|t| *t != reader && !ended.contains(t) && !idle(t))
                .collect();
            if !behind.is_empty() {
                last.note(steps, i, writers.rank(s.target, &behind), behind);
            }
        }
        match s.kind {
            OpKind::Start => started.push(s.target as u32),
            OpKind::End => ended.push(s.thread),
            OpKind::Write if !s.library => writers.note(s, i, reader, reader_start),
            _ => {}
        }
        last_kind.insert(s.thread, s.kind);
    }
    // Only a read of what another thread wrote (or one beside it): a static nobody wrote
    // (`TimeUnit.MINUTES`) read while workers were behind is no cause.
    let (read, behind) = last.cause(steps, 2)?;
    Some(Cause::Order { read, behind })
}

/// The failing thread `f`'s stale condition across locations: its last read before it waited
/// (the check), another thread's write of that location before it woke, and its first access
/// after waking, which is not a second look at the checked location (that case is a triple of
/// one location, [`atomicity`]'s).
fn stale_check(steps: &[Step], f: u32) -> Option<Cause> {
    let mine = |i: usize| steps[i].thread == f && is_access(&steps[i]);
    let wakes = (0..steps.len()).rev().filter(|&w| {
        steps[w].thread == f && matches!(steps[w].kind, OpKind::WaitReturn | OpKind::Park)
    });
    for w in wakes {
        let Some(r) = (0..w)
            .rev()
            .find(|&i| mine(i) && steps[i].kind == OpKind::Read)
        else {
            continue;
        };
        let Some(c) = (w + 1..steps.len()).find(|&i| mine(i)) else {
            continue;
        };
        if steps[c].target == steps[r].target {
            continue;
        }
        let between = (r + 1..w).rev().find(|&i| {
            let s = &steps[i];
            s.thread != f && s.target == steps[r].target && s.kind == OpKind::Write && is_access(s)
        });
        if let Some(b) = between {
            return Some(Cause::Atomicity {
                first: r,
                between: b,
                second: c,
                woke: Some(w),
            });
        }
    }
    None
}

/// How far back from a read [`stages`] looks for the failing thread's earlier read.
const STAGES_WINDOW: usize = 64;

/// The failing thread `f`'s last pair of reads of two locations that saw one of another
/// thread's two updates and not the other: either the first read saw that thread's write
/// (the last write of its location before it) and the second missed its later one (the next
/// write of its location after it), or the first read missed that thread's write (the next
/// one after it) and the second saw its later one.
fn stages(steps: &[Step], f: u32) -> Option<Cause> {
    let reads: Vec<usize> = (0..steps.len())
        .filter(|&i| steps[i].thread == f && steps[i].kind == OpKind::Read && is_access(&steps[i]))
        .collect();
    let write_of = |target: u64, i: usize| {
        let s = &steps[i];
        s.target == target && s.kind == OpKind::Write && is_access(s)
    };
    let last_before = |target: u64, at: usize| (0..at).rev().find(|&i| write_of(target, i));
    let next_after = |target: u64, at: usize| (at + 1..steps.len()).find(|&i| write_of(target, i));
    for (n, &second) in reads.iter().enumerate().rev() {
        let y = steps[second].target;
        for &first in reads[n.saturating_sub(STAGES_WINDOW)..n].iter().rev() {
            let x = steps[first].target;
            if x == y {
                continue;
            }
            let pairs = [
                (last_before(x, first), next_after(y, second)),
                (next_after(x, first), last_before(y, second)),
            ];
            for (wx, wy) in pairs {
                let (Some(wx), Some(wy)) = (wx, wy) else {
                    continue;
                };
                let writer = steps[wx].thread;
                if writer != f && steps[wy].thread == writer && wx < wy {
                    return Some(Cause::Stages {
                        writes: [wx, wy],
                        reads: [first, second],
                    });
                }
            }
        }
    }
    None
}

/// How well an unserializable triple explains a failure, larger better: (racing, its thread
/// is the one that failed, its thread preempted between, pattern, second access, access
/// between).
type TripleScore = (bool, bool, bool, u8, usize, usize);

fn atomicity(steps: &[Step], clocks: &[VectorClock], failing: Option<u32>) -> Option<Cause> {
    let by_loc = accesses_by_location(steps);
    let mut best: Option<(TripleScore, Cause)> = None;
    for list in by_loc.values() {
        let mut last_of: HashMap<u32, usize> = HashMap::new();
        // Per thread, its first read since its own last write: the check a later write acts
        // on (`if (sold < SEATS) { … sold++; }` reads afresh just before the write, so the
        // stale read is the check, not the access before the write).
        let mut check_of: HashMap<u32, usize> = HashMap::new();
        for (pos, &c) in list.iter().enumerate() {
            let t = steps[c].thread;
            let last = last_of.get(&t).copied();
            let check = check_of
                .get(&t)
                .copied()
                .filter(|&k| steps[c].kind == OpKind::Write && Some(k) != last);
            for apos in last.into_iter().chain(check) {
                let a = list[apos];
                for &b in list[apos + 1..pos].iter().rev() {
                    if steps[b].thread == t {
                        continue;
                    }
                    let (wa, wb, wc) = (
                        steps[a].kind == OpKind::Write,
                        steps[b].kind == OpKind::Write,
                        steps[c].kind == OpKind::Write,
                    );
                    // How telling each unserializable pattern is: a write based on a stale
                    // read (a lost update, a check-then-act) first, then two reads that
                    // disagree, a half-done update seen, and last a thread reading back its own
                    // write overwritten, which a loop's next iteration also shows when it reads
                    // afresh.
                    let pattern = match (wa, wb, wc) {
                        (false, true, true) => 4,
                        (false, true, false) => 3,
                        (true, false, true) => 2,
                        (true, true, false) => 1,
                        _ => 0,
                    };
                    let unserializable = pattern > 0;
                    let racing = !ordered(steps, clocks, a, b) || !ordered(steps, clocks, b, c);
                    let woke = (!racing)
                        .then(|| {
                            (a + 1..c).find(|&i| {
                                steps[i].thread == t
                                    && matches!(steps[i].kind, OpKind::WaitReturn | OpKind::Park)
                            })
                        })
                        .flatten();
                    if !unserializable || !(racing || woke.is_some()) {
                        continue;
                    }
                    let preempted = steps[a + 1..=b]
                        .iter()
                        .any(|s| s.preempted && s.thread != t);
                    let score = (racing, failing == Some(t), preempted, pattern, c, b);
                    if best.as_ref().is_none_or(|(s, _)| score > *s) {
                        best = Some((
                            score,
                            Cause::Atomicity {
                                first: a,
                                between: b,
                                second: c,
                                woke,
                            },
                        ));
                    }
                }
            }
            last_of.insert(t, pos);
            if steps[c].kind == OpKind::Write {
                check_of.remove(&t);
            } else {
                check_of.entry(t).or_insert(pos);
            }
        }
    }
    best.map(|(_, c)| c)
}

fn race(steps: &[Step], clocks: &[VectorClock]) -> Option<Cause> {
    let mut by_loc: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut best: Option<(usize, usize)> = None;
    for (i, s) in steps.iter().enumerate().filter(|(_, s)| is_access(s)) {
        let list = by_loc.entry(s.target).or_default();
        if let Some(&j) = list.iter().rev().find(|&&j| {
            let o = &steps[j];
            o.thread != s.thread
                && (o.kind == OpKind::Write || s.kind == OpKind::Write)
                && !(o.sync && s.sync)
                && !ordered(steps, clocks, j, i)
        }) {
            best = Some((j, i));
        }
        list.push(i);
    }
    best.map(|(first, second)| Cause::Race { first, second })
}

/// Who holds each monitor at the end, and the step of its outermost enter still held.
fn holders(steps: &[Step]) -> HashMap<u64, (u32, usize)> {
    // object → (owner, depth, step of the outermost enter); a waiter's depth is kept aside.
    let mut owned: HashMap<u64, (u32, u32, usize)> = HashMap::new();
    let mut saved: HashMap<(u64, u32), (u32, usize)> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        match s.kind {
            OpKind::MonitorEnter => {
                let e = owned.entry(s.target).or_insert((s.thread, 0, i));
                if e.1 == 0 {
                    *e = (s.thread, 0, i);
                }
                e.1 += 1;
            }
            OpKind::MonitorExit => {
                if let Some(e) = owned.get_mut(&s.target) {
                    e.1 = e.1.saturating_sub(1);
                }
            }
            OpKind::Wait => {
                if let Some(e) = owned.get_mut(&s.target) {
                    saved.insert((s.target, s.thread), (e.1, e.2));
                    e.1 = 0;
                }
            }
            OpKind::WaitReturn => {
                let (depth, at) = saved.remove(&(s.target, s.thread)).unwrap_or((1, i));
                owned.insert(s.target, (s.thread, depth, at));
            }
            _ => {}
        }
    }
    owned
        .into_iter()
        .filter(|(_, (_, depth, _))| *depth > 0)
        .map(|(o, (t, _, at))| (o, (t, at)))
        .collect()
}

fn deadlock_links(steps: &[Step], blocked: &[Blocked]) -> Vec<Link> {
    let held = holders(steps);
    blocked
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let (holder, taken) = match b.kind {
                OpKind::MonitorEnter => held
                    .get(&b.target)
                    .map_or((None, None), |&(t, at)| (Some(t), Some(at))),
                OpKind::Join => (Some(b.target as u32), None),
                // The initializer, when the agent knew it (else the thread itself).
                OpKind::ClassInitWait if b.target != u64::from(b.thread) => {
                    (Some(b.target as u32), None)
                }
                _ => (None, None),
            };
            Link {
                blocked: i,
                holder,
                taken,
            }
        })
        .collect()
}

/// The first cycle of links, following each blocked thread to the holder it waits for; else
/// the longest chain.
fn chain(links: &[Link], blocked: &[Blocked]) -> Vec<usize> {
    let of_thread = |t: u32| links.iter().position(|l| blocked[l.blocked].thread == t);
    let mut longest = Vec::new();
    for start in 0..links.len() {
        let mut path: Vec<usize> = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            if let Some(p) = path.iter().position(|&x| x == i) {
                return path.split_off(p);
            }
            path.push(i);
            at = links[i].holder.and_then(of_thread);
        }
        if path.len() > longest.len() {
            longest = path;
        }
    }
    longest
}

/// The last `notify` whose woken thread waited again on the same object while a thread that
/// waited there all along is blocked for ever. The woken thread is the first waiter of the
/// object at the notify to return from its wait after it.
fn wasted_notify(steps: &[Step], blocked: &[Blocked]) -> Option<Cause> {
    let stuck: Vec<(usize, &Blocked)> = blocked
        .iter()
        .enumerate()
        .filter(|(_, b)| b.kind == OpKind::WaitReturn)
        .collect();
    for (n, s) in steps.iter().enumerate().rev() {
        if s.kind != OpKind::Notify {
            continue;
        }
        let obj = s.target;
        // Threads waiting on `obj` at the notify: a wait before it, no return in between.
        let waiting = |t: u32| {
            let last = steps[..n].iter().rposition(|x| {
                x.thread == t
                    && x.target == obj
                    && matches!(x.kind, OpKind::Wait | OpKind::WaitReturn)
            });
            last.is_some_and(|i| steps[i].kind == OpKind::Wait)
        };
        let Some(woke) = (n + 1..steps.len()).find(|&i| {
            steps[i].kind == OpKind::WaitReturn
                && steps[i].target == obj
                && waiting(steps[i].thread)
        }) else {
            continue;
        };
        let w = steps[woke].thread;
        let Some(rewait) = (woke + 1..steps.len()).find(|&i| {
            steps[i].thread == w && steps[i].kind == OpKind::Wait && steps[i].target == obj
        }) else {
            continue;
        };
        // Between its return and its new wait the woken thread notified nobody.
        if steps[woke..rewait]
            .iter()
            .any(|x| x.thread == w && matches!(x.kind, OpKind::Notify | OpKind::NotifyAll))
        {
            continue;
        }
        if let Some(&(waiter, _)) = stuck
            .iter()
            .find(|(_, b)| b.target == obj && b.thread != w && waiting(b.thread))
        {
            return Some(Cause::WastedNotify {
                notify: n,
                woke,
                rewait,
                waiter,
            });
        }
    }
    None
}

/// A notify that found no waiter on an object a thread then waited on for ever, made after that
/// thread last woke from a wait on it (an earlier one was superseded by the wake-up) and
/// before its last wait, when no notify of that object came after that wait (a later one that
/// woke another waiter passed it over: a wasted notify's story, not a lost one's). Of such
/// notifies, the last.
fn missed_signal(steps: &[Step], blocked: &[Blocked]) -> Option<Cause> {
    let mut waiting: HashMap<u64, u32> = HashMap::new();
    let mut lost: Vec<usize> = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        match s.kind {
            OpKind::Wait => *waiting.entry(s.target).or_default() += 1,
            OpKind::Notify | OpKind::NotifyAll => {
                let w = waiting.entry(s.target).or_default();
                if *w == 0 {
                    lost.push(i);
                } else if s.kind == OpKind::Notify {
                    *w -= 1;
                } else {
                    *w = 0;
                }
            }
            _ => {}
        }
    }
    let notifies = |s: &Step, obj: u64| {
        matches!(s.kind, OpKind::Notify | OpKind::NotifyAll) && s.target == obj
    };
    blocked
        .iter()
        .enumerate()
        .filter(|(_, b)| b.kind == OpKind::WaitReturn)
        .find_map(|(waiter, b)| {
            let last_wait = steps
                .iter()
                .rposition(|s| {
                    s.thread == b.thread && s.kind == OpKind::Wait && s.target == b.target
                })
                .unwrap_or(steps.len());
            if steps[last_wait.min(steps.len())..]
                .iter()
                .any(|s| notifies(s, b.target))
            {
                return None;
            }
            // A wake-up before that wait superseded an earlier lost notify.
            let woken = steps[..last_wait.min(steps.len())]
                .iter()
                .rposition(|s| {
                    s.thread == b.thread && s.kind == OpKind::WaitReturn && s.target == b.target
                })
                .map_or(0, |w| w + 1);
            let notify = lost
                .iter()
                .rev()
                .copied()
                .find(|&n| (woken..last_wait).contains(&n) && steps[n].target == b.target)?;
            Some(Cause::MissedSignal {
                notify,
                waiter: Some(waiter),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(step: u64, thread: u32, kind: OpKind, target: u64) -> Step {
        Step {
            step,
            thread,
            kind,
            target,
            site: step as i64,
            preempted: false,
            library: false,
            sync: false,
        }
    }

    fn bl(thread: u32, kind: OpKind, target: u64, site: i64) -> Blocked {
        Blocked {
            thread,
            kind,
            target,
            site,
        }
    }

    fn steps(list: &[(u32, OpKind, u64)]) -> Vec<Step> {
        list.iter()
            .enumerate()
            .map(|(i, &(t, k, x))| st(i as u64 + 1, t, k, x))
            .collect()
    }

    use OpKind::*;

    #[test]
    fn a_library_s_own_accesses_are_never_the_cause() {
        // The program's lost update on 9, and a pool's state counter (8) read and written by
        // both workers around it, later: the counter's triple would win on position.
        let mut s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, Read, 9),
            (2, Read, 9),
            (2, Write, 9),
            (1, Write, 9),
            (1, Read, 8),
            (2, Write, 8),
            (1, Write, 8),
        ]);
        assert_eq!(
            explain(&s, &[], None),
            Cause::Atomicity {
                first: 6,
                between: 7,
                second: 8,
                woke: None
            }
        );
        for step in &mut s[6..9] {
            step.library = true;
        }
        assert_eq!(
            explain(&s, &[], None),
            Cause::Atomicity {
                first: 2,
                between: 4,
                second: 5,
                woke: None
            }
        );
        // With only the library's accesses left, no cause rather than a wrong one.
        let only: Vec<Step> = s.iter().filter(|x| x.target != 9).cloned().collect();
        assert!(!matches!(
            explain(&only, &[], None),
            Cause::Atomicity { .. } | Cause::Race { .. }
        ));
    }

    #[test]
    fn a_lost_update_is_the_write_between_a_read_and_its_write() {
        // t1 reads balance (9), t2 reads and writes it, t1 writes: t2's write is between.
        let mut s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, Read, 9),
            (2, Read, 9),
            (2, Write, 9),
            (1, Write, 9),
            (0, Read, 9),
        ]);
        s[3].preempted = true;
        assert_eq!(
            explain(&s, &[], None),
            Cause::Atomicity {
                first: 2,
                between: 4,
                second: 5,
                woke: None
            }
        );
    }

    #[test]
    fn a_check_then_act_is_the_check_not_the_fresh_read_before_the_write() {
        // `while (!stop) { if (sold < 3) sold++; else stop = true; }` in two threads: t2 checks
        // sold (9) at step 5, t1 sells the last seat (writes 9) and sets stop (8); t2 reads sold
        // afresh and writes it (an oversell), then reads stop. The flag's read-write-read comes
        // later, but the oversell is the write acting on the check made before t1's write.
        let mut s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, Read, 8),
            (2, Read, 8),
            (2, Read, 9),
            (1, Read, 9),
            (1, Write, 9),
            (1, Read, 8),
            (1, Write, 8),
            (2, Read, 9),
            (2, Write, 9),
            (2, Read, 8),
        ]);
        s[5].preempted = true;
        s[9].preempted = true;
        assert_eq!(
            explain(&s, &[], None),
            Cause::Atomicity {
                first: 4,
                between: 6,
                second: 10,
                woke: None
            }
        );
    }

    #[test]
    fn of_two_stale_conditions_the_failing_threads_is_named() {
        // `if (empty) wait(); take` in consumers and `if (full) wait(); put` in producers, all
        // under one monitor (5): producer t1 checks (9), waits, wakes and writes after t3's
        // write; consumer t2 checks (9), waits, wakes and reads after t3's write, then fails.
        // Both acted on a stale check; the failure is t2's.
        let s = steps(&[
            (1, MonitorEnter, 5),
            (1, Read, 9),
            (1, Wait, 5),
            (2, MonitorEnter, 5),
            (2, Read, 9),
            (2, Wait, 5),
            (3, MonitorEnter, 5),
            (3, Write, 9),
            (3, NotifyAll, 5),
            (3, MonitorExit, 5),
            (2, WaitReturn, 5),
            (2, Write, 9),
            (2, MonitorExit, 5),
            (1, WaitReturn, 5),
            (1, Write, 9),
            (1, MonitorExit, 5),
        ]);
        let named = |s: &[Step], failing| match explain(s, &[], failing) {
            Cause::Atomicity { first, .. } => s[first].thread,
            other => panic!("{other:?}"),
        };
        assert_eq!(named(&s, Some(2)), 2);
        assert_eq!(named(&s, Some(1)), 1);
        // The consumer checked the size (9) but failed reading the first node (8): its stale
        // condition spans two locations, and is still the one named.
        let mut across = s.clone();
        across[11].target = 8;
        across[11].kind = Read;
        assert_eq!(named(&across, Some(2)), 2);
        assert_eq!(
            explain(&across, &[], Some(2)),
            Cause::Atomicity {
                first: 4,
                between: 7,
                second: 11,
                woke: Some(10)
            }
        );
    }

    #[test]
    fn a_reader_that_saw_one_of_two_updates_is_named() {
        // The writer updates a (8) then b (9), each under its own lock (5, 6); the reader,
        // failing, reads a after the first update and b before the second.
        let s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, MonitorEnter, 5),
            (1, Read, 8),
            (1, Write, 8),
            (1, MonitorExit, 5),
            (2, MonitorEnter, 5),
            (2, Read, 8),
            (2, MonitorExit, 5),
            (2, MonitorEnter, 6),
            (2, Read, 9),
            (2, MonitorExit, 6),
            (1, MonitorEnter, 6),
            (1, Read, 9),
            (1, Write, 9),
            (1, MonitorExit, 6),
        ]);
        assert_eq!(
            explain(&s, &[], Some(2)),
            Cause::Stages {
                writes: [4, 14],
                reads: [7, 10]
            }
        );
        // Read a before the first update and b after the second: it saw the second only.
        let before: Vec<Step> = [&s[..2], &s[6..9], &s[2..6], &s[12..], &s[9..12]].concat();
        assert_eq!(
            explain(&before, &[], Some(2)),
            Cause::Stages {
                writes: [7, 11],
                reads: [3, 14]
            }
        );
        // Read after both updates: consistent, no such cause.
        let after: Vec<Step> = [&s[..6], &s[12..], &s[6..12]].concat();
        assert!(!matches!(
            explain(&after, &[], Some(2)),
            Cause::Stages { .. }
        ));
    }

    #[test]
    fn a_lost_update_wins_over_a_later_iteration_reading_afresh() {
        // Each thread does `c = count; count = c + 1` twice. t1 reads (3), t2 reads and
        // writes (4, 5), t1 writes (6): t2's update is lost. Later t1 runs its second
        // iteration (7, 8) and t2 reads afresh (9): t1's write between t2's write and that read
        // is a write-write-read triple too, later, but no update was lost there.
        let mut s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, Read, 9),
            (2, Read, 9),
            (2, Write, 9),
            (1, Write, 9),
            (1, Read, 9),
            (1, Write, 9),
            (2, Read, 9),
            (2, Write, 9),
            (0, Read, 9),
        ]);
        s[3].preempted = true;
        s[5].preempted = true;
        assert_eq!(
            explain(&s, &[], None),
            Cause::Atomicity {
                first: 2,
                between: 4,
                second: 5,
                woke: None
            }
        );
    }

    #[test]
    fn synchronizing_accesses_order_plain_ones_and_never_race() {
        // A lock made of a CAS'd state word (5), as java.util.concurrent's are: t1 takes it,
        // writes x (9) and releases it; t2 takes it and reads x. Plain, that is a race on x
        // and on the state word; with the state word's accesses synchronizing, neither.
        let mut s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, Write, 5),
            (1, Write, 9),
            (1, Write, 5),
            (2, Write, 5),
            (2, Read, 9),
            (2, Write, 5),
        ]);
        assert!(matches!(explain(&s, &[], None), Cause::Race { .. }));
        for i in [2, 4, 5, 7] {
            s[i].sync = true;
        }
        assert!(!matches!(explain(&s, &[], None), Cause::Race { .. }));
        // A read acquires nothing for later writes: a volatile `count++` still loses an
        // update between a read and a write.
        let mut inc = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, Read, 7),
            (2, Read, 7),
            (2, Write, 7),
            (1, Write, 7),
        ]);
        for step in &mut inc[2..] {
            step.sync = true;
        }
        assert_eq!(
            explain(&inc, &[], None),
            Cause::Atomicity {
                first: 2,
                between: 4,
                second: 5,
                woke: None
            }
        );
    }

    #[test]
    fn accesses_ordered_by_a_lock_do_not_race() {
        // Both updates inside the same monitor (obj 5): nothing races; the main thread's
        // final read after joins is ordered too.
        let s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, MonitorEnter, 5),
            (1, Read, 9),
            (1, Write, 9),
            (1, MonitorExit, 5),
            (2, MonitorEnter, 5),
            (2, Read, 9),
            (2, Write, 9),
            (2, MonitorExit, 5),
            (1, End, 1),
            (2, End, 2),
            (0, Join, 1),
            (0, Join, 2),
            (0, Read, 9),
        ]);
        assert_eq!(explain(&s, &[], None), Cause::Unknown);
    }

    #[test]
    fn an_unlocked_writer_races_with_a_locked_reader() {
        // t2 writes without the lock t1 holds: a race, and the pair is t1's read then t2's write.
        let s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, MonitorEnter, 5),
            (1, Read, 9),
            (1, MonitorExit, 5),
            (2, Write, 9),
        ]);
        assert_eq!(
            explain(&s, &[], None),
            Cause::Race {
                first: 3,
                second: 5
            }
        );
    }

    #[test]
    fn the_preempted_triple_wins_over_a_later_one() {
        let mut s = steps(&[
            (1, Read, 9),
            (2, Write, 9),
            (1, Write, 9),
            (1, Read, 7),
            (2, Write, 7),
            (1, Read, 7),
        ]);
        s[1].preempted = true;
        assert_eq!(
            explain(&s, &[], None),
            Cause::Atomicity {
                first: 0,
                between: 1,
                second: 2,
                woke: None
            }
        );
    }

    #[test]
    fn a_deadlock_names_each_holder_and_where_it_took_the_lock() {
        let s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, MonitorEnter, 3),
            (1, MonitorEnter, 3),
            (1, MonitorExit, 3),
            (2, MonitorEnter, 4),
        ]);
        let blocked = [
            bl(1, MonitorEnter, 4, 70),
            bl(2, MonitorEnter, 3, 80),
            bl(0, Join, 1, 90),
        ];
        assert_eq!(
            explain(&s, &blocked, None),
            Cause::Deadlock {
                chain: vec![0, 1],
                links: vec![
                    Link {
                        blocked: 0,
                        holder: Some(2),
                        taken: Some(5)
                    },
                    Link {
                        blocked: 1,
                        holder: Some(1),
                        taken: Some(2)
                    },
                    Link {
                        blocked: 2,
                        holder: Some(1),
                        taken: None
                    },
                ]
            }
        );
    }

    #[test]
    fn a_notify_before_the_wait_is_a_missed_signal() {
        let s = steps(&[
            (1, MonitorEnter, 3),
            (1, Notify, 3),
            (1, MonitorExit, 3),
            (2, MonitorEnter, 3),
            (2, Wait, 3),
        ]);
        let blocked = [bl(2, WaitReturn, 3, 50)];
        assert_eq!(
            explain(&s, &blocked, None),
            Cause::MissedSignal {
                notify: 1,
                waiter: Some(0)
            }
        );
        // A notify that woke a waiter is no missed signal: the deadlock is the answer then.
        let s = steps(&[
            (2, MonitorEnter, 3),
            (2, Wait, 3),
            (1, MonitorEnter, 3),
            (1, Notify, 3),
            (1, MonitorExit, 3),
            (2, WaitReturn, 3),
            (2, Wait, 3),
        ]);
        assert!(matches!(
            explain(&s, &blocked, None),
            Cause::Deadlock { .. }
        ));
    }

    #[test]
    fn acting_on_a_condition_checked_before_a_wait_is_named_with_the_wake_up() {
        // t1 reads count (9) under the lock, waits, t2 writes count and notifies, t1 wakes and
        // writes count: everything is ordered by the monitor (5), yet t1's check is stale.
        let s = steps(&[
            (1, MonitorEnter, 5),
            (1, Read, 9),
            (1, Wait, 5),
            (2, MonitorEnter, 5),
            (2, Write, 9),
            (2, Notify, 5),
            (2, MonitorExit, 5),
            (1, WaitReturn, 5),
            (1, Write, 9),
        ]);
        assert_eq!(
            explain(&s, &[], Some(1)),
            Cause::Atomicity {
                first: 1,
                between: 4,
                second: 8,
                woke: Some(7)
            }
        );
    }

    #[test]
    fn acting_on_a_condition_checked_before_a_park_is_named_with_the_wake_up() {
        // `Condition.await` parks: t1 reads items (9), hands the lock on (unparks t2) and
        // parks; t2 takes the item and unparks t1, which takes one too. Ordered by the permits,
        // yet t1's check is stale.
        let s = steps(&[
            (1, Read, 9),
            (1, Unpark, 2),
            (2, Park, 2),
            (2, Write, 9),
            (2, Unpark, 1),
            (1, Park, 1),
            (1, Write, 9),
        ]);
        assert_eq!(
            explain(&s, &[], Some(1)),
            Cause::Atomicity {
                first: 0,
                between: 3,
                second: 6,
                woke: Some(5)
            }
        );
    }

    /// Producers and consumers of one slot with `notify`: the first put's notify found nobody
    /// waiting, which harmed nothing (later notifies passed the consumer over, t1 never
    /// waited before it). The lost notify is no cause; the wasted one is.
    #[test]
    fn a_lost_notify_followed_by_others_is_no_missed_signal() {
        let s = steps(&[
            (1, MonitorEnter, 3),
            (1, Notify, 3), // put, nobody waits: harmless
            (1, MonitorExit, 3),
            (2, MonitorEnter, 3),
            (2, Wait, 3), // a consumer waits
            (4, MonitorEnter, 3),
            (4, Wait, 3), // a producer waits (the slot is full)
            (3, MonitorEnter, 3),
            (3, Notify, 3), // the other consumer takes and notifies: wakes the consumer
            (3, MonitorExit, 3),
            (2, WaitReturn, 3),
            (2, Read, 9),
            (2, Wait, 3), // the slot is empty: waits again
        ]);
        let blocked = [bl(2, WaitReturn, 3, 0), bl(4, WaitReturn, 3, 0)];
        assert_eq!(
            explain(&s, &blocked, None),
            Cause::WastedNotify {
                notify: 8,
                woke: 10,
                rewait: 12,
                waiter: 1
            }
        );
    }

    #[test]
    fn a_notify_that_woke_a_thread_which_waited_again_was_wasted() {
        // Consumer t1 and producer t2 wait on the buffer (3); consumer t3 notifies, which wakes
        // t1 (another consumer), which waits again: t2 waits for ever.
        let s = steps(&[
            (1, MonitorEnter, 3),
            (1, Wait, 3),
            (2, MonitorEnter, 3),
            (2, Wait, 3),
            (3, MonitorEnter, 3),
            (3, Notify, 3),
            (3, MonitorExit, 3),
            (1, WaitReturn, 3),
            (1, Read, 9),
            (1, Wait, 3),
        ]);
        let blocked = [bl(1, WaitReturn, 3, 0), bl(2, WaitReturn, 3, 0)];
        assert_eq!(
            explain(&s, &blocked, None),
            Cause::WastedNotify {
                notify: 5,
                woke: 7,
                rewait: 9,
                waiter: 1
            }
        );
    }

    #[test]
    fn a_wrong_wake_up_explains_more_than_a_notify_before_the_waiter_ran() {
        use OpKind::*;
        // Producer t1 notifies the empty buffer (3) before consumer t4 ever ran; producer t2
        // and consumer t3 wait; consumer t4 starts, notifies, which wakes t3 (a consumer),
        // which waits again; t2 and t4 wait for ever. The early notify is no one's loss: the
        // waiters check in a loop. (Taken as the cause until the wasted notify came first.)
        let s = steps(&[
            (1, MonitorEnter, 3),
            (1, Notify, 3),
            (1, MonitorExit, 3),
            (2, MonitorEnter, 3),
            (2, Wait, 3),
            (3, MonitorEnter, 3),
            (3, Wait, 3),
            (4, Begin, 4),
            (4, MonitorEnter, 3),
            (4, Notify, 3),
            (4, Wait, 3),
            (3, WaitReturn, 3),
            (3, Read, 9),
            (3, Wait, 3),
        ]);
        let blocked = [
            bl(2, WaitReturn, 3, 0),
            bl(3, WaitReturn, 3, 0),
            bl(4, WaitReturn, 3, 0),
        ];
        assert_eq!(
            explain(&s, &blocked, None),
            Cause::WastedNotify {
                notify: 9,
                woke: 11,
                rewait: 13,
                waiter: 0
            }
        );
        // Had t4 run before that notify, it would be the missed signal it is.
        let mut early = s.clone();
        early.insert(0, early[7].clone());
        early.remove(8);
        assert!(matches!(
            explain(&early, &blocked, None),
            Cause::MissedSignal { notify: 2, .. }
        ));
    }

    #[test]
    fn a_check_before_the_last_thread_ran_is_named_when_all_finished() {
        use OpKind::*;
        // main starts two sorters, joins only the first, checks the array (5) under its lock
        // (6), then the second sorter runs and ends, and main reads the array again to print
        // it: no race, every thread done at the end, the check came too early.
        let s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (1, MonitorEnter, 6),
            (1, Write, 5),
            (1, MonitorExit, 6),
            (1, End, 1),
            (0, Join, 1),
            (0, MonitorEnter, 6),
            (0, Read, 5),
            (0, MonitorExit, 6),
            (2, MonitorEnter, 6),
            (2, Write, 5),
            (2, MonitorExit, 6),
            (2, End, 2),
            (0, MonitorEnter, 6),
            (0, Read, 5),
            (0, MonitorExit, 6),
        ]);
        assert_eq!(
            explain(&s, &[], Some(0)),
            Cause::Order {
                read: 8,
                behind: vec![2]
            }
        );
    }

    #[test]
    fn a_check_and_an_act_in_two_synchronized_calls_are_named_by_their_accesses() {
        use OpKind::*;
        // t1: balance() reads 9 under monitor 5, then debit() reads and writes it in a new
        // section; t2's debit runs between the two.
        let s = steps(&[
            (1, MonitorEnter, 5),
            (1, Read, 9),
            (1, MonitorExit, 5),
            (2, MonitorEnter, 5),
            (2, Read, 9),
            (2, Write, 9),
            (2, MonitorExit, 5),
            (1, MonitorEnter, 5),
            (1, Read, 9),
            (1, Write, 9),
            (1, MonitorExit, 5),
        ]);
        assert_eq!(
            explain(&s, &[], Some(0)),
            Cause::Atomicity {
                first: 1,
                between: 5,
                second: 9,
                woke: None
            }
        );
        // One section holding the check and the act: the other thread's comes before or
        // after, never between; nothing to name.
        let whole = steps(&[
            (1, MonitorEnter, 5),
            (1, Read, 9),
            (1, Write, 9),
            (1, MonitorExit, 5),
            (2, MonitorEnter, 5),
            (2, Read, 9),
            (2, Write, 9),
            (2, MonitorExit, 5),
        ]);
        assert_eq!(explain(&whole, &[], Some(0)), Cause::Unknown);
    }

    #[test]
    fn a_check_and_an_act_in_two_lock_sections_are_named() {
        use OpKind::*;
        // t1 checks and acts on a table in two sections; t2's section comes between.
        let mut list = steps(&[
            (1, MonitorEnter, 5),
            (1, MonitorExit, 5),
            (2, MonitorEnter, 5),
            (2, MonitorExit, 5),
            (2, MonitorEnter, 5),
            (2, MonitorExit, 5),
            (1, MonitorEnter, 5),
            (1, MonitorExit, 5),
        ]);
        list[2].preempted = true;
        assert_eq!(
            explain(&list, &[], Some(0)),
            Cause::LockSections {
                first: 0,
                between: 4,
                second: 6
            }
        );
        // Sections that hold accesses are explained by them when they can be, else by the
        // sections, last of all (here the read explains nothing).
        let mut with_data = list.clone();
        with_data.insert(1, st(2, 1, Read, 9));
        assert_eq!(
            explain(&with_data, &[], Some(0)),
            Cause::LockSections {
                first: 0,
                between: 5,
                second: 7
            }
        );
        // Sections of one thread only, or nested enters: nothing to name.
        let alone = steps(&[
            (1, MonitorEnter, 5),
            (1, MonitorEnter, 5),
            (1, MonitorExit, 5),
            (1, MonitorExit, 5),
            (1, MonitorEnter, 5),
            (1, MonitorExit, 5),
        ]);
        assert_eq!(explain(&alone, &[], Some(0)), Cause::Unknown);
    }

    #[test]
    fn idle_pool_workers_are_not_behind() {
        // A worker wrote 9 under lock 7 and went back to waiting for work (park); main reads 9
        // under the lock and fails: the worker had run out of work, no order is violated.
        let s = steps(&[
            (0, Start, 1),
            (1, MonitorEnter, 7),
            (1, Write, 9),
            (1, MonitorExit, 7),
            (1, Park, 1),
            (0, MonitorEnter, 7),
            (0, Read, 9),
            (0, MonitorExit, 7),
        ]);
        assert_eq!(explain(&s, &[], Some(0)), Cause::Unknown);
        // A worker still running (its last step not a park) is behind.
        let running: Vec<Step> = s.iter().filter(|x| x.kind != Park).cloned().collect();
        assert_eq!(
            explain(&running, &[], Some(0)),
            Cause::Order {
                read: 5,
                behind: vec![1]
            }
        );
    }

    #[test]
    fn a_read_of_what_only_the_reader_wrote_is_no_order_violation() {
        // A test sets its own config (9), starts a thread (1) that never touches it, reads the
        // config and fails because thread 1 had not run: the read says nothing about the order.
        let s = steps(&[(0, Write, 9), (0, Start, 1), (0, Read, 9)]);
        assert!(
            !matches!(explain(&s, &[], Some(0)), Cause::Order { .. }),
            "{:?}",
            explain(&s, &[], Some(0))
        );
    }

    #[test]
    fn a_read_before_a_started_thread_ran_is_an_order_violation() {
        // main sets the worker's registry field (9), starts the loader (1) and a worker (2); the
        // worker reads its field, then the registry's contents (8) before the loader filled
        // them: the read of 8 saw the default value, the read of 9 what main had set.
        let s = steps(&[
            (0, Write, 9),
            (0, Start, 1),
            (0, Start, 2),
            (2, Read, 9),
            (2, Read, 8),
            (2, Read, 9),
        ]);
        assert_eq!(
            explain(&s, &[], Some(2)),
            Cause::Order {
                read: 4,
                behind: vec![1]
            }
        );
        // With nothing unwritten, the last read of what another thread wrote.
        let mut all_set = s.clone();
        all_set.insert(0, st(9, 0, Write, 8));
        assert_eq!(
            explain(&all_set, &[], Some(2)),
            Cause::Order {
                read: 6,
                behind: vec![1]
            }
        );
        // main checks an array a finished sorter wrote (5) before the second sorter ran, then
        // reads a static nobody wrote in the execution (4, System.out): the array is named.
        let check = steps(&[
            (0, Start, 1),
            (1, MonitorEnter, 6),
            (1, Write, 5),
            (1, MonitorExit, 6),
            (1, End, 1),
            (0, Start, 2),
            (0, Join, 1),
            (0, Read, 5),
            (0, Read, 4),
        ]);
        assert_eq!(
            explain(&check, &[], Some(0)),
            Cause::Order {
                read: 7,
                behind: vec![2]
            }
        );
        // A read of what the loader had begun to write (under the registry's lock, so no race)
        // comes first: a partial state.
        let mut partial = s.clone();
        for (at, (thread, kind, target)) in [
            (1, MonitorEnter, 6),
            (1, Write, 7),
            (1, MonitorExit, 6),
            (2, MonitorEnter, 6),
            (2, Read, 7),
            (2, MonitorExit, 6),
        ]
        .into_iter()
        .enumerate()
        {
            partial.insert(3 + at, st(9, thread, kind, target));
        }
        assert_eq!(
            explain(&partial, &[], Some(2)),
            Cause::Order {
                read: 7,
                behind: vec![1]
            }
        );
        // Once the loader has finished there is nobody behind.
        let mut done = s.clone();
        done.insert(3, st(4, 1, End, 1));
        assert_eq!(explain(&done, &[], Some(2)), Cause::Unknown);
    }

    #[test]
    fn a_slot_nobody_wrote_read_beside_written_ones_is_the_cause() {
        // Three workers each fill a slot (5, 6, 7) and count a latch down (9); main, let go
        // after two counts, sums the slots in one loop (site 40): slot 7's worker had not
        // run, so the read of 7 is the cause, not the later read of 6 (written by a worker
        // after main started them).
        let mut s = steps(&[
            (0, Start, 1),
            (0, Start, 2),
            (0, Start, 3),
            (1, Write, 5),
            (1, Write, 9),
            (1, End, 1),
            (2, Write, 6),
            (2, Write, 9),
            (2, End, 2),
            (0, Read, 9),
            (0, Read, 5),
            (0, Read, 7),
            (0, Read, 6),
        ]);
        for x in &mut s {
            x.sync = x.target == 9;
        }
        for x in &mut s[10..13] {
            x.site = 40;
        }
        assert_eq!(
            explain(&s, &[], Some(0)),
            Cause::Order {
                read: 11,
                behind: vec![3]
            }
        );
        // Read elsewhere, a location nobody wrote (a JDK static) does not outrank the slot.
        s[11].site = 41;
        assert_eq!(
            explain(&s, &[], Some(0)),
            Cause::Order {
                read: 12,
                behind: vec![3]
            }
        );
    }

    #[test]
    fn a_start_orders_the_parents_earlier_writes() {
        // main writes, then starts t1, which reads: ordered, no race; t1's write after main's
        // later read is a race.
        let s = steps(&[
            (0, Write, 9),
            (0, Start, 1),
            (1, Read, 9),
            (0, Read, 9),
            (1, Write, 9),
        ]);
        assert_eq!(
            explain(&s, &[], None),
            Cause::Race {
                first: 3,
                second: 4
            }
        );
    }
}
