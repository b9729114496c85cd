//! Fields: instance, static and array-element nodes, and loads and stores through them.
//!
//! **Its one job:** give every (abstract object, field) and every static field its node, and
//! turn a load `dst = base.f` or a store `base.f = src` into copy edges for each object `base`
//! points to (now and later), for the objects that may have the field. Field-sensitive, one
//! `[]` field per array object; an access by offset ([`ANY_FIELD`]) reaches every reference
//! field of the object. Which statics and fields unknown code reads and writes is decided here
//! for statics (JDK statics) and in [`super::unknown`] for havocked objects.

use super::{FieldId, Node, ObjId, ObjKind, Solver, TypeId};
use crate::bytecode::is_ref;
use crate::classes::{class_of_desc, ClassId};
use crate::classpath::Origin;
use crate::ir;

/// The array-element pseudo field.
pub const ARRAY_FIELD: FieldId = 0;

/// In loads and stores: every reference field of the object (an access by offset through
/// `Unsafe` or a `VarHandle`, whose field the analysis does not track). Stores use
/// `ANY_FIELD + 1 + k`, one pseudo field per static type of the stored value.
pub const ANY_FIELD: FieldId = FieldId::MAX / 2;

impl Solver {
    /// The field id of an instance field access, resolved to its declaring class.
    pub(super) fn instance_field(&mut self, f: &ir::FieldRef) -> FieldId {
        let owner = self
            .classes
            .resolve_field(&f.class, &f.name, &f.desc)
            .map(|c| self.classes.info(c).name.clone())
            .unwrap_or_else(|| f.class.clone());
        self.field_id(&owner, &f.name, &f.desc)
    }

