//! The words of an ended execution: its kind, message and stacks (`End`), the steps trace of
//! `trace=on`, and the trimming of stacks to the program's frames.

use super::*;

impl Control {
    /// When the root thread runs a test method (`root=test`, or a test launcher drives the
    /// executions) and has ended, and every thread still blocked is a thread pool's worker
    /// waiting for its next task: how many. A test that never shuts its pool down passes under
    /// its launcher, which ends the JVM without waiting for such workers; the same program run
    /// as `main` would never end (a JVM waits for its non-daemon threads), which stays a
    /// deadlock.
    fn idle_workers_after_test(&self, ex: &Exec, blocked: &[(ThreadId, Op)]) -> Option<usize> {
        let test_root = self.options.root_is_test || !self.options.plain;
        let root_ended = ex.threads.first().is_some_and(|r| r.finished);
        if !test_root || !root_ended || blocked.is_empty() {
            return None;
        }
        let idle = |t: ThreadId| {
            let Some(rec) = ex.threads.get(t.index()) else {
                return false;
            };
            let stack = self.jvmti.stack(rec.thread, 24).unwrap_or_default();
            stack.iter().any(|f| {
                f.starts_with("at java.util.concurrent.ThreadPoolExecutor.getTask(")
                    || f.starts_with("at java.util.concurrent.ForkJoinPool.awaitWork(")
            })
        };
        blocked
            .iter()
            .all(|&(t, _)| idle(t))
            .then_some(blocked.len())
    }

    /// `t1 (Thread-0) blocked at monitorenter on Object#3 held by t2 (Thread-1); …`: each of
    /// `blocked`, what it waits at and who holds it.
    pub(super) fn blocked_words(&self, st: &State, blocked: &[(ThreadId, Op)]) -> String {
        let ex = st.exec.as_ref().unwrap();
        let name = |t: ThreadId| ex.threads.get(t.index()).map_or("", |r| r.name.as_str());
        let ids: Vec<u64> = blocked
            .iter()
            .filter_map(|(_, op)| op.obj().map(|o| o.0))
            .collect();
        let classes = self.classes(ex.epoch, &ids);
        let object = |o: scheduler::ObjId| match classes.get(&o.0) {
            Some(class) => format!("{class}#{}", o.0),
            None => format!("object #{}", o.0),
        };
        let parts: Vec<String> = blocked
            .iter()
            .map(|(t, op)| {
                let holder = match op {
                    Op::MonitorEnter { obj, .. } => st
                        .model
                        .monitor(*obj)
                        .map(|(h, _)| format!(" held by {h} ({})", name(h))),
                    Op::Park { .. } => self.park_blocker(ex, *t),
                    Op::ClassInitWait { .. } => ex
                        .threads
                        .get(t.index())
                        .and_then(|r| r.init_for.detail.clone()),
                    _ => None,
                };
                format!(
                    "{t} ({}) blocked at {}{}",
                    name(*t),
                    crate::explain::op_named(op, &object),
                    holder.unwrap_or_default()
                )
            })
            .collect();
        parts.join("; ")
    }

