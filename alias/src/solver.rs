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

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::bitset::SparseBitSet;
use crate::bytecode::{is_ref, parse_method_desc};
use crate::classes::{class_of_desc, ClassId, Classes};
use crate::classpath::Origin;
use crate::ir::{self, CallKind, ConstObj, LambdaInfo, MethodIr, MethodRef, Stmt};
use crate::scope::JdkScope;

pub type Node = u32;
pub type ObjId = u32;
pub type TypeId = u32;
pub type FieldId = u32;
pub type MethodId = u32;

/// A call made by the analysis itself: (implementation, receiver, arguments, result).
type SyntheticCall = (MethodRef, Node, Vec<Option<Node>>, Option<Node>);

/// The array-element pseudo field.
pub const ARRAY_FIELD: FieldId = 0;

/// In loads and stores: every reference field of the object (an access by offset through
/// `Unsafe` or a `VarHandle`, whose field the analysis does not track). Stores use
/// `ANY_FIELD + 1 + k`, one pseudo field per static type of the stored value.
const ANY_FIELD: FieldId = FieldId::MAX / 2;

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

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Edge {
    to: Node,
    filter: Option<TypeId>,
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

    pts: Vec<SparseBitSet>,
    delta: Vec<SparseBitSet>,
    queued: Vec<bool>,
    succ: Vec<Vec<Edge>>,
    edge_set: HashSet<(Node, Node, Option<TypeId>)>,
    loads: Vec<Vec<(FieldId, Node)>>,
    stores: Vec<Vec<(FieldId, Node)>>,
    calls: Vec<Vec<usize>>,
    rep: Vec<Node>,
    worklist: Vec<Node>,

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
    /// Per object type: its reference fields (for [`ANY_FIELD`]); `None`: not known (unknown
    /// code decides).
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
    pub collapsed_nodes: usize,
    pub steps: usize,
    /// Unknown code may call application code (possibly on threads the library starts, as
    /// executors do).
    pub called_back: bool,
}

/// Natives whose reference arguments are not stored anywhere: only their result is unknown.
fn native_keeps_args(class: &str) -> bool {
    matches!(
        class,
        "java/lang/Object"
            | "java/lang/Class"
            | "java/lang/Thread"
            | "java/lang/System"
            | "java/lang/Runtime"
            | "java/lang/Float"
            | "java/lang/Double"
            | "java/lang/StrictMath"
            | "java/lang/String"
            | "java/lang/StringUTF16"
            | "java/lang/Throwable"
            | "java/lang/StackTraceElement"
            | "java/lang/ref/Reference"
            | "java/lang/ClassLoader"
            | "java/io/FileDescriptor"
            | "java/io/FileOutputStream"
            | "java/io/FileInputStream"
            | "java/io/RandomAccessFile"
            | "jdk/internal/misc/CDS"
            | "jdk/internal/misc/VM"
            | "jdk/internal/misc/Signal"
            | "jdk/internal/reflect/Reflection"
            | "java/security/AccessController"
    )
}

/// Whether values of field descriptor `desc` can hold no application state: strings, boxed
/// primitives, `Class` objects and arrays of primitives (or of those).
fn is_inert(desc: &str) -> bool {
    let elem = desc.trim_start_matches('[');
    let dims = desc.len() - elem.len();
    matches!(
        elem,
        "Ljava/lang/String;"
            | "Ljava/lang/Integer;"
            | "Ljava/lang/Long;"
            | "Ljava/lang/Short;"
            | "Ljava/lang/Byte;"
            | "Ljava/lang/Character;"
            | "Ljava/lang/Boolean;"
            | "Ljava/lang/Float;"
            | "Ljava/lang/Double;"
            | "Ljava/lang/Class;"
    ) || (dims > 0 && elem.len() == 1)
}

/// Calls from application code that let library code write fields the application declares.
fn writes_fields_reflectively(m: &MethodRef) -> bool {
    is_reflective(m)
        || m.class.starts_with("java/lang/reflect/")
        || m.class.starts_with("java/lang/invoke/")
        || m.class.ends_with("FieldUpdater")
        || m.class.ends_with("/Unsafe")
        || m.class == "java/io/ObjectInputStream"
}

