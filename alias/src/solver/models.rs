//! Library models: what JDK methods whose bodies are not analysed, and natives, do.
//!
//! **Its one job:** the exact models (`Object.clone`, `System.arraycopy`, `Thread`'s target,
//! `run` and `start`, printing and `String.valueOf` calling `toString`, `Array.newInstance`,
//! methods that keep none of their arguments) and field accesses by offset (`Unsafe`,
//! `VarHandle`); every other such method is unknown code ([`super::unknown`]). Also which
//! application calls make the analysis conservative (reflection, method handles).

use super::fields::{ANY_FIELD, ARRAY_FIELD};
use super::{FieldId, MethodId, Node, ObjKind, Solver};
use crate::bytecode::{is_ref, parse_method_desc};
use crate::ir::{CallKind, MethodRef};

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

/// Calls from application code that let library code write fields the application declares.
pub(super) fn writes_fields_reflectively(m: &MethodRef) -> bool {
    is_reflective(m)
        || m.class.starts_with("java/lang/reflect/")
        || m.class.starts_with("java/lang/invoke/")
        || m.class.ends_with("FieldUpdater")
        || m.class.ends_with("/Unsafe")
        || m.class == "java/io/ObjectInputStream"
}

/// Calls from application code that the analysis cannot follow (reflection, method handles).
pub(super) fn is_reflective(m: &MethodRef) -> bool {
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
    /// A JDK method whose body is not analysed: a few are modelled exactly, a few keep their
    /// arguments, every other one lets its reference arguments escape to unknown code (which
    /// may call back any application method overriding a JDK method) and returns unknown.
    pub(super) fn library_model(&mut self, m: MethodId) {
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
                    self.graph.add_obj(r, o);
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
                    let runnable = self.graph.new_node();
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

    pub(super) fn native_model(&mut self, m: MethodId) {
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
                    let tmp = self.graph.new_node();
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

    /// `Thread.target`, which only `Thread`'s own code touches (modelled in
    /// [`Solver::library_model`]): unknown code neither reads nor writes it.
    pub(super) fn thread_target_field(&mut self) -> FieldId {
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

    /// Field access by offset (`Unsafe` get/put/CAS of references, `VarHandle` access modes):
    /// stores every value argument into every reference field of the base object and loads the
    /// result from them. `false` when `m` is not such an access (or its shape is not known).
    pub(super) fn field_access_by_offset(
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
                    let n = self.graph.new_node();
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
                let tmp = self.graph.new_node();
                self.add_load(base, ANY_FIELD, tmp);
                self.add_edge(tmp, r, filter);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alloc, jdk_solver, lambda, mref, node_with, pts, reached};
    use super::*;
    use crate::scope::JdkScope;

    #[test]
    fn arraycopy_copies_elements_and_clone_returns_the_receiver() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let (src, dst) = (
            alloc(&mut s, m, "[Ljava/lang/Object;"),
            alloc(&mut s, m, "[Ljava/lang/Object;"),
        );
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let (a, b, x) = (
            node_with(&mut s, &[src]),
            node_with(&mut s, &[dst]),
            node_with(&mut s, &[list]),
        );
        s.add_store(a, ARRAY_FIELD, x);
        let copy = mref(
            "java/lang/System",
            "arraycopy",
            "(Ljava/lang/Object;ILjava/lang/Object;II)V",
        );
        s.call(
            m,
            CallKind::Static,
            &copy,
            None,
            vec![Some(a), None, Some(b), None, None],
            None,
        );
        let y = s.graph.new_node();
        s.add_load(b, ARRAY_FIELD, y);
        let cloned = s.graph.new_node();
        let clone = mref("java/lang/Object", "clone", "()Ljava/lang/Object;");
        s.call(m, CallKind::Virtual, &clone, Some(a), vec![], Some(cloned));
        s.solve();
        assert_eq!(pts(&mut s, y), vec![list]);
        assert!(pts(&mut s, cloned).contains(&src));
        let u = s.unknown;
        assert!(pts(&mut s, u).is_empty(), "nothing escapes");
    }

    #[test]
    fn a_started_thread_runs_its_runnable_which_does_not_escape() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let task = lambda(
            &mut s,
            "java/lang/Runnable",
            "run",
            "()V",
            mref("java/lang/Thread", "yield", "()V"),
        );
        let thread = alloc(&mut s, m, "java/lang/Thread");
        let (th, r) = (node_with(&mut s, &[thread]), node_with(&mut s, &[task]));
        let init = mref("java/lang/Thread", "<init>", "(Ljava/lang/Runnable;)V");
        s.call(m, CallKind::Special, &init, Some(th), vec![Some(r)], None);
        let start = mref("java/lang/Thread", "start", "()V");
        s.call(m, CallKind::Virtual, &start, Some(th), vec![], None);
        s.solve();
        assert_eq!(s.started_threads.len(), 1);
        assert!(reached(&s, "java/lang/Thread", "run"));
        assert!(reached(&s, "java/lang/Thread", "yield"), "the lambda ran");
        let u = s.unknown;
        assert!(
            pts(&mut s, u).contains(&thread),
            "Thread.start is unknown code"
        );
        assert!(!pts(&mut s, u).contains(&task), "its target is not");
    }

    #[test]
    fn printing_calls_to_string_and_keeps_nothing() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let list = alloc(&mut s, m, "java/util/Vector");
        let x = node_with(&mut s, &[list]);
        let r = s.graph.new_node();
        let value_of = mref(
            "java/lang/String",
            "valueOf",
            "(Ljava/lang/Object;)Ljava/lang/String;",
        );
        s.call(m, CallKind::Static, &value_of, None, vec![Some(x)], Some(r));
        s.solve();
        assert!(reached(&s, "java/util/Vector", "toString"));
        assert!(!pts(&mut s, r).contains(&list));
    }

    #[test]
    fn reflection_and_offsets_are_recognised() {
        let invoke = mref("java/lang/reflect/Method", "invoke", "");
        let updater = mref(
            "java/util/concurrent/atomic/AtomicReferenceFieldUpdater",
            "newUpdater",
            "",
        );
        let get = mref("java/util/ArrayList", "get", "(I)Ljava/lang/Object;");
        assert!(is_reflective(&invoke) && writes_fields_reflectively(&invoke));
        assert!(!is_reflective(&updater) && writes_fields_reflectively(&updater));
        assert!(!is_reflective(&get) && !writes_fields_reflectively(&get));
        assert!(native_keeps_args("java/lang/Object"));
        assert!(!native_keeps_args("java/util/zip/Inflater"));
    }
}