    pub(super) fn end_of(&self, st: &State, decision: Decision) -> End {
        let end = |kind, bug, message: String| End {
            kind,
            bug,
            message,
            bound: None,
            exit_status: None,
            trace: None,
        };
        match decision {
            Decision::Run { .. } => unreachable!("not a terminal decision"),
            Decision::Finished => {
                let expected = self.options.expect_exit;
                let mut e = if expected == 0 {
                    end("finished", false, "every thread finished".into())
                } else {
                    end(
                        "exit",
                        true,
                        format!("the program ended normally (status 0), expected exit status {expected}"),
                    )
                };
                e.exit_status = Some(0);
                if !e.bug {
                    if let Some(deadlock) = self.deadlock_behind_end(st, "every thread finished") {
                        return deadlock;
                    }
                }
                e
            }
            Decision::Exit { status } => {
                let expected = self.options.expect_exit;
                // Plain main: the program's own status is its business unless expect-exit says.
                let checked = !self.is_plain() || self.options.expect_exit_given;
                let mut e = if status == expected || !checked {
                    end("exit", false, format!("System.exit({status})"))
                } else {
                    end(
                        "exit",
                        true,
                        format!("System.exit({status}), expected exit status {expected}"),
                    )
                };
                e.exit_status = Some(status);
                if !e.bug {
                    let how = format!("System.exit({status})");
                    if let Some(deadlock) = self.deadlock_behind_end(st, &how) {
                        return deadlock;
                    }
                }
                e
            }
            Decision::Deadlock { blocked } => {
                let ex = st.exec.as_ref().unwrap();
                if let Some(idle) = self.idle_workers_after_test(ex, &blocked) {
                    let mut e = end(
                        "finished",
                        false,
                        format!(
                            "the test method ended; {idle} thread pool worker(s) it left wait \
                             for tasks (a test launcher does not wait for them; shutting the \
                             pool down frees them)"
                        ),
                    );
                    e.exit_status = Some(0);
                    return e;
                }
                end(
                    "deadlock",
                    true,
                    format!("deadlock: {}", self.blocked_words(st, &blocked)),
                )
            }
            Decision::StepBound => {
                // Long is not a livelock: without evidence of no progress this says nothing
                // about the program (inconclusive, never a bug).
                let mut e = end(
                    "too-long",
                    true,
                    format!(
                        "too long: the execution reached the step bound ({} steps) while its \
                         threads were still making progress (raise it with --max-steps)",
                        self.options.max_steps
                    ),
                );
                e.bound = Some("steps");
                e
            }
            Decision::Livelock { spinning } => {
                let ex = st.exec.as_ref().unwrap();
                let parts: Vec<String> = spinning
                    .iter()
                    .map(|(t, sites)| {
                        let name = ex.threads.get(t.index()).map_or("", |r| r.name.as_str());
                        let mut places: Vec<String> = Vec::new();
                        for s in sites {
                            let p = match st.site_places.get(s) {
                                Some(p) => p.to_string(),
                                None => format!("site {s:#x}"),
                            };
                            if !places.contains(&p) {
                                places.push(p);
                            }
                        }
                        format!("{t} ({name}) spins at {}", places.join(", "))
                    })
                    .collect();
                end(
                    "livelock",
                    true,
                    format!(
                        "livelock: for {} steps every enabled thread only re-read what nobody \
                         writes, yielded or slept: {}",
                        self.options.livelock_window,
                        parts.join("; ")
                    ),
                )
            }
            Decision::Stopped(Stop::Diverged(d)) => {
                let ex = st.exec.as_ref().unwrap();
                let thread = |t: ThreadId| {
                    ex.threads
                        .get(t.index())
                        .map_or_else(String::new, |r| r.name.clone())
                };
                let place = |s: i64| st.site_places.get(&s).map(|p| p.to_string());
                let names = crate::explain::Names {
                    thread: &thread,
                    place: &place,
                    object: &crate::explain::object_number,
                };
                let status_of = |t: ThreadId| st.model.status(t);
                let steps = st.model.steps();
                let last = st.model.events().last();
                let text = crate::explain::divergence(&d, steps, last, &status_of, &names);
                end("diverged", false, text)
            }
            Decision::Stopped(Stop::Pruned) => end(
                "pruned",
                false,
                "the strategy pruned the rest of this execution".into(),
            ),
        }
    }

