//! The watchdog: the wall-clock bound and a running thread blocked or idle where rankcheck
//! cannot see.

use super::*;

/// Since when the execution has not moved, and the CPU time used up to then.
pub(super) struct Stillness {
    progress: u64,
    since: Instant,
    /// The running thread's CPU time, nanoseconds.
    thread_cpu: u64,
    /// The whole process's CPU time, nanoseconds.
    process_cpu: u64,
}

impl Stillness {
    /// Before the first check: anything counts as a move.
    pub(super) fn start() -> Self {
        Stillness {
            progress: u64::MAX,
            since: Instant::now(),
            thread_cpu: 0,
            process_cpu: 0,
        }
    }
}

impl Control {
    /// The watchdog: the wall-clock bound, and the running thread blocked where rankcheck
    /// cannot see.
    pub(super) fn watchdog(
        &self,
        ex: &mut Exec,
        model: &Model,
        last: &mut Stillness,
    ) -> Option<End> {
        let timeout = Duration::from_millis(self.options.timeout_ms);
        if ex.started.elapsed() > timeout {
            let running = self.running_description(ex);
            return Some(End {
                kind: "timeout",
                bug: true,
                message: format!(
                    "the execution ran longer than {} ms of wall-clock time{running}",
                    self.options.timeout_ms
                ),
                bound: Some("wall-clock"),
                exit_status: None,
                trace: None,
            });
        }
        if ex.progress != last.progress {
            *last = Stillness {
                progress: ex.progress,
                since: Instant::now(),
                thread_cpu: self.running_cpu(ex),
                process_cpu: crate::cpu::process_cpu_ns(),
            };
            return None;
        }
        let still = last.since.elapsed();
        if still < Duration::from_millis(self.options.block_ms) {
            return None;
        }
        let (id, rec) = ex.threads.iter().enumerate().find(|(_, r)| {
            r.place == Place::Running || (r.place == Place::Unborn && r.resume.is_some())
        })?;
        let message = if rec.place == Place::Unborn {
            format!(
                "t{id} was scheduled but never started running (for {} ms)",
                self.options.block_ms
            )
        } else {
            let state = self.jvmti.thread_state(rec.thread).unwrap_or(0);
            let cpu = self.jvmti.cpu_time(rec.thread).unwrap_or(0);
            // Not blocked by its state, but not computing either: waiting somewhere the state
            // does not show (the JVM's class-initialization lock is one).
            let still_ns = still.as_nanos() as u64;
            // The kernel has it runnable: the machine's load starves it, it is not waiting.
            let starved =
                rec.os_tid != 0 && crate::cpu::os_thread_runnable(rec.os_tid) == Some(true);
            // The JVM's own threads are busy (a garbage collection or class loading holds
            // every thread at a safepoint, slow on a loaded machine; a jar read from a busy
            // disk): wait for them. (The wall-clock bound still ends the execution either way.)
            let jvm_busy = crate::cpu::process_cpu_ns().saturating_sub(last.process_cpu)
                > still_ns / 4
                || crate::cpu::another_thread_busy();
            // More threads ready to run than CPUs: the JVM's own may be among the starved ones,
            // so give it longer (up to four times as long) before calling the thread idle.
            let crowded = still < 4 * Duration::from_millis(self.options.block_ms)
                && crate::cpu::machine_overloaded();
            let idle = cpu.saturating_sub(last.thread_cpu) < still_ns / 20
                && !starved
                && !jvm_busy
                && !crowded;
            let stack = self.jvmti.stack(rec.thread, 8).unwrap_or_default();
            // A join of a thread the model saw end waits in the JVM for that thread's real
            // death (`RC.joinControlled`), which only the machine's load can hold up: no
            // verdict of "blocked" for it (the wall-clock bound still ends the execution).
            let has = |frame: &str| stack.iter().any(|f| f.starts_with(frame));
            if has("at java.lang.Thread.join(") && has("at rankcheck.rt.RC.joinControlled(") {
                return None;
            }
            // Where it waits: its innermost frame that is not rankcheck's.
            let place = stack
                .into_iter()
                .find(|f| !f.starts_with("at rankcheck."))
                .map(|f| format!(" {f}"))
                .unwrap_or_default();
            let init_wait =
                (idle && !jvmti::is_blocked(state) && self.jvmti.waits_on_monitor(rec.thread))
                    .then(|| self.class_init_wait(ex, model, id))
                    .flatten();
            if let Some((message, true)) = init_wait {
                return Some(End {
                    kind: "deadlock",
                    bug: true,
                    message,
                    bound: None,
                    exit_status: None,
                    trace: None,
                });
            }
            let what = if let Some((what, _)) = init_wait {
                what
            } else if jvmti::is_blocked(state) {
                format!(
                    "t{id} ({}) is {}{place} where rankcheck cannot see it, and nothing else may \
                     run; it has not moved for {} ms",
                    rec.name,
                    jvmti::describe_state(state),
                    still.as_millis()
                )
            } else if idle {
                format!(
                    "t{id} ({}) has not reached a scheduling point for {} ms and is not using \
                     the CPU{place}: it waits where rankcheck cannot see it",
                    rec.name,
                    still.as_millis()
                )
            } else {
                return None;
            };
            // A limit of rankcheck, not a finding: the model does not know what the thread
            // waits for, so it can say nothing about the program here.
            format!(
                "rankcheck could not control this execution ({what}). This is not a bug found \
                 in the program: the thread waits on something rankcheck does not model (I/O, a \
                 lock taken by a thread rankcheck does not control, a class being initialized \
                 by another thread, a JDK-internal lock); java.util.concurrent is modelled \
                 unless the agent runs with juc=off"
            )
        };
        Some(End {
            kind: "blocked",
            bug: true,
            message,
            bound: Some("watchdog"),
            exit_status: None,
            trace: None,
        })
    }

