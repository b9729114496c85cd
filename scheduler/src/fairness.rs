//! Fairness and livelock evidence, the same for every strategy.
//!
//! A strategy that always runs the highest-priority thread (PCT, RankChecker) can keep a thread
//! that busy-waits on a flag (`while (!done) {}`, with or without `Thread.yield()`) running for
//! ever and never let the thread that would set the flag run; a program that ends under every
//! fair scheduler must end under rankcheck too. The papers prescribe lowering a thread that keeps
//! yielding; this module generalises that to every strategy at once, in the model: a thread that
//! **spins** — re-reads the few locations it already read, yields, sleeps or asks for its
//! interrupt flag, [`SPIN_LIMIT`] times, while nobody writes what it reads — is taken out of the
//! strategy's choice whenever a thread that does not spin is enabled. It comes back as soon as
//! anything it reads is written (or any thread does anything else that may change what it sees),
//! and as soon as its next step reads a location written since its spin began: a thread whose
//! checks the model did not see (reads of an object only it had used, which are no scheduling
//! points) spins on its sleeps alone, and the write it waits for lands where it had not read yet.
//!
//! The same bookkeeping is the evidence of a livelock: when every enabled thread spins, and goes
//! on spinning for a whole window of steps ([`Config::livelock_window`](crate::Config)) with no
//! write or synchronization anywhere, no thread can ever see anything new: the execution is a
//! livelock, reported with the sites the threads spin at. Reaching the step bound without such
//! evidence is *not* a livelock (the agent reports it as "too long", never as a bug).
//!
//! Time is virtual, so a timed wait may time out whenever the strategy likes; a thread that keeps
//! timing out ([`TIMEOUT_LIMIT`] times with no other thread running in between: a
//! `while (!pool.awaitTermination(…))` loop) spins too, even though the lock it takes around each
//! wait writes, and gives way in the same way until another thread has run. It does not count
//! as spinning where only timeouts are weighed (`Timeouts::Idle`: [`Fairness::spinning_on_reads`]):
//! its timeouts move virtual time on, and its next step may need none.
//!
//! A thread that sleeps or yields [`PAUSE_LIMIT`] times with no other thread running in between
//! gives way too, until another thread has run, however much it writes between its pauses: a
//! monitor thread that dumps every thread's state and sleeps, for ever, would otherwise keep a
//! priority strategy on itself while the threads the program waits for never run (on a machine
//! they run while it sleeps). Pausing is no evidence of a livelock: a thread that pauses alone
//! goes on.
//!
//! A thread that reads more than [`SPIN_LOCATIONS`] distinct locations between its own writes is
//! scanning (summing an array, walking a list), not spinning. Writes are progress even when they
//! write the value already there: without values the model cannot tell, so a livelock whose
//! threads keep writing is not recognised (it ends at the step bound, "too long"). A failed
//! compare-and-set, announced as a write at its entry, is a read once the agent reports how it
//! ended ([`Fairness::cas_failed`]): a write takes effect at the next step, not before.
//!
//! Nothing here decides which thread runs among those offered; that is the strategy's.

use crate::ids::{Loc, SiteId, ThreadId};
use crate::op::Op;
use crate::strategy::Candidate;
use rustc_hash::FxHashMap;

/// Spin steps after which a thread gives way to threads that do not spin (RankChecker's yield
/// rule uses the same number).
pub const SPIN_LIMIT: u32 = 100;

/// Timeouts in a row, with no other thread running in between, after which a thread gives way.
pub const TIMEOUT_LIMIT: u32 = 3;

/// Sleeps and yields in a row, with no other thread running in between, after which a thread
/// gives way.
pub const PAUSE_LIMIT: u32 = 10;

/// Distinct locations a spinning thread may read between its own writes.
pub const SPIN_LOCATIONS: usize = 8;

/// Sites remembered per spinning thread, for the livelock report.
const SPIN_SITES: usize = 8;