    /// Every step of the execution that ends now, for the result's `steps_trace` (at most the
    /// last [`crate::report::TRACE_STEPS`]), with the threads blocked for ever when it
    /// `deadlocked`.
    pub(super) fn steps_trace(
        &self,
        st: &State,
        ex: &Exec,
        deadlocked: bool,
    ) -> crate::report::StepsTrace {
        use crate::report::{TracedStep, TRACE_STEPS};
        let events = st.model.events();
        let marks = st.model.step_marks().unwrap_or(&[]);
        let skip = events.len().saturating_sub(TRACE_STEPS);
        let object_of = |kind: OpKind, target: u64| -> (Option<u64>, Option<i32>) {
            match kind {
                OpKind::Read | OpKind::Write => match ex.locs.get(&target) {
                    Some(&(0, _)) | None => (None, None),
                    Some(&(obj, index)) => (Some(obj), (index >= 0).then_some(index)),
                },
                OpKind::MonitorEnter
                | OpKind::MonitorExit
                | OpKind::Wait
                | OpKind::WaitReturn
                | OpKind::Notify
                | OpKind::NotifyAll => (Some(target), None),
                _ => (None, None),
            }
        };
        // Frames named once each (the same call site comes back in every iteration of a loop).
        let named: RefCell<IdMap<RawFrame, crate::report::TracedCaller>> = Default::default();
        let name = |(method, at): RawFrame| {
            named
                .borrow_mut()
                .entry((method, at))
                .or_insert_with(|| {
                    self.jvmti
                        .name_frame(method as jni::sys::jmethodID, at)
                        .into()
                })
                .clone()
        };
        let mut steps: Vec<TracedStep> = events
            .iter()
            .enumerate()
            .skip(skip)
            .map(|(i, e)| {
                let (obj, index) = object_of(e.kind, e.target);
                let mark = marks.get(i);
                TracedStep {
                    step: mark.map_or(i as u64 + 1, |m| m.step),
                    thread: e.thread.0,
                    kind: e.kind,
                    target: e.target,
                    obj,
                    class: None,
                    index,
                    site: e.site,
                    preempted: mark.is_some_and(|m| m.preempted),
                    learnt: false,
                    library: ex.library_ops.contains(&(e.thread.0, e.index)),
                    caller: ex.callers.get(&(e.thread.0, e.index)).map(|&f| name(f)),
                }
            })
            .collect();
        // Steps with no event of their own: a hold the model adopted (learnt, not scheduled)
        // is shown as the holder's enter where it became known, so that readers see who held
        // the monitor; a synchronizer's hand-over as its first thread's last write alone (or
        // read, when it only read it; confinement.rs), so that explanations see it.
        let mut learnt: Vec<(usize, TracedStep)> = ex
            .adoptions
            .iter()
            .map(|&(at, holder, obj, site)| {
                let step = TracedStep {
                    thread: holder.0,
                    kind: OpKind::MonitorEnter,
                    target: obj.0,
                    obj: Some(obj.0),
                    index: None,
                    site,
                    ..learnt_step()
                };
                (at, step)
            })
            .chain(ex.handovers.iter().map(|h| {
                let step = TracedStep {
                    thread: h.first.0,
                    kind: if h.wrote { OpKind::Write } else { OpKind::Read },
                    target: h.loc.0,
                    obj: Some(h.obj.0),
                    index: None,
                    site: h.site,
                    caller: h.caller.map(name),
                    ..learnt_step()
                };
                (h.at, step)
            }))
            .collect();
        learnt.sort_by_key(|&(at, _)| at);
        for (at, mut step) in learnt.into_iter().rev() {
            let Some(pos) = at.checked_sub(skip) else {
                continue;
            };
            step.step = marks
                .get(at.saturating_sub(1))
                .map_or(at as u64, |m| m.step);
            steps.insert(pos.min(steps.len()), step);
        }
        let mut blocked = Vec::new();
        if deadlocked {
            for t in 0..st.model.thread_count() {
                let t = ThreadId(t);
                let stuck = st.model.status(t).is_some_and(|s| s.is_blocked());
                let parking = ex.waiting_at_end.filter(|&(p, _)| p == t).map(|(_, op)| op);
                let Some(op) = st.model.pending(t).filter(|_| stuck).or(parking) else {
                    continue;
                };
                // A wait for a class initialization: the initializer, when it is known.
                let initializer = matches!(op, Op::ClassInitWait { .. })
                    .then(|| {
                        ex.threads
                            .get(t.index())
                            .and_then(|r| r.init_for.initializer)
                    })
                    .flatten();
                let target = op
                    .obj()
                    .map(|o| o.0)
                    .or(op.target().or(initializer).map(|x| u64::from(x.0)))
                    .unwrap_or(u64::from(t.0));
                blocked.push(TracedStep {
                    step: st.model.steps() + 1,
                    thread: t.0,
                    kind: op.kind(),
                    target,
                    obj: op.obj().map(|o| o.0),
                    class: None,
                    index: None,
                    site: op.site().unwrap_or(0),
                    preempted: false,
                    learnt: false,
                    library: false,
                    caller: st
                        .model
                        .performed(t)
                        .and_then(|n| ex.callers.get(&(t.0, n)))
                        .map(|&f| name(f)),
                });
            }
        }
        let mut ids: Vec<u64> = steps.iter().chain(&blocked).filter_map(|s| s.obj).collect();
        ids.sort_unstable();
        ids.dedup();
        let classes = self.classes(ex.epoch, &ids);
        for s in steps.iter_mut().chain(blocked.iter_mut()) {
            s.class = s.obj.and_then(|o| classes.get(&o).cloned());
        }
        let mut sites: Vec<i64> = steps.iter().chain(&blocked).map(|s| s.site).collect();
        sites.sort_unstable();
        sites.dedup();
        let site_records = sites
            .iter()
            .filter_map(|s| st.site_lines.get(s).map(|l| l.to_string()))
            .collect();
        // Where each failed task stood: the step number of the last event before its failure.
        let task_failures = ex
            .task_failures
            .iter()
            .map(|f| {
                let (what, at) = f.summary();
                crate::report::TracedTaskFailure {
                    thread: f.thread.0,
                    after_step: f
                        .events
                        .checked_sub(1)
                        .map_or(0, |e| marks.get(e).map_or(e as u64 + 1, |m| m.step)),
                    failure: f.failure.clone(),
                    what,
                    at,
                }
            })
            .collect();
        crate::report::StepsTrace {
            threads: ex.threads.iter().map(|r| r.name.clone()).collect(),
            omitted: skip as u64,
            task_failures,
            steps,
            blocked,
            site_records,
        }
    }
}

