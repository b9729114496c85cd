//! Class bytes read through a class loader (JNI), for the classes owning replaceable calls.

use crate::ffi::call;
use jni::sys::{jobject, jvalue, JNIEnv};
use std::ffi::CString;

/// `loader.getResourceAsStream(name).readAllBytes()`, or `None` (exceptions cleared).
pub(super) fn resource_bytes(env: *mut JNIEnv, loader: jobject, name: &str) -> Option<Vec<u8>> {
    let clear = || {
        if call!(env, ExceptionCheck) != 0 {
            call!(env, ExceptionClear);
        }
    };
    let loader_class = call!(env, FindClass, c"java/lang/ClassLoader".as_ptr());
    let stream_class = call!(env, FindClass, c"java/io/InputStream".as_ptr());
    if loader_class.is_null() || stream_class.is_null() {
        clear();
        return None;
    }
    let get = call!(
        env,
        GetMethodID,
        loader_class,
        c"getResourceAsStream".as_ptr(),
        c"(Ljava/lang/String;)Ljava/io/InputStream;".as_ptr()
    );
    let read_all = call!(
        env,
        GetMethodID,
        stream_class,
        c"readAllBytes".as_ptr(),
        c"()[B".as_ptr()
    );
    let close = call!(
        env,
        GetMethodID,
        stream_class,
        c"close".as_ptr(),
        c"()V".as_ptr()
    );
    if get.is_null() || read_all.is_null() || close.is_null() {
        clear();
        return None;
    }
    let cname = CString::new(name).ok()?;
    let jname = call!(env, NewStringUTF, cname.as_ptr());
    let args = [jvalue { l: jname }];
    let stream = call!(env, CallObjectMethodA, loader, get, args.as_ptr());
    clear();
    if stream.is_null() {
        return None;
    }
    let no_args: [jvalue; 0] = [];
    let array = call!(env, CallObjectMethodA, stream, read_all, no_args.as_ptr());
    clear();
    call!(env, CallVoidMethodA, stream, close, no_args.as_ptr());
    clear();
    if array.is_null() {
        return None;
    }
    let len = call!(env, GetArrayLength, array);
    let mut out = vec![0u8; len.max(0) as usize];
    call!(
        env,
        GetByteArrayRegion,
        array,
        0,
        len,
        out.as_mut_ptr() as *mut jni::sys::jbyte
    );
    clear();
    for local in [loader_class, stream_class, jname, stream, array] {
        call!(env, DeleteLocalRef, local);
    }
    Some(out)
}
