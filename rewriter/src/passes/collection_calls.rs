//! Collection calls: an application's call of a collection method (`map.get(k)`,
//! `queue.poll()`, `set.add(x)`) gets [`Hook::CollectionCall`] before it, with the receiver
//! and whether the method may change the collection.
//!
//! **Why.** The agent leaves the thread-safe collections of `java.util.concurrent` that hold
//! no lock of their own unrewritten (`ConcurrentHashMap`, the skip lists, the lock-free
//! queues: [`UNREWRITTEN_CONCURRENT_COLLECTIONS`]), so their code has no
//! scheduling point. Each of their operations is atomic, which is right, but a program's
//! `if (map.get(k) == null) map.put(k, v)` then had no point between the check and the act
//! either, and the lost update, the most common misuse of these classes, was never explored.
//! With the hook, each call is one access of the collection (a read for the query methods, a
//! write for everything else), a scheduling point of its own.
//!
//! **Which calls.** The rewriter cannot know the receiver's class: `Map m` may hold a
//! `HashMap` (whose own accesses are points already) or a `ConcurrentHashMap`. So every call
//! through the collection interfaces and the unrewritten classes gets the hook, and `RC` looks
//! at the receiver's class (once per class) and makes the point only for those collections.
//! Iterators are left alone: a weakly consistent iteration has nothing to race with.
//!
//! The rewritten thread-safe collections (`LinkedBlockingQueue`, `CopyOnWriteArrayList`, …:
//! [`LOCKED_CONCURRENT_COLLECTIONS`]) get the same hook. Their code has
//! points (the lock they take), but those accesses are the library's own, never offered as the
//! cause of a failure; the one access per call, at the program's line, is what makes
//! `if (!queue.isEmpty()) queue.remove()` explained as the check and the act another thread
//! came between. Also before `put`, `take`, `offer` and `poll`, whose method announces
//! itself as a synchronizer operation at its entry: that access is of the queue's lock, at
//! the JDK's line, and `if (!queue.isEmpty()) queue.poll()` needs both calls on one location.
//!
//! Only with data accesses on (application classes). Not subject to `data_sites`: the
//! points-to analysis does not name these sites, and an extra point is sound.

use super::handles::{params, Spill};
use super::MethodCtx;
use crate::bytes::decode_mutf8;
use crate::code::op;
use crate::RewriteError;
use java_harness::hooks::{Hook, SiteKind};

const ICONST_0: u8 = 0x03;
const ICONST_1: u8 = 0x04;

/// The thread-safe collections of `java.util.concurrent` the agent leaves unrewritten:
/// `ConcurrentHashMap` (class loading uses it while holding the JVM's and the class loader's
/// real locks, so a scheduling point inside it could leave other threads blocked where
/// rankcheck cannot see) and the lock-free ones (nothing but compare-and-set on private
/// nodes). Their operations are atomic to the model; a program's call of one is a scheduling
/// point of its own, one access of the whole collection.
pub const UNREWRITTEN_CONCURRENT_COLLECTIONS: &[&str] = &[
    "java/util/concurrent/ConcurrentHashMap",
    "java/util/concurrent/ConcurrentSkipListMap",
    "java/util/concurrent/ConcurrentSkipListSet",
    "java/util/concurrent/ConcurrentLinkedQueue",
    "java/util/concurrent/ConcurrentLinkedDeque",
];

/// The thread-safe collections of `java.util.concurrent` that are rewritten (they take a
/// lock of their own, a point of the model): a program's call of one is also one access of
/// the whole collection, at the program's line, so that a check and an act in two calls are
/// explained as such (the accesses inside are the library's own, never named as a cause).
pub const LOCKED_CONCURRENT_COLLECTIONS: &[&str] = &[
    "java/util/concurrent/LinkedBlockingQueue",
    "java/util/concurrent/LinkedBlockingDeque",
    "java/util/concurrent/ArrayBlockingQueue",
    "java/util/concurrent/PriorityBlockingQueue",
    "java/util/concurrent/DelayQueue",
    "java/util/concurrent/SynchronousQueue",
    "java/util/concurrent/LinkedTransferQueue",
    "java/util/concurrent/CopyOnWriteArrayList",
    "java/util/concurrent/CopyOnWriteArraySet",
];

/// The interfaces and abstract classes through which a program calls the collections the hook
/// is for (besides the collections' own classes above).
const OWNERS: &[&str] = &[
    "java/lang/Iterable",
    "java/util/Collection",
    "java/util/AbstractCollection",
    "java/util/List",
    "java/util/Set",
    "java/util/AbstractSet",
    "java/util/SortedSet",
    "java/util/NavigableSet",
    "java/util/Queue",
    "java/util/AbstractQueue",
    "java/util/Deque",
    "java/util/Map",
    "java/util/AbstractMap",
    "java/util/SortedMap",
    "java/util/NavigableMap",
    "java/util/concurrent/ConcurrentMap",
    "java/util/concurrent/ConcurrentNavigableMap",
    "java/util/concurrent/BlockingQueue",
    "java/util/concurrent/BlockingDeque",
    "java/util/concurrent/TransferQueue",
];

