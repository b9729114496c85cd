//! Which objects only one thread has touched so far in an execution.
//!
//! Inside the JDK's collections (`collections=on`), every field and array access could be a
//! scheduling point, but most collections a program makes never leave their thread: a
//! `StringBuilder` in a loop, a `HashMap` local to a task. Making each of their accesses a
//! point would multiply an execution's steps and the schedules to explore for nothing, since a
//! race needs two threads. So an access inside a collection is a point only once a second thread
//! has touched the object; until then it passes without a step. This depends only on what the
//! execution did before, so a recorded schedule means the same when it is replayed.
//!
//! The price: the first thread's accesses before the second thread's first one are not points,
//! so an interleaving that preempts the first thread inside an operation on an object no other
//! thread has touched yet is not explored; the interleaving where the second thread's operation
//! comes first, and is preempted, is. So that a search does not keep that quiet, each object
//! remembers how many threads the execution had started when its first thread last used it
//! alone, and [`Confinement::blind`] counts the objects a thread that had started by then
//! touched later: a use no switch could interrupt although that thread was running. Only a
//! write makes such a use a miss (reads between reads change nothing): the first thread's,
//! made while the later one was running, or any later write by another thread. The
//! result says so, and the CLI tells the user how to explore them (`--jdk-collections all`).
//!
//! The same shortcut covers `java.util.concurrent`'s synchronizers (a lock one thread took and
//! released alone has no events), whose accesses order threads. So that an explanation of a
//! failure still sees the order a lock handed over, the touch that shares an object reports
//! where its first thread last wrote it alone, or read it ([`Confinement::handed_over`]): the access that
//! saw that write comes after it. This module decides nothing else.

use rustc_hash::FxHashMap as IdMap;
use scheduler::ThreadId;

/// Who has touched an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Touched {
    /// One thread so far, which last touched it when the execution had started `threads`
    /// threads (ids below it: thread ids are given in the order of their starts) and
    /// performed `events` events.
    Only {
        thread: ThreadId,
        threads: u32,
        events: usize,
        /// The execution's event count at the thread's last write of the object, if any, and
        /// the write's site.
        wrote: Option<(usize, i64)>,
        /// The threads the execution had started at that write (0: none).
        wrote_threads: u32,
        /// The event count and site of the thread's last read of the object after its last
        /// write (or at all, when it never wrote it).
        read: Option<(usize, i64)>,
    },
    /// Shared by a touch of a thread that was running while the first thread used the object
    /// alone, only reading it while that thread ran: reads interleaved with reads change
    /// nothing, so the use is a miss only once a thread other than the first writes it.
    SharedUnlessWritten {
        first: ThreadId,
        missed: Missed,
    },
    Shared,
}

/// A use alone that a second thread's touch may have missed: the first thread, and the
/// execution's event count at its last use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missed {
    pub first: ThreadId,
    pub events: usize,
}

/// What the first thread of an object a second thread has just touched did with it alone: its
/// last write, and its last read after that write (or at all, when it never wrote), each as
/// the execution's event count then and the access's site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handed {
    pub first: ThreadId,
    pub wrote: Option<(usize, i64)>,
    pub read: Option<(usize, i64)>,
}

/// The objects (by their execution-local id) touched at confinement-checked sites.
#[derive(Debug, Default)]
pub struct Confinement {
    objects: IdMap<u64, Touched>,
    /// The last touch shared an object its first thread had used alone while the toucher was
    /// running; [`Confinement::settle`] counts it if the touch was the program's and not
    /// ordered after that use.
    candidate: Option<Missed>,
    /// The last touch shared an object its first thread had used alone: what that thread did
    /// with it last.
    handed: Option<Handed>,
    blind: u32,
}