/// One thread's spin state since its last write (or other effect).
#[derive(Clone, Debug, Default)]
struct Spin {
    /// Locations read since the last effect (at most [`SPIN_LOCATIONS`]).
    reads: Vec<Loc>,
    /// Spin steps since the last effect.
    count: u32,
    /// [`Fairness::writes`] at the last effect: a read of a location written later sees
    /// something new.
    since: u64,
    /// Sites of the spin steps (at most [`SPIN_SITES`], first seen first).
    sites: Vec<SiteId>,
    /// Timeouts in a row during the run of this thread that began at switch `timeout_epoch`.
    timeouts: u32,
    timeout_epoch: u64,
    /// Sleeps and yields during the run of this thread that began at switch `pause_epoch`.
    pauses: u32,
    pause_epoch: u64,
}

impl Spin {
    fn reset(&mut self, writes: u64) {
        self.reads.clear();
        self.count = 0;
        self.sites.clear();
        self.since = writes;
    }

    fn spun(&mut self, site: Option<SiteId>) {
        self.count = self.count.saturating_add(1);
        if let Some(s) = site {
            if self.sites.len() < SPIN_SITES && !self.sites.contains(&s) {
                self.sites.push(s);
            }
        }
    }

    fn spinning(&self) -> bool {
        self.count >= SPIN_LIMIT
    }
}

/// Counts one more event of the run that began at switch `switches`: `count` goes on when
/// `epoch` is that run, else starts again at 1.
fn count_in_run(count: &mut u32, epoch: &mut u64, switches: u64) {
    if *epoch == switches {
        *count = count.saturating_add(1);
    } else {
        *count = 1;
        *epoch = switches;
    }
}

/// What the model should do with the enabled threads at one scheduling point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Offer every enabled thread.
    All,
    /// Offer only the threads that neither spin nor give way after pausing.
    WithoutSpinners,
    /// Every enabled thread has spun for the whole window: each with the sites it spins at.
    Livelock(Vec<(ThreadId, Vec<SiteId>)>),
}

/// The spin state of every thread of one execution.
#[derive(Clone, Debug, Default)]
pub struct Fairness {
    threads: Vec<Spin>,
    /// The step since which every enabled thread has been spinning.
    all_spinning_since: Option<u64>,
    /// The thread that performed the last step, and how many times the performing thread has
    /// changed (a switch starts a new run).
    last: Option<ThreadId>,
    switches: u64,
    /// The last write, not yet applied: a compare-and-set announces a write at its entry and
    /// may turn out to have written nothing ([`Fairness::cas_failed`]), which is a read.
    pending: Option<(ThreadId, Loc, SiteId)>,
    /// Writes applied so far in this execution, and when each location was last written (its
    /// count then).
    writes: u64,
    last_write: FxHashMap<Loc, u64>,
}

impl Fairness {
    /// Forgets everything (a new execution).
    pub fn clear(&mut self) {
        self.threads.clear();
        self.all_spinning_since = None;
        self.last = None;
        self.switches = 0;
        self.pending = None;
        self.writes = 0;
        self.last_write.clear();
    }

    fn slot(&mut self, t: ThreadId) -> &mut Spin {
        if self.threads.len() <= t.index() {
            self.threads.resize_with(t.index() + 1, Spin::default);
        }
        &mut self.threads[t.index()]
    }

    /// Whether `t` spins (and gives way to threads that do not).
    pub fn spinning(&self, t: ThreadId) -> bool {
        self.spinning_on_reads(t)
            || self
                .threads
                .get(t.index())
                .is_some_and(|s| s.timeouts >= TIMEOUT_LIMIT && s.timeout_epoch == self.switches)
    }

    /// Whether the enabled thread `c` gives way to threads that do not: it spins and its next
    /// step reads nothing new, or it paused [`PAUSE_LIMIT`] times since another thread last
    /// ran.
    pub fn gives_way(&self, c: &Candidate) -> bool {
        self.spins_at(c) || self.paused(c.thread)
    }