    /// The running thread `stuck` waits, runnable, on a monitor inside the JVM: it waits for
    /// a class that another thread is initializing (JVMS §5.5). Finds that thread: one not
    /// running whose stack is inside a static initializer. Says what happens, and whether it
    /// is a deadlock of the program (`true`): the initializing thread is blocked in the model
    /// inside the initializer (it joins `stuck`, waits for a task `stuck` runs, wants a lock
    /// `stuck` holds) and no other thread can run, so nothing can ever go on, in any JVM.
    fn class_init_wait(&self, ex: &Exec, model: &Model, stuck: usize) -> Option<(String, bool)> {
        let waiter = &ex.threads[stuck];
        for (u, rec) in ex.threads.iter().enumerate() {
            if u == stuck || rec.thread.is_null() || rec.finished || rec.place == Place::Gone {
                continue;
            }
            let stack = self.jvmti.stack(rec.thread, 64).unwrap_or_default();
            let Some(init) = stack.iter().find(|f| f.contains(".<clinit>(")) else {
                continue;
            };
            // Where the initializer is: its innermost frame of the program (or of a library),
            // past rankcheck's and the JDK's own.
            let at = stack
                .iter()
                .find(|f| {
                    !f.starts_with("at rankcheck.")
                        && !f.starts_with("at java.")
                        && !f.starts_with("at jdk.")
                })
                .unwrap_or(init);
            let class = init
                .trim_start_matches("at ")
                .split(".<clinit>(")
                .next()
                .unwrap_or_default();
            let how = match model.status(ThreadId(u as u32)) {
                Some(ThreadStatus::Joining { target }) => Some(format!("joining {target}")),
                Some(ThreadStatus::BlockedOnMonitor {
                    owner: Some(owner), ..
                }) => Some(format!("waiting for a lock {owner} holds")),
                Some(ThreadStatus::Waiting { .. }) => Some("waiting to be notified".into()),
                Some(ThreadStatus::Parked) => Some("parked".into()),
                _ => None,
            };
            // Another thread could go on (and might let the initializer finish).
            let others_can_run = (0..model.thread_count())
                .filter(|&o| o as usize != stuck)
                .any(|o| matches!(model.status(ThreadId(o)), Some(ThreadStatus::Ready(_))));
            let names = format!(
                "t{stuck} ({}) waits for class {class} to be initialized, and t{u} ({}), which \
                 initializes it",
                waiter.name, rec.name
            );
            // It waits for `stuck` itself, or for anything while nothing else can run.
            let cycle = matches!(
                model.status(ThreadId(u as u32)),
                Some(ThreadStatus::Joining { target }) if target.index() == stuck
            ) || matches!(
                model.status(ThreadId(u as u32)),
                Some(ThreadStatus::BlockedOnMonitor { owner: Some(o), .. }) if o.index() == stuck
            );
            return Some(match how {
                Some(how) if cycle || !others_can_run => (
                    format!(
                        "deadlock: {names}, waits inside its static initializer ({how}, {at}): \
                         neither can go on"
                    ),
                    true,
                ),
                Some(how) => (
                    format!(
                        "{names}, waits inside its static initializer ({how}, {at}) while other \
                         threads could run, but rankcheck does not yet schedule a thread that \
                         waits for a class's initialization"
                    ),
                    false,
                ),
                None => (
                    format!("{names}, was switched out inside its static initializer ({at})"),
                    false,
                ),
            });
        }
        None
    }

    /// CPU time of the running thread (0 when there is none yet).
    pub(super) fn running_cpu(&self, ex: &Exec) -> u64 {
        ex.threads
            .iter()
            .find(|r| r.place == Place::Running && !r.thread.is_null())
            .and_then(|r| self.jvmti.cpu_time(r.thread).ok())
            .unwrap_or(0)
    }

    pub(super) fn running_description(&self, ex: &Exec) -> String {
        ex.threads
            .iter()
            .enumerate()
            .find(|(_, r)| r.place == Place::Running)
            .map(|(i, r)| format!(" (t{i} {} was running)", r.name))
            .unwrap_or_default()
    }
}
