//! `librankcheck_agent.so`: the JVMTI agent that puts the JVM under the scheduler's control.
//!
//! **Its one job:** bind `rankcheck.rt.RC`'s natives, map Java threads to scheduler ids, let
//! exactly one application thread run at a time as the scheduler decides, watch for threads
//! blocked where rankcheck cannot see, and write each execution's result.
//!
//! **Architecture invariant:** no strategy logic; the only crate with FFI and `unsafe`.
