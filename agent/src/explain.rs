//! Words for reports: where a thread stands, and where a replay left its schedule.
//!
//! Pure formatting over the model's answers and the site table's places; it decides nothing.

use scheduler::{Choice, Divergence, Event, Op, SiteId, ThreadId, ThreadStatus};

/// Names and places the words need: a thread's name, a site's place in the source, an
/// object's name (`java.util.TaskQueue#3`, or [`object_number`] when its class is unknown).
pub struct Names<'a> {
    pub thread: &'a dyn Fn(ThreadId) -> String,
    pub place: &'a dyn Fn(SiteId) -> Option<String>,
    pub object: &'a dyn Fn(scheduler::ObjId) -> String,
}

/// An object by its number alone: `object #3`.
pub fn object_number(o: scheduler::ObjId) -> String {
    format!("object #{}", o.0)
}

/// One operation as people read it.
pub fn op(op: &Op) -> String {
    op_named(op, &object_number)
}

/// [`op`], with the objects named by `object` (`account.Account#3`).
pub fn op_named(op: &Op, object: &dyn Fn(scheduler::ObjId) -> String) -> String {
    match op {
        Op::MonitorEnter { obj, .. } => format!("monitorenter on {}", object(*obj)),
        Op::WaitReturn { obj } => format!("Object.wait on {}", object(*obj)),
        Op::Join { target, .. } => format!("join of {target}"),
        Op::Park { .. } => "LockSupport.park".to_string(),
        Op::ClassInitWait { .. } => "the JVM's class-initialization lock".to_string(),
        Op::ClassInit { .. } => "the start of a static initializer".to_string(),
        Op::Access { write, .. } => if *write { "write" } else { "read" }.to_string(),
        other => other.kind().as_str().to_string(),
    }
}

/// An operation with its place: `monitorenter on object #3 at Foo.run line 12`.
pub fn op_at(o: &Op, names: &Names<'_>) -> String {
    match o.site().filter(|&s| s != 0).and_then(|s| (names.place)(s)) {
        Some(place) => format!("{} at {place}", op_named(o, names.object)),
        None => op_named(o, names.object),
    }
}

/// Where thread `t` stands (`None`: the model has no such thread).
pub fn status(t: ThreadId, status: Option<ThreadStatus>, names: &Names<'_>) -> String {
    match status {
        None => format!("{t}, which this run has not started"),
        Some(s) => format!("{t} ({}), {}", (names.thread)(t), state(s, names)),
    }
}

/// A thread's state in the model, in a few words: `blocked on object #3 held by t2`.
pub fn state(status: ThreadStatus, names: &Names<'_>) -> String {
    match status {
        ThreadStatus::Running => "running".to_string(),
        ThreadStatus::Ready(o) => format!("ready to {}", op_at(&o, names)),
        ThreadStatus::BlockedOnMonitor { obj, owner } => match owner {
            Some(o) => format!("blocked on {} held by {o}", (names.object)(obj)),
            None => format!("blocked on {}", (names.object)(obj)),
        },
        ThreadStatus::Waiting { obj, .. } => format!("waiting on {}", (names.object)(obj)),
        ThreadStatus::Joining { target } => format!("joining {target}"),
        ThreadStatus::Parked => "parked".to_string(),
        ThreadStatus::InitWaiting => {
            "waiting inside the JVM for a class another thread is initializing".to_string()
        }
        ThreadStatus::Finished => "finished".to_string(),
    }
}

/// The last step performed before a divergence: `t0 (main) read at Foo.run line 12`.
pub fn last_step(event: &Event, names: &Names<'_>) -> String {
    let what = event.kind.as_str();
    let at = (event.site != 0)
        .then(|| (names.place)(event.site))
        .flatten()
        .map_or_else(String::new, |p| format!(" at {p}"));
    format!(
        "{} ({}) {what}{at}",
        event.thread,
        (names.thread)(event.thread)
    )
}

/// Where a replay left its schedule, at step `step`: what the schedule asked for, what the
/// program offered, the last step both runs made, and what commonly causes it.
pub fn divergence(
    d: &Divergence,
    step: u64,
    last: Option<&Event>,
    status_of: &dyn Fn(ThreadId) -> Option<ThreadStatus>,
    names: &Names<'_>,
) -> String {
    let asked = match d.expected {
        Some(Choice::Thread(t)) => format!(
            "the schedule runs {} next, but that is {}",
            t,
            status(t, status_of(t), names)
        ),
        Some(Choice::Waiter(t)) => format!("the schedule wakes {t} from a wait set it is not in"),
        None => "the schedule has ended, but the program goes on".to_string(),
    };
    let offered: Vec<String> = d
        .offered
        .iter()
        .map(|c| match *c {
            Choice::Thread(t) => status(t, status_of(t), names),
            Choice::Waiter(t) => format!("waiter {t}"),
        })
        .collect();
    let last = last.map_or_else(String::new, |e| {
        format!(" The last step before it: {}.", last_step(e, names))
    });
    format!(
        "the replay left its schedule at choice {} (step {step}): {asked}; the program offered {}.{last} \
         The program behaved differently from the recorded run before this point: common causes \
         are a value rankcheck does not pin (a clock or random source inside a library, \
         the environment, files, the network), classes that were not instrumented or changed \
         since the recording, or a thread the JDK starts on its own",
        d.choice_index,
        if offered.is_empty() {
            "nothing".to_string()
        } else {
            offered.join("; ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use scheduler::ObjId;

    #[test]
    fn a_divergence_says_what_was_asked_and_offered_with_places() {
        let thread = |t: ThreadId| format!("w{}", t.0);
        let place = |s: SiteId| (s == 7).then(|| "Foo.run line 12".to_string());
        let object = |o: ObjId| match o.0 {
            3 => "bank.Account#3".to_string(),
            _ => object_number(o),
        };
        let names = Names {
            thread: &thread,
            place: &place,
            object: &object,
        };
        let d = Divergence {
            choice_index: 41,
            expected: Some(Choice::Thread(ThreadId(2))),
            offered: vec![Choice::Thread(ThreadId(1))],
        };
        let status_of = |t: ThreadId| match t.0 {
            1 => Some(ThreadStatus::Ready(Op::MonitorEnter {
                obj: ObjId(3),
                site: 7,
            })),
            2 => Some(ThreadStatus::BlockedOnMonitor {
                obj: ObjId(3),
                owner: Some(ThreadId(1)),
            }),
            _ => None,
        };
        let text = divergence(&d, 99, None, &status_of, &names);
        assert!(text.contains("choice 41 (step 99)"), "{text}");
        assert!(
            text.contains("t2 (w2), blocked on bank.Account#3 held by t1"),
            "{text}"
        );
        assert!(
            text.contains("t1 (w1), ready to monitorenter on bank.Account#3 at Foo.run line 12"),
            "{text}"
        );
    }
}
