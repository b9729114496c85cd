//! Bytecode → a small IR for the inclusion analysis.
//!
//! Per method, every local slot is one variable (flow-insensitive: it collects every value
//! stored in the slot; a load in the straight-line run that stored the slot reads the stored
//! value itself), and every reference pushed
//! on the operand stack by an instruction is a fresh variable; where control flow merges with a
//! non-empty stack, each stack slot gets a merge variable that the incoming values are copied
//! into. Primitive values are not variables. The statements are the inclusion constraints of
//! Andersen's analysis before call resolution: allocation, copy, cast, field / static / array
//! load and store, calls, returns, throws and catches.
//!
//! Data-access sites and allocation sites are recorded with their original byte offsets.

use std::collections::HashMap;

use ristretto_classfile::attributes::{ArrayType, Attribute, Instruction};
use ristretto_classfile::{ClassFile, Constant, ReferenceKind};

use crate::bytecode::{byte_offsets, is_ref, parse_method_desc, slots};

/// A method-local variable.
pub type Var = u32;

/// A field as written at an access: the referenced class, name and descriptor.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldRef {
    pub class: String,
    pub name: String,
    pub desc: String,
}

/// A method as written at a call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MethodRef {
    pub class: String,
    pub name: String,
    pub desc: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    Static,
    Special,
    Virtual,
    Interface,
}

/// A constant object (not an allocation site of the program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstObj {
    /// A string literal.
    String,
    /// A class literal.
    Class,
    /// Something the JVM makes that the analysis does not look into, of this type.
    Unknown(String),
}

/// An `invokedynamic` bootstrapped by `LambdaMetafactory`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LambdaInfo {
    /// The functional interface (the indy descriptor's return type).
    pub interface: String,
    /// The interface method's name (the indy name).
    pub sam: String,
    /// The interface method's erased descriptor (the bootstrap's first argument).
    pub sam_desc: String,
    /// How the implementation is invoked.
    pub impl_kind: CallKind,
    /// `Foo::new`: the implementation is a constructor of `impl_method.class`.
    pub impl_is_constructor: bool,
    pub impl_method: MethodRef,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    New {
        dst: Var,
        alloc: usize,
    },
    Const {
        dst: Var,
        obj: ConstObj,
    },
    Copy {
        dst: Var,
        src: Var,
    },
    Cast {
        dst: Var,
        src: Var,
        ty: String,
    },
    Load {
        dst: Var,
        base: Var,
        field: FieldRef,
    },
    Store {
        base: Var,
        field: FieldRef,
        src: Var,
    },
    StaticLoad {
        dst: Var,
        field: FieldRef,
    },
    StaticStore {
        field: FieldRef,
        src: Var,
    },
    ArrayLoad {
        dst: Var,
        array: Var,
    },
    ArrayStore {
        array: Var,
        src: Var,
    },
    Call {
        kind: CallKind,
        method: MethodRef,
        recv: Option<Var>,
        args: Vec<Option<Var>>,
        ret: Option<Var>,
    },
    Lambda {
        dst: Var,
        info: LambdaInfo,
        captures: Vec<Option<Var>>,
    },
    /// String concatenation: an opaque String; `toString` may be called on every argument.
    Concat {
        dst: Var,
        args: Vec<Var>,
    },
    /// Another `invokedynamic`: arguments escape, the result is unknown.
    UnknownIndy {
        dst: Option<Var>,
        args: Vec<Var>,
        ret_desc: String,
    },
    Throw {
        src: Var,
    },
    Catch {
        dst: Var,
        ty: Option<String>,
    },
    Return {
        src: Var,
    },
    /// A class named by `new`, `getstatic`, `putstatic` or `invokestatic` is initialized.
    InitClass {
        class: String,
    },
}

/// What a data-access site does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    FieldRead,
    FieldWrite,
    StaticRead,
    StaticWrite,
    ArrayRead,
    ArrayWrite,
}

impl SiteKind {
    /// The site-table word (java-harness `SiteKind::as_str`).
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::FieldRead => "field-read",
            SiteKind::FieldWrite => "field-write",
            SiteKind::StaticRead => "static-read",
            SiteKind::StaticWrite => "static-write",
            SiteKind::ArrayRead => "array-read",
            SiteKind::ArrayWrite => "array-write",
        }
    }
}

/// One data-access instruction.
#[derive(Clone, Debug)]
pub struct DataSite {
    pub bci: u32,
    pub kind: SiteKind,
    /// The field, for field and static accesses.
    pub field: Option<FieldRef>,
    /// The object or array accessed (`None` for statics and for a constant `null`).
    pub base: Option<Var>,
    /// `owner.name:descriptor` or the array element kind, for the report.
    pub detail: String,
}

/// One allocation instruction.
#[derive(Clone, Debug)]
pub struct AllocSite {
    pub bci: u32,
    /// The class, or the array descriptor.
    pub ty: String,
}

