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
//! comes first, and is preempted, is. This module decides nothing else.

use rustc_hash::FxHashMap as IdMap;
use scheduler::ThreadId;

/// Who has touched an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Touched {
    Only(ThreadId),
    Shared,
}

/// The objects (by their execution-local id) touched at confinement-checked sites.
#[derive(Debug, Default)]
pub struct Confinement {
    objects: IdMap<u64, Touched>,
}

impl Confinement {
    /// Records that `thread` touches object `id`; whether the object is (now) shared.
    pub fn touch(&mut self, id: u64, thread: ThreadId) -> bool {
        let entry = self.objects.entry(id).or_insert(Touched::Only(thread));
        match *entry {
            Touched::Only(t) if t == thread => false,
            Touched::Only(_) => {
                *entry = Touched::Shared;
                true
            }
            Touched::Shared => true,
        }
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
        assert!(!c.touch(7, a));
        assert!(!c.touch(7, a));
        assert!(c.touch(7, b));
        assert!(c.touch(7, a));
        assert!(!c.touch(8, b));
        c.renamed(8, 9);
        assert!(c.touch(9, a));
    }
}
