//! Run-time names of heap variables for the exhaustive mode (design; the agent implements it).
//!
//! The static analysis names a heap variable by its allocation site alone: that is what the
//! randomized strategies (PCTVB, randomized RankChecker) choose from, and what
//! [`crate::selected_sites`] instruments for. The exhaustive RankChecker search (paper §2,
//! "loop-iteration bounding") needs finer names, and only the running program can give them:
//!
//! **Name of an object** = (allocation site, allocation call stack, iteration number), where
//! - the *allocation site* is the site id the rewriter passes to `RC.allocated(obj, site)`
//!   (its `SiteRecord` has the class, method, descriptor and original bci of the `new`);
//! - the *allocation call stack* is the sequence of call-site bcis (with their methods) of the
//!   allocating thread when `allocated` runs, outermost first, application frames only (JDK
//!   frames between application frames are dropped so a library change does not rename
//!   variables); the agent takes it with JVMTI `GetStackTrace` (method ids and locations),
//!   which costs one call per tracked allocation site execution — only sites of the chosen
//!   variable set carry the hook, so this stays cheap;
//! - the *iteration number* `i` counts earlier allocations with the same (site, stack) in this
//!   execution: `i = counter[(site, hash(stack))]++`. Objects allocated in a loop get
//!   0, 1, 2, …; a recursion at a different depth has a different stack and restarts at 0
//!   (as the paper intends).
//!
//! **Identity across executions.** Both parts are deterministic functions of the schedule
//! prefix (the same thread allocates the same way), so a name found in a preparatory run
//! denotes "the same" object in later runs, which is what lets Algorithm 1 enumerate variable
//! sets by name. The stack is hashed to 64 bits (FNV-1a over (method id → class/name/desc
//! string, bci) pairs, since JVMTI method ids differ between JVMs) and kept verbatim in the
//! preparatory-run report for humans.
//!
//! **The loop-iteration bound `l`.** Variable sets are enumerated over names with `i < l`
//! first (l = 1: only the first object of each (site, stack)); raising `l` admits later
//! iterations. At run time an access is a scheduling point iff the accessed object's name is in
//! the chosen set: the agent keeps obj → name in a JVMTI tag (tag → (site, stack hash, i)), so
//! the check at each instrumented access is one tag lookup and one hash-set probe.
//!
//! **Arrays.** Element-wise variables are (array name, index) while `length ≤ 16` (configurable);
//! longer arrays are one variable, as the paper allows ("whole array as a single variable").
//!
//! **Statics** keep their field name; they have no stack or iteration.
//!
//! What the analysis file provides for this: every allocation variable's site key (so the
//! rewriter can put `Allocated` exactly there) and which sites may touch it; the finer names
//! refine a static variable at run time and never need more instrumentation than it.
