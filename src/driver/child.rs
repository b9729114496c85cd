//! Waiting for a child process with a limit: the one loop in rankcheck that polls
//! `Child::try_wait` (the JVMs of a search, the baseline runs, the analysis benchmark, and the
//! integration tests' guarded commands).

use std::io;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// How often a waiting loop looks at the child: short against a JVM's start-up, so a measured
/// run is not lengthened noticeably.
const POLL: Duration = Duration::from_millis(5);

/// How [`wait_or_stop`] ended.
#[derive(Debug)]
pub enum Waited<R> {
    /// The child ended by itself.
    Exited(ExitStatus),
    /// `stop` said why it had to end; it was killed and reaped.
    Stopped(R),
}

/// Waits for `child` to end, asking `stop` between looks whether to give up: when it returns
/// `Some(why)` the child is killed (SIGKILL), reaped, and `Stopped(why)` returned. `stop` may
/// do more before it answers (signal a process group, wait for a gentler signal to work).
pub fn wait_or_stop<R>(
    child: &mut Child,
    mut stop: impl FnMut() -> Option<R>,
) -> io::Result<Waited<R>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Waited::Exited(status));
        }
        if let Some(why) = stop() {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Waited::Stopped(why));
        }
        std::thread::sleep(POLL);
    }
}

/// `child`'s exit status, or `None` when it was still running `limit` after the call (then it
/// was killed and reaped).
pub fn wait_within(child: &mut Child, limit: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + limit;
    Ok(
        match wait_or_stop(child, || (Instant::now() > deadline).then_some(()))? {
            Waited::Exited(status) => Some(status),
            Waited::Stopped(()) => None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_quick_child_exits_and_a_slow_one_is_killed() {
        let mut quick = Command::new("true").spawn().unwrap();
        let status = wait_within(&mut quick, Duration::from_secs(10)).unwrap();
        assert!(status.unwrap().success());
        let started = Instant::now();
        let mut slow = Command::new("sleep").arg("30").spawn().unwrap();
        assert!(wait_within(&mut slow, Duration::from_millis(100))
            .unwrap()
            .is_none());
        assert!(started.elapsed() < Duration::from_secs(10));
        // Reaped: nothing left to wait for.
        assert!(slow.try_wait().unwrap().is_some());
    }
}