    /// Whether the enabled thread `c` spins and its next step goes on spinning: it does not read
    /// a location written since its spin began.
    fn spins_at(&self, c: &Candidate) -> bool {
        self.spinning(c.thread) && !self.reads_something_new(c)
    }

    /// As [`Fairness::spinning_on_reads`], for an enabled thread at its next step.
    pub fn spins_on_reads_at(&self, c: &Candidate) -> bool {
        self.spinning_on_reads(c.thread) && !self.reads_something_new(c)
    }

    /// Whether `c`'s next step reads a location written since `c`'s spin began.
    fn reads_something_new(&self, c: &Candidate) -> bool {
        match c.op {
            Op::Access {
                loc, write: false, ..
            } => {
                self.written_since_spin(c.thread, loc)
                    || self
                        .pending
                        .is_some_and(|(w, l, _)| l == loc && w != c.thread)
            }
            _ => false,
        }
    }

    /// Whether `loc` was written after `t`'s spin began.
    fn written_since_spin(&self, t: ThreadId, loc: Loc) -> bool {
        let since = self.threads.get(t.index()).map_or(0, |s| s.since);
        self.last_write.get(&loc).is_some_and(|&w| w > since)
    }

    fn paused(&self, t: ThreadId) -> bool {
        self.threads
            .get(t.index())
            .is_some_and(|s| s.pauses >= PAUSE_LIMIT && s.pause_epoch == self.switches)
    }

    /// Whether `t` spins by re-reading, yielding or asking for its state, not by timing out:
    /// a thread that keeps timing out moves virtual time on, and its next operation may need
    /// no time at all (a poller's `countDown` after its third `parkNanos`), so it does not let
    /// another thread's later timeout fire first (`Timeouts::Idle`).
    pub fn spinning_on_reads(&self, t: ThreadId) -> bool {
        self.threads.get(t.index()).is_some_and(|s| {
            let written = self
                .pending
                .is_some_and(|(w, loc, _)| w == t || s.reads.contains(&loc));
            s.spinning() && !written
        })
    }

    /// The write `t` last performed, announced at `site`, was a compare-and-set that failed:
    /// it wrote nothing, so it counts as a read (a spin lock's waiter spins). The site names
    /// the write: the agent does not know every compare-and-set's location (a VarHandle's is
    /// worked out in Java), but it knows where the write was announced.
    pub fn cas_failed(&mut self, t: ThreadId, site: SiteId) {
        if let Some((w, loc, s)) = self.pending {
            if (w, s) == (t, site) {
                self.pending = None;
                self.read(t, loc, site);
            }
        }
    }

    /// `t` read `loc` with no step of its own ([`Execution::read_unseen`](crate::Execution)):
    /// one more location it reads, not a spin step.
    pub fn read_unseen(&mut self, t: ThreadId, loc: Loc) {
        let me = self.slot(t);
        if !me.reads.contains(&loc) && me.reads.len() < SPIN_LOCATIONS {
            me.reads.push(loc);
        }
    }

    /// Applies the pending write: progress for its thread and for every thread that read it.
    fn flush(&mut self) {
        if let Some((t, loc, _)) = self.pending.take() {
            self.writes += 1;
            let writes = self.writes;
            self.last_write.insert(loc, writes);
            self.slot(t).reset(writes);
            for s in &mut self.threads {
                if s.reads.contains(&loc) {
                    s.reset(writes);
                }
            }
        }
    }

    fn read(&mut self, t: ThreadId, loc: Loc, site: SiteId) {
        let fresh = self.written_since_spin(t, loc);
        let writes = self.writes;
        let me = self.slot(t);
        if fresh {
            // A value written since the spin began: what it sees may be new.
            me.reset(writes);
            me.reads.push(loc);
        } else if me.reads.contains(&loc) {
            me.spun(Some(site));
        } else if me.reads.len() < SPIN_LOCATIONS {
            me.reads.push(loc);
        } else {
            // Scanning many locations is progress.
            me.reset(writes);
        }
    }