/// Calls from application code that the analysis cannot follow (reflection, method handles).
fn is_reflective(m: &MethodRef) -> bool {
    matches!(
        (m.class.as_str(), m.name.as_str()),
        ("java/lang/reflect/Method", "invoke")
            | ("java/lang/reflect/Constructor", "newInstance")
            | ("java/lang/Class", "newInstance")
            | ("java/lang/Class", "forName")
            | ("java/lang/invoke/MethodHandle", _)
            | ("java/lang/reflect/Proxy", "newProxyInstance")
    )
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
            pts: Vec::new(),
            delta: Vec::new(),
            queued: Vec::new(),
            succ: Vec::new(),
            edge_set: HashSet::default(),
            loads: Vec::new(),
            stores: Vec::new(),
            calls: Vec::new(),
            rep: Vec::new(),
            worklist: Vec::new(),
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
            collapsed_nodes: 0,
            steps: 0,
            called_back: false,
        };
        s.fields.id("[]");
        s.field_types.push(None);
        s.field_is_app.push(false);
        s.field_owner.push(None);
        s.unknown = s.new_node();
        s.thrown = s.new_node();
        s
    }

    // ---- basic structure ------------------------------------------------------------------

    fn new_node(&mut self) -> Node {
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

    pub fn node_count(&self) -> usize {
        self.pts.len()
    }

    pub fn find(&mut self, mut n: Node) -> Node {
        while self.rep[n as usize] != n {
            let up = self.rep[self.rep[n as usize] as usize];
            self.rep[n as usize] = up;
            n = up;
        }
        n
    }

    pub fn type_id(&mut self, name: &str) -> TypeId {
        self.types.id(name)
    }

    pub fn type_name(&self, t: TypeId) -> &str {
        &self.types.names[t as usize]
    }

    fn new_obj(&mut self, ty: TypeId, kind: ObjKind) -> ObjId {
        self.objs.push(Obj { ty, kind });
        self.havocked.push(false);
        self.obj_fields.push(Vec::new());
        (self.objs.len() - 1) as ObjId
    }

    /// The unknown object of type `name` (a class or array type), made on first use.
    fn unknown_obj(&mut self, name: &str) -> ObjId {
        let ty = self.type_id(name);
        if let Some(&o) = self.unknown_objs.get(&ty) {
            return o;
        }
        let o = self.new_obj(ty, ObjKind::Unknown);
        self.unknown_objs.insert(ty, o);
        self.havoc(o);
        o
    }

    fn is_subtype(&mut self, sub: TypeId, sup: TypeId) -> bool {
        if sub == sup {
            return true;
        }
        if let Some(&b) = self.subtype_cache.get(&(sub, sup)) {
            return b;
        }
        let (a, b) = (
            self.types.names[sub as usize].clone(),
            self.types.names[sup as usize].clone(),
        );
        let r = self.classes.is_subtype(&a, &b);
        self.subtype_cache.insert((sub, sup), r);
        r
    }

    fn filtered(&mut self, set: &SparseBitSet, filter: Option<TypeId>) -> SparseBitSet {
        match filter {
            None => set.clone(),
            Some(t) => {
                let mut out = SparseBitSet::new();
                let mut all = true;
                let to_array = self.type_name(t).starts_with('[');
                for o in set.iter() {
                    let ty = self.objs[o as usize].ty;
                    let reflect_array = matches!(self.objs[o as usize].kind, ObjKind::ReflectArray);
                    if self.is_subtype(ty, t) || (reflect_array && to_array) {
                        out.insert(o);
                    } else {
                        all = false;
                        if matches!(self.objs[o as usize].kind, ObjKind::Unknown) {
                            if let Some(n) = self.narrowed(ty, t) {
                                out.insert(n);
                            }
                        }
                    }
                }
                if all {
                    return set.clone();
                }
                out
            }
        }
    }

    /// An unknown object of type `ty` stands for any object of that type or a subtype: seen
    /// through a cast (or a typed parameter or field) of type `to`, it is the unknown object of
    /// `to` when an object may be both. Application types are left out: every application object
    /// unknown code can hold is already in `unknown` by its allocation.
    fn narrowed(&mut self, ty: TypeId, to: TypeId) -> Option<ObjId> {
        if self.closed_world {
            return None;
        }
        let to_name = self.type_name(to).to_string();
        let jdk_target = to_name.starts_with('[')
            || self
                .classes
                .get(&to_name)
                .is_some_and(|c| self.classes.info(c).origin == Origin::Jdk);
        (jdk_target && self.unknown_may_be(ty, to)).then(|| self.unknown_obj(&to_name))
    }

    /// Whether an unknown object of type `ty` (any object of that type or a subtype) may also
    /// be of type `to`.
    fn unknown_may_be(&mut self, ty: TypeId, to: TypeId) -> bool {
        if self.is_subtype(ty, to) || self.is_subtype(to, ty) {
            return true;
        }
        let to_name = self.type_name(to).to_string();
        let from_name = self.type_name(ty).to_string();
        if to_name.starts_with('[') || from_name.starts_with('[') {
            return false;
        }
        let iface = |s: &mut Self, name: &str| {
            s.classes
                .get(name)
                .is_none_or(|c| s.classes.info(c).is_interface)
        };
        iface(self, &to_name) || iface(self, &from_name)
    }

    /// Whether object `o` may have field `f` (be of its declaring class, or an array for the
    /// element): other objects only reach a field access through the analysis' imprecision.
    fn may_have_field(&mut self, o: ObjId, f: FieldId) -> bool {
        let (ty, kind) = (self.objs[o as usize].ty, &self.objs[o as usize].kind);
        let unknown = matches!(kind, ObjKind::Unknown);
        if f == ARRAY_FIELD {
            let name = self.type_name(ty);
            return name.starts_with('[')
                || matches!(kind, ObjKind::ReflectArray)
                || (unknown
                    && matches!(
                        name,
                        "java/lang/Object" | "java/lang/Cloneable" | "java/io/Serializable"
                    ));
        }
        match self.field_owner.get(f as usize).copied().flatten() {
            None => true,
            Some(owner) => {
                self.is_subtype(ty, owner) || (unknown && self.unknown_may_be(ty, owner))
            }
        }
    }

    fn enqueue(&mut self, n: Node) {
        if !self.queued[n as usize] {
            self.queued[n as usize] = true;
            self.worklist.push(n);
        }
    }

    fn add_objs(&mut self, n: Node, set: &SparseBitSet) {
        let n = self.find(n);
        let new = self.pts[n as usize].union_new(set);
        if !new.is_empty() {
            self.delta[n as usize].union_with(&new);
            self.enqueue(n);
        }
    }

    /// Debugging: remembers the node each object first flowed from into `unknown`.
    fn note_escape(&mut self, from: Node, to: Node, objs: &SparseBitSet) {
        let u = self.find(self.unknown);
        if self.find(to) != u {
            return;
        }
        let from_text = self.describe_node(from);
        let map = self.escape_from.as_mut().expect("checked");
        for o in objs.iter() {
            map.entry(o).or_insert_with(|| from_text.clone());
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

    /// Debugging: why each escaped object escaped (set `RANKCHECK_ALIAS_DUMP=unknown`).
    pub fn escape_reason(&self, o: ObjId) -> Option<&str> {
        self.escape_from.as_ref()?.get(&o).map(String::as_str)
    }

    pub fn add_obj(&mut self, n: Node, o: ObjId) {
        let n = self.find(n);
        if self.pts[n as usize].insert(o) {
            self.delta[n as usize].insert(o);
            self.enqueue(n);
        }
    }

    pub fn add_edge(&mut self, from: Node, to: Node, filter: Option<TypeId>) {
        let (from, to) = (self.find(from), self.find(to));
        if from == to && filter.is_none() {
            return;
        }
        if !self.edge_set.insert((from, to, filter)) {
            return;
        }
        self.succ[from as usize].push(Edge { to, filter });
        if !self.pts[from as usize].is_empty() {
            let all = self.pts[from as usize].clone();
            let f = self.filtered(&all, filter);
            if self.escape_from.is_some() {
                self.note_escape(from, to, &f);
            }
            self.add_objs(to, &f);
        }
    }

    /// The type filter for values of field descriptor `desc` (`None`: no filtering needed).
    fn desc_filter(&mut self, desc: &str) -> Option<TypeId> {
        match class_of_desc(desc) {
            Some(c) if c != "java/lang/Object" => Some(self.type_id(&c)),
            _ => None,
        }
    }

    // ---- fields ---------------------------------------------------------------------------

    /// The field id of an instance field access, resolved to its declaring class.
    fn instance_field(&mut self, f: &ir::FieldRef) -> FieldId {
        let owner = self
            .classes
            .resolve_field(&f.class, &f.name, &f.desc)
            .map(|c| self.classes.info(c).name.clone())
            .unwrap_or_else(|| f.class.clone());
        self.field_id(&owner, &f.name, &f.desc)
    }

    fn field_id(&mut self, owner: &str, name: &str, desc: &str) -> FieldId {
        let key = format!("{owner}.{name}:{desc}");
        let id = self.fields.id(&key);
        if id as usize >= self.field_types.len() {
            let ty = self.desc_filter(desc);
            self.field_types.push(ty);
            let app = owner == "<lambda>"
                || self
                    .classes
                    .get(owner)
                    .is_some_and(|c| self.classes.info(c).origin == Origin::App);
            self.field_is_app.push(app);
            let owner_ty = (owner != "<lambda>").then(|| self.type_id(owner));
            self.field_owner.push(owner_ty);
        }
        id
    }

    /// Declaring class of a static field (the referenced class if it cannot be resolved).
    pub fn static_owner(&mut self, f: &ir::FieldRef) -> Option<ClassId> {
        self.classes.resolve_field(&f.class, &f.name, &f.desc)
    }

    fn static_node(&mut self, f: &ir::FieldRef) -> Node {
        let owner = self.static_owner(f);
        let owner_name = owner
            .map(|c| self.classes.info(c).name.clone())
            .unwrap_or_else(|| f.class.clone());
        let id = self.field_id(&owner_name, &f.name, &f.desc);
        if let Some(&n) = self.static_nodes.get(&id) {
            return n;
        }
        let n = self.new_node();
        self.static_nodes.insert(id, n);
        let jdk = owner.is_none_or(|c| self.classes.info(c).origin == Origin::Jdk);
        // The static initializers of analysed JDK classes are analysed (`init_class`), and only
        // code of the class's own package (analysed too) sees a field that is not exported.
        let analysed_owner = owner.is_some() && self.scope.analyses(&owner_name);
        let exported = owner.is_none_or(|c| {
            self.classes
                .info(c)
                .fields
                .iter()
                .find(|d| d.name == f.name && d.descriptor == f.desc)
                .is_none_or(|d| d.is_exported)
        });
        if jdk && is_ref(&f.desc) && (!analysed_owner || exported) {
            // Set by the JVM before main (or by code the analysis does not see): assume an
            // unknown object.
            if !analysed_owner {
                if let Some(c) = class_of_desc(&f.desc) {
                    let o = self.unknown_obj(&c);
                    self.add_obj(n, o);
                }
            }
            if !self.closed_world {
                // Unknown (JDK) code reads and writes JDK statics.
                let unknown = self.unknown;
                let filter = self.desc_filter(&f.desc);
                self.add_edge(n, unknown, None);
                self.add_edge(unknown, n, filter);
            }
        }
        n
    }

    /// Every static field node, with its field key `owner.name:desc`.
    pub fn static_field_nodes(&self) -> Vec<(String, Node)> {
        self.static_nodes
            .iter()
            .map(|(&f, &n)| (self.fields.names[f as usize].clone(), n))
            .collect()
    }

    fn field_node(&mut self, o: ObjId, f: FieldId) -> Node {
        if let Some(&n) = self.field_nodes.get(&(o, f)) {
            return n;
        }
        let n = self.new_node();
        self.field_nodes.insert((o, f), n);
        self.obj_fields[o as usize].push((f, n));
        if self.havocked[o as usize] {
            self.havoc_field(o, f, n);
        }
        n
    }

    /// The fields of `o` that have nodes (for reachability).
    pub fn fields_of(&self, o: ObjId) -> &[(FieldId, Node)] {
        &self.obj_fields[o as usize]
    }

    fn field_value_type(&mut self, o: ObjId, f: FieldId) -> Option<TypeId> {
        if f == ARRAY_FIELD {
            let arr = self.type_name(self.objs[o as usize].ty).to_string();
            arr.strip_prefix('[').and_then(|e| self.desc_filter(e))
        } else {
            self.field_types.get(f as usize).copied().flatten()
        }
    }

    /// From now on library code may write application-declared fields of escaped objects.
    fn allow_reflective_writes(&mut self) {
        if self.reflective_writes {
            return;
        }
        self.reflective_writes = true;
        for (o, f, n) in std::mem::take(&mut self.deferred_havoc) {
            self.havoc_field(o, f, n);
        }
    }

    fn havoc(&mut self, o: ObjId) {
        if self.havocked[o as usize] {
            return;
        }
        self.havocked[o as usize] = true;
        let fields = self.obj_fields[o as usize].clone();
        for (f, n) in fields {
            self.havoc_field(o, f, n);
        }
    }

    /// Field `f` of havocked object `o` may hold anything unknown of its type, and an unknown
    /// object of that type when it is a JDK type.
    fn havoc_field(&mut self, o: ObjId, f: FieldId, n: Node) {
        if !self.closed_world && f == self.thread_target_field() {
            return;
        }
        let unknown = self.unknown;
        // Unknown code can read what it can reach.
        self.add_edge(n, unknown, None);
        // Library code writes fields the application declares only through reflection, field
        // updaters, VarHandles or Unsafe; until the application sets one of those up, such
        // fields keep their own values.
        if self.field_is_app.get(f as usize).copied().unwrap_or(false) && !self.reflective_writes {
            self.deferred_havoc.push((o, f, n));
            return;
        }
        let ty = self.field_value_type(o, f);
        self.add_edge(unknown, n, ty);
        let name = match ty {
            Some(t) => self.type_name(t).to_string(),
            None => "java/lang/Object".to_string(),
        };
        let jdk_type = name.starts_with('[')
            || self
                .classes
                .get(&name)
                .is_some_and(|c| self.classes.info(c).origin == Origin::Jdk);
        if jdk_type {
            let u = self.unknown_obj(&name);
            self.add_obj(n, u);
        }
    }

    // ---- methods --------------------------------------------------------------------------

    fn method_id(&mut self, class: ClassId, index: usize) -> MethodId {
        if let Some(&m) = self.method_ids.get(&(class, index)) {
            return m;
        }
        let decl = &self.classes.info(class).methods[index];
        let (name, desc) = (decl.name.clone(), decl.descriptor.clone());
        let id = self.methods.len() as MethodId;
        self.methods.push(MethodState {
            class,
            index,
            name,
            desc,
            ir: None,
            base: 0,
            params: Vec::new(),
            ret: None,
        });
        self.method_ids.insert((class, index), id);
        self.reach(id);
        id
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

    /// Builds the IR and nodes of a newly reached method and queues its statements.
    fn reach(&mut self, m: MethodId) {
        let (class, index) = (
            self.methods[m as usize].class,
            self.methods[m as usize].index,
        );
        let info = self.classes.info(class);
        let decl = &info.methods[index];
        let native = decl.is_native();
        let library = info.origin == Origin::Jdk && !self.scope.analyses(&info.name);
        let init = (info.origin == Origin::Jdk && !library).then(|| info.name.clone());
        let ir = if library {
            ir::signature_only(&decl.descriptor, decl.is_static())
        } else {
            ir::build(&info.file, index)
        };
        let base = self.pts.len() as Node;
        for _ in 0..ir.num_vars {
            self.new_node();
        }
        let params: Vec<Option<Node>> = ir.params.iter().map(|p| p.map(|v| base + v)).collect();
        let ret = ir.ret.map(|v| base + v);
        let st = &mut self.methods[m as usize];
        st.base = base;
        st.params = params;
        st.ret = ret;
        if let Some(why) = &ir.unsupported {
            let (c, n, d) = self.method_key(m);
            let msg = format!("{c}.{n}{d}: {why}; treated as unknown code");
            if self.is_app_method(m) {
                self.app_warnings.push(msg);
            } else {
                self.jdk_warnings.push(msg);
            }
        }
        self.methods[m as usize].ir = Some(ir);
        self.pending_methods.push(m);
        if let Some(name) = init {
            // Its statics are only what its initializer (analysed) puts there.
            self.init_class(&name);
        }
        if library {
            self.library_model(m);
        } else if native {
            if self.classes.info(class).origin == Origin::App {
                // JNI code can set any field.
                self.allow_reflective_writes();
            }
            self.native_model(m);
        }
    }

    /// A JDK method whose body is not analysed: a few are modelled exactly, a few keep their
    /// arguments, every other one lets its reference arguments escape to unknown code (which
    /// may call back any application method overriding a JDK method) and returns unknown.
    fn library_model(&mut self, m: MethodId) {
        let (class, name, desc) = self.method_key(m);
        let params = self.methods[m as usize].params.clone();
        let ret = self.methods[m as usize].ret;
        match (class.as_str(), name.as_str(), desc.as_str()) {
            ("java/lang/Object", "clone", _) | ("java/lang/System", "arraycopy", _) => {
                self.native_model(m)
            }
            ("java/lang/reflect/Array", "newInstance", _) if !self.closed_world => {
                if let Some(r) = ret {
                    let o = match self.reflect_array {
                        Some(o) => o,
                        None => {
                            let t = self.type_id("[Ljava/lang/Object;");
                            let o = self.new_obj(t, ObjKind::ReflectArray);
                            self.reflect_array = Some(o);
                            o
                        }
                    };
                    self.add_obj(r, o);
                }
            }
            ("jdk/internal/misc/Unsafe" | "sun/misc/Unsafe", _, _) => {
                // Reference accesses by offset are modelled at the call (see
                // `field_access_by_offset`); the rest reads or writes primitives.
                self.unknown_result(ret, &desc)
            }
            ("java/lang/Object", "toString", _) => {
                // `getClass().getName() + "@" + hashCode()`: only `hashCode` may be overridden.
                if let Some(Some(this)) = params.first() {
                    self.call_no_args(*this, "hashCode", "()I", None);
                }
                self.unknown_result(ret, &desc)
            }
            ("java/lang/Number" | "java/lang/Enum" | "java/lang/Record", "<init>", _)
            | (
                "java/lang/String"
                | "java/lang/Integer"
                | "java/lang/Long"
                | "java/lang/Short"
                | "java/lang/Byte"
                | "java/lang/Character"
                | "java/lang/Boolean"
                | "java/lang/Float"
                | "java/lang/Double",
                "equals" | "hashCode" | "compareTo" | "equalsIgnoreCase" | "compareToIgnoreCase",
                _,
            ) => {
                // They compare or print their arguments, and keep none.

                self.unknown_result(ret, &desc)
            }
            ("java/lang/String", "valueOf", "(Ljava/lang/Object;)Ljava/lang/String;")
            | (
                "java/lang/StringBuilder" | "java/lang/StringBuffer",
                "append" | "insert",
                "(Ljava/lang/Object;)Ljava/lang/StringBuilder;"
                | "(ILjava/lang/Object;)Ljava/lang/StringBuilder;"
                | "(Ljava/lang/Object;)Ljava/lang/StringBuffer;"
                | "(ILjava/lang/Object;)Ljava/lang/StringBuffer;",
            )
            | (
                "java/io/PrintStream" | "java/io/PrintWriter",
                "print" | "println",
                "(Ljava/lang/Object;)V",
            ) => {
                // They keep only the text of `String.valueOf(x)`: a call of `x.toString()`.
                if let Some(Some(x)) = params.last() {
                    self.call_no_args(*x, "toString", "()Ljava/lang/String;", None);
                }
                self.unknown_result(ret, &desc)
            }
            ("java/lang/Thread", "<init>", _) => {
                // The thread keeps its Runnable in `target` (read only by `run`, modelled
                // below); the other arguments (group, name, …) are not application state.
                let target = self.thread_target_field();
                if let (Some(Some(this)), Some(parsed)) = (params.first(), parse_method_desc(&desc))
                {
                    for (p, node) in parsed.params.iter().zip(params.iter().skip(1)) {
                        if let (true, Some(n)) = (p == "Ljava/lang/Runnable;", node) {
                            self.add_store(*this, target, *n);
                        }
                    }
                }
            }
            ("java/lang/Thread", "run", "()V") => {
                if let Some(Some(this)) = params.first() {
                    let target = self.thread_target_field();
                    let runnable = self.new_node();
                    self.add_load(*this, target, runnable);
                    let cs = self.new_callsite(
                        CallKind::Interface,
                        MethodRef {
                            class: "java/lang/Runnable".into(),
                            name: "run".into(),
                            desc: "()V".into(),
                        },
                        vec![],
                        None,
                        None,
                    );
                    self.register_call(runnable, cs);
                }
            }
            ("java/lang/Thread", "start", "()V") => {
                if let Some(Some(this)) = params.first() {
                    self.thread_started(*this);
                }
                self.unknown_code(&params, ret, &desc);
            }
            (
                "java/lang/Object",
                "<init>" | "getClass" | "notify" | "notifyAll" | "wait" | "hashCode" | "equals",
                _,
            )
            | ("java/lang/System", "identityHashCode", _)
            | (
                "java/lang/Thread",
                "join" | "isAlive" | "getName" | "setName" | "interrupt" | "isInterrupted"
                | "setDaemon" | "isDaemon" | "getId" | "currentThread" | "sleep" | "yield"
                | "onSpinWait" | "interrupted" | "setPriority" | "getPriority",
                _,
            ) => self.unknown_result(ret, &desc),
            _ => self.unknown_code(&params, ret, &desc),
        }
    }

    /// A value unknown code passes to application code may be an object that unknown code made
    /// (of a JDK type: the application's own objects are in `unknown` already), seen through a
    /// parameter of descriptor `desc`.
    fn add_made_by_unknown(&mut self, n: Node, desc: &str) {
        let Some(c) = class_of_desc(desc) else { return };
        let jdk = c.starts_with('[')
            || self
                .classes
                .get(&c)
                .is_some_and(|id| self.classes.info(id).origin == Origin::Jdk);
        if jdk {
            let o = self.unknown_obj(&c);
            self.add_obj(n, o);
        }
    }

    /// `Thread.target`, which only `Thread`'s own code touches (modelled in
    /// [`Solver::library_model`]): unknown code neither reads nor writes it.
    fn thread_target_field(&mut self) -> FieldId {
        self.field_id("java/lang/Thread", "target", "Ljava/lang/Runnable;")
    }

    fn thread_started(&mut self, this: Node) {
        self.started_threads.push(this);
        let cs = self.new_callsite(
            CallKind::Virtual,
            MethodRef {
                class: "java/lang/Thread".into(),
                name: "run".into(),
                desc: "()V".into(),
            },
            vec![],
            None,
            None,
        );
        self.thread_run_calls.push(cs);
        self.register_call(this, cs);
    }

    /// Application methods unknown code may call on an object of class `class`: those that
    /// override or implement a method declared in a JDK supertype.
    fn callbacks_of(&mut self, class: &str) -> Vec<MethodId> {
        if let Some(t) = self.callback_targets.get(class) {
            return t.clone();
        }
        let mut sigs: Vec<(String, String)> = Vec::new();
        let mut seen = HashSet::default();
        let mut stack = vec![class.to_string()];
        while let Some(c) = stack.pop() {
            if !seen.insert(c.clone()) {
                continue;
            }
            let Some(id) = self.classes.get(&c) else {
                continue;
            };
            let info = self.classes.info(id);
            if info.origin == Origin::Jdk {
                for m in &info.methods {
                    if !m.is_static()
                        && !m
                            .flags
                            .contains(ristretto_classfile::MethodAccessFlags::PRIVATE)
                        && !m.name.starts_with('<')
                    {
                        sigs.push((m.name.clone(), m.descriptor.clone()));
                    }
                }
            }
            stack.extend(info.super_name.iter().cloned());
            stack.extend(info.interfaces.iter().cloned());
        }
        sigs.sort();
        sigs.dedup();
        let mut targets = Vec::new();
        for (name, desc) in sigs {
            if let Some((c, i)) = self.classes.dispatch(class, &name, &desc) {
                if self.classes.info(c).origin == Origin::App {
                    targets.push(self.method_id(c, i));
                }
            }
        }
        self.callback_targets
            .insert(class.to_string(), targets.clone());
        targets
    }

    /// Object `o` reached unknown code: it may be written through, and called back.
    fn escaped(&mut self, o: ObjId) {
        self.havoc(o);
        let obj = self.objs[o as usize].clone();
        if let ObjKind::Lambda { info } = &obj.kind {
            if self.closed_world {
                return;
            }
            let Some(sam) = parse_method_desc(&info.sam_desc) else {
                return;
            };
            let unknown = self.unknown;
            let mut args = Vec::new();
            for p in &sam.params {
                if is_ref(p) {
                    let a = self.new_node();
                    let f = self.desc_filter(p);
                    self.add_edge(unknown, a, f);
                    self.add_made_by_unknown(a, p);
                    args.push(Some(a));
                } else {
                    args.push(None);
                }
            }
            let ret = is_ref(&sam.ret).then_some(unknown);
            let cs = self.new_callsite(
                CallKind::Interface,
                MethodRef {
                    class: info.interface.clone(),
                    name: info.sam.clone(),
                    desc: info.sam_desc.clone(),
                },
                args,
                ret,
                None,
            );
            self.called_back = true;
            self.lambda_call(cs, o, info);
            return;
        }
        if self.closed_world {
            return;
        }
        let class = self.type_name(obj.ty).to_string();
        if class.starts_with('[') {
            return;
        }
        let app = self
            .classes
            .get(&class)
            .is_some_and(|c| self.classes.info(c).origin == Origin::App);
        if !app {
            return;
        }
        for target in self.callbacks_of(&class) {
            self.called_back = true;
            if let Some(Some(this)) = self.methods[target as usize].params.first() {
                let this = *this;
                self.add_obj(this, o);
            }
            if self.callback_linked.insert(target) {
                let desc = self.methods[target as usize].desc.clone();
                let params = self.methods[target as usize].params.clone();
                let ret = self.methods[target as usize].ret;
                let unknown = self.unknown;
                if let Some(parsed) = parse_method_desc(&desc) {
                    for (p, node) in parsed.params.iter().zip(params.iter().skip(1)) {
                        if let Some(n) = node {
                            let f = self.desc_filter(p);
                            self.add_edge(unknown, *n, f);
                            self.add_made_by_unknown(*n, p);
                        }
                    }
                }
                if let Some(r) = ret {
                    self.add_edge(r, unknown, None);
                }
            }
        }
    }

    fn process_method(&mut self, m: MethodId) {
        let ir = self.methods[m as usize]
            .ir
            .take()
            .expect("reached method has IR");
        let base = self.methods[m as usize].base;
        if ir.unsupported.is_some() {
            self.allow_reflective_writes();
            let (params, ret) = (
                self.methods[m as usize].params.clone(),
                self.methods[m as usize].ret,
            );
            let desc = self.methods[m as usize].desc.clone();
            self.unknown_code(&params, ret, &desc);
        } else {
            for (i, stmt) in ir.stmts.iter().enumerate() {
                self.statement(m, base, i, stmt, &ir);
            }
        }
        self.methods[m as usize].ir = Some(ir);
    }

    /// Code the analysis cannot see: reference arguments escape, the result is unknown.
    fn unknown_code(&mut self, args: &[Option<Node>], ret: Option<Node>, desc: &str) {
        let unknown = self.unknown;
        let params = parse_method_desc(desc)
            .map(|d| d.params)
            .unwrap_or_default();
        // `args` may start with the receiver.
        let skip = args.len().saturating_sub(params.len());
        for (i, a) in args.iter().enumerate() {
            let Some(a) = a else { continue };
            let declared = i.checked_sub(skip).and_then(|k| params.get(k));
            match declared {
                // Strings, boxes, classes and primitive arrays hold no application state.
                Some(p) if is_inert(p) => {}
                // Only values of the declared type really get there.
                Some(p) => {
                    let f = self.desc_filter(p);
                    self.add_edge(*a, unknown, f);
                }
                None => self.add_edge(*a, unknown, None),
            }
        }
        self.unknown_result(ret, desc);
    }

    fn unknown_result(&mut self, ret: Option<Node>, desc: &str) {
        let Some(r) = ret else { return };
        let ret_desc = parse_method_desc(desc).map(|d| d.ret).unwrap_or_default();
        let filter = self.desc_filter(&ret_desc);
        let unknown = self.unknown;
        self.add_edge(unknown, r, filter);
        if let Some(c) = class_of_desc(&ret_desc) {
            let o = self.unknown_obj(&c);
            self.add_obj(r, o);
        }
    }

    fn native_model(&mut self, m: MethodId) {
        let (class, name, desc) = self.method_key(m);
        let params = self.methods[m as usize].params.clone();
        let ret = self.methods[m as usize].ret;
        match (class.as_str(), name.as_str()) {
            ("java/lang/Object", "clone") => {
                if let (Some(Some(this)), Some(r)) = (params.first(), ret) {
                    self.add_edge(*this, r, None);
                }
            }
            ("java/lang/System", "arraycopy") => {
                if let (Some(Some(src)), Some(Some(dst))) = (params.first(), params.get(2)) {
                    let tmp = self.new_node();
                    self.add_load(*src, ARRAY_FIELD, tmp);
                    self.add_store(*dst, ARRAY_FIELD, tmp);
                }
            }
            ("java/lang/Thread", "start0") => {
                if let Some(Some(this)) = params.first() {
                    self.thread_started(*this);
                }
            }
            _ if native_keeps_args(&class) => self.unknown_result(ret, &desc),
            _ => self.unknown_code(&params, ret, &desc),
        }
    }

    fn add_load(&mut self, base: Node, f: FieldId, dst: Node) {
        let b = self.find(base);
        self.loads[b as usize].push((f, dst));
        self.field_flows_of(b, f, dst, false);
    }

    fn add_store(&mut self, base: Node, f: FieldId, src: Node) {
        let b = self.find(base);
        self.stores[b as usize].push((f, src));
        self.field_flows_of(b, f, src, true);
    }

    /// [`Solver::field_flow`] for every object `b` already points to.
    fn field_flows_of(&mut self, b: Node, f: FieldId, other: Node, store: bool) {
        let objs: Vec<ObjId> = self.pts[b as usize].iter().collect();
        for o in objs {
            self.field_flow(o, f, other, store);
        }
    }

    /// `other ⊇ o.f` (a load) or `o.f ⊇ other` (a store). For [`ANY_FIELD`]: every reference
    /// field of `o`, a store giving each what its type admits.
    fn field_flow(&mut self, o: ObjId, f: FieldId, other: Node, store: bool) {
        let any = f >= ANY_FIELD;
        // The value's static type: the access targets a field whose type it can be cast to.
        let static_ty = f
            .checked_sub(ANY_FIELD + 1)
            .and_then(|k| self.by_offset_types.get(k as usize).copied().flatten());
        let fields = if any {
            match self.ref_fields_of(o) {
                Some(fields) => fields,
                None => {
                    let unknown = self.unknown;
                    if store {
                        self.add_edge(other, unknown, None);
                    } else {
                        self.add_edge(unknown, other, None);
                    }
                    return;
                }
            }
        } else if self.may_have_field(o, f) {
            vec![f]
        } else {
            return;
        };
        for f in fields {
            let fnode = self.field_node(o, f);
            if store {
                let ty = if any {
                    self.field_value_type(o, f)
                } else {
                    None
                };
                if let (Some(st), Some(ft)) = (static_ty, ty) {
                    if !self.is_subtype(st, ft) && !self.is_subtype(ft, st) {
                        continue;
                    }
                }
                self.add_edge(other, fnode, ty);
            } else {
                self.add_edge(fnode, other, None);
            }
        }
    }

    /// The reference fields of `o` (instance fields of its class and superclasses, or the
    /// element of a reference array); `None` when `o` may have fields the analysis does not
    /// know: an unknown object (any subclass), a `Class` (static fields by offset), a lambda.
    fn ref_fields_of(&mut self, o: ObjId) -> Option<Vec<FieldId>> {
        let ty = self.objs[o as usize].ty;
        if !matches!(
            self.objs[o as usize].kind,
            ObjKind::Alloc { .. } | ObjKind::StringConst | ObjKind::ReflectArray
        ) {
            return None;
        }
        if let Some(known) = self.ref_fields.get(&ty) {
            return known.clone();
        }
        let name = self.type_name(ty).to_string();
        let result = if let Some(elem) = name.strip_prefix('[') {
            Some(if is_ref(elem) {
                vec![ARRAY_FIELD]
            } else {
                vec![]
            })
        } else {
            let mut fields = Vec::new();
            let mut at = self.classes.get(&name);
            let mut complete = at.is_some();
            while let Some(c) = at {
                let owner = self.classes.info(c).name.clone();
                let decls: Vec<(String, String)> = self
                    .classes
                    .info(c)
                    .fields
                    .iter()
                    .filter(|f| !f.is_static && is_ref(&f.descriptor))
                    .map(|f| (f.name.clone(), f.descriptor.clone()))
                    .collect();
                for (n, d) in decls {
                    fields.push(self.field_id(&owner, &n, &d));
                }
                match self.classes.info(c).super_name.clone() {
                    Some(sup) => {
                        at = self.classes.get(&sup);
                        complete &= at.is_some();
                    }
                    None => at = None,
                }
            }
            complete.then_some(fields)
        };
        self.ref_fields.insert(ty, result.clone());
        result
    }

    /// Field access by offset (`Unsafe` get/put/CAS of references, `VarHandle` access modes):
    /// stores every value argument into every reference field of the base object and loads the
    /// result from them. `false` when `m` is not such an access (or its shape is not known).
    fn field_access_by_offset(
        &mut self,
        caller: MethodId,
        m: &MethodRef,
        recv: Option<Node>,
        args: &[Option<Node>],
        ret: Option<Node>,
    ) -> bool {
        let Some(desc) = parse_method_desc(&m.desc) else {
            return false;
        };
        let (base, values): (Option<Node>, Vec<(Node, &String)>) = match m.class.as_str() {
            "jdk/internal/misc/Unsafe" | "sun/misc/Unsafe" => {
                let by_offset = ["get", "put", "compareAndSet", "weakCompareAndSet"]
                    .iter()
                    .chain(&["compareAndExchange", "getAndSet", "compareAndSwap"])
                    .any(|p| m.name.starts_with(p))
                    && (m.name.contains("Reference") || m.name.contains("Object"));
                // (Object o, long offset, values…): o may be null (absolute addresses hold no
                // references the analysis tracks) or a Class (static fields: see below).
                if !by_offset || desc.params.len() < 2 || desc.params[1] != "J" {
                    return false;
                }
                let values = args
                    .iter()
                    .zip(&desc.params)
                    .skip(2)
                    .filter_map(|(a, p)| a.map(|a| (a, p)))
                    .collect();
                (args.first().copied().flatten(), values)
            }
            "java/lang/invoke/VarHandle" if recv.is_some() => {
                let n = m.name.as_str();
                let arity = match n {
                    "get" | "getVolatile" | "getOpaque" | "getAcquire" => 0,
                    "set" | "setVolatile" | "setOpaque" | "setRelease" => 1,
                    _ if n.starts_with("compareAnd") || n.starts_with("weakCompareAndSet") => 2,
                    _ if n.starts_with("getAndSet")
                        || n.starts_with("getAndAdd")
                        || n.starts_with("getAndBitwise") =>
                    {
                        1
                    }
                    _ => return false,
                };
                let p = &desc.params;
                if p.len() == arity {
                    // A static field: JDK statics are read and written by unknown code.
                    let unknown = self.unknown;
                    for a in args.iter().flatten() {
                        self.add_edge(*a, unknown, None);
                    }
                    self.unknown_result(ret, &m.desc);
                    return true;
                }
                let skip = if p.len() == arity + 1 && is_ref(&p[0]) {
                    1
                } else if p.len() == arity + 2 && is_ref(&p[0]) && p[1] == "I" {
                    2
                } else {
                    return false;
                };
                let values = args
                    .iter()
                    .zip(&desc.params)
                    .skip(skip)
                    .filter_map(|(a, p)| a.map(|a| (a, p)))
                    .collect();
                (args.first().copied().flatten(), values)
            }
            _ => return false,
        };
        let Some(base) = base else { return true };
        let caller_class = self
            .classes
            .info(self.methods[caller as usize].class)
            .name
            .clone();
        if caller_class == "java/util/concurrent/locks/LockSupport" {
            // Its only reference field by offset is `Thread.parkBlocker`, which nothing else
            // touches: one global node stands for it.
            let blockers = match self.park_blockers {
                Some(n) => n,
                None => {
                    let n = self.new_node();
                    self.park_blockers = Some(n);
                    n
                }
            };
            for (v, _) in values {
                self.add_edge(v, blockers, None);
            }
            if let Some(r) = ret {
                self.add_edge(blockers, r, None);
            }
            return true;
        }
        for (v, p) in values {
            let ty = self.desc_filter(p);
            let k = match self.by_offset_types.iter().position(|&t| t == ty) {
                Some(k) => k,
                None => {
                    self.by_offset_types.push(ty);
                    self.by_offset_types.len() - 1
                }
            };
            self.add_store(base, ANY_FIELD + 1 + k as FieldId, v);
        }
        if let Some(r) = ret {
            if desc.ret.starts_with('L') || desc.ret.starts_with('[') {
                let filter = self.desc_filter(&desc.ret);
                let tmp = self.new_node();
                self.add_load(base, ANY_FIELD, tmp);
                self.add_edge(tmp, r, filter);
            }
        }
        true
    }

    fn new_callsite(
        &mut self,
        kind: CallKind,
        method: MethodRef,
        args: Vec<Option<Node>>,
        ret: Option<Node>,
        caller: Option<MethodId>,
    ) -> usize {
        let _ = kind;
        self.callsites.push(CallSite {
            method,
            args,
            ret,
            caller,
            linked: HashSet::default(),
        });
        self.callsites.len() - 1
    }

    fn register_call(&mut self, recv: Node, cs: usize) {
        let r = self.find(recv);
        self.calls[r as usize].push(cs);
        let objs: Vec<ObjId> = self.pts[r as usize].iter().collect();
        for o in objs {
            self.dispatch(cs, o);
        }
    }

    /// Makes class `name`'s static initializer (and its superclasses') reachable, for
    /// application classes and JDK classes whose bodies are analysed (with [`JdkScope::All`],
    /// JDK statics are unknown objects instead: most of them were set before main).
    pub fn init_class(&mut self, name: &str) {
        if !self.initialized.insert(name.to_string()) {
            return;
        }
        let Some(c) = self.classes.get(name) else {
            return;
        };
        let origin = self.classes.info(c).origin;
        let analysed_jdk = !self.closed_world && self.scope.analyses(name);
        if origin != Origin::App && !analysed_jdk {
            return;
        }
        if let Some(sup) = self.classes.info(c).super_name.clone() {
            self.init_class(&sup);
        }
        if let Some(i) = self
            .classes
            .info(c)
            .methods
            .iter()
            .position(|m| m.name == "<clinit>")
        {
            self.method_id(c, i);
        }
    }

    fn report_unresolved(&mut self, caller: Option<MethodId>, what: String) {
        // Missing code may be application code, which writes application fields directly.
        self.allow_reflective_writes();
        match caller {
            Some(m) if self.is_app_method(m) => {
                let (c, n, d) = self.method_key(m);
                self.app_warnings.push(format!("{c}.{n}{d}: {what}"));
            }
            _ => {
                if self.jdk_warnings.len() < 1000 {
                    self.jdk_warnings.push(what);
                }
            }
        }
    }

    fn statement(&mut self, m: MethodId, base: Node, index: usize, stmt: &Stmt, ir: &MethodIr) {
        let node = |v: ir::Var| base + v;
        match stmt {
            Stmt::New { dst, alloc } => {
                let ty = self.type_id(&ir.allocs[*alloc].ty);
                let o = self.new_obj(
                    ty,
                    ObjKind::Alloc {
                        method: m,
                        alloc: *alloc,
                    },
                );
                self.add_obj(node(*dst), o);
            }
            Stmt::Const { dst, obj } => {
                let o = match obj {
                    ConstObj::String => match self.string_obj {
                        Some(o) => o,
                        None => {
                            let t = self.type_id("java/lang/String");
                            let o = self.new_obj(t, ObjKind::StringConst);
                            self.string_obj = Some(o);
                            o
                        }
                    },
                    ConstObj::Class => match self.class_obj {
                        Some(o) => o,
                        None => {
                            let t = self.type_id("java/lang/Class");
                            let o = self.new_obj(t, ObjKind::ClassConst);
                            self.class_obj = Some(o);
                            o
                        }
                    },
                    ConstObj::Unknown(t) => self.unknown_obj(t),
                };
                self.add_obj(node(*dst), o);
            }
            Stmt::Copy { dst, src } => self.add_edge(node(*src), node(*dst), None),
            Stmt::Cast { dst, src, ty } => {
                let t = self.type_id(ty);
                self.add_edge(node(*src), node(*dst), Some(t));
            }
            Stmt::Load {
                dst,
                base: b,
                field,
            } => {
                let f = self.instance_field(field);
                self.add_load(node(*b), f, node(*dst));
            }
            Stmt::Store {
                base: b,
                field,
                src,
            } => {
                let f = self.instance_field(field);
                self.add_store(node(*b), f, node(*src));
            }
            Stmt::StaticLoad { dst, field } => {
                let s = self.static_node(field);
                self.add_edge(s, node(*dst), None);
            }
            Stmt::StaticStore { field, src } => {
                let s = self.static_node(field);
                self.add_edge(node(*src), s, None);
            }
            Stmt::ArrayLoad { dst, array } => self.add_load(node(*array), ARRAY_FIELD, node(*dst)),
            Stmt::ArrayStore { array, src } => {
                self.add_store(node(*array), ARRAY_FIELD, node(*src))
            }
            Stmt::Call {
                kind,
                method,
                recv,
                args,
                ret,
            } => {
                let args: Vec<Option<Node>> = args.iter().map(|a| a.map(node)).collect();
                let recv = recv.map(node);
                let ret = ret.map(node);
                if self.is_app_method(m) && writes_fields_reflectively(method) {
                    self.allow_reflective_writes();
                }
                if self.is_app_method(m) && is_reflective(method) {
                    let (c, n, d) = self.method_key(m);
                    self.app_warnings.push(format!(
                        "{c}.{n}{d}: reflective call {}.{}: its targets are not followed",
                        method.class, method.name
                    ));
                }
                self.call(m, *kind, method, recv, args, ret);
            }
            Stmt::Lambda {
                dst,
                info,
                captures,
            } => {
                let ty = self.type_id(&info.interface);
                let o = self.new_obj(
                    ty,
                    ObjKind::Lambda {
                        info: Box::new(info.clone()),
                    },
                );
                let _ = index;
                self.add_obj(node(*dst), o);
                for (i, cap) in captures.iter().enumerate() {
                    if let Some(c) = cap {
                        let f = self.capture_field(i);
                        let fnode = self.field_node(o, f);
                        self.add_edge(node(*c), fnode, None);
                    }
                }
            }
            Stmt::Concat { dst, args } => {
                let t = self.type_id("java/lang/String");
                let o = self.new_obj(t, ObjKind::StringConst);
                self.add_obj(node(*dst), o);
                for a in args {
                    self.call_no_args(node(*a), "toString", "()Ljava/lang/String;", Some(m));
                }
            }
            Stmt::UnknownIndy {
                dst,
                args,
                ret_desc,
            } => {
                let args: Vec<Option<Node>> = args.iter().map(|a| Some(node(*a))).collect();
                self.unknown_code(&args, dst.map(node), &format!("(){ret_desc}"));
            }
            Stmt::Throw { src } => {
                let t = self.thrown;
                self.add_edge(node(*src), t, None);
            }
            Stmt::Catch { dst, ty } => {
                let filter = ty.as_ref().map(|t| self.type_id(t));
                let t = self.thrown;
                self.add_edge(t, node(*dst), filter);
            }
            Stmt::Return { src } => {
                if let Some(r) = self.methods[m as usize].ret {
                    self.add_edge(node(*src), r, None);
                }
            }
            Stmt::InitClass { class } => self.init_class(class),
        }
    }

    /// A call of `x.name()` declared by `Object` (`toString` of string concatenation and
    /// printing, …), made by `caller`.
    fn call_no_args(&mut self, x: Node, name: &str, desc: &str, caller: Option<MethodId>) {
        let cs = self.new_callsite(
            CallKind::Virtual,
            MethodRef {
                class: "java/lang/Object".into(),
                name: name.into(),
                desc: desc.into(),
            },
            vec![],
            None,
            caller,
        );
        self.register_call(x, cs);
    }

    fn capture_field(&mut self, i: usize) -> FieldId {
        self.field_id("<lambda>", &format!("cap{i}"), "Ljava/lang/Object;")
    }

    fn call(
        &mut self,
        caller: MethodId,
        kind: CallKind,
        method: &MethodRef,
        recv: Option<Node>,
        args: Vec<Option<Node>>,
        ret: Option<Node>,
    ) {
        if self.field_access_by_offset(caller, method, recv, &args, ret) {
            if self.is_app_method(caller) {
                // The application accesses fields by offset: library code may too.
                self.allow_reflective_writes();
            }
            return;
        }
        let polymorphic = matches!(
            method.class.as_str(),
            "java/lang/invoke/MethodHandle" | "java/lang/invoke/VarHandle"
        ) && kind == CallKind::Virtual
            && self
                .classes
                .resolve_method(&method.class, &method.name, &method.desc)
                .is_none();
        if polymorphic {
            let mut all = vec![recv];
            all.extend(args);
            self.unknown_code(&all, ret, &method.desc);
            return;
        }
        match kind {
            CallKind::Static | CallKind::Special => {
                match self
                    .classes
                    .resolve_method(&method.class, &method.name, &method.desc)
                {
                    Some((c, i)) => {
                        let target = self.method_id(c, i);
                        let mut all = Vec::with_capacity(args.len() + 1);
                        if kind == CallKind::Special {
                            all.push(recv);
                        }
                        all.extend(args);
                        self.link_args(&all, ret, target);
                    }
                    None => {
                        self.report_unresolved(
                            Some(caller),
                            format!(
                                "cannot resolve {}.{}{}",
                                method.class, method.name, method.desc
                            ),
                        );
                        let mut all = vec![recv];
                        all.extend(args);
                        self.unknown_code(&all, ret, &method.desc);
                    }
                }
            }
            CallKind::Virtual | CallKind::Interface => {
                let Some(r) = recv else { return };
                let cs = self.new_callsite(kind, method.clone(), args, ret, Some(caller));
                self.register_call(r, cs);
            }
        }
    }

    /// Connects actual arguments (`all`: receiver first for instance targets) and the result.
    fn link_args(&mut self, all: &[Option<Node>], ret: Option<Node>, target: MethodId) {
        let params = self.methods[target as usize].params.clone();
        for (a, p) in all.iter().zip(&params) {
            if let (Some(a), Some(p)) = (a, p) {
                self.add_edge(*a, *p, None);
            }
        }
        if let (Some(r), Some(tr)) = (ret, self.methods[target as usize].ret) {
            self.add_edge(tr, r, None);
        }
    }

    fn dispatch(&mut self, cs: usize, o: ObjId) {
        let obj = self.objs[o as usize].clone();
        if let ObjKind::Lambda { info } = &obj.kind {
            if self.callsites[cs].method.name == info.sam {
                self.lambda_call(cs, o, info);
                return;
            }
        }
        let class_name = {
            let t = self.type_name(obj.ty);
            if t.starts_with('[') || matches!(obj.kind, ObjKind::Lambda { .. }) {
                "java/lang/Object".to_string()
            } else {
                t.to_string()
            }
        };
        let (name, desc) = (
            self.callsites[cs].method.name.clone(),
            self.callsites[cs].method.desc.clone(),
        );
        if !matches!(obj.kind, ObjKind::Unknown | ObjKind::Lambda { .. }) {
            // Only instances of the method's class reach the call (the verifier sees to it);
            // others come from the analysis' imprecision.
            let class = self.callsites[cs].method.class.clone();
            if class.starts_with('[') || self.classes.get(&class).is_some() {
                let t = self.type_id(&class);
                if !self.is_subtype(obj.ty, t) {
                    return;
                }
            }
        }
        let sig = self.sigs.id(&format!("{name}{desc}"));
        let ty = self.type_id(&class_name);
        let target = match self.dispatch_cache.get(&(ty, sig)) {
            Some(&t) => t,
            None => {
                let t = self
                    .classes
                    .dispatch(&class_name, &name, &desc)
                    .map(|(c, i)| self.method_id(c, i));
                self.dispatch_cache.insert((ty, sig), t);
                t
            }
        };
        let Some(target) = target else {
            // No method: the object cannot reach this call (imprecision), or it is an unknown
            // object of an interface or abstract type, or its class is missing; the latter two
            // are unknown code.
            let unknown_obj = matches!(obj.kind, ObjKind::Unknown);
            if unknown_obj || self.classes.get(&class_name).is_none() {
                let (args, ret) = (self.callsites[cs].args.clone(), self.callsites[cs].ret);
                let caller = self.callsites[cs].caller;
                if !unknown_obj {
                    self.report_unresolved(
                        caller,
                        format!("cannot dispatch {name}{desc} on missing class {class_name}"),
                    );
                }
                self.unknown_code(&args, ret, &desc);
                let unknown = self.unknown;
                self.add_obj(unknown, o);
            }
            return;
        };
        if let Some(Some(this)) = self.methods[target as usize].params.first() {
            let this = *this;
            self.add_obj(this, o);
        }
        if self.callsites[cs].linked.insert(target) {
            let mut all = vec![None];
            all.extend(self.callsites[cs].args.iter().copied());
            let ret = self.callsites[cs].ret;
            self.link_args(&all, ret, target);
        }
    }

    /// A call of a functional interface method on a lambda object: the implementation gets the
    /// captured values, then the call's arguments.
    fn lambda_call(&mut self, cs: usize, o: ObjId, info: &LambdaInfo) {
        if self.lambda_calls.insert((cs, o), ()).is_some() {
            return;
        }
        // Captures are contiguous only for references; count them from the implementation's
        // arity instead when primitives were captured.
        let impl_desc = parse_method_desc(&info.impl_method.desc);
        let impl_arity = impl_desc.as_ref().map_or(0, |d| d.params.len())
            + usize::from(
                matches!(
                    info.impl_kind,
                    CallKind::Virtual | CallKind::Interface | CallKind::Special
                ) && !info.impl_is_constructor,
            );
        let call_args = self.callsites[cs].args.clone();
        let n_captured = impl_arity.saturating_sub(call_args.len());
        let mut vals: Vec<Option<Node>> = Vec::with_capacity(impl_arity);
        for i in 0..n_captured {
            let f = self.capture_field(i);
            vals.push(Some(self.field_node(o, f)));
        }
        vals.extend(call_args);
        let ret = self.callsites[cs].ret;
        let caller = self.callsites[cs].caller;
        let m = &info.impl_method;
        if info.impl_is_constructor {
            let t = self.type_id(&m.class);
            let fresh = self.new_obj(t, ObjKind::Unknown);
            let n = self.new_node();
            self.add_obj(n, fresh);
            if let Some(r) = ret {
                self.add_edge(n, r, None);
            }
            let mut all = vec![Some(n)];
            all.extend(vals);
            self.call_resolved(caller, CallKind::Special, m, all, None);
            return;
        }
        match info.impl_kind {
            CallKind::Static => self.call_resolved(caller, CallKind::Static, m, vals, ret),
            CallKind::Special => self.call_resolved(caller, CallKind::Special, m, vals, ret),
            kind => {
                let recv = vals.first().copied().flatten();
                let rest = vals.get(1..).map(<[_]>::to_vec).unwrap_or_default();
                if let Some(r) = recv {
                    // One synthetic call per (implementation, receiver, arguments, result):
                    // lambdas that call lambdas would otherwise make new calls forever.
                    let r = self.find(r);
                    let key = (m.clone(), r, rest.clone(), ret);
                    if !self.synthetic_calls.contains_key(&key) {
                        let c = self.new_callsite(kind, m.clone(), rest, ret, caller);
                        self.synthetic_calls.insert(key, c);
                        self.register_call(r, c);
                    }
                }
            }
        }
    }

    /// A static or special call whose arguments are already nodes (receiver first for special).
    fn call_resolved(
        &mut self,
        caller: Option<MethodId>,
        kind: CallKind,
        m: &MethodRef,
        all: Vec<Option<Node>>,
        ret: Option<Node>,
    ) {
        match self.classes.resolve_method(&m.class, &m.name, &m.desc) {
            Some((c, i)) => {
                let target = self.method_id(c, i);
                let _ = kind;
                self.link_args(&all, ret, target);
            }
            None => {
                self.report_unresolved(
                    caller,
                    format!("cannot resolve {}.{}{}", m.class, m.name, m.desc),
                );
                self.unknown_code(&all, ret, &m.desc);
            }
        }
    }

    // ---- solving --------------------------------------------------------------------------

    /// Makes `class.name desc` an entry point; its reference parameters hold unknown objects of
    /// their declared types (e.g. `main`'s argument array).
    pub fn add_entry(&mut self, class: &str, name: &str, desc: &str) -> Option<MethodId> {
        self.init_class(class);
        let (c, i) = self.classes.resolve_method(class, name, desc)?;
        let m = self.method_id(c, i);
        let parsed = parse_method_desc(desc)?;
        let params = self.methods[m as usize].params.clone();
        let is_static = self.classes.info(c).methods[i].is_static();
        for (k, p) in parsed.params.iter().enumerate() {
            let idx = k + usize::from(!is_static);
            if let (Some(Some(n)), Some(cls)) = (params.get(idx), class_of_desc(p)) {
                let o = self.unknown_obj(&cls);
                self.add_obj(*n, o);
            }
        }
        Some(m)
    }

    /// Runs to the fixed point.
    pub fn solve(&mut self) {
        let progress = std::env::var_os("RANKCHECK_ALIAS_PROGRESS").is_some();
        let started = std::time::Instant::now();
        let mut last_report = 0u64;
        loop {
            if progress && self.steps % 4096 == 0 {
                let secs = started.elapsed().as_secs();
                if secs > last_report {
                    last_report = secs;
                    let u = self.find(self.unknown);
                    eprintln!(
                        "alias: {secs}s methods {} classes {} nodes {} objs {} worklist {} steps {} unknown {} edges {}",
                        self.methods.len(),
                        self.classes.loaded_count(),
                        self.pts.len(),
                        self.objs.len(),
                        self.worklist.len(),
                        self.steps,
                        self.pts[u as usize].len(),
                        self.edge_set.len()
                    );
                }
            }
            if let Some(m) = self.pending_methods.pop() {
                self.process_method(m);
                continue;
            }
            let Some(n) = self.worklist.pop() else { break };
            self.queued[n as usize] = false;
            let n = self.find(n);
            let d = std::mem::take(&mut self.delta[n as usize]);
            if d.is_empty() {
                continue;
            }
            self.steps_since_collapse += 1;
            self.steps += 1;
            let objs: Vec<ObjId> = d.iter().collect();
            if n == self.find(self.unknown) {
                for &o in &objs {
                    self.escaped(o);
                }
            }
            let mut k = 0;
            while k < self.loads[n as usize].len() {
                let (f, dst) = self.loads[n as usize][k];
                for &o in &objs {
                    self.field_flow(o, f, dst, false);
                }
                k += 1;
            }
            let mut k = 0;
            while k < self.stores[n as usize].len() {
                let (f, src) = self.stores[n as usize][k];
                for &o in &objs {
                    self.field_flow(o, f, src, true);
                }
                k += 1;
            }
            let mut k = 0;
            while k < self.calls[n as usize].len() {
                let cs = self.calls[n as usize][k];
                for &o in &objs {
                    self.dispatch(cs, o);
                }
                k += 1;
            }
            let mut k = 0;
            while k < self.succ[n as usize].len() {
                let e = self.succ[n as usize][k];
                let f = self.filtered(&d, e.filter);
                if self.escape_from.is_some() {
                    self.note_escape(n, e.to, &f);
                }
                self.add_objs(e.to, &f);
                k += 1;
            }
            if self.steps_since_collapse > 200_000 {
                self.steps_since_collapse = 0;
                self.collapse_cycles();
            }
        }
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
        if other == self.unknown || keep == self.unknown {
            // `unknown` stays identifiable through find().
        }
        self.enqueue(keep);
    }

    /// The points-to set of node `n`.
    pub fn points_to(&mut self, n: Node) -> &SparseBitSet {
        let r = self.find(n);
        &self.pts[r as usize]
    }

    /// Bytes held by points-to sets (a part of the analysis' memory, for reports).
    pub fn pts_bytes(&self) -> usize {
        self.pts.iter().map(SparseBitSet::heap_bytes).sum()
    }

    pub fn field_name(&self, f: FieldId) -> &str {
        &self.fields.names[f as usize]
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

    pub fn reached_methods(&self) -> usize {
        self.methods.len()
    }

    pub fn method_of(&self, class: ClassId, index: usize) -> Option<MethodId> {
        self.method_ids.get(&(class, index)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classpath::ClassPath;

    fn solver() -> Solver {
        Solver::new(
            Classes::new(ClassPath::new(&[], None).unwrap()),
            JdkScope::None,
        )
    }

    #[test]
    fn copy_cycles_collapse_and_keep_propagating() {
        let mut s = solver();
        let t = s.type_id("java/lang/Object");
        let (a, b, c, d) = (s.new_node(), s.new_node(), s.new_node(), s.new_node());
        s.add_edge(a, b, None);
        s.add_edge(b, c, None);
        s.add_edge(c, a, None);
        s.add_edge(c, d, None);
        let o1 = s.new_obj(t, ObjKind::Unknown);
        s.add_obj(a, o1);
        s.solve();
        s.collapse_cycles();
        assert_eq!(s.collapsed_nodes, 2, "a, b, c are one node");
        assert_eq!(s.find(a), s.find(b));
        assert_eq!(s.find(b), s.find(c));
        assert_ne!(s.find(c), s.find(d));
        let o2 = s.new_obj(t, ObjKind::Unknown);
        s.add_obj(b, o2);
        s.solve();
        for n in [a, b, c, d] {
            let got: Vec<u32> = s.points_to(n).iter().collect();
            assert_eq!(got, vec![o1, o2], "node {n}");
        }
    }

    #[test]
    fn filtered_edges_are_not_collapsed_and_filter() {
        let mut s = solver();
        let string = s.type_id("java/lang/String");
        let object = s.type_id("java/lang/Object");
        let (a, b) = (s.new_node(), s.new_node());
        s.add_edge(a, b, Some(string));
        s.add_edge(b, a, None);
        // Unknown classes are compatible with everything (never drop an object for a missing
        // class), so use an array type, which is not a String.
        let arr = s.type_id("[I");
        let o_str = s.new_obj(string, ObjKind::StringConst);
        let o_arr = s.new_obj(arr, ObjKind::Unknown);
        let _ = object;
        s.add_obj(a, o_str);
        s.add_obj(a, o_arr);
        s.solve();
        s.collapse_cycles();
        assert_eq!(s.collapsed_nodes, 0);
        let got: Vec<u32> = s.points_to(b).iter().collect();
        assert_eq!(got, vec![o_str]);
    }
}
