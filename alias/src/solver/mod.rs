//! Andersen-style inclusion analysis with an on-the-fly call graph.
//!
//! Nodes are method variables (one per IR variable of each reached method), static fields,
//! fields of abstract objects (field-sensitive; one `[]` field per array object), and two global
//! nodes: `unknown` (everything that flows into code the analysis cannot see) and `thrown`
//! (every thrown reference). Points-to sets are [`SparseBitSet`]s of abstract objects; the
//! solver propagates differences along copy edges from a worklist, resolves field loads/stores
//! and virtual calls as objects arrive at their base, and makes a method reachable the first
//! time a call resolves to it. Strongly connected groups of plain copy edges are merged
//! periodically (union-find), because their points-to sets are equal.
//!
//! Conservative models: a native or unresolvable method returns what `unknown` holds (of its
//! declared type) plus an "unknown" object of that type, and its reference arguments flow into
//! `unknown`; every object in `unknown` is "havocked": each of its fields may hold anything in
//! `unknown` (of the field's type). Objects the JVM makes (VM-set JDK statics, native results)
//! are unknown objects of their declared type whose fields are havocked the same way.
//!
//! # Where each part is
//!
//! **This file's one job:** the solver's state (the [`Solver`] and the records it keeps of
//! objects, methods and call sites) and the loop that runs it to the fixed point. The rest are
//! `impl Solver` blocks, one concern each:
//!
//! - `graph.rs`: nodes, points-to sets, constraints and the worklist; cycle collapsing. It knows
//!   nothing of the rest (the bottom layer).
//! - `types.rs`: type ids, abstract objects, and copy edges with their type filters.
//! - `fields.rs`: instance, static and array-element nodes, loads and stores (also by offset).
//! - `calls.rs`: the on-the-fly call graph: reaching methods, static and special calls,
//!   virtual and interface dispatch on the receiver's objects, lambdas, class initializers.
//! - `models.rs`: the exact models of JDK methods and natives (`Thread`, `arraycopy`, `clone`,
//!   printing, `Unsafe`/`VarHandle` field access by offset).
//! - `unknown.rs`: unknown code: escaped objects, havocked fields, call-backs into the
//!   application, unknown objects of a type.
//! - `statements.rs`: the constraints of one reached method's IR statements.
//!
//! Imports point one way: `graph.rs` ← this file ← the others (`statements.rs` and `models.rs`
//! also use `fields.rs`' pseudo fields, `statements.rs` the predicates of `models.rs`). The
//! concerns call one another through `Solver`'s methods, because the analysis is recursive
//! (a store may reach unknown code, which calls back, which reaches a method, whose model
//! stores): what each part decides stays in its file.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::bitset::SparseBitSet;
use crate::classes::{ClassId, Classes};
use crate::classpath::Origin;
use crate::ir::{LambdaInfo, MethodIr, MethodRef};
use crate::scope::JdkScope;

mod calls;
mod fields;
mod graph;
mod models;
mod statements;
mod types;
mod unknown;

pub use graph::{FieldId, Node, ObjId, TypeId};

use graph::Graph;

pub type MethodId = u32;

/// A call made by the analysis itself: (implementation, receiver, arguments, result).
type SyntheticCall = (MethodRef, Node, Vec<Option<Node>>, Option<Node>);

#[derive(Clone, Debug)]
pub enum ObjKind {
    /// `new`/`*newarray` number `alloc` of method `method`.
    Alloc {
        method: MethodId,
        alloc: usize,
    },
    /// Made by the JVM or by code the analysis does not see.
    Unknown,
    StringConst,
    ClassConst,
    /// The function object of a lambda or method reference.
    Lambda {
        info: Box<LambdaInfo>,
    },
    /// The arrays `java.lang.reflect.Array.newInstance` makes: of any component type (so they
    /// pass every array cast), holding only what analysed code stores.
    ReflectArray,
}

#[derive(Clone, Debug)]
pub struct Obj {
    pub ty: TypeId,
    pub kind: ObjKind,
}

pub struct MethodState {
    pub class: ClassId,
    pub index: usize,
    pub name: String,
    pub desc: String,
    pub ir: Option<MethodIr>,
    /// Node of IR variable 0.
    pub base: Node,
    /// Parameter nodes (receiver first) and the return node, for natives and IR-less methods.
    pub params: Vec<Option<Node>>,
    pub ret: Option<Node>,
}

