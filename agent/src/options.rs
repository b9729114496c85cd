//! The agent's option string: `-agentpath:librankcheck_agent.so=KEY=VALUE,KEY=VALUE,…`
//! (documented in agent/PROTOCOL.md). Values cannot contain commas; `options-file=PATH` reads
//! one `KEY=VALUE` per line instead, for values that do (paths, schedule files).

use scheduler::chunk_plan::ChunkPlan;
use std::fmt;
use std::path::PathBuf;

/// Every option, parsed and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub strategy: String,
    pub seed: u64,
    pub c: Option<u32>,
    pub v: Option<u32>,
    pub t: Option<u32>,
    pub d: Option<u32>,
    pub l: Option<u32>,
    /// How `c` counts preemptions: `rankchecker` or `chess`.
    pub c_mode: scheduler::strategy::rankchecker::CMode,
    /// Threads expected (RankChecker, PCTVB); learnt from preparatory runs otherwise.
    pub threads: Option<u32>,
    /// ε of Lemma 4.1 (RankChecker).
    pub epsilon: Option<f64>,
    /// Happens-before pruning for ICB.
    pub prune: bool,
    /// Run only this part of an exhaustive search (`partition=I/N`, a shard of it).
    pub partition: Option<scheduler::strategy::partition::Partition>,
    /// Executions to run in this JVM (the strategy may stop earlier).
    pub executions: u64,
    /// Index of the first execution (a session split over several JVMs, e.g. fork mode).
    pub first_execution: u64,
    /// `chunk`, `stride`, `end`: the JVM runs several chunks of a session, each from its start
    /// with a fresh strategy (scheduler::chunk_plan), instead of `executions` from
    /// `first-execution`.
    pub chunk: Option<u64>,
    pub stride: Option<u64>,
    pub end: Option<u64>,
    pub max_steps: u64,
    /// Steps every enabled thread must spin, with nothing written, before a livelock is reported.
    pub livelock_window: u64,
    /// Wall-clock bound of one execution.
    pub timeout_ms: u64,
    /// How long the running thread may sit blocked where rankcheck cannot see before the
    /// watchdog ends the execution.
    pub block_ms: u64,
    /// Wall-clock bound of the whole run (no new execution starts after it).
    pub time_limit_ms: Option<u64>,
    /// Result file (JSON lines); `None`: one summary line per execution on stderr.
    pub out: Option<PathBuf>,
    /// Follow this recorded schedule instead of a strategy.
    pub replay: Option<PathBuf>,
    /// With `replay`: the schedule is of an execution its strategy pruned, so the replay ends
    /// the execution as pruned where the schedule ends.
    pub replay_cut_short: bool,
    /// With `replay`: first run executions `warm-from..first-execution` under the strategy, as
    /// the search's JVM ran them before the recorded one, so that the replay meets the JVM as
    /// warm as the search did (scheduler::strategy::WarmUp). With `guide` likewise, before the
    /// first candidate. They are not the run's executions:
    /// no result, no count, no stop.
    pub warm_from: Option<u64>,
    /// Run these candidates of a minimization (scheduler::minimize's guide file) instead of a
    /// strategy: execution k follows guide k.
    pub guide: Option<PathBuf>,
    pub spurious: bool,
    /// When a timed wait may time out (`timeouts=idle|any`, scheduler::Timeouts).
    pub timeouts: scheduler::Timeouts,
    /// Go on after a bug (otherwise the run stops at the first one).
    pub keep_going: bool,
    /// Executions rankcheck could not control (watchdog, wall-clock bound) after which the run
    /// stops: a program that blocks where rankcheck cannot see keeps doing so.
    pub max_inconclusive: u64,
    /// Search-state file (ICB, exhaustive strategies): loaded at start when it exists, saved
    /// after every execution, so a search split over JVMs goes on where the last one stopped.
    pub state: Option<PathBuf>,
    /// The exit status a correct run ends with (`System.exit` or the end of `main`).
    pub expect_exit: i32,
    /// `expect-exit` was given (plain main checks the status only then).
    pub expect_exit_given: bool,
    /// CPU to pin the JVM to: `None` = do not pin.
    pub pin: Pin,
    /// Controlled application threads share one CPU (`pin-app`, on by default): they run one
    /// at a time, and a hand-off between threads on two CPUs costs a cross-CPU wake-up.
    pub pin_app: bool,
    /// Put the schedule text in every result, not only in bug results.
    pub record_all: bool,
    /// Also put the schedule in the result of this execution (a sample the CLI replays in a
    /// fresh JVM to check that executions do not depend on what ran before them).
    pub record_at: Option<u64>,
    /// Print one line per execution on stderr even when writing a result file.
    pub verbose: bool,
    /// Put every step of a failing execution in its result (`steps_trace`): what a report
    /// shows. Costs a lookup table per access; the CLI asks for it in the replay that proves a
    /// bug, never in a search.
    pub trace: bool,
    /// No scheduling points in code run by a static initializer (costs a stack walk, about
    /// 1 µs, per scheduling point once a second thread exists).
    pub clinit_check: bool,
    /// Load-time rewriting of java.util.concurrent and of the application (loadhook.rs).
    pub load: crate::loadhook::LoadOptions,
    /// Run the JVM's own main class as one controlled execution (plain.rs) when it is not the
    /// harness; `off` when a test launcher is the main class and a test extension drives the
    /// executions through the harness API.
    pub plain: bool,
    /// `root=test`: the root thread runs a test method, not a program's `main`: once it has
    /// ended, thread pool workers idle for their next task are no deadlock (a test launcher
    /// ends the JVM without waiting for them). `root=main` (the default): a JVM waits for its
    /// non-daemon threads, so such workers keep the program from ending.
    pub root_is_test: bool,
}