/// The IR of one method.
#[derive(Clone, Debug, Default)]
pub struct MethodIr {
    pub num_vars: u32,
    /// The receiver (instance methods) then one entry per declared parameter; `None` for
    /// primitives.
    pub params: Vec<Option<Var>>,
    /// The variable every returned reference is copied into.
    pub ret: Option<Var>,
    pub stmts: Vec<Stmt>,
    pub sites: Vec<DataSite>,
    pub allocs: Vec<AllocSite>,
    /// Why the method could not be translated faithfully (then its sites may touch anything).
    pub unsupported: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Prim,
    Null,
    Ref(Var),
}

struct Builder<'a> {
    file: &'a ClassFile<'static>,
    ir: MethodIr,
    locals: HashMap<u32, Var>,
    /// What each local slot holds since the start of the current straight-line run (entered
    /// only at its first instruction): the stored value itself, more precise than the slot's
    /// variable, which collects every value ever stored there (for merges and handlers).
    current: HashMap<u32, Slot>,
    problem: Option<String>,
}

fn text(file: &ClassFile<'static>, i: u16) -> Option<String> {
    file.constant_pool
        .try_get_utf8(i)
        .ok()
        .map(|s| s.to_str_lossy().into_owned())
}

fn class_name(file: &ClassFile<'static>, i: u16) -> Option<String> {
    file.constant_pool
        .try_get_class(i)
        .ok()
        .map(|s| s.to_str_lossy().into_owned())
}

fn name_and_type(file: &ClassFile<'static>, i: u16) -> Option<(String, String)> {
    match file.constant_pool.get(i)? {
        Constant::NameAndType {
            name_index,
            descriptor_index,
        } => Some((text(file, *name_index)?, text(file, *descriptor_index)?)),
        _ => None,
    }
}

/// The (class, name, descriptor) of a field or method reference constant.
fn member_ref(file: &ClassFile<'static>, i: u16) -> Option<(String, String, String)> {
    let (class_index, nat) = match file.constant_pool.get(i)? {
        Constant::FieldRef {
            class_index,
            name_and_type_index,
        }
        | Constant::MethodRef {
            class_index,
            name_and_type_index,
        }
        | Constant::InterfaceMethodRef {
            class_index,
            name_and_type_index,
        } => (*class_index, *name_and_type_index),
        _ => return None,
    };
    let (name, desc) = name_and_type(file, nat)?;
    Some((class_name(file, class_index)?, name, desc))
}

/// What an `invokedynamic` is.
enum Indy {
    Lambda(LambdaInfo),
    Concat,
    Other,
}

fn classify_indy(file: &ClassFile<'static>, bsm_index: u16, name: &str, desc: &str) -> Indy {
    let methods = file.attributes.iter().find_map(|a| match a {
        Attribute::BootstrapMethods { methods, .. } => Some(methods),
        _ => None,
    });
    let Some(bsm) = methods.and_then(|m| m.get(bsm_index as usize)) else {
        return Indy::Other;
    };
    let handle_target = |i: u16| match file.constant_pool.get(i) {
        Some(Constant::MethodHandle {
            reference_kind,
            reference_index,
        }) => member_ref(file, *reference_index).map(|m| (reference_kind.clone(), m)),
        _ => None,
    };
    let Some((_, (bsm_class, _, _))) = handle_target(bsm.bootstrap_method_ref) else {
        return Indy::Other;
    };
    match bsm_class.as_str() {
        "java/lang/invoke/StringConcatFactory" => Indy::Concat,
        "java/lang/invoke/LambdaMetafactory" => {
            let Some((kind, (class, mname, mdesc))) =
                bsm.arguments.get(1).and_then(|&a| handle_target(a))
            else {
                return Indy::Other;
            };
            let Some(interface) = parse_method_desc(desc).and_then(|d| {
                d.ret
                    .strip_prefix('L')
                    .map(|r| r.trim_end_matches(';').to_string())
            }) else {
                return Indy::Other;
            };
            let (impl_kind, ctor) = match kind {
                ReferenceKind::InvokeStatic => (CallKind::Static, false),
                ReferenceKind::InvokeVirtual => (CallKind::Virtual, false),
                ReferenceKind::InvokeInterface => (CallKind::Interface, false),
                ReferenceKind::InvokeSpecial => (CallKind::Special, false),
                ReferenceKind::NewInvokeSpecial => (CallKind::Special, true),
                _ => return Indy::Other,
            };
            let sam_desc = match bsm
                .arguments
                .first()
                .and_then(|&a| file.constant_pool.get(a))
            {
                Some(Constant::MethodType(d)) => text(file, *d).unwrap_or_default(),
                _ => String::new(),
            };
            Indy::Lambda(LambdaInfo {
                interface,
                sam: name.to_string(),
                sam_desc,
                impl_kind,
                impl_is_constructor: ctor,
                impl_method: MethodRef {
                    class,
                    name: mname,
                    desc: mdesc,
                },
            })
        }
        _ => Indy::Other,
    }
}

fn array_type_desc(t: &ArrayType) -> &'static str {
    match t {
        ArrayType::Boolean => "[Z",
        ArrayType::Char => "[C",
        ArrayType::Float => "[F",
        ArrayType::Double => "[D",
        ArrayType::Byte => "[B",
        ArrayType::Short => "[S",
        ArrayType::Int => "[I",
        ArrayType::Long => "[J",
    }
}