    pub(super) fn field_id(&mut self, owner: &str, name: &str, desc: &str) -> FieldId {
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

    pub(super) fn static_node(&mut self, f: &ir::FieldRef) -> Node {
        let owner = self.static_owner(f);
        let owner_name = owner
            .map(|c| self.classes.info(c).name.clone())
            .unwrap_or_else(|| f.class.clone());
        let id = self.field_id(&owner_name, &f.name, &f.desc);
        if let Some(&n) = self.static_nodes.get(&id) {
            return n;
        }
        let n = self.graph.new_node();
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
                    self.graph.add_obj(n, o);
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

    pub(super) fn field_node(&mut self, o: ObjId, f: FieldId) -> Node {
        if let Some(&n) = self.field_nodes.get(&(o, f)) {
            return n;
        }
        let n = self.graph.new_node();
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

    pub fn field_name(&self, f: FieldId) -> &str {
        &self.fields.names[f as usize]
    }

    pub(super) fn field_value_type(&mut self, o: ObjId, f: FieldId) -> Option<TypeId> {
        if f == ARRAY_FIELD {
            let arr = self.type_name(self.objs[o as usize].ty).to_string();
            arr.strip_prefix('[').and_then(|e| self.desc_filter(e))
        } else {
            self.field_types.get(f as usize).copied().flatten()
        }
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

    pub(super) fn add_load(&mut self, base: Node, f: FieldId, dst: Node) {
        let b = self.graph.add_load(base, f, dst);
        self.field_flows_of(b, f, dst, false);
    }

    pub(super) fn add_store(&mut self, base: Node, f: FieldId, src: Node) {
        let b = self.graph.add_store(base, f, src);
        self.field_flows_of(b, f, src, true);
    }

    /// [`Solver::field_flow`] for every object `b` already points to.
    fn field_flows_of(&mut self, b: Node, f: FieldId, other: Node, store: bool) {
        for o in self.graph.objs_of(b) {
            self.field_flow(o, f, other, store);
        }
    }

    /// `other ⊇ o.f` (a load) or `o.f ⊇ other` (a store). For [`ANY_FIELD`]: every reference
    /// field of `o`, a store giving each what its type admits.
    pub(super) fn field_flow(&mut self, o: ObjId, f: FieldId, other: Node, store: bool) {
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

    pub(super) fn capture_field(&mut self, i: usize) -> FieldId {
        self.field_id("<lambda>", &format!("cap{i}"), "Ljava/lang/Object;")
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alloc, jdk_solver, node_with, pts};
    use super::*;
    use crate::scope::JdkScope;

    fn field(class: &str, name: &str, desc: &str) -> ir::FieldRef {
        ir::FieldRef {
            class: class.into(),
            name: name.into(),
            desc: desc.into(),
        }
    }

    #[test]
    fn a_store_through_one_alias_is_loaded_through_another() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let box1 = alloc(&mut s, m, "java/util/concurrent/atomic/AtomicReference");
        let box2 = alloc(&mut s, m, "java/util/concurrent/atomic/AtomicReference");
        let text = alloc(&mut s, m, "java/lang/StringBuilder");
        let value = alloc(&mut s, m, "java/util/ArrayList");
        // p and q both point to box1; r to box2; the builder has no such field.
        let p = node_with(&mut s, &[box1, text]);
        let q = s.graph.new_node();
        s.add_edge(p, q, None);
        let r = node_with(&mut s, &[box2]);
        let f = s.instance_field(&field(
            "java/util/concurrent/atomic/AtomicReference",
            "value",
            "Ljava/lang/Object;",
        ));
        let x = node_with(&mut s, &[value]);
        s.add_store(p, f, x);
        let (y, z) = (s.graph.new_node(), s.graph.new_node());
        s.add_load(q, f, y);
        s.add_load(r, f, z);
        s.solve();
        assert_eq!(pts(&mut s, y), vec![value]);
        assert!(pts(&mut s, z).is_empty(), "another object's field");
        assert!(s.field_nodes.contains_key(&(box1, f)));
        assert!(
            !s.field_nodes.contains_key(&(text, f)),
            "not a field of a builder"
        );
        // A store that comes later reaches the load made earlier.
        let later = alloc(&mut s, m, "java/util/LinkedList");
        s.graph.add_obj(x, later);
        s.solve();
        assert_eq!(pts(&mut s, y), vec![value, later]);
    }

    #[test]
    fn a_field_is_named_by_its_declaring_class() {
        let (mut s, _) = jdk_solver(JdkScope::None);
        // `size` is declared by ArrayList, `modCount` by AbstractList.
        let own = s.instance_field(&field("java/util/ArrayList", "size", "I"));
        let inherited = s.instance_field(&field("java/util/ArrayList", "modCount", "I"));
        let declared = s.instance_field(&field("java/util/AbstractList", "modCount", "I"));
        assert_eq!(s.field_name(own), "java/util/ArrayList.size:I");
        assert_eq!(inherited, declared);
        assert_ne!(own, ARRAY_FIELD);
    }

    #[test]
    fn array_elements_are_one_node_per_array_object() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let (a1, a2) = (
            alloc(&mut s, m, "[Ljava/lang/Object;"),
            alloc(&mut s, m, "[Ljava/lang/Object;"),
        );
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let arrays = node_with(&mut s, &[a1]);
        let other = node_with(&mut s, &[a2]);
        let not_array = node_with(&mut s, &[list]);
        let x = node_with(&mut s, &[list]);
        s.add_store(arrays, ARRAY_FIELD, x);
        s.add_store(not_array, ARRAY_FIELD, x);
        let (y, z) = (s.graph.new_node(), s.graph.new_node());
        s.add_load(arrays, ARRAY_FIELD, y);
        s.add_load(other, ARRAY_FIELD, z);
        s.solve();
        assert_eq!(pts(&mut s, y), vec![list]);
        assert!(pts(&mut s, z).is_empty());
        assert_eq!(s.fields_of(a1).len(), 1);
        assert!(s.fields_of(list).is_empty(), "a list has no element field");
    }

    #[test]
    fn a_static_is_one_node_and_a_jdk_static_is_shared_with_unknown_code() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let out = field("java/lang/System", "out", "Ljava/io/PrintStream;");
        let n = s.static_node(&out);
        assert_eq!(s.static_node(&out), n, "one node per static field");
        assert_eq!(
            s.static_owner(&out)
                .map(|c| s.classes.info(c).name.clone())
                .as_deref(),
            Some("java/lang/System")
        );
        // Set by the JVM: an unknown PrintStream; and unknown code reads what is stored.
        let stream = alloc(&mut s, m, "java/io/PrintStream");
        let x = node_with(&mut s, &[stream]);
        s.add_edge(x, n, None);
        s.solve();
        let unknown_stream = s.unknown_obj("java/io/PrintStream");
        assert_eq!(pts(&mut s, n), vec![unknown_stream, stream]);
        let u = s.unknown;
        assert!(pts(&mut s, u).contains(&stream));
        let keys: Vec<String> = s.static_field_nodes().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec!["java/lang/System.out:Ljava/io/PrintStream;"]);
    }

    #[test]
    fn an_access_by_offset_reaches_every_reference_field_of_its_type() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let node = alloc(&mut s, m, "java/util/concurrent/ConcurrentLinkedQueue$Node");
        let value = alloc(&mut s, m, "java/util/ArrayList");
        let base = node_with(&mut s, &[node]);
        let x = node_with(&mut s, &[value]);
        // A store of an Object: every reference field whose type an Object may be cast to.
        s.by_offset_types.push(None);
        s.add_store(base, ANY_FIELD + 1, x);
        let y = s.graph.new_node();
        s.add_load(base, ANY_FIELD, y);
        s.solve();
        let names: Vec<String> = s
            .fields_of(node)
            .iter()
            .map(|&(f, _)| s.field_name(f).to_string())
            .collect();
        assert!(
            names
                .iter()
                .any(|n| n.ends_with(".item:Ljava/lang/Object;")),
            "{names:?}"
        );
        assert!(names.iter().any(|n| n.contains(".next:")), "{names:?}");
        assert_eq!(pts(&mut s, y), vec![value]);
    }
}
