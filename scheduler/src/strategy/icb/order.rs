//! Where an ICB execution falls in the order one unpartitioned search runs them, as a key
//! that sorts like that order, so that the parts of a partitioned search can be put back in
//! sequence (the merge of shards counts, numbers and cuts executions by it).
//!
//! The search runs bound by bound; within a bound, depth first over the work items (a stack:
//! of the alternatives one execution queues at the same bound, the last queued runs first,
//! each with its whole subtree); the next bound's items run in the order they were queued. So:
//! - the first execution's key is `[0]`;
//! - the `i`-th item an execution with key `K` queues at its own bound has `K ++ [MAX − i]`;
//! - the `j`-th item it queues for the next bound `b + 1` has `[b + 1] ++ K ++ [0, j]`.
//!
//! Keys compare lexicographically. Parsing a key is unambiguous (a same-bound step is never 0,
//! the separator before `j` is), so two keys first differ where both are at the same place of
//! the same shape, and each such place compares as the search orders: a lower bound first,
//! an execution before what it queued, later-queued same-bound items first, an earlier
//! parent's next-bound items first.

/// An execution's position in the unpartitioned search's order.
pub type OrderKey = Vec<u64>;

/// The first execution's key.
pub fn root() -> OrderKey {
    vec![0]
}

/// The `i`-th item queued at the same bound by the execution with key `parent`.
pub fn same_bound(parent: &[u64], i: u64) -> OrderKey {
    let mut key = parent.to_vec();
    key.push(u64::MAX - i);
    key
}

/// The `j`-th item queued for bound `bound` by the execution with key `parent` (at bound − 1).
pub fn next_bound(parent: &[u64], bound: u32, j: u64) -> OrderKey {
    let mut key = Vec::with_capacity(parent.len() + 3);
    key.push(u64::from(bound));
    key.extend_from_slice(parent);
    key.extend([0, j]);
    key
}

/// The key as text: its numbers joined by `.`.
pub fn to_text(key: &[u64]) -> String {
    key.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
}

/// Reads [`to_text`]'s form.
pub fn from_text(text: &str) -> Option<OrderKey> {
    text.split('.').map(|n| n.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_as_the_search_runs() {
        let r = root();
        let a = same_bound(&r, 0); // queued first at bound 0: runs after b
        let b = same_bound(&r, 1);
        let b_child = same_bound(&b, 0);
        let n0 = next_bound(&r, 1, 0);
        let n1 = next_bound(&r, 1, 1);
        let n_of_b = next_bound(&b, 1, 0);
        let n_of_a = next_bound(&a, 1, 0);
        let n0_child = same_bound(&n0, 0);
        let mut keys = vec![
            n_of_a.clone(),
            n0_child.clone(),
            a.clone(),
            n1.clone(),
            b_child.clone(),
            n_of_b.clone(),
            r.clone(),
            n0.clone(),
            b.clone(),
        ];
        keys.sort();
        // Bound 0 depth first (b before a, b's child inside b), then bound 1 in queue order:
        // the root's items, then b's (b ran before a), then a's; n0's child right after n0.
        assert_eq!(
            keys,
            vec![r, b, b_child, a, n0, n0_child, n1, n_of_b, n_of_a]
        );
    }

    #[test]
    fn text_round_trips() {
        let key = next_bound(&same_bound(&root(), 3), 1, 2);
        assert_eq!(from_text(&to_text(&key)), Some(key));
        assert_eq!(from_text("1.x"), None);
    }
}