impl Builder<'_> {
    fn fresh(&mut self) -> Var {
        self.ir.num_vars += 1;
        self.ir.num_vars - 1
    }

    /// The value `aload slot` pushes.
    fn load_local(&mut self, slot: u32) -> Slot {
        match self.current.get(&slot) {
            Some(&s) => s,
            None => Slot::Ref(self.local(slot)),
        }
    }

    fn local(&mut self, slot: u32) -> Var {
        if let Some(&v) = self.locals.get(&slot) {
            return v;
        }
        let v = self.fresh();
        self.locals.insert(slot, v);
        v
    }

    fn fail(&mut self, why: impl Into<String>) {
        if self.problem.is_none() {
            self.problem = Some(why.into());
        }
    }

    fn pop(&mut self, stack: &mut Vec<Slot>) -> Slot {
        match stack.pop() {
            Some(s) => s,
            None => {
                self.fail("operand stack underflow");
                Slot::Prim
            }
        }
    }

    fn pop_n(&mut self, stack: &mut Vec<Slot>, n: usize) {
        for _ in 0..n {
            self.pop(stack);
        }
    }

    /// Pops a value of descriptor `desc`; its variable if it is a (non-null) reference.
    fn pop_value(&mut self, stack: &mut Vec<Slot>, desc: &str) -> Option<Var> {
        let n = slots(desc);
        let mut top = Slot::Prim;
        for i in 0..n {
            let s = self.pop(stack);
            if i == 0 {
                top = s;
            }
        }
        match top {
            Slot::Ref(v) => Some(v),
            _ => None,
        }
    }

    /// Pushes a value of descriptor `desc`; returns the fresh variable if it is a reference.
    fn push_value(&mut self, stack: &mut Vec<Slot>, desc: &str) -> Option<Var> {
        if is_ref(desc) {
            let v = self.fresh();
            stack.push(Slot::Ref(v));
            Some(v)
        } else {
            for _ in 0..slots(desc) {
                stack.push(Slot::Prim);
            }
            None
        }
    }

    fn site(
        &mut self,
        bci: u32,
        kind: SiteKind,
        field: Option<FieldRef>,
        base: Slot,
        detail: String,
    ) {
        let base = match base {
            Slot::Ref(v) => Some(v),
            _ => None,
        };
        self.ir.sites.push(DataSite {
            bci,
            kind,
            field,
            base,
            detail,
        });
    }

    fn field_ref(&mut self, index: u16) -> FieldRef {
        match member_ref(self.file, index) {
            Some((class, name, desc)) => FieldRef { class, name, desc },
            None => {
                self.fail(format!("bad field reference #{index}"));
                FieldRef {
                    class: "?".into(),
                    name: "?".into(),
                    desc: "Ljava/lang/Object;".into(),
                }
            }
        }
    }

    /// Records the field access at `bci` (constant pool entry `index`, object `base`), and the
    /// class initialization a static access triggers; returns the field.
    fn field_site(&mut self, bci: u32, kind: SiteKind, index: u16, base: Slot) -> FieldRef {
        let f = self.field_ref(index);
        if matches!(kind, SiteKind::StaticRead | SiteKind::StaticWrite) {
            self.ir.stmts.push(Stmt::InitClass {
                class: f.class.clone(),
            });
        }
        let detail = format!("{}.{}:{}", f.class, f.name, f.desc);
        self.site(bci, kind, Some(f.clone()), base, detail);
        f
    }

    fn alloc(&mut self, stack: &mut Vec<Slot>, bci: u32, ty: String) -> Var {
        let dst = self.fresh();
        self.ir.allocs.push(AllocSite { bci, ty });
        let alloc = self.ir.allocs.len() - 1;
        self.ir.stmts.push(Stmt::New { dst, alloc });
        stack.push(Slot::Ref(dst));
        dst
    }

    fn array_load(&mut self, stack: &mut Vec<Slot>, bci: u32, elem: &str) {
        self.pop(stack);
        let array = self.pop(stack);
        self.site(bci, SiteKind::ArrayRead, None, array, elem.to_string());
        if elem.starts_with('L') {
            let dst = self.fresh();
            if let Slot::Ref(a) = array {
                self.ir.stmts.push(Stmt::ArrayLoad { dst, array: a });
            }
            stack.push(Slot::Ref(dst));
        } else {
            for _ in 0..slots(elem) {
                stack.push(Slot::Prim);
            }
        }
    }

    fn array_store(&mut self, stack: &mut Vec<Slot>, bci: u32, elem: &str) {
        let value = self.pop_value(stack, elem);
        self.pop(stack);
        let array = self.pop(stack);
        self.site(bci, SiteKind::ArrayWrite, None, array, elem.to_string());
        if let (Slot::Ref(a), Some(src)) = (array, value) {
            self.ir.stmts.push(Stmt::ArrayStore { array: a, src });
        }
    }

    fn invoke(&mut self, stack: &mut Vec<Slot>, index: u16, kind: CallKind) {
        let Some((class, name, desc)) = member_ref(self.file, index) else {
            self.fail(format!("bad method reference #{index}"));
            return;
        };
        let Some(parsed) = parse_method_desc(&desc) else {
            self.fail(format!("bad descriptor {desc}"));
            return;
        };
        let mut args: Vec<Option<Var>> = Vec::with_capacity(parsed.params.len());
        for p in parsed.params.iter().rev() {
            args.push(self.pop_value(stack, p));
        }
        args.reverse();
        let recv = if kind == CallKind::Static {
            None
        } else {
            match self.pop(stack) {
                Slot::Ref(v) => Some(v),
                _ => None,
            }
        };
        let ret = self.push_value(stack, &parsed.ret);
        if kind == CallKind::Static {
            self.ir.stmts.push(Stmt::InitClass {
                class: class.clone(),
            });
        }
        // A call on constant `null` only throws; nothing to resolve.
        if kind != CallKind::Static && recv.is_none() {
            return;
        }
        self.ir.stmts.push(Stmt::Call {
            kind,
            method: MethodRef { class, name, desc },
            recv,
            args,
            ret,
        });
    }

    fn invokedynamic(&mut self, stack: &mut Vec<Slot>, index: u16) {
        let Some(Constant::InvokeDynamic {
            bootstrap_method_attr_index,
            name_and_type_index,
        }) = self.file.constant_pool.get(index).cloned()
        else {
            self.fail(format!("bad invokedynamic constant #{index}"));
            return;
        };
        let Some((name, desc)) = name_and_type(self.file, name_and_type_index) else {
            self.fail("bad invokedynamic name and type");
            return;
        };
        let Some(parsed) = parse_method_desc(&desc) else {
            self.fail(format!("bad descriptor {desc}"));
            return;
        };
        let mut args = Vec::new();
        for p in parsed.params.iter().rev() {
            args.push(self.pop_value(stack, p));
        }
        args.reverse();
        let dst = self.push_value(stack, &parsed.ret);
        let refs: Vec<Var> = args.iter().flatten().copied().collect();
        match (
            classify_indy(self.file, bootstrap_method_attr_index, &name, &desc),
            dst,
        ) {
            (Indy::Lambda(info), Some(dst)) => self.ir.stmts.push(Stmt::Lambda {
                dst,
                info,
                captures: args,
            }),
            (Indy::Concat, Some(dst)) => self.ir.stmts.push(Stmt::Concat { dst, args: refs }),
            _ => self.ir.stmts.push(Stmt::UnknownIndy {
                dst,
                args: refs,
                ret_desc: parsed.ret,
            }),
        }
    }

    fn ldc(&mut self, stack: &mut Vec<Slot>, index: u16) {
        let constant = self.file.constant_pool.get(index).cloned();
        let obj = match constant {
            Some(Constant::Integer(_)) | Some(Constant::Float(_)) => {
                stack.push(Slot::Prim);
                return;
            }
            Some(Constant::Long(_)) | Some(Constant::Double(_)) => {
                stack.push(Slot::Prim);
                stack.push(Slot::Prim);
                return;
            }
            Some(Constant::String(_)) => ConstObj::String,
            Some(Constant::Class(_)) => ConstObj::Class,
            Some(Constant::MethodType(_)) => {
                ConstObj::Unknown("java/lang/invoke/MethodType".into())
            }
            Some(Constant::MethodHandle { .. }) => {
                ConstObj::Unknown("java/lang/invoke/MethodHandle".into())
            }
            Some(Constant::Dynamic {
                name_and_type_index,
                ..
            }) => {
                let desc = name_and_type(self.file, name_and_type_index)
                    .map(|(_, d)| d)
                    .unwrap_or_else(|| "Ljava/lang/Object;".into());
                if !is_ref(&desc) {
                    for _ in 0..slots(&desc) {
                        stack.push(Slot::Prim);
                    }
                    return;
                }
                ConstObj::Unknown(crate::classes::class_of_desc(&desc).unwrap_or_default())
            }
            _ => {
                self.fail(format!("bad ldc constant #{index}"));
                stack.push(Slot::Prim);
                return;
            }
        };
        let dst = self.fresh();
        self.ir.stmts.push(Stmt::Const { dst, obj });
        stack.push(Slot::Ref(dst));
    }
}