impl Confinement {
    /// Records that `thread` touches object `id` (`write`s it, at `site`) when the execution
    /// has started `threads` threads (the root included) and performed `events` events;
    /// whether the object is (now) shared.
    pub fn touch(
        &mut self,
        id: u64,
        thread: ThreadId,
        threads: u32,
        events: usize,
        (write, site): (bool, i64),
    ) -> bool {
        let here = write.then_some((events, site));
        let here_threads = if write { threads } else { 0 };
        let here_read = (!write).then_some((events, site));
        let entry = self.objects.entry(id).or_insert(Touched::Only {
            thread,
            threads,
            events,
            wrote: here,
            wrote_threads: here_threads,
            read: here_read,
        });
        self.handed = None;
        match *entry {
            Touched::Only {
                thread: first,
                wrote,
                wrote_threads,
                ..
            } if first == thread => {
                *entry = Touched::Only {
                    thread,
                    threads,
                    events,
                    wrote: here.or(wrote),
                    wrote_threads: here_threads.max(wrote_threads),
                    // A write makes the reads before it old news (`here_read` is none then).
                    read: here_read,
                };
                false
            }
            Touched::Only {
                thread: first,
                threads: then,
                events: at,
                wrote,
                wrote_threads,
                read,
            } => {
                // This thread had started (it is alive now, so it was running) when the first
                // one last used the object alone.
                let running = thread.0 < then;
                let missed = Missed { first, events: at };
                // A conflict: this touch writes, or the first thread wrote while this one ran.
                let conflicting = write || thread.0 < wrote_threads;
                // A read conflicts with the first thread's writes only: whether it could have
                // come between them is told by the last one, not by reads alone after it (a
                // map filled, published through a volatile, then read by both threads).
                let conflict = match wrote {
                    Some((events, _)) if !write => Missed { first, events },
                    _ => missed,
                };
                self.candidate = (running && conflicting).then_some(conflict);
                self.handed = Some(Handed { first, wrote, read });
                *entry = if running && !conflicting {
                    Touched::SharedUnlessWritten { first, missed }
                } else {
                    Touched::Shared
                };
                true
            }
            Touched::SharedUnlessWritten { first, missed } => {
                if write && thread != first {
                    self.candidate = Some(missed);
                    *entry = Touched::Shared;
                }
                true
            }
            Touched::Shared => true,
        }
    }

    /// When the last [`Confinement::touch`] shared an object: its first thread's last write
    /// alone, where the object passed from one thread to the other, and its last read alone
    /// after that (a read orders nothing, but an explanation needs to see it: a `get` alone,
    /// then another thread's `set`, then a `set` of its own).
    pub fn handed_over(&self) -> Option<Handed> {
        self.handed
    }

    /// Settles the last [`Confinement::touch`] that returned true: it counts in
    /// [`Confinement::blind`] if `missed` says so of the first thread's use alone: the touch
    /// was the program's (not the JDK's own, such as a pool's worker set) and that use does
    /// not happen before it (one under a lock this thread took since is no miss). Asked only
    /// when there is a candidate (it may walk the stack).
    pub fn settle(&mut self, missed: impl FnOnce(Missed) -> bool) {
        if let Some(m) = self.candidate.take() {
            self.blind += u32::from(missed(m));
        }
    }

    /// How many objects a second thread touched after their first thread had used them alone
    /// while another thread was running: uses no switch could interrupt, which a search with
    /// every collection access a point (`collections=all`) would have interleaved.
    pub fn blind(&self) -> u32 {
        self.blind
    }

