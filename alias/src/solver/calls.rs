//! Calls and dispatch: the on-the-fly call graph.
//!
//! **Its one job:** decide which methods a call reaches and connect arguments and results.
//! A method is reached (translated, given nodes, its class initialized) the first time a call
//! resolves to it; static and special calls resolve at once, virtual and interface calls are
//! dispatched on each object that reaches the receiver (only objects of the method's class,
//! and the overriding method of the object's own class), a lambda object runs its
//! implementation with its captured values. Which body a reached method has (analysed IR, or a
//! model of library and native code) is [`super::models`]' and [`super::unknown`]'s.

use rustc_hash::FxHashSet as HashSet;

use super::{CallSite, MethodId, MethodState, Node, ObjId, ObjKind, Solver};
use crate::bytecode::parse_method_desc;
use crate::classes::{class_of_desc, ClassId};
use crate::classpath::Origin;
use crate::ir::{self, CallKind, LambdaInfo, MethodRef};

impl Solver {
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
                self.graph.add_obj(*n, o);
            }
        }
        Some(m)
    }

    /// Makes class `name`'s static initializer (and its superclasses') reachable, for
    /// application classes and JDK classes whose bodies are analysed (with [`crate::JdkScope::All`],
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

    pub(super) fn method_id(&mut self, class: ClassId, index: usize) -> MethodId {
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
        let base = self.graph.node_count() as Node;
        for _ in 0..ir.num_vars {
            self.graph.new_node();
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

    pub(super) fn new_callsite(
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

    pub(super) fn register_call(&mut self, recv: Node, cs: usize) {
        let r = self.graph.add_call(recv, cs);
        let objs = self.graph.objs_of(r);
        for o in objs {
            self.dispatch(cs, o);
        }
    }

    pub(super) fn call(
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

    /// A call of `x.name()` declared by `Object` (`toString` of string concatenation and
    /// printing, …), made by `caller`.
    pub(super) fn call_no_args(
        &mut self,
        x: Node,
        name: &str,
        desc: &str,
        caller: Option<MethodId>,
    ) {
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

    pub(super) fn dispatch(&mut self, cs: usize, o: ObjId) {
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
                self.graph.add_obj(unknown, o);
            }
            return;
        };
        if let Some(Some(this)) = self.methods[target as usize].params.first() {
            let this = *this;
            self.graph.add_obj(this, o);
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
    pub(super) fn lambda_call(&mut self, cs: usize, o: ObjId, info: &LambdaInfo) {
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
            let n = self.graph.new_node();
            self.graph.add_obj(n, fresh);
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
                    let r = self.graph.find(r);
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
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alloc, jdk_solver, lambda, mref, node_with, pts, reached};
    use super::*;
    use crate::scope::JdkScope;

    #[test]
    fn virtual_dispatch_reaches_the_overriders_of_allocated_types_only() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let recv = node_with(&mut s, &[list]);
        let ret = s.graph.new_node();
        let to_string = mref("java/lang/Object", "toString", "()Ljava/lang/String;");
        s.call(
            m,
            CallKind::Virtual,
            &to_string,
            Some(recv),
            vec![],
            Some(ret),
        );
        s.solve();
        // ArrayList inherits AbstractCollection's; Vector's own is not reached.
        assert!(reached(&s, "java/util/AbstractCollection", "toString"));
        assert!(!reached(&s, "java/util/Vector", "toString"));
        assert!(!reached(&s, "java/lang/Object", "toString"));
        // A Vector arriving later at the receiver reaches its own.
        let vector = alloc(&mut s, m, "java/util/Vector");
        s.graph.add_obj(recv, vector);
        s.solve();
        assert!(reached(&s, "java/util/Vector", "toString"));
    }

    #[test]
    fn interface_dispatch_reaches_each_implementation_and_skips_other_objects() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let array_list = alloc(&mut s, m, "java/util/ArrayList");
        let linked = alloc(&mut s, m, "java/util/LinkedList");
        // Not a List: only the analysis' imprecision could bring it here.
        let deque = alloc(&mut s, m, "java/util/ArrayDeque");
        let recv = node_with(&mut s, &[array_list, linked, deque]);
        let size = mref("java/util/List", "size", "()I");
        s.call(m, CallKind::Interface, &size, Some(recv), vec![], None);
        s.solve();
        assert!(reached(&s, "java/util/ArrayList", "size"));
        assert!(reached(&s, "java/util/LinkedList", "size"));
        assert!(!reached(&s, "java/util/ArrayDeque", "size"));
        assert!(!reached(&s, "java/util/Vector", "size"));
    }

    #[test]
    fn a_static_call_into_an_analysed_body_links_arguments_and_result() {
        let (mut s, m) = jdk_solver(JdkScope::default());
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let arg = node_with(&mut s, &[list]);
        let ret = s.graph.new_node();
        // `return obj` after a null check: the analysed body gives back its argument.
        let require = mref(
            "java/util/Objects",
            "requireNonNull",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
        );
        s.call(
            m,
            CallKind::Static,
            &require,
            None,
            vec![Some(arg)],
            Some(ret),
        );
        s.solve();
        assert_eq!(pts(&mut s, ret), vec![list]);
        let u = s.unknown;
        assert!(!pts(&mut s, u).contains(&list), "an analysed body keeps it");
    }

    #[test]
    fn a_lambda_runs_its_implementation_with_the_call_arguments() {
        let (mut s, m) = jdk_solver(JdkScope::default());
        let lambda = lambda(
            &mut s,
            "java/util/function/Function",
            "apply",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
            mref(
                "java/util/Objects",
                "requireNonNull",
                "(Ljava/lang/Object;)Ljava/lang/Object;",
            ),
        );
        let f = node_with(&mut s, &[lambda]);
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let arg = node_with(&mut s, &[list]);
        let ret = s.graph.new_node();
        let apply = mref(
            "java/util/function/Function",
            "apply",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
        );
        s.call(
            m,
            CallKind::Interface,
            &apply,
            Some(f),
            vec![Some(arg)],
            Some(ret),
        );
        s.solve();
        assert!(reached(&s, "java/util/Objects", "requireNonNull"));
        assert_eq!(pts(&mut s, ret), vec![list]);
    }

    #[test]
    fn an_unresolvable_call_is_unknown_code_and_a_warning() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let arg = node_with(&mut s, &[list]);
        let missing = mref("no/such/Class", "run", "(Ljava/util/List;)V");
        s.call(m, CallKind::Static, &missing, None, vec![Some(arg)], None);
        s.solve();
        let u = s.unknown;
        assert!(pts(&mut s, u).contains(&list), "the argument escapes");
        assert_eq!(
            s.jdk_warnings,
            vec!["cannot resolve no/such/Class.run(Ljava/util/List;)V"]
        );
        assert!(s.reflective_writes, "missing code may write any field");
    }
}