/// The IR of a method whose body is not analysed: parameters and result only.
pub fn signature_only(desc: &str, is_static: bool) -> MethodIr {
    let mut ir = MethodIr::default();
    let Some(parsed) = parse_method_desc(desc) else {
        ir.unsupported = Some(format!("bad descriptor {desc}"));
        return ir;
    };
    if !is_static {
        ir.params.push(Some(0));
        ir.num_vars = 1;
    }
    for p in &parsed.params {
        if is_ref(p) {
            ir.params.push(Some(ir.num_vars));
            ir.num_vars += 1;
        } else {
            ir.params.push(None);
        }
    }
    if is_ref(&parsed.ret) {
        ir.ret = Some(ir.num_vars);
        ir.num_vars += 1;
    }
    ir
}

/// Translates method `method_index` of `file`. A method without code (abstract, native) gives
/// an IR with parameters and a return variable but no statements.
pub fn build(file: &ClassFile<'static>, method_index: usize) -> MethodIr {
    // Unexpected bytecode must not take the analysis down: it makes the method unsupported.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        build_checked(file, method_index)
    }))
    .unwrap_or_else(|_| {
        // Keep the parameters and result, so calls still pass through unknown code.
        let method = &file.methods[method_index];
        let desc = text(file, method.descriptor_index).unwrap_or_default();
        let is_static = method
            .access_flags
            .contains(ristretto_classfile::MethodAccessFlags::STATIC);
        let mut ir = signature_only(&desc, is_static);
        ir.unsupported = Some("the IR builder failed on this method".into());
        ir
    })
}

