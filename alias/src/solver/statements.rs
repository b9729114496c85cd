//! The constraints of one method body.
//!
//! **Its one job:** turn each IR statement of a reached method into constraints: allocations
//! and constants into objects, copies and casts into edges, field and array accesses into
//! loads and stores ([`super::fields`]), calls into call sites ([`super::calls`]), lambdas into
//! lambda objects with their captured values, throws and catches through the global `thrown`
//! node. A method the translator could not read is unknown code.

use super::fields::ARRAY_FIELD;
use super::models::{is_reflective, writes_fields_reflectively};
use super::{MethodId, Node, ObjKind, Solver};
use crate::ir::{self, ConstObj, MethodIr, Stmt};

impl Solver {
    pub(super) fn process_method(&mut self, m: MethodId) {
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
                self.graph.add_obj(node(*dst), o);
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
                self.graph.add_obj(node(*dst), o);
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
                self.graph.add_obj(node(*dst), o);
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
                self.graph.add_obj(node(*dst), o);
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
}

#[cfg(test)]
mod tests {
    use super::super::testing::{jdk_solver, pts};
    use super::*;
    use crate::ir::{AllocSite, FieldRef};
    use crate::scope::JdkScope;

    /// Translates `stmts` as the body of `m` (variables `0..vars` at fresh nodes); returns the
    /// node of variable 0.
    fn translate(
        s: &mut Solver,
        m: MethodId,
        vars: u32,
        allocs: &[&str],
        stmts: Vec<Stmt>,
    ) -> Node {
        let ir = MethodIr {
            num_vars: vars,
            stmts,
            allocs: allocs
                .iter()
                .enumerate()
                .map(|(i, ty)| AllocSite {
                    bci: i as u32,
                    ty: ty.to_string(),
                })
                .collect(),
            ..MethodIr::default()
        };
        let base = s.graph.new_node();
        for _ in 1..vars {
            s.graph.new_node();
        }
        for (i, stmt) in ir.stmts.iter().enumerate() {
            s.statement(m, base, i, stmt, &ir);
        }
        s.solve();
        base
    }

    #[test]
    fn allocations_copies_casts_and_fields_become_constraints() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let value = FieldRef {
            class: "java/util/concurrent/atomic/AtomicReference".into(),
            name: "value".into(),
            desc: "Ljava/lang/Object;".into(),
        };
        // v0 = new AtomicReference; v1 = v0; v2 = new ArrayList; v1.value = v2;
        // v3 = v0.value; v4 = (List) v3; v5 = (String) v3; v6 = new Object[]; v6[] = v4;
        // v7 = v6[]
        let stmts = vec![
            Stmt::New { dst: 0, alloc: 0 },
            Stmt::Copy { dst: 1, src: 0 },
            Stmt::New { dst: 2, alloc: 1 },
            Stmt::Store {
                base: 1,
                field: value.clone(),
                src: 2,
            },
            Stmt::Load {
                dst: 3,
                base: 0,
                field: value,
            },
            Stmt::Cast {
                dst: 4,
                src: 3,
                ty: "java/util/List".into(),
            },
            Stmt::Cast {
                dst: 5,
                src: 3,
                ty: "java/lang/String".into(),
            },
            Stmt::New { dst: 6, alloc: 2 },
            Stmt::ArrayStore { array: 6, src: 4 },
            Stmt::ArrayLoad { dst: 7, array: 6 },
        ];
        let allocs = [
            "java/util/concurrent/atomic/AtomicReference",
            "java/util/ArrayList",
            "[Ljava/lang/Object;",
        ];
        let v = translate(&mut s, m, 8, &allocs, stmts);
        let (reference, list) = (pts(&mut s, v)[0], pts(&mut s, v + 2)[0]);
        assert!(matches!(
            s.objs[list as usize].kind,
            ObjKind::Alloc { method, alloc: 1 } if method == m
        ));
        assert_eq!(pts(&mut s, v + 1), vec![reference]);
        assert_eq!(pts(&mut s, v + 3), vec![list]);
        assert_eq!(pts(&mut s, v + 4), vec![list]);
        assert!(pts(&mut s, v + 5).is_empty(), "a list is no string");
        assert_eq!(pts(&mut s, v + 7), vec![list]);
    }

    #[test]
    fn throws_reach_catches_of_their_type_and_constants_are_shared() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let stmts = vec![
            Stmt::New { dst: 0, alloc: 0 },
            Stmt::Throw { src: 0 },
            Stmt::Catch {
                dst: 1,
                ty: Some("java/lang/RuntimeException".into()),
            },
            Stmt::Catch {
                dst: 2,
                ty: Some("java/lang/Error".into()),
            },
            Stmt::Const {
                dst: 3,
                obj: ConstObj::String,
            },
            Stmt::Const {
                dst: 4,
                obj: ConstObj::String,
            },
        ];
        let v = translate(&mut s, m, 5, &["java/lang/IllegalStateException"], stmts);
        let thrown = pts(&mut s, v);
        assert_eq!(pts(&mut s, v + 1), thrown);
        assert!(pts(&mut s, v + 2).is_empty());
        assert_eq!(pts(&mut s, v + 3), pts(&mut s, v + 4), "one string object");
    }
}