    /// `t` performed `op`; `timed_out`: it returned because its timeout fired.
    pub fn performed(&mut self, t: ThreadId, op: &Op, timed_out: bool) {
        self.flush();
        if self.last != Some(t) {
            self.last = Some(t);
            self.switches += 1;
        }
        let switches = self.switches;
        if timed_out {
            let me = self.slot(t);
            count_in_run(&mut me.timeouts, &mut me.timeout_epoch, switches);
        }
        if op.is_yield_like() {
            let me = self.slot(t);
            count_in_run(&mut me.pauses, &mut me.pause_epoch, switches);
        }
        match *op {
            Op::Access {
                loc,
                write: false,
                site,
                ..
            } => self.read(t, loc, site),
            Op::Access {
                loc,
                write: true,
                site,
                ..
            } => self.pending = Some((t, loc, site)),
            Op::Yield { site }
            | Op::Sleep { site, .. }
            | Op::Interrupted { site, .. }
            | Op::IsInterrupted { site, .. }
            | Op::ThreadStatus { site, .. }
            | Op::LiveThreads { site }
            | Op::Park {
                timed: true, site, ..
            } => self.slot(t).spun(Some(site)),
            // Taking and releasing a monitor around a check is part of a spin, and a new thread
            // has not spun yet.
            Op::MonitorEnter { .. } | Op::MonitorExit { .. } | Op::Begin => {}
            // Anything else may change what every thread sees.
            _ => {
                let writes = self.writes;
                for s in &mut self.threads {
                    s.reset(writes);
                }
            }
        }
    }

