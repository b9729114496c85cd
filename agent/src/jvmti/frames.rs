//! Stack frames, named: a thread's stack as `Throwable.printStackTrace` prints it, and single
//! frames as parts (class, method, descriptor, file, line, bytecode index).

use super::{check, java_name, JResult, Jvmti};
use crate::ffi::call;
use crate::jvmti_sys::*;
use jni::sys::{jint, jobject};
use std::os::raw::c_char;

/// A stack frame, named: `class` as Java writes it (`java.lang.StringBuffer`).
pub struct FrameParts {
    pub class: String,
    pub method: String,
    pub descriptor: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub bci: u32,
}

impl Jvmti {
    /// `thread`'s Java stack (null: the current thread), innermost frame first, in the format
    /// of `Throwable.printStackTrace` (`at pkg.Cls.method(File.java:12)`), at most `max` frames.
    pub fn stack(self, thread: jobject, max: usize) -> JResult<Vec<String>> {
        let mut frames: Vec<jvmtiFrameInfo> = Vec::with_capacity(max);
        let mut count: jint = 0;
        check(call!(
            self.0,
            GetStackTrace,
            thread,
            0,
            max as jint,
            frames.as_mut_ptr(),
            &mut count
        ))?;
        // SAFETY: JVMTI wrote `count` <= max entries.
        unsafe { frames.set_len(count.max(0) as usize) };
        Ok(frames.iter().map(|f| self.frame_text(f)).collect())
    }

    fn frame_text(self, frame: &jvmtiFrameInfo) -> String {
        let parts = self.frame_parts(frame);
        let place = if frame.location < 0 {
            "Native Method".to_string()
        } else {
            match (parts.file, parts.line) {
                (Some(f), Some(l)) => format!("{f}:{l}"),
                (Some(f), None) => f,
                (None, _) => "Unknown Source".to_string(),
            }
        };
        format!("at {}.{}({place})", parts.class, parts.method)
    }

    /// The frame of `thread` in which it entered `obj`'s monitor (the outermost such frame),
    /// named; `env` is the calling thread's JNI environment.
    pub fn monitor_frame(
        self,
        env: *mut jni::sys::JNIEnv,
        thread: jobject,
        obj: jobject,
    ) -> Option<FrameParts> {
        let mut count: jint = 0;
        let mut infos: *mut jvmtiMonitorStackDepthInfo = std::ptr::null_mut();
        check(call!(
            self.0,
            GetOwnedMonitorStackDepthInfo,
            thread,
            &mut count,
            &mut infos
        ))
        .ok()?;
        if infos.is_null() {
            return None;
        }
        // SAFETY: JVMTI returned `count` entries at `infos`.
        let list = unsafe { std::slice::from_raw_parts(infos, count.max(0) as usize) };
        let depth = list
            .iter()
            .filter(|i| call!(env, IsSameObject, i.monitor, obj) != 0)
            .map(|i| i.stack_depth)
            .max();
        for i in list {
            crate::ffi::delete_local(env, i.monitor);
        }
        let _ = check(call!(self.0, Deallocate, infos as *mut u8));
        self.frame_at(thread, depth.filter(|&d| d >= 0)?)
    }

    /// The current thread's innermost frame, named.
    pub fn current_frame(self) -> Option<FrameParts> {
        self.frame_at(std::ptr::null_mut(), 0)
    }

    /// The current thread's innermost frame below the `skip` innermost whose method `pick`
    /// accepts, among the `max` below them (at most 64): `Ok` with its depth below `skip`, its
    /// method and its location (named later by [`Jvmti::name_frame`]: naming costs more than
    /// the walk), or `Err` with whether the stack went deeper than the frames walked.
    pub fn current_frame_where(
        self,
        skip: usize,
        max: usize,
        pick: impl Fn(jni::sys::jmethodID) -> bool,
    ) -> Result<(usize, jni::sys::jmethodID, jni::sys::jlong), bool> {
        let max = max.min(64);
        let mut frames: Vec<jvmtiFrameInfo> = Vec::with_capacity(max);
        let mut count: jint = 0;
        check(call!(
            self.0,
            GetStackTrace,
            std::ptr::null_mut(),
            skip as jint,
            max as jint,
            frames.as_mut_ptr(),
            &mut count
        ))
        .map_err(|_| false)?;
        // SAFETY: JVMTI wrote `count` <= max entries.
        unsafe { frames.set_len(count.clamp(0, max as jint) as usize) };
        match frames.iter().position(|f| pick(f.method)) {
            Some(i) => Ok((i, frames[i].method, frames[i].location)),
            None => Err(frames.len() == max),
        }
    }

    /// A frame given as its method and location, named.
    pub fn name_frame(self, method: jni::sys::jmethodID, location: jni::sys::jlong) -> FrameParts {
        self.frame_parts(&jvmtiFrameInfo { method, location })
    }

    /// `thread`'s frame at `depth` (0: innermost; null thread: the current one), named.
    pub fn frame_at(self, thread: jobject, depth: jint) -> Option<FrameParts> {
        let mut frame: std::mem::MaybeUninit<jvmtiFrameInfo> = std::mem::MaybeUninit::uninit();
        let mut count: jint = 0;
        check(call!(
            self.0,
            GetStackTrace,
            thread,
            depth,
            1,
            frame.as_mut_ptr(),
            &mut count
        ))
        .ok()?;
        // SAFETY: JVMTI filled the entry when it counted one.
        (count == 1).then(|| self.frame_parts(unsafe { frame.assume_init_ref() }))
    }

    fn frame_parts(self, frame: &jvmtiFrameInfo) -> FrameParts {
        let (method, descriptor) = self
            .method_name(frame.method)
            .unwrap_or_else(|| ("?".to_string(), String::new()));
        let mut class_name = "?".to_string();
        let mut file = None;
        if let Some(class) = self.declaring_class(frame.method) {
            if let Some(sig) = self.class_signature(class) {
                class_name = java_name(&sig);
            }
            let mut source: *mut c_char = std::ptr::null_mut();
            if check(call!(self.0, GetSourceFileName, class, &mut source)).is_ok() {
                file = Some(self.take_string(source));
            }
        }
        FrameParts {
            class: class_name,
            method,
            descriptor,
            file,
            line: self.line(frame).and_then(|l| u32::try_from(l).ok()),
            bci: u32::try_from(frame.location).unwrap_or(0),
        }
    }

    fn line(self, frame: &jvmtiFrameInfo) -> Option<i32> {
        let mut count: jint = 0;
        let mut table: *mut jvmtiLineNumberEntry = std::ptr::null_mut();
        check(call!(
            self.0,
            GetLineNumberTable,
            frame.method,
            &mut count,
            &mut table
        ))
        .ok()?;
        if table.is_null() || count <= 0 {
            return None;
        }
        // SAFETY: JVMTI returned `count` entries at `table`.
        let entries = unsafe { std::slice::from_raw_parts(table, count as usize) };
        let line = entries
            .iter()
            .filter(|e| e.start_location <= frame.location)
            .max_by_key(|e| e.start_location)
            .map(|e| e.line_number);
        let _ = check(call!(self.0, Deallocate, table as *mut u8));
        line
    }
}
