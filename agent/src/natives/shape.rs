//! What a native function's Rust type says of the Java method it implements, so that every
//! function bound to a native (registered for `RC`, exported for `Agent`) is checked against
//! the method's JVM descriptor: a mismatch is undefined behaviour in JNI and would otherwise
//! only show as a crash or garbage arguments at run time.
//!
//! A function's *shape* is its descriptor with every reference type written `L` and the
//! primitive types as in the descriptor: `(Ljava/lang/Object;IJZ)V` has the shape `(LIJZ)V`,
//! which `extern "system" fn(*mut JNIEnv, jclass, jobject, jint, jlong, jboolean)` has too.
//! JNI's reference types are all one Rust type (`jobject`), so that is as far as a type tells.

use jni::sys::{
    jboolean, jbyte, jchar, jclass, jdouble, jfloat, jint, jlong, jobject, jshort, JNIEnv,
};
use std::ffi::c_void;

/// A JNI value type: its letter in a shape.
pub trait JniValue {
    const CODE: char;
}

/// A JNI return type: a value type, or `()` for `V`.
pub trait JniReturn {
    const CODE: char;
}

macro_rules! letters {
    ($($ty:ty => $code:literal),* $(,)?) => {
        $(
            impl JniValue for $ty {
                const CODE: char = $code;
            }
            impl JniReturn for $ty {
                const CODE: char = $code;
            }
        )*
    };
}

letters!(
    jboolean => 'Z',
    jbyte => 'B',
    jchar => 'C',
    jshort => 'S',
    jint => 'I',
    jlong => 'J',
    jfloat => 'F',
    jdouble => 'D',
    jobject => 'L',
);

impl JniReturn for () {
    const CODE: char = 'V';
}

/// A native's function as JNI gets it, with the shape of its Rust type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub pointer: *mut c_void,
    pub shape: String,
}

/// One constructor a number of Java parameters (after `JNIEnv*` and the class): the argument
/// is coerced to a function pointer, whose parameter and return types give the shape.
macro_rules! arities {
    ($($name:ident($($arg:ident),*);)*) => {
        $(
            // `fn0` only serves the harness's table, which only the tests read.
            #[cfg_attr(not(test), allow(dead_code))]
            pub fn $name<$($arg: JniValue,)* R: JniReturn>(
                f: extern "system" fn(*mut JNIEnv, jclass $(, $arg)*) -> R,
            ) -> Function {
                let params: Vec<char> = vec![$($arg::CODE),*];
                Function {
                    pointer: f as *mut c_void,
                    shape: format!("({}){}", String::from_iter(params), R::CODE),
                }
            }
        )*
    };
}

arities! {
    fn0();
    fn1(A);
    fn2(A, B);
    fn3(A, B, C);
    fn4(A, B, C, D);
}

/// The shape of a JVM method descriptor; `None` when it is not one.
pub fn of_descriptor(descriptor: &str) -> Option<String> {
    let rest = descriptor.strip_prefix('(')?;
    let (params, ret) = rest.split_once(')')?;
    let mut shape = String::from("(");
    let mut chars = params.chars();
    while let Some(c) = chars.next() {
        shape.push(value_letter(c, &mut chars)?);
    }
    shape.push(')');
    let mut chars = ret.chars();
    let code = match chars.next()? {
        'V' => 'V',
        c => value_letter(c, &mut chars)?,
    };
    if chars.next().is_some() {
        return None;
    }
    shape.push(code);
    Some(shape)
}

/// The letter of the field type starting with `first`, consuming the rest of it from `rest`.
fn value_letter(first: char, rest: &mut std::str::Chars) -> Option<char> {
    match first {
        'Z' | 'B' | 'C' | 'S' | 'I' | 'J' | 'F' | 'D' => Some(first),
        'L' => rest.any(|c| c == ';').then_some('L'),
        '[' => {
            let element = rest.next()?;
            value_letter(element, rest).map(|_| 'L')
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "system" fn access(
        _: *mut JNIEnv,
        _: jclass,
        _: jobject,
        _: jint,
        _: jlong,
        _: jboolean,
    ) {
    }

    extern "system" fn clock(_: *mut JNIEnv, _: jclass, _: jboolean, _: jlong) -> jlong {
        0
    }

    #[test]
    fn a_functions_type_gives_its_shape() {
        assert_eq!(fn4(access).shape, "(LIJZ)V");
        assert_eq!(fn2(clock).shape, "(ZJ)J");
        assert_eq!(fn4(access).pointer, access as *mut c_void);
    }

    #[test]
    fn descriptors_give_shapes() {
        assert_eq!(
            of_descriptor("(Ljava/lang/Object;IJZ)V").as_deref(),
            Some("(LIJZ)V")
        );
        assert_eq!(
            of_descriptor("([[I[Ljava/lang/String;D)[J").as_deref(),
            Some("(LLD)L")
        );
        assert_eq!(
            of_descriptor("()Ljava/lang/String;").as_deref(),
            Some("()L")
        );
        // A descriptor and a function that disagree differ in shape.
        assert_ne!(
            of_descriptor("(Ljava/lang/Object;JJZ)V").unwrap(),
            fn4(access).shape
        );
        for bad in [
            "",
            "I",
            "(I",
            "(Q)V",
            "(Ljava/lang/Object)V",
            "()",
            "()VV",
            "([)V",
        ] {
            assert_eq!(of_descriptor(bad), None, "{bad}");
        }
    }
}