/// Methods of those types that only look: every other method may change the collection
/// (`poll` on an empty queue does not, but a write is the safe guess).
const QUERIES: &[&str] = &[
    "get",
    "getOrDefault",
    "containsKey",
    "containsValue",
    "contains",
    "containsAll",
    "isEmpty",
    "size",
    "mappingCount",
    "peek",
    "peekFirst",
    "peekLast",
    "element",
    "getFirst",
    "getLast",
    "first",
    "last",
    "firstKey",
    "lastKey",
    "firstEntry",
    "lastEntry",
    "ceiling",
    "ceilingKey",
    "ceilingEntry",
    "floor",
    "floorKey",
    "floorEntry",
    "higher",
    "higherKey",
    "higherEntry",
    "lower",
    "lowerKey",
    "lowerEntry",
    "keySet",
    "values",
    "entrySet",
    "keys",
    "elements",
    "navigableKeySet",
    "descendingKeySet",
    "descendingMap",
    "descendingSet",
    "headMap",
    "tailMap",
    "subMap",
    "headSet",
    "tailSet",
    "subSet",
    "iterator",
    "descendingIterator",
    "spliterator",
    "stream",
    "parallelStream",
    "forEach",
    "toArray",
    "comparator",
    "equals",
    "hashCode",
    "toString",
];

/// Whether collection method `name` may change the collection.
pub fn writes(name: &str) -> bool {
    !QUERIES.contains(&name)
        && !name.starts_with("search")
        && !name.starts_with("reduce")
        && !name.starts_with("forEach")
}

/// Whether a call of `owner` (internal name) is one the hook is for.
fn is_collection_owner(owner: &[u8]) -> bool {
    let classes = [
        OWNERS,
        UNREWRITTEN_CONCURRENT_COLLECTIONS,
        LOCKED_CONCURRENT_COLLECTIONS,
    ];
    classes.iter().flat_map(|c| c.iter()).any(|o| {
        owner
            .strip_prefix(o.as_bytes())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"$"))
    })
}

/// Puts the hook before instruction `i` if it calls a collection method; true when it did.
/// The code goes first in the instruction's `before` (the stack is then as the call has it),
/// so a pass that wraps the same call (`passes::real_monitors`) still sees its arguments.
pub fn on_insn(ctx: &mut MethodCtx, i: usize) -> Result<bool, RewriteError> {
    let opc = ctx.code.insns[i].op;
    if !matches!(opc, op::INVOKEVIRTUAL | op::INVOKEINTERFACE) || !ctx.config.data {
        return Ok(false);
    }
    let m = ctx.cp.member(ctx.code.cp_operand(i))?;
    if !is_collection_owner(m.owner) || m.name.starts_with(b"<") {
        return Ok(false);
    }
    let owner = decode_mutf8(m.owner);
    let name = decode_mutf8(m.name);
    let Some(types) = params(&decode_mutf8(m.descriptor)) else {
        return Ok(false);
    };
    // Spill the arguments, copy the receiver, load them back.
    let spill = Spill::new(ctx, types);
    let mut v = spill.store();
    v.push(op::DUP);
    v.push(if writes(&name) { ICONST_1 } else { ICONST_0 });
    let bci = ctx.code.insns[i].offset;
    let hook = Hook::CollectionCall;
    v.extend(ctx.site_and_hook(SiteKind::Call(hook), bci, format!("{owner}.{name}"), hook)?);
    v.extend(spill.load());
    ctx.edits.before[i].splice(0..0, v);
    ctx.edits.need_stack(4);
    ctx.edits.extra_locals = ctx.edits.extra_locals.max(spill.used);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_read_and_the_rest_write() {
        for q in [
            "get",
            "containsKey",
            "isEmpty",
            "size",
            "peek",
            "forEachKey",
            "search",
        ] {
            assert!(!writes(q), "{q}");
        }
        for w in [
            "put",
            "putIfAbsent",
            "computeIfAbsent",
            "merge",
            "poll",
            "offer",
            "clear",
        ] {
            assert!(writes(w), "{w}");
        }
    }

    #[test]
    fn owners_are_matched_with_their_nested_classes_only() {
        assert!(is_collection_owner(b"java/util/Map"));
        assert!(is_collection_owner(
            b"java/util/concurrent/ConcurrentHashMap$KeySetView"
        ));
        assert!(!is_collection_owner(b"java/util/MapLike"));
        assert!(!is_collection_owner(b"java/util/HashMap"));
        assert!(is_collection_owner(b"java/util/List"));
        assert!(is_collection_owner(
            b"java/util/concurrent/CopyOnWriteArrayList"
        ));
        assert!(!is_collection_owner(b"java/util/Iterator"));
    }
}