/// Where the JVM's threads run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pin {
    Off,
    /// The CPU the JVM happens to start on.
    Auto,
    Cpu(u32),
}

impl Default for Options {
    fn default() -> Options {
        Options {
            strategy: scheduler::strategy::RANDOM.into(),
            seed: 0,
            c: None,
            v: None,
            t: None,
            d: None,
            l: None,
            c_mode: Default::default(),
            threads: None,
            epsilon: None,
            prune: true,
            partition: None,
            executions: 1,
            first_execution: 0,
            chunk: None,
            stride: None,
            end: None,
            max_steps: scheduler::Config::default().max_steps,
            livelock_window: scheduler::Config::default().livelock_window,
            timeout_ms: 20_000,
            block_ms: 2_000,
            time_limit_ms: None,
            out: None,
            replay: None,
            replay_cut_short: false,
            warm_from: None,
            guide: None,
            spurious: false,
            timeouts: scheduler::Timeouts::default(),
            keep_going: false,
            max_inconclusive: 3,
            state: None,
            expect_exit: 0,
            expect_exit_given: false,
            pin: Pin::Off,
            pin_app: true,
            record_all: false,
            record_at: None,
            verbose: false,
            trace: false,
            clinit_check: true,
            load: crate::loadhook::LoadOptions::default(),
            plain: true,
            root_is_test: false,
        }
    }
}

/// A bad option string, said in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

/// The keys [`Options::parse`] knows, for the error message.
pub const KEYS: &[&str] = &[
    "strategy",
    "seed",
    "c",
    "v",
    "t",
    "d",
    "l",
    "c-mode",
    "threads",
    "epsilon",
    "prune",
    "partition",
    "executions",
    "first-execution",
    "chunk",
    "stride",
    "end",
    "max-steps",
    "livelock-window",
    "timeout-ms",
    "block-ms",
    "time-limit-ms",
    "out",
    "replay",
    "replay-cut-short",
    "warm-from",
    "guide",
    "spurious",
    "timeouts",
    "keep-going",
    "max-inconclusive",
    "state",
    "expect-exit",
    "pin",
    "pin-app",
    "record",
    "record-at",
    "verbose",
    "trace",
    "clinit-check",
    "options-file",
    "juc",
    "collections",
    "instrument",
    "rt-jar",
    "plain",
    "root",
];

impl Options {
    /// Executions this JVM runs before `first-execution` only to warm up (`warm-from` with
    /// `replay` or `guide`).
    pub fn warm_up_executions(&self) -> u64 {
        match (
            self.replay.is_some() || self.guide.is_some(),
            self.warm_from,
        ) {
            (true, Some(from)) => self.first_execution.saturating_sub(from),
            _ => 0,
        }
    }

    /// The strategy's bounds.
    pub fn bounds(&self) -> scheduler::strategy::Bounds {
        scheduler::strategy::Bounds {
            c: self.c,
            v: self.v,
            t: self.t,
            d: self.d,
            l: self.l,
            c_mode: self.c_mode,
            threads: self.threads,
            epsilon: self.epsilon,
            prune: self.prune,
            partition: self.partition,
        }
    }

    /// Index of this JVM's first execution (a warm-up one, if any).
    pub fn first_index(&self) -> u64 {
        self.first_execution - self.warm_up_executions()
    }

