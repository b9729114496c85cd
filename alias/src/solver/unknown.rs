//! Unknown code: what code the analysis does not see may do.
//!
//! **Its one job:** the global `unknown` node and what follows from an object reaching it.
//! A call into unknown code lets its reference arguments escape into `unknown` and returns
//! what `unknown` holds of the declared type plus an unknown object of that type; an escaped
//! object is havocked (its fields may be read by unknown code, and written, application-
//! declared ones only once the application uses reflection, updaters, `Unsafe` or JNI), and
//! unknown code may call back its application methods that override JDK methods, or the
//! lambda it is. An unknown object of a type stands for any object of a subtype.

use rustc_hash::FxHashSet as HashSet;

use super::{FieldId, MethodId, Node, ObjId, ObjKind, Solver, TypeId};
use crate::bitset::SparseBitSet;
use crate::bytecode::{is_ref, parse_method_desc};
use crate::classes::class_of_desc;
use crate::classpath::Origin;
use crate::ir::{CallKind, MethodRef};

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

impl Solver {
    /// Code the analysis cannot see: reference arguments escape, the result is unknown.
    pub(super) fn unknown_code(&mut self, args: &[Option<Node>], ret: Option<Node>, desc: &str) {
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

    pub(super) fn unknown_result(&mut self, ret: Option<Node>, desc: &str) {
        let Some(r) = ret else { return };
        let ret_desc = parse_method_desc(desc).map(|d| d.ret).unwrap_or_default();
        let filter = self.desc_filter(&ret_desc);
        let unknown = self.unknown;
        self.add_edge(unknown, r, filter);
        if let Some(c) = class_of_desc(&ret_desc) {
            let o = self.unknown_obj(&c);
            self.graph.add_obj(r, o);
        }
    }

    /// The unknown object of type `name` (a class or array type), made on first use.
    pub(super) fn unknown_obj(&mut self, name: &str) -> ObjId {
        let ty = self.type_id(name);
        if let Some(&o) = self.unknown_objs.get(&ty) {
            return o;
        }
        let o = self.new_obj(ty, ObjKind::Unknown);
        self.unknown_objs.insert(ty, o);
        self.havoc(o);
        o
    }

    /// An unknown object of type `ty` stands for any object of that type or a subtype: seen
    /// through a cast (or a typed parameter or field) of type `to`, it is the unknown object of
    /// `to` when an object may be both. Application types are left out: every application object
    /// unknown code can hold is already in `unknown` by its allocation.
    pub(super) fn narrowed(&mut self, ty: TypeId, to: TypeId) -> Option<ObjId> {
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
    pub(super) fn unknown_may_be(&mut self, ty: TypeId, to: TypeId) -> bool {
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
            self.graph.add_obj(n, o);
        }
    }

    /// Object `o` reached unknown code: it may be written through, and called back.
    pub(super) fn escaped(&mut self, o: ObjId) {
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
                    let a = self.graph.new_node();
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
                self.graph.add_obj(this, o);
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
    pub(super) fn havoc_field(&mut self, o: ObjId, f: FieldId, n: Node) {
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
            self.graph.add_obj(n, u);
        }
    }

    /// From now on library code may write application-declared fields of escaped objects.
    pub(super) fn allow_reflective_writes(&mut self) {
        if self.reflective_writes {
            return;
        }
        self.reflective_writes = true;
        for (o, f, n) in std::mem::take(&mut self.deferred_havoc) {
            self.havoc_field(o, f, n);
        }
    }

    /// Debugging: remembers the node each object first flowed from into `unknown`.
    pub(super) fn note_escape(&mut self, from: Node, to: Node, objs: &SparseBitSet) {
        let u = self.graph.find(self.unknown);
        if self.graph.find(to) != u {
            return;
        }
        let from_text = self.describe_node(from);
        let map = self.escape_from.as_mut().expect("checked");
        for o in objs.iter() {
            map.entry(o).or_insert_with(|| from_text.clone());
        }
    }

    /// Debugging: why each escaped object escaped (set `RANKCHECK_ALIAS_DUMP=unknown`).
    pub fn escape_reason(&self, o: ObjId) -> Option<&str> {
        self.escape_from.as_ref()?.get(&o).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alloc, jdk_solver, lambda, mref, node_with, pts, reached};
    use crate::scope::JdkScope;

    #[test]
    fn unknown_code_lets_its_arguments_escape_and_returns_anything_unknown() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let text = alloc(&mut s, m, "java/lang/String");
        let (a, b) = (node_with(&mut s, &[list]), node_with(&mut s, &[text]));
        let r = s.graph.new_node();
        s.unknown_code(
            &[Some(a), Some(b)],
            Some(r),
            "(Ljava/util/List;Ljava/lang/String;)Ljava/util/Collection;",
        );
        s.solve();
        let u = s.unknown;
        assert_eq!(
            pts(&mut s, u),
            vec![list],
            "a string holds no application state: it does not escape"
        );
        let made = s.unknown_obj("java/util/Collection");
        assert_eq!(
            pts(&mut s, r),
            vec![list, made],
            "what escaped, and what it made"
        );
        assert_eq!(s.unknown_obj("java/util/Collection"), made, "one per type");
    }

    #[test]
    fn an_escaped_object_has_its_jdk_fields_written_by_unknown_code() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let base = node_with(&mut s, &[list]);
        let elements = s.field_id("java/util/ArrayList", "elementData", "[Ljava/lang/Object;");
        let y = s.graph.new_node();
        s.add_load(base, elements, y);
        s.solve();
        assert!(pts(&mut s, y).is_empty(), "nothing stored yet");
        let u = s.unknown;
        s.add_edge(base, u, None);
        s.solve();
        let made = s.unknown_obj("[Ljava/lang/Object;");
        assert_eq!(pts(&mut s, y), vec![made]);
    }

    #[test]
    fn application_fields_are_written_by_unknown_code_only_after_reflection() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        // A lambda's captures count as application fields; this lambda (a Runnable calling
        // `Thread.yield`) is called back by unknown code once it escapes.
        let lambda = lambda(
            &mut s,
            "java/lang/Runnable",
            "run",
            "()V",
            mref("java/lang/Thread", "yield", "()V"),
        );
        let captured = alloc(&mut s, m, "java/util/ArrayList");
        let other = alloc(&mut s, m, "java/util/LinkedList");
        let f = s.capture_field(0);
        let cap = s.field_node(lambda, f);
        s.graph.add_obj(cap, captured);
        let u = s.unknown;
        let (l, o) = (node_with(&mut s, &[lambda]), node_with(&mut s, &[other]));
        s.add_edge(l, u, None);
        s.add_edge(o, u, None);
        s.solve();
        assert!(s.called_back);
        assert!(reached(&s, "java/lang/Thread", "yield"));
        assert!(
            pts(&mut s, u).contains(&captured),
            "unknown code reads the capture"
        );
        assert_eq!(pts(&mut s, cap), vec![captured], "but does not write it");
        s.allow_reflective_writes();
        s.solve();
        assert!(pts(&mut s, cap).contains(&other));
    }
}
