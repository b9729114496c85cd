//! Run-time names of heap variables for the exhaustive mode, and the run-time tracked check
//! (implemented in the agent, `agent/src/naming.rs`; this page is the design and its status).
//!
//! The static analysis names a heap variable by its allocation site alone: that is what the
//! randomized strategies (PCTVB, randomized RankChecker) choose from, and what
//! [`crate::selected_sites`] instruments for. The exhaustive RankChecker search (paper §2,
//! "loop-iteration bounding") needs finer names, and only the running program can give them.
//!
//! # The tracked check (implemented)
//!
//! A class path instrumented for a variable set (`rankcheck test --selective`,
//! `rankcheck instrument --analysis F --vars …`) carries `#tracked` lines in its site table
//! (`META-INF/rankcheck/sites.tsv`; written by `classpath::tracked_table` in the CLI): the set's
//! static fields under every `owner.name:descriptor` a site uses for them, its allocation sites
//! by [`crate::SiteKey`] with the JVM signature of what each makes. Besides the set's own
//! allocation sites, every allocation site of the same types gets the `Allocated` hook. At run
//! time an access at an instrumented site is a scheduling point only if its object was made at a
//! tracked site, or has no allocation record and is of a tracked type (under construction, a
//! clone — which the analysis counts as its original's variable —, made by reflection or the
//! JDK: it may be tracked, so it stays a point, as the variable of the one tracked site making
//! that type, or of an unknown variable when several do), or its static field is tracked. Any
//! other access passes (it still counts as a step of its thread, so the step bound still sees
//! it). The check is one JVMTI tag lookup and one hash probe (an object's class is looked up
//! once). Without the lines (full instrumentation) every access stays a point, as before.
//! Measured: 800,000 accesses to an untracked object at instrumented sites take 0.13 s per
//! execution with the check, 2.15 s as scheduling points (random walk, busy 2-core machine).
//!
//! # Names (implemented when the loop-iteration bound `l` is given)
//!
//! **Name of an object** = (allocation site, allocating thread, allocation call stack, iteration
//! number), where
//! - the *allocation site* is the site id the rewriter passes to `RC.allocated(obj, site)`;
//! - the *allocating thread* is its rankcheck thread id (creation order). This is an addition to
//!   the paper's triple: two threads running the same code allocate with the same stack, and
//!   without it which of them got iteration 0 would depend on the schedule;
//! - the *allocation call stack* is JVMTI `GetStackTrace` of the allocating thread (64 frames at
//!   most), application frames only: JDK, rankcheck and lambda-proxy frames are dropped, so a
//!   library change does not rename variables; each frame is hashed from its class signature,
//!   method name, method descriptor (strings, since JVMTI method ids differ between JVMs) and
//!   bytecode index (of the instrumented method, so names are stable for one instrumentation,
//!   which is all a search uses);
//! - the *iteration number* `i` counts earlier allocations with the same (site, thread, stack) in
//!   this execution. Objects allocated in a loop get 0, 1, 2, …; a recursion at a different depth
//!   has a different stack and restarts at 0.
//!
//! Only tracked allocations are named this way (with a tracked table, only the set's sites; with
//! full instrumentation and `l` given, every allocation, at one stack walk each: about 2.6 µs
//! per allocation measured). Without `l` an object's variable is its allocation site, as the
//! analysis names it.
//!
//! **Identity across executions.** The name is a deterministic function of the schedule prefix,
//! so a name seen in a preparatory run denotes "the same" object in later runs, which lets
//! Algorithm 1 enumerate variable sets by name. The name is hashed into the `VarId` (27 bits),
//! with the iteration number, saturated at 15, in its low 4 bits
//! (`scheduler::strategy::rankchecker::{named_var, iteration}`).
//!
//! **The loop-iteration bound `l`.** `rankchecker-exhaustive` with `-l L` enumerates variable
//! sets only over names with `i < L` (and monitors), shared variables first, then lower
//! iterations; `l = 1` tracks only the first object of each (site, thread, stack). Raising `l`
//! admits later iterations. Checked on the simulator (`rankchecker.rs` tests) and on a real JVM
//! (`tests/cli_naming.rs`, program `LoopIterationRace`: found at `l = 2`, exhausted clean at
//! `l = 1`).
//!
//! **Statics** keep their field name; they have no stack or iteration (iteration 0).
//!
//! # Not implemented
//!
//! - **Arrays element-wise**: (array name, index) while `length ≤ 16`; today an array is one
//!   variable, as the paper allows ("whole array as a single variable").
//! - The names are not printed in reports: a human sees the allocation site's variable name, not
//!   the stack.
//! - A static field reached through a VarHandle, field updater or Unsafe stays a point whatever
//!   the tracked set (its key may name the field through another class than the analysis does).
//! - The name hash has 27 bits: among ~10⁵ names a few collide and are one variable (more
//!   tracking, never less).
