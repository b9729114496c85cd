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
    pub(super) fn watchdog(&self, ex: &mut Exec, last: &mut Stillness) -> Option<End> {
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
            let idle = cpu.saturating_sub(last.thread_cpu) < still_ns / 20 && !starved && !jvm_busy;
            // Where it waits: its innermost frame that is not rankcheck's.
            let place = self
                .jvmti
                .stack(rec.thread, 8)
                .unwrap_or_default()
                .into_iter()
                .find(|f| !f.starts_with("at rankcheck."))
                .map(|f| format!(" {f}"))
                .unwrap_or_default();
            let what = if jvmti::is_blocked(state) {
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
