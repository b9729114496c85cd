//! The constraint graph and its worklist.
//!
//! **Its one job:** hold the nodes, their points-to sets and the constraints attached to them
//! (copy edges with an optional type filter, field loads and stores, virtual calls on the
//! node's objects), add objects to sets and queue what changed, and merge strongly connected
//! groups of plain copy edges (union-find: their sets are equal). It knows nothing of types,
//! fields or methods: a filter, a field and a call site are numbers it keeps for the solver
//! ([`super::Solver::solve`] pops the worklist and decides what a change means).

use rustc_hash::FxHashSet as HashSet;

use crate::bitset::SparseBitSet;

pub type Node = u32;
pub type ObjId = u32;
pub type TypeId = u32;
pub type FieldId = u32;

/// A copy edge `to ⊇ from`, keeping only objects of type `filter` when there is one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    pub to: Node,
    pub filter: Option<TypeId>,
}

/// Nodes, points-to sets, constraints and the worklist. Every node is its own representative
/// until [`Graph::collapse_cycles`] merges it; constraints live on representatives.
#[derive(Default)]
pub struct Graph {
    pts: Vec<SparseBitSet>,
    /// Objects added since the node was last taken from the worklist.
    delta: Vec<SparseBitSet>,
    queued: Vec<bool>,
    succ: Vec<Vec<Edge>>,
    edge_set: HashSet<(Node, Node, Option<TypeId>)>,
    /// Per base node: `dst ⊇ o.f` for each of its objects `o`.
    loads: Vec<Vec<(FieldId, Node)>>,
    /// Per base node: `o.f ⊇ src` for each of its objects `o`.
    stores: Vec<Vec<(FieldId, Node)>>,
    /// Per receiver node: the call sites dispatched on each of its objects.
    calls: Vec<Vec<usize>>,
    rep: Vec<Node>,
    worklist: Vec<Node>,
    collapsed_nodes: usize,
}

impl Graph {
    #[inline]
    pub fn new_node(&mut self) -> Node {
        let n = self.pts.len() as Node;
        self.pts.push(SparseBitSet::new());
        self.delta.push(SparseBitSet::new());
        self.queued.push(false);
        self.succ.push(Vec::new());
        self.loads.push(Vec::new());
        self.stores.push(Vec::new());
        self.calls.push(Vec::new());
        self.rep.push(n);
        n
    }

    /// How many nodes were made (merged ones included).
    pub fn node_count(&self) -> usize {
        self.pts.len()
    }

    pub fn edge_count(&self) -> usize {
        self.edge_set.len()
    }

    pub fn worklist_len(&self) -> usize {
        self.worklist.len()
    }

    /// Nodes merged into others by [`Graph::collapse_cycles`].
    pub fn collapsed_nodes(&self) -> usize {
        self.collapsed_nodes
    }

    /// The representative of `n` (with path halving).
    #[inline]
    pub fn find(&mut self, mut n: Node) -> Node {
        while self.rep[n as usize] != n {
            let up = self.rep[self.rep[n as usize] as usize];
            self.rep[n as usize] = up;
            n = up;
        }
        n
    }

    /// The points-to set of node `n`.
    #[inline]
    pub fn points_to(&mut self, n: Node) -> &SparseBitSet {
        let r = self.find(n);
        &self.pts[r as usize]
    }

    /// Bytes held by points-to sets.
    pub fn pts_bytes(&self) -> usize {
        self.pts.iter().map(SparseBitSet::heap_bytes).sum()
    }

    #[inline]
    fn enqueue(&mut self, n: Node) {
        if !self.queued[n as usize] {
            self.queued[n as usize] = true;
            self.worklist.push(n);
        }
    }

    #[inline]
    pub fn add_obj(&mut self, n: Node, o: ObjId) {
        let n = self.find(n);
        if self.pts[n as usize].insert(o) {
            self.delta[n as usize].insert(o);
            self.enqueue(n);
        }
    }

    #[inline]
    pub fn add_objs(&mut self, n: Node, set: &SparseBitSet) {
        let n = self.find(n);
        let new = self.pts[n as usize].union_new(set);
        if !new.is_empty() {
            self.delta[n as usize].union_with(&new);
            self.enqueue(n);
        }
    }

    /// Records the edge `to ⊇ from` (between representatives); `None` when it is already there
    /// or an unfiltered self-loop. Filtering and the first flow are the solver's.
    #[inline]
    pub fn insert_edge(
        &mut self,
        from: Node,
        to: Node,
        filter: Option<TypeId>,
    ) -> Option<(Node, Node)> {
        let (from, to) = (self.find(from), self.find(to));
        if from == to && filter.is_none() {
            return None;
        }
        if !self.edge_set.insert((from, to, filter)) {
            return None;
        }
        self.succ[from as usize].push(Edge { to, filter });
        Some((from, to))
    }