/// A trace step with no event of its own (`learnt`), its fields left to fill.
fn learnt_step() -> crate::report::TracedStep {
    crate::report::TracedStep {
        step: 0,
        thread: 0,
        kind: OpKind::MonitorEnter,
        target: 0,
        obj: None,
        class: None,
        index: None,
        site: 0,
        preempted: false,
        learnt: true,
        caller: None,
        library: false,
    }
}

/// Drops the frames that are rankcheck's, not the program's: the hook and native on top, the
/// bridges of calls into real monitors wherever they are, the harness's reflective call of
/// `main` (and `Thread.run`) at the bottom.
pub fn trim_frames(mut frames: Vec<String>) -> Vec<String> {
    let bridge = format!(".{}", java_harness::hooks::LOCK_BRIDGE_PREFIX);
    frames.retain(|f| !f.contains(&bridge));
    let ours_on_top = frames
        .iter()
        .take_while(|f| {
            // The hook and native; for an uncaught throwable, the handler's frames.
            [
                "at rankcheck.rt.RC.",
                "at rankcheck.harness.",
                "at java.lang.ThreadGroup.uncaughtException(",
                "at java.lang.Thread.dispatchUncaughtException(",
            ]
            .iter()
            .any(|p| f.starts_with(p))
        })
        .count();
    frames.drain(..ours_on_top);
    let plumbing = |f: &String| {
        [
            "at jdk.internal.reflect.",
            "at java.lang.reflect.",
            "at rankcheck.harness.",
            "at java.lang.Thread.run(",
        ]
        .iter()
        .any(|p| f.starts_with(p))
            || (f.starts_with("at rankcheck.harness.Main$$Lambda"))
    };
    while frames.last().is_some_and(plumbing) {
        frames.pop();
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_keeps_the_program_frames_only() {
        let frames: Vec<String> = [
            "at rankcheck.rt.RC.nJoin(Native Method)",
            "at rankcheck.rt.RC.threadJoin(RC.java:91)",
            "at Deadlock.rankcheck$lock$0(Deadlock.java)",
            "at Deadlock.main(Deadlock.java:23)",
            "at jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            "at java.lang.reflect.Method.invoke(Method.java:569)",
            "at rankcheck.harness.Main.runMain(Main.java:149)",
            "at rankcheck.harness.Main$$Lambda$2.0x00007fc4d0001b58.run(Unknown Source)",
            "at java.lang.Thread.run(Thread.java:840)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            trim_frames(frames),
            vec!["at Deadlock.main(Deadlock.java:23)".to_string()]
        );
    }
}