    /// What to offer the strategy among `enabled` (non-empty) at step `step`, given the
    /// livelock window.
    pub fn verdict(&mut self, enabled: &[Candidate], step: u64, window: u64) -> Verdict {
        self.flush();
        let giving_way = enabled.iter().filter(|c| self.gives_way(c)).count();
        if giving_way == 0 {
            self.all_spinning_since = None;
            return Verdict::All;
        }
        if giving_way < enabled.len() {
            self.all_spinning_since = None;
            return Verdict::WithoutSpinners;
        }
        if enabled.iter().any(|c| !self.spins_at(c)) {
            // Every enabled thread gives way, some only after pausing: no livelock evidence.
            self.all_spinning_since = None;
            return Verdict::All;
        }
        let since = *self.all_spinning_since.get_or_insert(step);
        if step.saturating_sub(since) < window {
            return Verdict::All;
        }
        Verdict::Livelock(
            enabled
                .iter()
                .map(|c| (c.thread, self.threads[c.thread.index()].sites.clone()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VarId;
    use crate::strategy::Via;

    fn read(loc: u64) -> Op {
        Op::Access {
            loc: Loc(loc),
            var: VarId::UNKNOWN,
            write: false,
            site: 10 + loc as SiteId,
        }
    }

    fn write(loc: u64) -> Op {
        Op::Access {
            loc: Loc(loc),
            var: VarId::UNKNOWN,
            write: true,
            site: 20,
        }
    }

    fn candidate(t: u32) -> Candidate {
        Candidate {
            thread: ThreadId(t),
            op: read(1),
            via: Via::Ready,
            yields: 0,
        }
    }

    #[test]
    fn a_thread_rereading_one_flag_spins_until_someone_writes_it() {
        let mut f = Fairness::default();
        let (spinner, setter) = (ThreadId(1), ThreadId(2));
        for _ in 0..=SPIN_LIMIT {
            f.performed(spinner, &read(7), false);
        }
        assert!(f.spinning(spinner));
        assert!(!f.spinning(setter));
        let both = [candidate(1), candidate(2)];
        assert_eq!(f.verdict(&both, 500, 1000), Verdict::WithoutSpinners);
        // A write elsewhere does not help; a write of the flag does.
        f.performed(setter, &write(8), false);
        assert!(f.spinning(spinner));
        f.performed(setter, &write(7), false);
        assert!(!f.spinning(spinner));
        assert_eq!(f.verdict(&both, 501, 1000), Verdict::All);
    }

    #[test]
    fn a_failed_compare_and_set_is_a_read_and_a_spin_lock_waiter_spins() {
        let mut f = Fairness::default();
        let (waiter, holder) = (ThreadId(1), ThreadId(2));
        for _ in 0..=SPIN_LIMIT {
            f.performed(waiter, &write(7), false);
            f.cas_failed(waiter, 20);
        }
        assert!(f.spinning(waiter));
        let both = [candidate(1), candidate(2)];
        assert_eq!(f.verdict(&both, 500, 1000), Verdict::WithoutSpinners);
        // A failure reported for another site, or by another thread, changes nothing.
        f.performed(waiter, &write(7), false);
        f.cas_failed(holder, 20);
        f.cas_failed(waiter, 21);
        assert!(!f.spinning(waiter), "that write wrote");
        // The holder's release writes the lock: the waiter may try again.
        for _ in 0..=SPIN_LIMIT {
            f.performed(waiter, &write(7), false);
            f.cas_failed(waiter, 20);
        }
        assert!(f.spinning(waiter));
        f.performed(holder, &write(7), false);
        assert!(!f.spinning(waiter));
        assert_eq!(f.verdict(&both, 501, 1000), Verdict::All);
    }

    #[test]
    fn yields_count_and_scanning_is_progress() {
        let mut f = Fairness::default();
        let t = ThreadId(0);
        for _ in 0..SPIN_LIMIT {
            f.performed(t, &Op::Yield { site: 3 }, false);
        }
        assert!(f.spinning(t));
        f.performed(t, &write(1), false);
        assert!(!f.spinning(t));
        for i in 0..10 * SPIN_LIMIT as u64 {
            f.performed(t, &read(i), false);
        }
        assert!(!f.spinning(t), "reading ever new locations is no spin");
    }

    #[test]
    fn livelock_only_after_every_enabled_thread_spun_a_whole_window() {
        let mut f = Fairness::default();
        for t in [ThreadId(0), ThreadId(1)] {
            for _ in 0..SPIN_LIMIT {
                f.performed(
                    t,
                    &Op::Yield {
                        site: 5 + t.0 as SiteId,
                    },
                    false,
                );
            }
        }
        let both = [candidate(0), candidate(1)];
        assert_eq!(f.verdict(&both, 1000, 50), Verdict::All);
        assert_eq!(f.verdict(&both, 1049, 50), Verdict::All);
        assert_eq!(
            f.verdict(&both, 1050, 50),
            Verdict::Livelock(vec![(ThreadId(0), vec![5]), (ThreadId(1), vec![6])])
        );
        // Any synchronization resets the evidence.
        f.performed(
            ThreadId(0),
            &Op::Notify {
                obj: crate::ids::ObjId(1),
                all: true,
                site: 9,
            },
            false,
        );
        assert_eq!(f.verdict(&both, 1051, 50), Verdict::All);
    }

    #[test]
    fn a_thread_that_keeps_timing_out_gives_way_until_another_ran() {
        let mut f = Fairness::default();
        let (main, worker) = (ThreadId(0), ThreadId(1));
        let park = Op::Park {
            timed: true,
            nanos: 0,
            site: 4,
        };
        for _ in 0..TIMEOUT_LIMIT {
            // The lock around each timed wait writes: no matter.
            f.performed(main, &write(9), false);
            f.performed(main, &park, true);
        }
        assert!(f.spinning(main));
        f.performed(worker, &read(1), false);
        assert!(!f.spinning(main), "another thread ran");
        f.performed(main, &park, true);
        assert!(!f.spinning(main));
    }
}
