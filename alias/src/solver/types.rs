//! Types and abstract objects, and the copy edges that filter by type.
//!
//! **Its one job:** number types and ask the class hierarchy about them (cached), make abstract
//! objects, and add copy edges whose filter keeps only the objects of a type (an unknown
//! object that may be of the type is seen as the unknown object of that type: see
//! [`Solver::narrowed`]).

use super::{Node, Obj, ObjId, ObjKind, Solver, TypeId};
use crate::bitset::SparseBitSet;
use crate::classes::class_of_desc;

impl Solver {
    pub fn type_id(&mut self, name: &str) -> TypeId {
        self.types.id(name)
    }

    pub fn type_name(&self, t: TypeId) -> &str {
        &self.types.names[t as usize]
    }

    pub(super) fn new_obj(&mut self, ty: TypeId, kind: ObjKind) -> ObjId {
        self.objs.push(Obj { ty, kind });
        self.havocked.push(false);
        self.obj_fields.push(Vec::new());
        (self.objs.len() - 1) as ObjId
    }

    pub(super) fn is_subtype(&mut self, sub: TypeId, sup: TypeId) -> bool {
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

    pub(super) fn filtered(&mut self, set: &SparseBitSet, filter: Option<TypeId>) -> SparseBitSet {
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

    /// The type filter for values of field descriptor `desc` (`None`: no filtering needed).
    pub(super) fn desc_filter(&mut self, desc: &str) -> Option<TypeId> {
        match class_of_desc(desc) {
            Some(c) if c != "java/lang/Object" => Some(self.type_id(&c)),
            _ => None,
        }
    }

    /// The copy edge `to ⊇ from`, keeping only objects of type `filter` (and unknown objects
    /// narrowed to it); what `from` holds already flows at once.
    pub fn add_edge(&mut self, from: Node, to: Node, filter: Option<TypeId>) {
        let Some((from, to)) = self.graph.insert_edge(from, to, filter) else {
            return;
        };
        if !self.graph.points_to(from).is_empty() {
            let all = self.graph.points_to(from).clone();
            let f = self.filtered(&all, filter);
            if self.escape_from.is_some() {
                self.note_escape(from, to, &f);
            }
            self.graph.add_objs(to, &f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alloc, empty_solver, jdk_solver, node_with, pts};
    use super::*;
    use crate::scope::JdkScope;

    #[test]
    fn filtered_edges_are_not_collapsed_and_filter() {
        let mut s = empty_solver();
        let string = s.type_id("java/lang/String");
        let (a, b) = (s.graph.new_node(), s.graph.new_node());
        s.add_edge(a, b, Some(string));
        s.add_edge(b, a, None);
        // Unknown classes are compatible with everything (never drop an object for a missing
        // class), so use an array type, which is not a String.
        let arr = s.type_id("[I");
        let o_str = s.new_obj(string, ObjKind::StringConst);
        let o_arr = s.new_obj(arr, ObjKind::Unknown);
        s.graph.add_obj(a, o_str);
        s.graph.add_obj(a, o_arr);
        s.solve();
        s.graph.collapse_cycles();
        assert_eq!(s.collapsed_nodes(), 0);
        assert_eq!(pts(&mut s, b), vec![o_str]);
    }

    #[test]
    fn a_cast_keeps_subtypes_and_narrows_unknown_objects() {
        let (mut s, m) = jdk_solver(JdkScope::None);
        let list = alloc(&mut s, m, "java/util/ArrayList");
        let text = alloc(&mut s, m, "java/lang/StringBuilder");
        let some = s.unknown_obj("java/util/AbstractCollection");
        let a = node_with(&mut s, &[list, text, some]);
        let b = s.graph.new_node();
        let to = s.type_id("java/util/List");
        s.add_edge(a, b, Some(to));
        s.solve();
        // The unknown AbstractCollection may be a List: seen as the unknown List.
        let unknown_list = s.unknown_obj("java/util/List");
        assert_eq!(pts(&mut s, b), vec![list, unknown_list]);
        // Edges added later see what the source holds already.
        // Through an interface, an unknown object of any class may be one.
        let c = s.graph.new_node();
        let chars = s.type_id("java/lang/CharSequence");
        s.add_edge(a, c, Some(chars));
        s.solve();
        let unknown_chars = s.unknown_obj("java/lang/CharSequence");
        assert_eq!(pts(&mut s, c), vec![text, unknown_chars]);
        let d = s.graph.new_node();
        let ints = s.type_id("[I");
        s.add_edge(a, d, Some(ints));
        s.solve();
        assert!(pts(&mut s, d).is_empty(), "an array type is no collection");
    }
}
