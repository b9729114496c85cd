//! Which strategy a JVM's executions follow: a replay's schedule, a minimization's guides, or
//! the search strategy the options name (resumed from a saved state when there is one), each
//! after its warm-up executions. Asked at start and again at every chunk's first execution
//! (`Options::chunk_plan`), so a chunk meets a strategy that has learned nothing.
//!
//! It names strategies only through `scheduler::strategy` and decides nothing about
//! scheduling itself.

use crate::options::Options;
use scheduler::coverage::Covering;
use scheduler::strategy::{from_name, Replay, WarmUp};
use scheduler::{Schedule, Strategy};

/// `then` for the run's executions, after `warm-from`'s warm-up executions under the search's
/// strategy when there are any.
fn warmed_up(o: &Options, then: impl Covering + 'static) -> Result<Box<dyn Covering>, String> {
    if o.warm_up_executions() == 0 {
        return Ok(Box::new(then));
    }
    let search = from_name(&o.strategy, &o.bounds(), o.seed)
        .map_err(|e| e.to_string())?
        .strategy;
    Ok(Box::new(WarmUp::new(search, then, o.first_execution)))
}

/// The strategy the options ask for (`replay=`, then `guide=`, win over `strategy=`), by the scheduler's
/// [`from_name`](scheduler::strategy::from_name). A replay with a warm-up runs the strategy
/// (from its start: a saved search state is the session's end, not the recorded JVM's start)
/// until the recorded execution.
pub fn make_strategy(o: &Options) -> Result<Box<dyn Covering>, String> {
    if let Some(path) = &o.replay {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read schedule {}: {e}", path.display()))?;
        let schedule = Schedule::parse(&text)
            .map_err(|e| format!("bad schedule {}: {e:?}", path.display()))?;
        let replay = Replay::new(&schedule);
        let replay = Replaying(if o.replay_cut_short {
            replay.cut_short()
        } else {
            replay
        });
        return warmed_up(o, replay);
    }
    if let Some(path) = &o.guide {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read guide {}: {e}", path.display()))?;
        let guides = scheduler::minimize::Guide::parse_many(&text)
            .map_err(|e| format!("bad guide {}: {e}", path.display()))?;
        // Candidates run in a JVM as warm as a replay of them will be (see `driver::minimize`).
        return warmed_up(o, scheduler::minimize::Guided::new(guides));
    }
    let bounds = o.bounds();
    // A search split over JVMs goes on from the state the last JVM saved (`state=`).
    let saved = o
        .state
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .filter(|t| !t.trim().is_empty());
    match saved {
        Some(text) => scheduler::strategy::by_name::resume(&o.strategy, &bounds, o.seed, &text)
            .map_err(|e| {
                format!(
                    "cannot resume from {}: {e}",
                    o.state.as_ref().unwrap().display()
                )
            }),
        None => from_name(&o.strategy, &bounds, o.seed).map_err(|e| e.to_string()),
    }
    .map(|chosen| chosen.strategy)
}

/// A replay, with the coverage statement every strategy of a session has.
struct Replaying(Replay);

impl Strategy for Replaying {
    fn begin_execution(&mut self, index: u64) {
        self.0.begin_execution(index)
    }
    fn pick(&mut self, view: &scheduler::View<'_>) -> scheduler::Pick {
        self.0.pick(view)
    }
    fn pick_waiter(
        &mut self,
        obj: scheduler::ObjId,
        waiters: &[scheduler::ThreadId],
    ) -> scheduler::Pick {
        self.0.pick_waiter(obj, waiters)
    }
    fn end_execution(&mut self, summary: &scheduler::ExecutionSummary<'_>) -> bool {
        self.0.end_execution(summary)
    }
    fn offers_quiet_steps(&self) -> bool {
        self.0.offers_quiet_steps()
    }
    fn quiet_steps(&mut self, view: &scheduler::View<'_>) -> u64 {
        self.0.quiet_steps(view)
    }
    fn skipped(
        &mut self,
        thread: scheduler::ThreadId,
        steps: u64,
    ) -> Result<(), scheduler::strategy::Stop> {
        self.0.skipped(thread, steps)
    }
}

impl Covering for Replaying {
    fn coverage(&self) -> String {
        format!("replay: {:?}", self.0.result())
    }
}