    /// Attaches a load `dst ⊇ base.f`; returns `base`'s representative.
    #[inline]
    pub fn add_load(&mut self, base: Node, f: FieldId, dst: Node) -> Node {
        let b = self.find(base);
        self.loads[b as usize].push((f, dst));
        b
    }

    /// Attaches a store `base.f ⊇ src`; returns `base`'s representative.
    #[inline]
    pub fn add_store(&mut self, base: Node, f: FieldId, src: Node) -> Node {
        let b = self.find(base);
        self.stores[b as usize].push((f, src));
        b
    }

    /// Attaches call site `cs` to receiver node `recv`; returns its representative.
    #[inline]
    pub fn add_call(&mut self, recv: Node, cs: usize) -> Node {
        let r = self.find(recv);
        self.calls[r as usize].push(cs);
        r
    }

    /// The objects of representative `n` (its set as it is now).
    #[inline]
    pub fn objs_of(&self, n: Node) -> Vec<ObjId> {
        self.pts[n as usize].iter().collect()
    }

    /// The `k`th edge, load, store and call of node `n`: indexed, because handling one may add
    /// more to the same node.
    #[inline]
    pub fn edge(&self, n: Node, k: usize) -> Option<Edge> {
        self.succ[n as usize].get(k).copied()
    }

    #[inline]
    pub fn load(&self, n: Node, k: usize) -> Option<(FieldId, Node)> {
        self.loads[n as usize].get(k).copied()
    }

    #[inline]
    pub fn store(&self, n: Node, k: usize) -> Option<(FieldId, Node)> {
        self.stores[n as usize].get(k).copied()
    }

    #[inline]
    pub fn call(&self, n: Node, k: usize) -> Option<usize> {
        self.calls[n as usize].get(k).copied()
    }

