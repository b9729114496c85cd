//! Tasks that failed into their futures: a `FutureTask` or a `CompletableFuture` stage whose
//! own code threw keeps the throwable, and no thread may ever throw it (a pool's task nobody
//! calls `get` on). The program then fails later, elsewhere, for want of what the task should
//! have done; the execution's notes name the task's throwable, and its trace tells the
//! explanation where the task failed (`RC.taskFailed`).

use super::*;

/// Notes on at most this many failed tasks per execution (a program may fail thousands on
/// purpose); the rest are counted.
const NOTED: usize = 3;

/// One task's failure: which thread ran it, after how many of the execution's events, and the
/// throwable (`RC.failure`: its text, then its innermost frames, a line each).
#[derive(Clone, Debug)]
pub(super) struct TaskFailure {
    pub thread: ThreadId,
    pub events: usize,
    pub failure: String,
}

impl TaskFailure {
    /// The throwable's first line, and its innermost frame outside the JDK
    /// (`p.Main.run(Main.java:14)`).
    pub(super) fn summary(&self) -> (String, Option<String>) {
        let mut lines = self.failure.lines();
        let what = lines.next().unwrap_or("").to_string();
        let at = lines
            .filter_map(|l| l.trim().strip_prefix("at "))
            .find(|f| !is_library_frame(f))
            .map(str::to_string);
        (what, at)
    }
}

/// A frame of the JDK's or rankcheck's own code (`java.util.concurrent.FutureTask.run(…)`), or
/// of a bridge the rewriter added to the program's class (`p.Main.rankcheck$lock$0(Main.java)`:
/// it has no line; the program's line is the frame below).
fn is_library_frame(frame: &str) -> bool {
    // `pkg.Class.method(File.java:12)`, perhaps after a module (`java.base/`).
    let call = frame.split('(').next().unwrap_or(frame);
    let call = call.rsplit('/').next().unwrap_or(call);
    let class = call.rsplit_once('.').map_or(call, |(class, _method)| class);
    frame.starts_with("rankcheck.")
        || crate::platform::is_jdk_class(&class.replace('.', "/"))
        || frame.contains(".rankcheck$")
}

impl Control {
    /// `RC.taskFailed`: the current thread's task failed with `failure`.
    pub fn task_failed(&self, failure: String) {
        let Some((epoch, me)) = current() else { return };
        let mut st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        let events = st.model.events().len();
        if let Some(ex) = st.exec.as_mut() {
            ex.task_failures.push(TaskFailure {
                thread: me,
                events,
                failure,
            });
        }
    }
}

/// The notes an execution's failed tasks give: `t2 (pool-1-thread-2): its task failed with …`.
pub(super) fn notes(ex: &Exec) -> Vec<String> {
    let mut out: Vec<String> = ex
        .task_failures
        .iter()
        .take(NOTED)
        .map(|f| {
            let name = ex
                .threads
                .get(f.thread.index())
                .map_or("", |r| r.name.as_str());
            let (what, at) = f.summary();
            let at = at.map_or_else(String::new, |a| format!(" at {a}"));
            format!(
                "{} ({name}): its task failed with {what}{at}; the throwable was kept in the \
                 task's future (a thread sees it only if it calls get or join)",
                f.thread
            )
        })
        .collect();
    if ex.task_failures.len() > NOTED {
        out.push(format!(
            "{} more task(s) failed the same way (kept in their futures)",
            ex.task_failures.len() - NOTED
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_summed_up_by_its_first_line_and_the_programs_frame() {
        let failure = TaskFailure {
            thread: ThreadId(2),
            events: 3,
            failure: "java.lang.NullPointerException: boom\n\tat java.base/java.util.Objects.x(Objects.java:1)\n\tat rankcheck.rt.RC.run(RC.java:5)\n\tat account.Account.rankcheck$lock$0(Account.java)\n\tat account.Account.render(Account.java:19)".into(),
        };
        assert_eq!(
            failure.summary(),
            (
                "java.lang.NullPointerException: boom".to_string(),
                Some("account.Account.render(Account.java:19)".to_string())
            )
        );
    }
}