fn build_checked(file: &ClassFile<'static>, method_index: usize) -> MethodIr {
    let method = &file.methods[method_index];
    let desc = text(file, method.descriptor_index).unwrap_or_default();
    let is_static = method
        .access_flags
        .contains(ristretto_classfile::MethodAccessFlags::STATIC);
    let mut b = Builder {
        file,
        ir: MethodIr::default(),
        locals: HashMap::new(),
        current: HashMap::new(),
        problem: None,
    };
    let Some(parsed) = parse_method_desc(&desc) else {
        b.ir.unsupported = Some(format!("bad descriptor {desc}"));
        return b.ir;
    };
    let mut slot = 0u32;
    if !is_static {
        let this = b.local(0);
        b.ir.params.push(Some(this));
        slot = 1;
    }
    for p in &parsed.params {
        if is_ref(p) {
            let v = b.local(slot);
            b.ir.params.push(Some(v));
        } else {
            b.ir.params.push(None);
        }
        slot += slots(p) as u32;
    }
    if is_ref(&parsed.ret) {
        let r = b.fresh();
        b.ir.ret = Some(r);
    }
    let Some((code, handlers)) = method.attributes.iter().find_map(|a| match a {
        Attribute::Code {
            code,
            exception_table,
            ..
        } => Some((code, exception_table)),
        _ => None,
    }) else {
        return b.ir;
    };
    translate(&mut b, code, handlers);
    b.ir.unsupported = b.problem.take();
    b.ir
}

