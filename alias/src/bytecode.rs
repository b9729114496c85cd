//! Byte-level facts ristretto does not give directly: instruction byte offsets (its branch
//! targets are instruction indices, but site keys use the original byte offsets) and method
//! descriptors.

use ristretto_classfile::attributes::Instruction;

/// The encoded size in bytes of `instr` when it starts at byte offset `offset` (switches are
/// padded so their operands start at a multiple of four).
pub fn instruction_size(instr: &Instruction, offset: u32) -> u32 {
    use Instruction::*;
    let pad = |offset: u32| (4 - (offset + 1) % 4) % 4;
    match instr {
        Tableswitch(t) => {
            let n = (i64::from(t.high) - i64::from(t.low) + 1).max(0) as u32;
            1 + pad(offset) + 12 + 4 * n
        }
        Lookupswitch(l) => 1 + pad(offset) + 8 + 8 * l.pairs.len() as u32,
        Bipush(_) | Ldc(_) | Iload(_) | Lload(_) | Fload(_) | Dload(_) | Aload(_) | Istore(_)
        | Lstore(_) | Fstore(_) | Dstore(_) | Astore(_) | Ret(_) | Newarray(_) => 2,
        Sipush(_) | Ldc_w(_) | Ldc2_w(_) | Iinc(..) | Ifeq(_) | Ifne(_) | Iflt(_) | Ifge(_)
        | Ifgt(_) | Ifle(_) | If_icmpeq(_) | If_icmpne(_) | If_icmplt(_) | If_icmpge(_)
        | If_icmpgt(_) | If_icmple(_) | If_acmpeq(_) | If_acmpne(_) | Goto(_) | Jsr(_)
        | Ifnull(_) | Ifnonnull(_) | Getstatic(_) | Putstatic(_) | Getfield(_) | Putfield(_)
        | Invokevirtual(_) | Invokespecial(_) | Invokestatic(_) | New(_) | Anewarray(_)
        | Checkcast(_) | Instanceof(_) => 3,
        Multianewarray(..) | Iload_w(_) | Lload_w(_) | Fload_w(_) | Dload_w(_) | Aload_w(_)
        | Istore_w(_) | Lstore_w(_) | Fstore_w(_) | Dstore_w(_) | Astore_w(_) | Ret_w(_) => 4,
        Invokeinterface(..) | Invokedynamic(_) | Goto_w(_) | Jsr_w(_) => 5,
        Iinc_w(..) => 6,
        _ => 1,
    }
}

/// The byte offset of every instruction of `code`, in order.
pub fn byte_offsets(code: &[Instruction]) -> Vec<u32> {
    let mut offsets = Vec::with_capacity(code.len());
    let mut at = 0u32;
    for instr in code {
        offsets.push(at);
        at += instruction_size(instr, at);
    }
    offsets
}

/// A parsed method descriptor: parameter field descriptors and the return descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodDesc {
    pub params: Vec<String>,
    pub ret: String,
}

/// Parses `(I[Ljava/lang/String;J)V`; `None` if malformed.
pub fn parse_method_desc(desc: &str) -> Option<MethodDesc> {
    let inner = desc.strip_prefix('(')?;
    let close = inner.find(')')?;
    let (args, ret) = (&inner[..close], &inner[close + 1..]);
    let mut params = Vec::new();
    let bytes = args.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        while bytes[i] == b'[' {
            i += 1;
            if i >= bytes.len() {
                return None;
            }
        }
        if bytes[i] == b'L' {
            i += args[i..].find(';')?;
        }
        i += 1;
        params.push(args[start..i].to_string());
    }
    if ret.is_empty() {
        return None;
    }
    Some(MethodDesc {
        params,
        ret: ret.to_string(),
    })
}

/// Stack/local slots a value of field descriptor `desc` takes (0 for `V`).
pub fn slots(desc: &str) -> usize {
    match desc.as_bytes().first() {
        Some(b'J') | Some(b'D') => 2,
        Some(b'V') | None => 0,
        _ => 1,
    }
}

/// True for reference descriptors (`L…;` and arrays).
pub fn is_ref(desc: &str) -> bool {
    matches!(desc.as_bytes().first(), Some(b'L') | Some(b'['))
}

/// The instruction byte offsets of every method with code in the class file `bytes`, in
/// class-file order (what `javap -c` lists), for checking [`byte_offsets`] against real tools.
pub fn method_offsets(bytes: &[u8]) -> Result<Vec<Vec<u32>>, String> {
    let file = ristretto_classfile::ClassFile::from_bytes(bytes).map_err(|e| e.to_string())?;
    Ok(file
        .methods
        .iter()
        .filter_map(|m| {
            m.attributes.iter().find_map(|a| match a {
                ristretto_classfile::attributes::Attribute::Code { code, .. } => {
                    Some(byte_offsets(code))
                }
                _ => None,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_parse() {
        let d = parse_method_desc("(I[[Ljava/lang/String;JLa/B;)[D").unwrap();
        assert_eq!(d.params, vec!["I", "[[Ljava/lang/String;", "J", "La/B;"]);
        assert_eq!(d.ret, "[D");
        assert_eq!(parse_method_desc("()V").unwrap().params.len(), 0);
        assert!(parse_method_desc("(L;").is_none());
        assert!(parse_method_desc("(La/B").is_none());
        assert_eq!(slots("J"), 2);
        assert!(is_ref("[I") && !is_ref("I"));
    }
}