struct CallSite {
    method: MethodRef,
    args: Vec<Option<Node>>,
    ret: Option<Node>,
    /// The caller, for reports (`None` for synthetic calls).
    caller: Option<MethodId>,
    linked: HashSet<MethodId>,
}

#[derive(Default)]
struct Interner {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), i);
        i
    }
}

pub struct Solver {
    pub classes: Classes,
    /// Which JDK bodies are analysed; every other JDK method is unknown code with call-backs
    /// into the application.
    scope: JdkScope,
    /// Experimental: every JDK body analysed and no unknown code modelled beyond natives.
    closed_world: bool,
    callback_targets: HashMap<String, Vec<MethodId>>,
    callback_linked: HashSet<MethodId>,
    types: Interner,
    subtype_cache: HashMap<(TypeId, TypeId), bool>,
    pub objs: Vec<Obj>,
    unknown_objs: HashMap<TypeId, ObjId>,
    string_obj: Option<ObjId>,
    reflect_array: Option<ObjId>,
    escape_from: Option<HashMap<ObjId, String>>,
    class_obj: Option<ObjId>,
    havocked: Vec<bool>,

    graph: Graph,

    /// (declaring class, name, descriptor) → field; field 0 is the array element.
    fields: Interner,
    field_types: Vec<Option<TypeId>>,
    /// Per field: declared by an application class (or a lambda capture).
    field_is_app: Vec<bool>,
    /// Per field: its declaring class (`None`: the array element, lambda captures): only its
    /// instances (and unknown objects that may be one) have the field — the verifier sees to it.
    field_owner: Vec<Option<TypeId>>,
    /// What `LockSupport` stores by offset: `Thread.parkBlocker`, which only it touches.
    park_blockers: Option<Node>,
    reflective_writes: bool,
    deferred_havoc: Vec<(ObjId, FieldId, Node)>,
    field_nodes: HashMap<(ObjId, FieldId), Node>,
    /// Per object type: its reference fields (for [`fields::ANY_FIELD`]); `None`: not known
    /// (unknown code decides).
    ref_fields: HashMap<TypeId, Option<Vec<FieldId>>>,
    /// The static types (`None`: `Object`) of the values stored by offset, by pseudo field.
    by_offset_types: Vec<Option<TypeId>>,
    obj_fields: Vec<Vec<(FieldId, Node)>>,
    static_nodes: HashMap<FieldId, Node>,

    pub methods: Vec<MethodState>,
    method_ids: HashMap<(ClassId, usize), MethodId>,
    callsites: Vec<CallSite>,
    dispatch_cache: HashMap<(TypeId, u32), Option<MethodId>>,
    sigs: Interner,
    lambda_calls: HashMap<(usize, ObjId), ()>,
    synthetic_calls: HashMap<SyntheticCall, usize>,
    initialized: HashSet<String>,
    pending_methods: Vec<MethodId>,

    pub unknown: Node,
    pub thrown: Node,
    /// `this` nodes of `Thread.start0`: the started thread objects.
    pub started_threads: Vec<Node>,
    /// The entry points of threads: `run` methods reached from a started thread.
    pub thread_run_calls: Vec<usize>,
    /// Problems met in application code (they make the answer conservative).
    pub app_warnings: Vec<String>,
    /// Problems met in JDK code (reported, answered by the conservative models).
    pub jdk_warnings: Vec<String>,
    steps_since_collapse: usize,
    pub steps: usize,
    /// Unknown code may call application code (possibly on threads the library starts, as
    /// executors do).
    pub called_back: bool,
}