    /// The chunks this JVM runs (`chunk`, `stride` and `end` given, no replay or guide: their
    /// executions follow a schedule, not a strategy).
    pub fn chunk_plan(&self) -> Option<ChunkPlan> {
        if self.replay.is_some() || self.guide.is_some() {
            return None;
        }
        let (chunk, stride, end) = (self.chunk?, self.stride?, self.end?);
        ChunkPlan::new(self.first_execution, chunk, stride, end).ok()
    }

    /// Parses `KEY=VALUE,KEY=VALUE,…` (an empty string gives the defaults).
    pub fn parse(text: &str) -> Result<Options, OptionError> {
        let mut o = Options::default();
        for item in text.split(',').filter(|s| !s.trim().is_empty()) {
            o.set_item(item)?;
        }
        match (o.chunk, o.stride, o.end) {
            (None, None, None) => {}
            (Some(chunk), Some(stride), Some(end)) => {
                ChunkPlan::new(o.first_execution, chunk, stride, end).map_err(OptionError)?;
            }
            _ => {
                return Err(OptionError(
                    "options chunk, stride and end go together".into(),
                ))
            }
        }
        Ok(o)
    }

    fn set_item(&mut self, item: &str) -> Result<(), OptionError> {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| OptionError(format!("option {item:?} is not KEY=VALUE")))?;
        self.set(key.trim(), value)
    }

    /// Sets one option.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        let bad = |what: &str| OptionError(format!("option {key}={value}: {what}"));
        let num = |v: &str| v.trim().parse::<u64>().map_err(|_| bad("not a number"));
        let small = |v: &str| {
            v.trim()
                .parse::<u32>()
                .map_err(|_| bad("not a small number"))
        };
        let switch = |v: &str| match v.trim() {
            "on" | "true" | "yes" | "1" => Ok(true),
            "off" | "false" | "no" | "0" => Ok(false),
            _ => Err(bad("want on or off")),
        };
        match key {
            "strategy" => self.strategy = value.trim().to_string(),
            "seed" => self.seed = num(value)?,
            "c" => self.c = Some(small(value)?),
            "v" => self.v = Some(small(value)?),
            "t" => self.t = Some(small(value)?),
            "d" => self.d = Some(small(value)?),
            "l" => self.l = Some(small(value)?),
            "c-mode" => self.c_mode = value.trim().parse().map_err(|e: String| bad(&e))?,
            "threads" => self.threads = Some(small(value)?),
            "epsilon" => {
                self.epsilon = Some(value.trim().parse().map_err(|_| bad("not a number"))?)
            }
            "prune" => self.prune = switch(value)?,
            "partition" => {
                let part = scheduler::strategy::partition::Partition::parse(value.trim());
                self.partition = Some(part.map_err(|e| bad(&e))?)
            }
            "executions" => {
                self.executions = num(value)?;
                if self.executions == 0 {
                    return Err(bad("must be at least 1"));
                }
            }
            "first-execution" => self.first_execution = num(value)?,
            "chunk" => self.chunk = Some(num(value)?),
            "stride" => self.stride = Some(num(value)?),
            "end" => self.end = Some(num(value)?),
            "max-steps" => self.max_steps = num(value)?.max(1),
            "livelock-window" => self.livelock_window = num(value)?.max(1),
            "timeout-ms" => self.timeout_ms = num(value)?.max(1),
            "block-ms" => self.block_ms = num(value)?.max(1),
            "time-limit-ms" => self.time_limit_ms = Some(num(value)?),
            "out" => self.out = Some(PathBuf::from(value)),
            "replay" => self.replay = Some(PathBuf::from(value)),
            "replay-cut-short" => self.replay_cut_short = switch(value)?,
            "warm-from" => self.warm_from = Some(num(value)?),
            "guide" => self.guide = Some(PathBuf::from(value)),
            "spurious" => self.spurious = switch(value)?,
            "timeouts" => {
                self.timeouts = scheduler::Timeouts::from_name(value.trim()).ok_or_else(|| {
                    bad(&format!(
                        "expected one of {}",
                        scheduler::Timeouts::NAMES.join(", ")
                    ))
                })?
            }
            "keep-going" => self.keep_going = switch(value)?,
            "max-inconclusive" => self.max_inconclusive = num(value)?.max(1),
            "state" => self.state = Some(PathBuf::from(value)),
            "expect-exit" => {
                self.expect_exit = value.trim().parse().map_err(|_| bad("not a number"))?;
                self.expect_exit_given = true;
            }
            "pin" => {
                self.pin = match value.trim() {
                    "off" => Pin::Off,
                    "auto" => Pin::Auto,
                    n => Pin::Cpu(small(n)?),
                }
            }
            "record" => {
                self.record_all = match value.trim() {
                    "all" => true,
                    "bugs" => false,
                    _ => return Err(bad("want all or bugs")),
                }
            }
            "record-at" => self.record_at = Some(num(value)?),
            "verbose" => self.verbose = switch(value)?,
            "trace" => self.trace = switch(value)?,
            "clinit-check" => self.clinit_check = switch(value)?,
            "pin-app" => self.pin_app = switch(value)?,
            "plain" => self.plain = switch(value)?,
            "root" => {
                self.root_is_test = match value {
                    "test" => true,
                    "main" => false,
                    _ => return Err(bad("want main or test")),
                }
            }
            "options-file" => {
                let text = std::fs::read_to_string(value)
                    .map_err(|e| bad(&format!("cannot read it: {e}")))?;
                for line in text.lines() {
                    let line = line.trim_start();
                    if line.is_empty() || line.starts_with('#') {
                        continue;
                    }
                    self.set_item(line)?;
                }
            }
            _ if self.load.set(key, value).map_err(OptionError)? => {}
            _ => {
                return Err(OptionError(format!(
                    "unknown option {key:?} (known: {})",
                    KEYS.join(", ")
                )))
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_come_as_a_whole_plan() {
        let o = Options::parse("first-execution=200,chunk=200,stride=400,end=1000").unwrap();
        assert_eq!(o.chunk_plan(), ChunkPlan::new(200, 200, 400, 1000).ok());
        assert!(Options::parse("chunk=200,end=1000").is_err());
        assert!(Options::parse("first-execution=7,chunk=200,stride=400,end=1000").is_err());
        let replay = Options::parse("replay=/s,first-execution=0,chunk=2,stride=2,end=9");
        assert_eq!(replay.unwrap().chunk_plan(), None);
    }

    #[test]
    fn a_warm_up_needs_a_replay_and_ends_before_the_recorded_execution() {
        let o = Options::parse("replay=/tmp/s.txt,first-execution=57,warm-from=50").unwrap();
        assert_eq!((o.warm_up_executions(), o.first_index()), (7, 50));
        let o = Options::parse("first-execution=57,warm-from=50").unwrap();
        assert_eq!((o.warm_up_executions(), o.first_index()), (0, 57));
        let o = Options::parse("replay=/tmp/s.txt,first-execution=57,warm-from=60").unwrap();
        assert_eq!((o.warm_up_executions(), o.first_index()), (0, 57));
    }

    #[test]
    fn parses_every_kind_of_value() {
        let o = Options::parse(
            "strategy=pct,seed=7,d=3,executions=50,max-steps=900,out=/tmp/r.jsonl,spurious=on,pin=off,record=all",
        )
        .unwrap();
        assert_eq!(o.strategy, "pct");
        assert_eq!(o.seed, 7);
        assert_eq!(o.d, Some(3));
        assert_eq!(o.executions, 50);
        assert_eq!(o.max_steps, 900);
        assert_eq!(o.out, Some(PathBuf::from("/tmp/r.jsonl")));
        assert!(o.spurious && o.record_all);
        assert_eq!(o.pin, Pin::Off);
        assert_eq!(Options::parse("").unwrap(), Options::default());
        assert!(Options::default().plain);
        assert!(!Options::parse("plain=off").unwrap().plain);
        assert_eq!(Options::default().timeouts, scheduler::Timeouts::Idle);
        assert_eq!(
            Options::parse("timeouts=any").unwrap().timeouts,
            scheduler::Timeouts::Any
        );
    }

    #[test]
    fn rejects_unknown_and_malformed_options() {
        let e = Options::parse("seed=1,colour=red").unwrap_err();
        assert!(e.0.contains("unknown option \"colour\""), "{e}");
        assert!(Options::parse("seed=x")
            .unwrap_err()
            .0
            .contains("not a number"));
        assert!(Options::parse("seed").unwrap_err().0.contains("KEY=VALUE"));
        assert!(Options::parse("executions=0").is_err());
        assert!(Options::parse("spurious=maybe").is_err());
        assert!(Options::parse("timeouts=never")
            .unwrap_err()
            .0
            .contains("idle, any"));
    }

    #[test]
    fn options_file_allows_commas_in_values() {
        let dir = std::env::temp_dir().join(format!("rc-opt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("opts");
        std::fs::write(&file, "# comment\nout=/tmp/a,b.jsonl\nseed=9\n").unwrap();
        let o = Options::parse(&format!("options-file={}", file.display())).unwrap();
        assert_eq!(o.out, Some(PathBuf::from("/tmp/a,b.jsonl")));
        assert_eq!(o.seed, 9);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