fn translate(
    b: &mut Builder<'_>,
    code: &[Instruction],
    handlers: &[ristretto_classfile::attributes::ExceptionTableEntry],
) {
    use Instruction::*;
    let offsets = byte_offsets(code);
    let n = code.len();
    // Jump targets get canonical merge states; everything else is reached by fall-through only.
    let mut is_target = vec![false; n + 1];
    for (i, instr) in code.iter().enumerate() {
        for t in branch_targets(instr, i) {
            if t < n {
                is_target[t] = true;
            } else {
                b.fail("branch out of the method");
            }
        }
    }
    let mut handler_vars: HashMap<usize, Var> = HashMap::new();
    for h in handlers {
        let pc = h.handler_pc as usize;
        if pc >= n {
            b.fail("handler out of the method");
            continue;
        }
        is_target[pc] = true;
        let var = match handler_vars.get(&pc) {
            Some(&v) => v,
            None => {
                let v = b.fresh();
                handler_vars.insert(pc, v);
                v
            }
        };
        let ty = if h.catch_type == 0 {
            None
        } else {
            class_name(b.file, h.catch_type)
        };
        b.ir.stmts.push(Stmt::Catch { dst: var, ty });
    }
    let mut canonical: Vec<Option<Vec<Slot>>> = vec![None; n];
    let mut work: Vec<(usize, Vec<Slot>)> = vec![(0, Vec::new())];
    let mut roots: Vec<(usize, Vec<Slot>)> = handler_vars
        .iter()
        .map(|(&pc, &v)| (pc, vec![Slot::Ref(v)]))
        .collect();
    roots.sort_by_key(|r| r.0);
    work.extend(roots.into_iter().rev());
    let mut visited = vec![false; n];

    // Flows `stack` into target `t`: the first arrival fixes merge variables, every arrival
    // copies its references into them. Returns the state to continue with if `t` is new.
    let mut merge = |b: &mut Builder<'_>, t: usize, stack: &[Slot]| -> Option<Vec<Slot>> {
        let first = canonical[t].is_none();
        if first {
            let state: Vec<Slot> = stack
                .iter()
                .map(|s| match s {
                    Slot::Prim => Slot::Prim,
                    _ => Slot::Ref(b.fresh()),
                })
                .collect();
            canonical[t] = Some(state);
        }
        let state = canonical[t].clone().unwrap();
        if state.len() != stack.len() {
            b.fail("stack heights differ at a merge");
        }
        for (c, s) in state.iter().zip(stack) {
            if let (Slot::Ref(m), Slot::Ref(v)) = (c, s) {
                if m != v {
                    b.ir.stmts.push(Stmt::Copy { dst: *m, src: *v });
                }
            }
        }
        first.then_some(state)
    };

    while let Some((start, entry)) = work.pop() {
        let mut i = start;
        let mut stack = entry;
        // A merge point: locals hold whatever any path stored.
        b.current.clear();
        loop {
            if i >= n {
                b.fail("falls off the end of the code");
                break;
            }
            if visited[i] {
                break;
            }
            visited[i] = true;
            let bci = offsets[i];
            let instr = &code[i];
            let mut ends = false;
            match instr {
                Nop | Iinc(..) | Iinc_w(..) | Goto(_) | Goto_w(_) | Breakpoint | Impdep1
                | Impdep2 | Wide => {}
                Aconst_null => stack.push(Slot::Null),
                Iconst_m1 | Iconst_0 | Iconst_1 | Iconst_2 | Iconst_3 | Iconst_4 | Iconst_5
                | Fconst_0 | Fconst_1 | Fconst_2 | Bipush(_) | Sipush(_) => stack.push(Slot::Prim),
                Lconst_0 | Lconst_1 | Dconst_0 | Dconst_1 => {
                    stack.push(Slot::Prim);
                    stack.push(Slot::Prim);
                }
                Ldc(x) => b.ldc(&mut stack, u16::from(*x)),
                Ldc_w(x) | Ldc2_w(x) => b.ldc(&mut stack, *x),
                Iload(_) | Fload(_) | Iload_0 | Iload_1 | Iload_2 | Iload_3 | Fload_0 | Fload_1
                | Fload_2 | Fload_3 | Iload_w(_) | Fload_w(_) => stack.push(Slot::Prim),
                Lload(_) | Dload(_) | Lload_0 | Lload_1 | Lload_2 | Lload_3 | Dload_0 | Dload_1
                | Dload_2 | Dload_3 | Lload_w(_) | Dload_w(_) => {
                    stack.push(Slot::Prim);
                    stack.push(Slot::Prim);
                }
                Aload(x) => stack.push(b.load_local(u32::from(*x))),
                Aload_w(x) => stack.push(b.load_local(u32::from(*x))),
                Aload_0 => stack.push(b.load_local(0)),
                Aload_1 => stack.push(b.load_local(1)),
                Aload_2 => stack.push(b.load_local(2)),
                Aload_3 => stack.push(b.load_local(3)),
                Iaload => b.array_load(&mut stack, bci, "I"),
                Laload => b.array_load(&mut stack, bci, "J"),
                Faload => b.array_load(&mut stack, bci, "F"),
                Daload => b.array_load(&mut stack, bci, "D"),
                Aaload => b.array_load(&mut stack, bci, "L"),
                Baload => b.array_load(&mut stack, bci, "B"),
                Caload => b.array_load(&mut stack, bci, "C"),
                Saload => b.array_load(&mut stack, bci, "S"),
                Istore(_) | Fstore(_) | Istore_0 | Istore_1 | Istore_2 | Istore_3 | Fstore_0
                | Fstore_1 | Fstore_2 | Fstore_3 | Istore_w(_) | Fstore_w(_) => {
                    b.pop(&mut stack);
                }
                Lstore(_) | Dstore(_) | Lstore_0 | Lstore_1 | Lstore_2 | Lstore_3 | Dstore_0
                | Dstore_1 | Dstore_2 | Dstore_3 | Lstore_w(_) | Dstore_w(_) => {
                    b.pop_n(&mut stack, 2);
                }
                Astore(_) | Astore_0 | Astore_1 | Astore_2 | Astore_3 | Astore_w(_) => {
                    let slot = match instr {
                        Astore(x) => u32::from(*x),
                        Astore_w(x) => u32::from(*x),
                        Astore_0 => 0,
                        Astore_1 => 1,
                        Astore_2 => 2,
                        _ => 3,
                    };
                    let v = b.pop(&mut stack);
                    let l = b.local(slot);
                    if let Slot::Ref(src) = v {
                        if src != l {
                            b.ir.stmts.push(Stmt::Copy { dst: l, src });
                        }
                    }
                    b.current.insert(slot, v);
                }
                Iastore => b.array_store(&mut stack, bci, "I"),
                Lastore => b.array_store(&mut stack, bci, "J"),
                Fastore => b.array_store(&mut stack, bci, "F"),
                Dastore => b.array_store(&mut stack, bci, "D"),
                Aastore => b.array_store(&mut stack, bci, "L"),
                Bastore => b.array_store(&mut stack, bci, "B"),
                Castore => b.array_store(&mut stack, bci, "C"),
                Sastore => b.array_store(&mut stack, bci, "S"),
                Pop => {
                    b.pop(&mut stack);
                }
                Pop2 => b.pop_n(&mut stack, 2),
                Dup => {
                    let a = b.pop(&mut stack);
                    stack.extend([a, a]);
                }
                Dup_x1 => {
                    let a = b.pop(&mut stack);
                    let c = b.pop(&mut stack);
                    stack.extend([a, c, a]);
                }
                Dup_x2 => {
                    let a = b.pop(&mut stack);
                    let c = b.pop(&mut stack);
                    let d = b.pop(&mut stack);
                    stack.extend([a, d, c, a]);
                }
                Dup2 => {
                    let a = b.pop(&mut stack);
                    let c = b.pop(&mut stack);
                    stack.extend([c, a, c, a]);
                }
                Dup2_x1 => {
                    let a = b.pop(&mut stack);
                    let c = b.pop(&mut stack);
                    let d = b.pop(&mut stack);
                    stack.extend([c, a, d, c, a]);
                }
                Dup2_x2 => {
                    let a = b.pop(&mut stack);
                    let c = b.pop(&mut stack);
                    let d = b.pop(&mut stack);
                    let e = b.pop(&mut stack);
                    stack.extend([c, a, e, d, c, a]);
                }
                Swap => {
                    let a = b.pop(&mut stack);
                    let c = b.pop(&mut stack);
                    stack.extend([a, c]);
                }
                Iadd | Isub | Imul | Idiv | Irem | Ishl | Ishr | Iushr | Iand | Ior | Ixor
                | Fadd | Fsub | Fmul | Fdiv | Frem | Fcmpl | Fcmpg => {
                    b.pop_n(&mut stack, 2);
                    stack.push(Slot::Prim);
                }
                Ladd | Lsub | Lmul | Ldiv | Lrem | Land | Lor | Lxor | Dadd | Dsub | Dmul
                | Ddiv | Drem => {
                    b.pop_n(&mut stack, 4);
                    stack.extend([Slot::Prim, Slot::Prim]);
                }
                Lshl | Lshr | Lushr => {
                    b.pop_n(&mut stack, 3);
                    stack.extend([Slot::Prim, Slot::Prim]);
                }
                Lcmp | Dcmpl | Dcmpg => {
                    b.pop_n(&mut stack, 4);
                    stack.push(Slot::Prim);
                }
                Ineg | Fneg | I2f | F2i | I2b | I2c | I2s => {
                    b.pop(&mut stack);
                    stack.push(Slot::Prim);
                }
                Lneg | Dneg | L2d | D2l => {
                    b.pop_n(&mut stack, 2);
                    stack.extend([Slot::Prim, Slot::Prim]);
                }
                I2l | I2d | F2l | F2d => {
                    b.pop(&mut stack);
                    stack.extend([Slot::Prim, Slot::Prim]);
                }
                L2i | L2f | D2i | D2f => {
                    b.pop_n(&mut stack, 2);
                    stack.push(Slot::Prim);
                }
                Ifeq(_) | Ifne(_) | Iflt(_) | Ifge(_) | Ifgt(_) | Ifle(_) | Ifnull(_)
                | Ifnonnull(_) | Tableswitch(_) | Lookupswitch(_) => {
                    b.pop(&mut stack);
                }
                If_icmpeq(_) | If_icmpne(_) | If_icmplt(_) | If_icmpge(_) | If_icmpgt(_)
                | If_icmple(_) | If_acmpeq(_) | If_acmpne(_) => b.pop_n(&mut stack, 2),
                Jsr(_) | Jsr_w(_) | Ret(_) | Ret_w(_) => {
                    b.fail("jsr/ret subroutines are not supported");
                    ends = true;
                }
                Ireturn | Freturn => {
                    b.pop(&mut stack);
                    ends = true;
                }
                Lreturn | Dreturn => {
                    b.pop_n(&mut stack, 2);
                    ends = true;
                }
                Areturn => {
                    if let Slot::Ref(src) = b.pop(&mut stack) {
                        match b.ir.ret {
                            Some(_) => b.ir.stmts.push(Stmt::Return { src }),
                            None => b.fail("areturn in a method without reference result"),
                        }
                    }
                    ends = true;
                }
                Return => ends = true,
                Athrow => {
                    if let Slot::Ref(src) = b.pop(&mut stack) {
                        b.ir.stmts.push(Stmt::Throw { src });
                    }
                    ends = true;
                }
                Getstatic(x) => {
                    let f = b.field_site(bci, SiteKind::StaticRead, *x, Slot::Null);
                    if let Some(dst) = b.push_value(&mut stack, &f.desc) {
                        b.ir.stmts.push(Stmt::StaticLoad { dst, field: f });
                    }
                }
                Putstatic(x) => {
                    let desc = b.field_ref(*x).desc;
                    let value = b.pop_value(&mut stack, &desc);
                    let f = b.field_site(bci, SiteKind::StaticWrite, *x, Slot::Null);
                    if let Some(src) = value {
                        b.ir.stmts.push(Stmt::StaticStore { field: f, src });
                    }
                }
                Getfield(x) => {
                    let base = b.pop(&mut stack);
                    let f = b.field_site(bci, SiteKind::FieldRead, *x, base);
                    if let Some(dst) = b.push_value(&mut stack, &f.desc) {
                        if let Slot::Ref(base) = base {
                            b.ir.stmts.push(Stmt::Load {
                                dst,
                                base,
                                field: f,
                            });
                        }
                    }
                }
                Putfield(x) => {
                    let desc = b.field_ref(*x).desc;
                    let value = b.pop_value(&mut stack, &desc);
                    let base = b.pop(&mut stack);
                    let f = b.field_site(bci, SiteKind::FieldWrite, *x, base);
                    if let (Slot::Ref(base), Some(src)) = (base, value) {
                        b.ir.stmts.push(Stmt::Store {
                            base,
                            field: f,
                            src,
                        });
                    }
                }
                Invokevirtual(x) => b.invoke(&mut stack, *x, CallKind::Virtual),
                Invokespecial(x) => b.invoke(&mut stack, *x, CallKind::Special),
                Invokestatic(x) => b.invoke(&mut stack, *x, CallKind::Static),
                Invokeinterface(x, _) => b.invoke(&mut stack, *x, CallKind::Interface),
                Invokedynamic(x) => b.invokedynamic(&mut stack, *x),
                New(x) => {
                    let class = class_name(b.file, *x).unwrap_or_else(|| {
                        b.fail(format!("bad class constant #{x}"));
                        "java/lang/Object".into()
                    });
                    b.ir.stmts.push(Stmt::InitClass {
                        class: class.clone(),
                    });
                    b.alloc(&mut stack, bci, class);
                }
                Newarray(t) => {
                    b.pop(&mut stack);
                    b.alloc(&mut stack, bci, array_type_desc(t).to_string());
                }
                Anewarray(x) => {
                    b.pop(&mut stack);
                    let elem = class_name(b.file, *x).unwrap_or_else(|| "java/lang/Object".into());
                    let desc = format!("[{}", crate::classes::desc_of_class(&elem));
                    b.alloc(&mut stack, bci, desc);
                }
                Multianewarray(x, dims) => {
                    b.pop_n(&mut stack, usize::from(*dims));
                    let desc =
                        class_name(b.file, *x).unwrap_or_else(|| "[Ljava/lang/Object;".into());
                    // The outer array is the allocation site; the inner arrays the JVM makes
                    // are stored in it as one more allocation of the element type.
                    let outer = b.alloc(&mut stack, bci, desc.clone());
                    let mut parent = outer;
                    let mut ty = desc;
                    for _ in 1..*dims {
                        ty = ty[1..].to_string();
                        if !ty.starts_with('[') {
                            break;
                        }
                        let mut scratch = Vec::new();
                        let inner = b.alloc(&mut scratch, bci, ty.clone());
                        b.ir.stmts.push(Stmt::ArrayStore {
                            array: parent,
                            src: inner,
                        });
                        parent = inner;
                    }
                }
                Arraylength | Instanceof(_) => {
                    b.pop(&mut stack);
                    stack.push(Slot::Prim);
                }
                Checkcast(x) => {
                    let v = b.pop(&mut stack);
                    match (v, class_name(b.file, *x)) {
                        (Slot::Ref(src), Some(ty)) => {
                            let dst = b.fresh();
                            b.ir.stmts.push(Stmt::Cast { dst, src, ty });
                            stack.push(Slot::Ref(dst));
                        }
                        (other, _) => stack.push(other),
                    }
                }
                Monitorenter | Monitorexit => {
                    b.pop(&mut stack);
                }
            }
            if b.problem.is_some() {
                return;
            }
            let targets = branch_targets(instr, i);
            let unconditional = ends
                || matches!(
                    instr,
                    Goto(_) | Goto_w(_) | Tableswitch(_) | Lookupswitch(_)
                );
            for t in targets {
                if t < n {
                    if let Some(state) = merge(b, t, &stack) {
                        work.push((t, state));
                    }
                }
            }
            if unconditional {
                break;
            }
            i += 1;
            if i < n && is_target[i] {
                if let Some(state) = merge(b, i, &stack) {
                    work.push((i, state));
                }
                break;
            }
        }
    }
}

/// Branch and switch targets of `instr` at index `i` (instruction indices).
fn branch_targets(instr: &Instruction, i: usize) -> Vec<usize> {
    use Instruction::*;
    let rel = |d: i32| (i as i64 + i64::from(d)).max(0) as usize;
    match instr {
        Ifeq(t) | Ifne(t) | Iflt(t) | Ifge(t) | Ifgt(t) | Ifle(t) | If_icmpeq(t) | If_icmpne(t)
        | If_icmplt(t) | If_icmpge(t) | If_icmpgt(t) | If_icmple(t) | If_acmpeq(t)
        | If_acmpne(t) | Goto(t) | Jsr(t) | Ifnull(t) | Ifnonnull(t) => {
            vec![usize::from(*t)]
        }
        // ristretto stores wide branch targets as absolute indices once parsed.
        Goto_w(t) | Jsr_w(t) => vec![(*t).max(0) as usize],
        Tableswitch(t) => std::iter::once(t.default)
            .chain(t.offsets.iter().copied())
            .map(rel)
            .collect(),
        Lookupswitch(l) => std::iter::once(l.default)
            .chain(l.pairs.values().copied())
            .map(rel)
            .collect(),
        _ => Vec::new(),
    }
}