impl Solver {
    pub fn new(classes: Classes, scope: JdkScope) -> Solver {
        let mut s = Solver {
            classes,
            closed_world: scope == JdkScope::All,
            scope,
            callback_targets: HashMap::default(),
            callback_linked: HashSet::default(),
            types: Interner::default(),
            subtype_cache: HashMap::default(),
            objs: Vec::new(),
            unknown_objs: HashMap::default(),
            string_obj: None,
            reflect_array: None,
            escape_from: std::env::var_os("RANKCHECK_ALIAS_DUMP")
                .is_some_and(|v| v == "unknown")
                .then(HashMap::default),
            class_obj: None,
            havocked: Vec::new(),
            graph: Graph::default(),
            fields: Interner::default(),
            field_types: Vec::new(),
            field_is_app: Vec::new(),
            field_owner: Vec::new(),
            park_blockers: None,
            reflective_writes: false,
            deferred_havoc: Vec::new(),
            field_nodes: HashMap::default(),
            ref_fields: HashMap::default(),
            by_offset_types: Vec::new(),
            obj_fields: Vec::new(),
            static_nodes: HashMap::default(),
            methods: Vec::new(),
            method_ids: HashMap::default(),
            callsites: Vec::new(),
            dispatch_cache: HashMap::default(),
            sigs: Interner::default(),
            lambda_calls: HashMap::default(),
            synthetic_calls: HashMap::default(),
            initialized: HashSet::default(),
            pending_methods: Vec::new(),
            unknown: 0,
            thrown: 0,
            started_threads: Vec::new(),
            thread_run_calls: Vec::new(),
            app_warnings: Vec::new(),
            jdk_warnings: Vec::new(),
            steps_since_collapse: 0,
            steps: 0,
            called_back: false,
        };
        s.fields.id("[]");
        s.field_types.push(None);
        s.field_is_app.push(false);
        s.field_owner.push(None);
        s.unknown = s.graph.new_node();
        s.thrown = s.graph.new_node();
        s
    }