    /// Object `old` is now known as `new`.
    pub fn renamed(&mut self, old: u64, new: u64) {
        if let Some(t) = self.objects.remove(&old) {
            self.objects.insert(new, t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_is_shared_from_the_second_thread_on() {
        let mut c = Confinement::default();
        let (a, b) = (ThreadId(0), ThreadId(1));
        assert!(!c.touch(7, a, 1, 0, (false, 0)));
        assert!(!c.touch(7, a, 1, 0, (false, 0)));
        assert!(c.touch(7, b, 2, 0, (false, 0)));
        c.settle(|_| true);
        assert!(c.touch(7, a, 2, 0, (false, 0)));
        c.settle(|_| true);
        assert!(!c.touch(8, b, 2, 0, (false, 0)));
        c.renamed(8, 9);
        assert!(c.touch(9, a, 2, 0, (true, 0)));
        c.settle(|_| true);
        assert_eq!(c.blind(), 1, "a was running when b last used 9 alone");
    }

    #[test]
    fn a_use_alone_while_the_later_user_ran_is_counted_once_the_object_is_shared() {
        let mut c = Confinement::default();
        let (main, worker) = (ThreadId(0), ThreadId(1));
        // Main fills a list alone, starts a thread, iterates the list while it runs.
        assert!(!c.touch(1, main, 1, 0, (false, 0)));
        assert!(!c.touch(1, main, 2, 0, (false, 0)));
        assert_eq!(c.blind(), 0, "not shared yet");
        // The worker reads it, then adds to it: main's iteration could have seen the add.
        assert!(c.touch(1, worker, 2, 0, (false, 0)));
        c.settle(|_| true);
        assert_eq!(
            c.blind(),
            0,
            "reads alone and reads after: nothing to interleave"
        );
        assert!(c.touch(1, worker, 2, 0, (true, 0)));
        c.settle(|_| true);
        assert_eq!(c.blind(), 1);
        // Filled alone before the worker started: nothing missed.
        assert!(!c.touch(2, main, 1, 0, (true, 0)));
        assert!(c.touch(2, worker, 2, 0, (true, 0)));
        c.settle(|_| true);
        assert_eq!(c.blind(), 1);
        // The JDK's own use of its own object (a pool's worker set) is no miss of the program.
        assert!(!c.touch(3, main, 2, 0, (false, 0)));
        assert!(c.touch(3, worker, 2, 0, (true, 0)));
        c.settle(|_| false);
        assert_eq!(c.blind(), 1);
        // A use alone that happens before the touch (a lock released, then taken) is none.
        assert!(!c.touch(4, main, 2, 5, (false, 0)));
        assert!(c.touch(4, worker, 2, 9, (true, 0)));
        c.settle(|m| {
            m != Missed {
                first: main,
                events: 5,
            }
        });
        assert_eq!(c.blind(), 1);
    }

    #[test]
    fn a_use_alone_counts_only_when_a_write_conflicts_with_it() {
        let mut c = Confinement::default();
        let (main, r1, r2) = (ThreadId(0), ThreadId(1), ThreadId(2));
        // A map main filled before starting its readers, then only read by them: r1 reads it
        // alone while r2 runs, r2 reads it — no write while they ran, never a miss.
        assert!(!c.touch(1, main, 1, 0, (true, 0)));
        assert!(c.touch(1, r1, 3, 4, (false, 0)));
        c.settle(|_| true);
        assert!(c.touch(1, r2, 3, 5, (false, 0)));
        c.settle(|_| true);
        assert!(c.touch(1, r1, 3, 6, (false, 0)));
        c.settle(|_| true);
        assert_eq!(c.blind(), 0);
        // The first thread's own write after sharing is no conflict with its reads alone.
        assert!(!c.touch(2, r1, 3, 7, (false, 0)));
        assert!(c.touch(2, r2, 3, 8, (false, 0)));
        c.settle(|_| true);
        assert!(c.touch(2, r1, 3, 9, (true, 0)));
        c.settle(|_| true);
        assert_eq!(c.blind(), 0);
        // Written alone while the later reader ran: counted at the reader's first touch.
        assert!(!c.touch(3, r1, 3, 10, (true, 0)));
        assert!(c.touch(3, r2, 3, 11, (false, 0)));
        c.settle(|_| true);
        assert_eq!(c.blind(), 1);
    }

    #[test]
    fn a_read_is_checked_against_the_first_threads_last_write_not_its_later_reads() {
        let mut c = Confinement::default();
        let (main, reader) = (ThreadId(0), ThreadId(1));
        // Main fills the map while the reader runs (event 4), publishes it, reads it (event 9);
        // the reader then reads it: its touch conflicts with the write at 4 only.
        assert!(!c.touch(1, main, 2, 4, (true, 0)));
        assert!(!c.touch(1, main, 2, 9, (false, 0)));
        assert!(c.touch(1, reader, 2, 12, (false, 0)));
        let mut asked = None;
        c.settle(|m| {
            asked = Some(m);
            false
        });
        assert_eq!(
            asked,
            Some(Missed {
                first: main,
                events: 4
            })
        );
        // A write conflicts with every use alone: the last one.
        assert!(!c.touch(2, main, 2, 4, (true, 0)));
        assert!(!c.touch(2, main, 2, 9, (false, 0)));
        assert!(c.touch(2, reader, 2, 12, (true, 0)));
        c.settle(|m| {
            asked = Some(m);
            false
        });
        assert_eq!(
            asked,
            Some(Missed {
                first: main,
                events: 9
            })
        );
    }

    #[test]
    fn sharing_an_object_reports_its_first_threads_last_write_and_read_alone() {
        let mut c = Confinement::default();
        let (a, b) = (ThreadId(0), ThreadId(1));
        assert!(!c.touch(1, a, 2, 3, (true, 30)));
        assert!(!c.touch(1, a, 2, 6, (true, 60)));
        assert!(!c.touch(1, a, 2, 8, (false, 80)));
        assert!(c.touch(1, b, 2, 11, (false, 110)));
        assert_eq!(
            c.handed_over(),
            Some(Handed {
                first: a,
                wrote: Some((6, 60)),
                read: Some((8, 80)),
            })
        );
        assert!(c.touch(1, a, 2, 12, (true, 120)));
        assert_eq!(c.handed_over(), None, "only the touch that shares it");
        // Read alone, never written: the last read, and nothing was written.
        assert!(!c.touch(2, a, 2, 13, (false, 130)));
        assert!(!c.touch(2, a, 2, 14, (false, 140)));
        assert!(c.touch(2, b, 2, 15, (true, 150)));
        assert_eq!(
            c.handed_over(),
            Some(Handed {
                first: a,
                wrote: None,
                read: Some((14, 140)),
            })
        );
        // A read before the last write is no check of what that write wrote.
        assert!(!c.touch(3, a, 2, 16, (false, 160)));
        assert!(!c.touch(3, a, 2, 17, (true, 170)));
        assert!(c.touch(3, b, 2, 18, (false, 180)));
        assert_eq!(
            c.handed_over(),
            Some(Handed {
                first: a,
                wrote: Some((17, 170)),
                read: None,
            })
        );
    }
}
