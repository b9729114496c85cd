//! Identities of the things the model talks about. All are small `Copy` values; the model keeps
//! its state in arenas indexed by them.

use std::fmt;

/// A thread of one execution, numbered in creation order; the main thread is `ThreadId(0)`.
///
/// Ids are per execution: the same program under the same schedule gets the same ids, which is
/// what lets a recorded schedule name threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ThreadId(pub u32);

impl ThreadId {
    /// The thread every execution starts with.
    pub const MAIN: ThreadId = ThreadId(0);

    /// The id as an index into per-thread arrays.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

/// Identity of a Java object (a monitor, a waited-on object, an array), assigned by the agent
/// deterministically within one execution (e.g. a tag counter reset per execution).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ObjId(pub u64);

/// A memory location for conflict detection: the agent derives it from (object, field) for
/// instance fields, the field for statics, (array, index) for array elements. Two accesses
/// conflict when they have the same `Loc` and at least one writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Loc(pub u64);

/// A *variable* in the variable-bounding sense (RankChecker §3): a static field or an allocation
/// site. Strategies that bound the number of variables use it; [`VarId::UNKNOWN`] when the agent
/// does not know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(pub u32);

impl VarId {
    /// The agent does not know which variable this access belongs to.
    pub const UNKNOWN: VarId = VarId(u32::MAX);
}

impl Default for VarId {
    fn default() -> Self {
        VarId::UNKNOWN
    }
}

/// A site id, as encoded by `java_harness::hooks::site_id` (class hash and index within the
/// class). The scheduler only stores and compares it.
pub type SiteId = i64;