    /// Takes the next queued node: its representative and the objects it gained since it was
    /// last taken (possibly none, when it was merged meanwhile). `None`: the worklist is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(Node, SparseBitSet)> {
        let n = self.worklist.pop()?;
        self.queued[n as usize] = false;
        let n = self.find(n);
        let d = std::mem::take(&mut self.delta[n as usize]);
        Some((n, d))
    }

    /// Merges every strongly connected group of unfiltered copy edges into one node.
    pub fn collapse_cycles(&mut self) {
        let n = self.pts.len();
        // Iterative Tarjan over representatives.
        let mut index = vec![u32::MAX; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<Node> = Vec::new();
        let mut next = 0u32;
        let mut groups: Vec<Vec<Node>> = Vec::new();
        for root in 0..n as Node {
            if self.rep[root as usize] != root || index[root as usize] != u32::MAX {
                continue;
            }
            let mut call: Vec<(Node, usize)> = vec![(root, 0)];
            index[root as usize] = next;
            low[root as usize] = next;
            next += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut k)) = call.last_mut() {
                if *k < self.succ[v as usize].len() {
                    let e = self.succ[v as usize][*k];
                    *k += 1;
                    if e.filter.is_some() {
                        continue;
                    }
                    let w = self.find(e.to);
                    if index[w as usize] == u32::MAX {
                        index[w as usize] = next;
                        low[w as usize] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w as usize] = true;
                        call.push((w, 0));
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                } else {
                    call.pop();
                    if let Some(&(p, _)) = call.last() {
                        low[p as usize] = low[p as usize].min(low[v as usize]);
                    }
                    if low[v as usize] == index[v as usize] {
                        let mut group = Vec::new();
                        loop {
                            let w = stack.pop().unwrap();
                            on_stack[w as usize] = false;
                            group.push(w);
                            if w == v {
                                break;
                            }
                        }
                        if group.len() > 1 {
                            groups.push(group);
                        }
                    }
                }
            }
        }
        for group in groups {
            let keep = group[0];
            for &other in &group[1..] {
                self.merge_into(keep, other);
            }
        }
    }

    fn merge_into(&mut self, keep: Node, other: Node) {
        let (k, o) = (keep as usize, other as usize);
        self.rep[o] = keep;
        self.collapsed_nodes += 1;
        let pts = std::mem::take(&mut self.pts[o]);
        self.pts[k].union_with(&pts);
        // Everything must flow again from the merged node.
        self.delta[k] = self.pts[k].clone();
        self.delta[o] = SparseBitSet::new();
        let succ = std::mem::take(&mut self.succ[o]);
        self.succ[k].extend(succ);
        let loads = std::mem::take(&mut self.loads[o]);
        self.loads[k].extend(loads);
        let stores = std::mem::take(&mut self.stores[o]);
        self.stores[k].extend(stores);
        let calls = std::mem::take(&mut self.calls[o]);
        self.calls[k].extend(calls);
        self.enqueue(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(g: &mut Graph, n: Node) -> Vec<ObjId> {
        g.points_to(n).iter().collect()
    }

    /// Propagates along unfiltered copy edges to the fixed point, the way the solver's loop
    /// does (filtering is the solver's: filtered edges carry nothing here).
    fn propagate(g: &mut Graph) {
        while let Some((n, d)) = g.pop() {
            let mut k = 0;
            while let Some(e) = g.edge(n, k) {
                if e.filter.is_none() {
                    g.add_objs(e.to, &d);
                }
                k += 1;
            }
        }
    }

    #[test]
    fn objects_are_queued_once_and_only_new_ones_flow() {
        let mut g = Graph::default();
        let (a, b) = (g.new_node(), g.new_node());
        g.add_obj(a, 1);
        g.add_obj(a, 2);
        g.add_obj(a, 1);
        assert_eq!(g.worklist_len(), 1, "a is queued once");
        let (n, d) = g.pop().unwrap();
        assert_eq!((n, d.iter().collect::<Vec<_>>()), (a, vec![1, 2]));
        assert!(g.pop().is_none());
        g.add_obj(a, 2);
        assert!(g.pop().is_none(), "nothing new: nothing queued");
        let mut s = SparseBitSet::new();
        s.insert(2);
        s.insert(3);
        g.add_objs(a, &s);
        let (_, d) = g.pop().unwrap();
        assert_eq!(
            d.iter().collect::<Vec<_>>(),
            vec![3],
            "only the new object is a delta"
        );
        assert!(set(&mut g, b).is_empty());
    }

    #[test]
    fn edges_are_kept_once_and_plain_self_loops_dropped() {
        let mut g = Graph::default();
        let (a, b) = (g.new_node(), g.new_node());
        assert_eq!(g.insert_edge(a, b, None), Some((a, b)));
        assert_eq!(g.insert_edge(a, b, None), None);
        assert_eq!(g.insert_edge(a, b, Some(7)), Some((a, b)), "another filter");
        assert_eq!(g.insert_edge(a, a, None), None);
        assert_eq!(
            g.insert_edge(a, a, Some(7)),
            Some((a, a)),
            "a filtered self-loop"
        );
        assert_eq!(g.edge_count(), 3);
    }

    #[test]
    fn propagation_follows_copy_chains() {
        let mut g = Graph::default();
        let (a, b, c) = (g.new_node(), g.new_node(), g.new_node());
        g.insert_edge(a, b, None);
        g.insert_edge(b, c, None);
        g.add_obj(a, 4);
        propagate(&mut g);
        assert_eq!(set(&mut g, c), vec![4]);
        g.add_obj(b, 5);
        propagate(&mut g);
        assert_eq!(set(&mut g, a), vec![4], "edges point one way");
        assert_eq!(set(&mut g, c), vec![4, 5]);
    }

    #[test]
    fn collapsing_a_cycle_merges_sets_and_constraints() {
        let mut g = Graph::default();
        let (a, b, c, d) = (g.new_node(), g.new_node(), g.new_node(), g.new_node());
        g.insert_edge(a, b, None);
        g.insert_edge(b, a, None);
        g.insert_edge(b, c, Some(1));
        g.insert_edge(c, b, Some(1));
        g.add_load(b, 3, d);
        g.add_store(b, 4, d);
        g.add_call(b, 9);
        g.add_obj(a, 1);
        g.add_obj(b, 2);
        propagate(&mut g);
        g.collapse_cycles();
        assert_eq!(
            g.collapsed_nodes(),
            1,
            "a and b; filtered edges do not count"
        );
        let r = g.find(a);
        assert_eq!(r, g.find(b));
        assert_ne!(r, g.find(c));
        assert_eq!(set(&mut g, b), vec![1, 2]);
        assert_eq!(g.load(r, 0), Some((3, d)));
        assert_eq!(g.store(r, 0), Some((4, d)));
        assert_eq!(g.call(r, 0), Some(9));
        let (n, delta) = g.pop().expect("the merged node flows again");
        assert_eq!((n, delta.iter().collect::<Vec<_>>()), (r, vec![1, 2]));
        assert_eq!(g.insert_edge(a, b, None), None, "now a self-loop");
    }
}
