//! Hand-built inputs for the solver's unit tests: solvers over no classes or over the JDK's
//! (no application), and objects, nodes and calls made directly rather than from bytecode.

use super::{MethodId, Node, ObjId, ObjKind, Solver};
use crate::classes::Classes;
use crate::classpath::{default_jmods, ClassPath};
use crate::ir::{CallKind, LambdaInfo, MethodRef};
use crate::scope::JdkScope;

/// A solver that knows no class at all.
pub fn empty_solver() -> Solver {
    Solver::new(
        Classes::new(ClassPath::new(&[], None).unwrap()),
        JdkScope::None,
    )
}

/// A solver over the JDK of `jmods/` (read lazily), with `scope`'s bodies analysed, and the
/// method all test calls come from: `java.lang.Object.<init>`, a JDK method (so the calls are
/// not the application's).
pub fn jdk_solver(scope: JdkScope) -> (Solver, MethodId) {
    let path = ClassPath::new(&[], Some(&default_jmods())).unwrap();
    let mut s = Solver::new(Classes::new(path), scope);
    let (c, i) = s
        .classes
        .resolve_method("java/lang/Object", "<init>", "()V")
        .expect("the JDK has java.lang.Object");
    let caller = s.method_id(c, i);
    (s, caller)
}

/// An object allocated by the application, of class (or array type) `ty`; its allocation site
/// is a made-up one of `caller` (so `describe_obj` does not apply).
pub fn alloc(s: &mut Solver, caller: MethodId, ty: &str) -> ObjId {
    let t = s.type_id(ty);
    s.new_obj(
        t,
        ObjKind::Alloc {
            method: caller,
            alloc: 0,
        },
    )
}

/// A fresh node holding `objs`.
pub fn node_with(s: &mut Solver, objs: &[ObjId]) -> Node {
    let n = s.graph.new_node();
    for &o in objs {
        s.graph.add_obj(n, o);
    }
    n
}

/// The points-to set of `n`, in order.
pub fn pts(s: &mut Solver, n: Node) -> Vec<ObjId> {
    s.points_to(n).iter().collect()
}

pub fn mref(class: &str, name: &str, desc: &str) -> MethodRef {
    MethodRef {
        class: class.into(),
        name: name.into(),
        desc: desc.into(),
    }
}

/// Whether the analysis reached `class.name` (any descriptor).
pub fn reached(s: &Solver, class: &str, name: &str) -> bool {
    (0..s.methods.len() as MethodId).any(|m| {
        let (c, n, _) = s.method_key(m);
        c == class && n == name
    })
}

/// A lambda object of functional interface `interface` (method `sam` of erased descriptor
/// `sam_desc`) whose implementation is the static method `implementation`, capturing nothing.
pub fn lambda(
    s: &mut Solver,
    interface: &str,
    sam: &str,
    sam_desc: &str,
    implementation: MethodRef,
) -> ObjId {
    let info = LambdaInfo {
        interface: interface.into(),
        sam: sam.into(),
        sam_desc: sam_desc.into(),
        impl_kind: CallKind::Static,
        impl_is_constructor: false,
        impl_method: implementation,
    };
    let t = s.type_id(interface);
    s.new_obj(
        t,
        ObjKind::Lambda {
            info: Box::new(info),
        },
    )
}