    /// Runs to the fixed point: translates newly reached methods first, then takes a node
    /// from the worklist and lets its new objects flow: into unknown code when the node is
    /// `unknown`, through its loads and stores, to the targets of its calls, along its edges.
    pub fn solve(&mut self) {
        let progress = std::env::var_os("RANKCHECK_ALIAS_PROGRESS").is_some();
        let started = std::time::Instant::now();
        let mut last_report = 0u64;
        loop {
            if progress && self.steps % 4096 == 0 {
                let secs = started.elapsed().as_secs();
                if secs > last_report {
                    last_report = secs;
                    let u = self.graph.find(self.unknown);
                    let unknown = self.graph.points_to(u).len();
                    eprintln!(
                        "alias: {secs}s methods {} classes {} nodes {} objs {} worklist {} steps {} unknown {} edges {}",
                        self.methods.len(),
                        self.classes.loaded_count(),
                        self.graph.node_count(),
                        self.objs.len(),
                        self.graph.worklist_len(),
                        self.steps,
                        unknown,
                        self.graph.edge_count()
                    );
                }
            }
            if let Some(m) = self.pending_methods.pop() {
                self.process_method(m);
                continue;
            }
            let Some((n, d)) = self.graph.pop() else {
                break;
            };
            if d.is_empty() {
                continue;
            }
            self.steps_since_collapse += 1;
            self.steps += 1;
            let objs: Vec<ObjId> = d.iter().collect();
            if n == self.graph.find(self.unknown) {
                for &o in &objs {
                    self.escaped(o);
                }
            }
            let mut k = 0;
            while let Some((f, dst)) = self.graph.load(n, k) {
                for &o in &objs {
                    self.field_flow(o, f, dst, false);
                }
                k += 1;
            }
            let mut k = 0;
            while let Some((f, src)) = self.graph.store(n, k) {
                for &o in &objs {
                    self.field_flow(o, f, src, true);
                }
                k += 1;
            }
            let mut k = 0;
            while let Some(cs) = self.graph.call(n, k) {
                for &o in &objs {
                    self.dispatch(cs, o);
                }
                k += 1;
            }
            let mut k = 0;
            while let Some(e) = self.graph.edge(n, k) {
                let f = self.filtered(&d, e.filter);
                if self.escape_from.is_some() {
                    self.note_escape(n, e.to, &f);
                }
                self.graph.add_objs(e.to, &f);
                k += 1;
            }
            if self.steps_since_collapse > 200_000 {
                self.steps_since_collapse = 0;
                self.graph.collapse_cycles();
            }
        }
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn find(&mut self, n: Node) -> Node {
        self.graph.find(n)
    }

    /// The points-to set of node `n`.
    pub fn points_to(&mut self, n: Node) -> &SparseBitSet {
        self.graph.points_to(n)
    }

    /// Bytes held by points-to sets (a part of the analysis' memory, for reports).
    pub fn pts_bytes(&self) -> usize {
        self.graph.pts_bytes()
    }

    /// Nodes merged with others because they were on a cycle of copy edges.
    pub fn collapsed_nodes(&self) -> usize {
        self.graph.collapsed_nodes()
    }

    pub fn method_key(&self, m: MethodId) -> (String, String, String) {
        let st = &self.methods[m as usize];
        (
            self.classes.info(st.class).name.clone(),
            st.name.clone(),
            st.desc.clone(),
        )
    }

    pub fn is_app_method(&self, m: MethodId) -> bool {
        self.classes.info(self.methods[m as usize].class).origin == Origin::App
    }

    pub fn method_of(&self, class: ClassId, index: usize) -> Option<MethodId> {
        self.method_ids.get(&(class, index)).copied()
    }

    pub fn reached_methods(&self) -> usize {
        self.methods.len()
    }

    /// Reached JDK methods whose bodies are analysed.
    pub fn jdk_bodies_analysed(&self) -> usize {
        self.methods
            .iter()
            .filter(|m| {
                let info = self.classes.info(m.class);
                info.origin == Origin::Jdk && self.scope.analyses(&info.name)
            })
            .count()
    }

    /// A short description of object `o`, for debugging output.
    pub fn describe_obj(&self, o: ObjId) -> String {
        let obj = &self.objs[o as usize];
        let ty = self.type_name(obj.ty);
        match &obj.kind {
            ObjKind::Alloc { method, alloc } => {
                let st = &self.methods[*method as usize];
                let bci = st.ir.as_ref().map_or(0, |i| i.allocs[*alloc].bci);
                format!(
                    "{ty}@{}.{}:{bci}",
                    self.classes.info(st.class).name,
                    st.name
                )
            }
            ObjKind::Unknown => format!("?{ty}"),
            ObjKind::StringConst => "\"str\"".into(),
            ObjKind::ClassConst => "class".into(),
            ObjKind::ReflectArray => "reflect-array".into(),
            ObjKind::Lambda { .. } => format!("λ{ty}"),
        }
    }

    /// Debugging: what node `n` is.
    pub fn describe_node(&self, n: Node) -> String {
        for (m, st) in self.methods.iter().enumerate() {
            let nv = st.ir.as_ref().map_or(0, |i| i.num_vars);
            if n >= st.base && n < st.base + nv {
                let c = &self.classes.info(st.class).name;
                return format!("{c}.{}{} v{}", st.name, st.desc, n - st.base);
            }
            let _ = m;
        }
        for (&(o, f), &fnode) in &self.field_nodes {
            if fnode == n {
                return format!("{}.{}", self.describe_obj(o), self.fields.names[f as usize]);
            }
        }
        for (&f, &sn) in &self.static_nodes {
            if sn == n {
                return format!("static {}", self.fields.names[f as usize]);
            }
        }
        format!("node {n}")
    }
}

#[cfg(test)]
mod testing;

#[cfg(test)]
mod tests {
    use super::testing::{empty_solver, pts};
    use super::*;

    #[test]
    fn copy_cycles_collapse_and_keep_propagating() {
        let mut s = empty_solver();
        let t = s.type_id("java/lang/Object");
        let g = &mut s.graph;
        let (a, b, c, d) = (g.new_node(), g.new_node(), g.new_node(), g.new_node());
        s.add_edge(a, b, None);
        s.add_edge(b, c, None);
        s.add_edge(c, a, None);
        s.add_edge(c, d, None);
        let o1 = s.new_obj(t, ObjKind::Unknown);
        s.graph.add_obj(a, o1);
        s.solve();
        s.graph.collapse_cycles();
        assert_eq!(s.collapsed_nodes(), 2, "a, b, c are one node");
        assert_eq!(s.find(a), s.find(b));
        assert_eq!(s.find(b), s.find(c));
        assert_ne!(s.find(c), s.find(d));
        let o2 = s.new_obj(t, ObjKind::Unknown);
        s.graph.add_obj(b, o2);
        s.solve();
        for n in [a, b, c, d] {
            assert_eq!(pts(&mut s, n), vec![o1, o2], "node {n}");
        }
    }
}
