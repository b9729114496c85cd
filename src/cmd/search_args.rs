//! The flags several subcommands share, defined once and flattened into each: the strategy and
//! its bounds, the bounds of one execution, what waits may do, the JVM and the reports (`test`,
//! `junit`, `run`), the oracles and how the program is launched (`test`, `run`), and the rest
//! of a search (`test`, `junit`), with their checks (bad input in one line) and the [`Search`]
//! they describe.

use crate::driver::search::{Program, Search, SearchResult};
use crate::driver::strategy::{self, Bounds, StrategyInfo};
use crate::error::bad_input;
use std::path::PathBuf;
use std::time::Duration;

/// The strategy, its bounds and the seed.
#[derive(clap::Args, Clone, Debug)]
pub struct StrategyArgs {
    #[arg(long, default_value = strategy::DEFAULT, help = strategy_help())]
    pub strategy: String,
    /// Context bound: preemptions.
    #[arg(short = 'c')]
    pub c: Option<u32>,
    /// Variable bound.
    #[arg(short = 'v')]
    pub v: Option<u32>,
    /// Thread bound.
    #[arg(short = 't')]
    pub t: Option<u32>,
    /// PCT depth.
    #[arg(short = 'd')]
    pub d: Option<u32>,
    /// Loop-iteration bound.
    #[arg(short = 'l')]
    pub l: Option<u32>,
    /// How preemptions count against c: rankchecker (only priority-order violations) or chess
    /// (every switch away from an enabled thread).
    #[arg(long)]
    pub c_mode: Option<String>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// icb: run every schedule within the bound instead of one per happens-before-distinct
    /// state (no pruning); other strategies ignore it.
    #[arg(long)]
    pub no_prune: bool,
}

impl StrategyArgs {
    /// The bounds as given.
    pub fn bounds(&self) -> Bounds {
        Bounds {
            c: self.c,
            v: self.v,
            t: self.t,
            d: self.d,
            l: self.l,
        }
    }

    /// The strategy, with the given bounds checked against it; the bounds it does not read are
    /// said once on stderr.
    pub fn checked(&self) -> anyhow::Result<&'static StrategyInfo> {
        let info = strategy::lookup(&self.strategy)?;
        let unused = strategy::check(info, &self.bounds(), self.c_mode.as_deref())?;
        if !unused.is_empty() {
            eprintln!(
                "rankcheck: note: {} does not use {}; ignored",
                info.name,
                unused.join(", ")
            );
        }
        Ok(info)
    }
}

/// `--strategy`'s help: the names the scheduler knows, so the list never drifts from them.
fn strategy_help() -> String {
    scheduler::strategy::NAMES.join(" | ")
}

/// Where reports go and whether the search stops at the first bug.
#[derive(clap::Args, Clone, Debug)]
pub struct ReportArgs {
    /// Where bug reports go.
    #[arg(long, default_value = "rankcheck-out")]
    pub out: PathBuf,
    /// Go on after a bug.
    #[arg(long)]
    pub keep_going: bool,
}

/// How the program's JVMs run it: one per execution or many executions each; instrumented
/// before or as classes load.
#[derive(clap::Args, Clone, Debug)]
pub struct LaunchArgs {
    /// One JVM per execution.
    #[arg(long)]
    pub fork: bool,
    /// Instrument the program's classes as they load, in the JVM (same passes and site ids as
    /// `rankcheck instrument`; classes instrumented offline are left alone), instead of
    /// instrumenting the class path first.
    #[arg(long)]
    pub load_time: bool,
}

/// What a waiting thread may do besides being woken: wake spuriously, time out.
#[derive(clap::Args, Clone, Debug)]
pub struct WaitArgs {
    /// Let the scheduler choose spurious wake-ups.
    #[arg(long)]
    pub spurious: bool,
    /// When a timed wait (`wait(ms)`, `join(ms)`, `parkNanos`, and so `awaitTermination`,
    /// `poll(timeout)`, `Future.get(timeout)`, …) may time out: `idle`, only when no other
    /// thread can go on (a correct program is not failed by a timeout no real machine would
    /// hit), or `any`, whenever the strategy likes (also finds timeouts too short for a slow
    /// machine).
    #[arg(long, default_value = "idle", value_parser = scheduler::Timeouts::NAMES)]
    pub timeouts: String,
}

/// The program's oracles besides an uncaught throwable and a deadlock.
#[derive(clap::Args, Clone, Debug)]
pub struct OracleArgs {
    /// A bug when an execution's stdout or stderr matches (java.util.regex, `find`).
    #[arg(long)]
    pub fail_on_output: Vec<String>,
    /// A bug when the file an execution writes matches: PATH=REGEX (removed before each
    /// execution).
    #[arg(long)]
    pub fail_on_file: Vec<String>,
    /// The exit status of a correct run (default: the manifest's, else 0).
    #[arg(long)]
    pub expect_exit: Option<i32>,
}

impl OracleArgs {
    /// Bad input for a `--fail-on-file` without `=`.
    pub fn check(&self) -> anyhow::Result<()> {
        match self.fail_on_file.iter().find(|f| !f.contains('=')) {
            Some(f) => Err(bad_input(format!(
                "--fail-on-file wants PATH=REGEX, not {f:?}"
            ))),
            None => Ok(()),
        }
    }
}

/// The JVM the program runs in.
#[derive(clap::Args, Clone, Debug)]
pub struct JvmArgs {
    /// An extra JVM option (repeatable), e.g. --jvm-arg=-Xmx256m.
    #[arg(long, allow_hyphen_values = true)]
    pub jvm_arg: Vec<String>,
    /// The processor count the program sees (`Runtime.availableProcessors()`, which sizes the
    /// common fork/join pool, parallel streams and many thread pools); default: the machine's.
    /// The controlled threads take turns either way; this decides how work is split.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub cpus: Option<u16>,
}

/// The bounds of one execution.
#[derive(clap::Args, Clone, Debug)]
pub struct LimitArgs {
    /// Step bound of one execution: an execution that reaches it is inconclusive ("too long"),
    /// never a bug.
    #[arg(long, default_value_t = scheduler::Config::default().max_steps)]
    pub max_steps: u64,
    /// Steps for which every enabled thread must keep spinning (re-reading what nobody writes,
    /// yielding) with nothing written anywhere before the execution is reported as a livelock.
    #[arg(long, default_value_t = scheduler::Config::default().livelock_window)]
    pub livelock_window: u64,
    /// Wall-clock bound of one execution, in milliseconds.
    #[arg(long, default_value_t = 20_000)]
    pub timeout_ms: u64,
}

/// Shrinking a found bug's schedule (`driver::minimize`).
#[derive(clap::Args, Clone, Debug)]
pub struct MinimizeArgs {
    /// Keep the schedule the search found; do not look for a smaller one.
    #[arg(long)]
    pub no_minimize: bool,
    /// Wall-clock cap, in seconds, of shrinking the bugs' schedules to the fewest preemptions,
    /// then threads, then steps, over all the bugs of the run (the smallest found by then is
    /// reported).
    #[arg(long, default_value_t = 20.0)]
    pub minimize_time: f64,
}

impl MinimizeArgs {
    /// The settings, `None` with `--no-minimize` (or a cap of 0).
    pub fn settings(&self) -> Option<crate::driver::minimize::Settings> {
        (!self.no_minimize && self.minimize_time > 0.0 && self.minimize_time.is_finite()).then(
            || crate::driver::minimize::Settings {
                time: Duration::from_secs_f64(self.minimize_time),
                ..Default::default()
            },
        )
    }
}

/// Everything a search takes besides the program.
#[derive(clap::Args, Clone, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub strategy: StrategyArgs,
    /// Executions at most.
    #[arg(long, default_value_t = 1000)]
    pub budget: u64,
    /// Wall-clock bound of the whole search, in seconds.
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Parallel JVMs, each pinned to its own CPU (default: the number of cores).
    #[arg(short = 'j', long = "jobs")]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub report: ReportArgs,
    /// One JSON object on stdout at the end (other output goes to stderr).
    #[arg(long)]
    pub json: bool,
    /// Replay the last execution of every JVM of the search in a fresh JVM and fail (exit 3)
    /// if one runs differently: uncontrolled nondeterminism that could hide a bug or stop one
    /// from replaying. Without it the first JVM's last execution is checked, with a warning.
    #[arg(long)]
    pub check_determinism: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub minimize: MinimizeArgs,
    #[command(flatten)]
    pub waits: WaitArgs,
    #[command(flatten)]
    pub jvm: JvmArgs,
    /// Field and array accesses inside the JDK's collections (HashMap, ArrayList, TreeMap,
    /// ArrayDeque, StringBuilder, … and their iterators) and formats (SimpleDateFormat,
    /// DecimalFormat, MessageFormat, Calendar) and digests (MessageDigest) are scheduling points when the
    /// program's own code calls them on an object a second thread has touched: a race between
    /// two unsynchronized `put`s is found; the program's calls of ConcurrentHashMap, the
    /// concurrent skip lists and the lock-free queues are points. `all`: also on an object only
    /// one thread has touched so far (slower; finds a thread preempted between its operations
    /// on a collection another thread touches only later, such as an iteration a later `add`
    /// breaks). Default: `on`, and when a search finds nothing but may have skipped such
    /// switches, `test` searches again with `all` (naming `on` keeps the one search and its
    /// warning).
    #[arg(long, value_parser = ["on", "off", "all"])]
    pub jdk_collections: Option<String>,
}

/// A clean search with `--jdk-collections on` (by default, not named) whose executions used a
/// collection alone while another thread could have switched in: what it ran and its warning.
pub struct Escalation {
    pub executions: u64,
    pub seconds: f64,
    pub warning: String,
}

impl Escalation {
    /// Whether the clean, whole search `first` is to be run again with `--jdk-collections
    /// all`: its executions say interleavings inside collections went unexplored, and the user
    /// named no mode (a user who names `on` keeps one search and the warning; a shard keeps
    /// one, and `merge` says what the second would be).
    pub fn due(search: &Search, first: &SearchResult) -> Option<Escalation> {
        let clean = first.bugs.is_empty()
            && first.inconclusive.is_empty()
            && first.unreproduced.is_empty()
            && !first.finished.time_limited;
        // Too little of `--time-limit` left for a second search (a tenth of it, at least).
        let out_of_time = search
            .time_limit
            .is_some_and(|t| first.finished.seconds >= t.as_secs_f64() * 0.9);
        if !clean || out_of_time || search.shard.is_some() || !search.escalate {
            return None;
        }
        let hit = crate::driver::session::alone_then_shared(&first.finished.counted);
        (hit > 0).then(|| Escalation {
            executions: first.finished.executions,
            seconds: first.finished.seconds,
            warning: format!(
                "in {hit} of them a thread used a JDK collection alone while a thread that \
                 touched it later was running (no switch inside those uses was explored)"
            ),
        })
    }

    /// Says why, then runs `search` again with `--jdk-collections all` (progress labelled
    /// `label`): the second search's result, with the first's nondeterminism findings.
    pub fn run_again(
        &self,
        search: &Search,
        program: &Program,
        first: SearchResult,
        label: String,
    ) -> anyhow::Result<SearchResult> {
        search.note(&format!(
            "rankcheck: {} execution(s) found nothing, but {}: searching again with \
             --jdk-collections all (the same budget)",
            self.executions, self.warning
        ));
        let mut all = search.clone();
        all.jdk_collections = "all".into();
        all.escalate = false;
        // `--time-limit` is the whole command's: the second search gets what the first left.
        all.time_limit = search
            .time_limit
            .map(|t| t.saturating_sub(Duration::from_secs_f64(self.seconds)));
        if let Some(p) = &all.progress {
            p.begin(label, Some(all.budget), all.time_limit);
        }
        let mut second = all.run(program)?;
        second.nondeterminism.extend(first.nondeterminism);
        Ok(second)
    }
}

impl SearchArgs {
    /// The search these flags describe, checked (one JVM per core unless `-j`).
    pub fn search(&self) -> anyhow::Result<Search> {
        let info = self.strategy.checked()?;
        if self.budget == 0 {
            return Err(bad_input("--budget must be at least 1"));
        }
        if self.jobs == Some(0) {
            return Err(bad_input("-j must be at least 1"));
        }
        let time_limit = match self.time_limit {
            Some(t) if !(t > 0.0 && t.is_finite()) => {
                return Err(bad_input(
                    "--time-limit must be a positive number of seconds",
                ))
            }
            t => t.map(Duration::from_secs_f64),
        };
        Ok(Search {
            strategy: info,
            bounds: self.strategy.bounds().used_by(info),
            c_mode: self.strategy.c_mode.clone(),
            prune: !self.strategy.no_prune,
            seed: self.strategy.seed,
            budget: self.budget,
            jobs: self.jobs.unwrap_or_else(default_jobs),
            fork: false,
            keep_going: self.report.keep_going,
            time_limit,
            max_steps: self.limits.max_steps,
            livelock_window: self.limits.livelock_window,
            timeout_ms: self.limits.timeout_ms,
            spurious: self.waits.spurious,
            timeouts: self.waits.timeouts.clone(),
            jvm_args: self.jvm.jvm_arg.clone(),
            cpus: self.jvm.cpus.map(usize::from),
            jdk_collections: self.jdk_collections.clone().unwrap_or_else(|| "on".into()),
            escalate: self.jdk_collections.is_none(),
            out: self.report.out.clone(),
            // The command that runs the search shows the progress (`driver::progress`).
            progress: None,
            determinism_samples: if self.check_determinism {
                usize::MAX
            } else {
                1
            },
            schedule_check: true,
            minimize: self.minimize.settings(),
            shard: None,
        })
    }
}

/// Which part of the work this process does when a batch engine runs it many times
/// (`test` and `sweep`; `driver::shard`).
#[derive(clap::Args, Clone, Debug)]
pub struct ShardArgs {
    /// Do shard I of N (I counts from 1) of the work: every N-th chunk of executions (a
    /// search) or of searches (a sweep), so that N shards run one unsharded run's schedules;
    /// the result goes to --out for `rankcheck merge`. `auto`: read I and N from a Kubernetes
    /// Indexed Job (JOB_COMPLETION_INDEX, with --shards N or RANKCHECK_SHARDS) or a Slurm job
    /// array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT).
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<String>,
    /// With --shard auto: the number of shards (a Kubernetes Job's completions).
    #[arg(long, value_name = "N")]
    pub shards: Option<u64>,
}

impl ShardArgs {
    /// The shard asked for, checked (bad input in one line).
    pub fn resolve(&self) -> anyhow::Result<Option<crate::driver::shard::Shard>> {
        crate::driver::shard::resolve(self.shard.as_deref(), self.shards)
    }
}

impl SearchArgs {
    /// The options of `search` (made from these flags) that decide which schedules run and
    /// how they count: the shards of one run must agree on them (`rankcheck merge` checks).
    pub fn shard_options(&self, search: &Search) -> serde_json::Value {
        serde_json::json!({
            "strategy": search.strategy.name, "bounds": search.bounds, "c_mode": search.c_mode,
            "prune": search.prune,
            "seed": search.seed, "budget": search.budget, "keep_going": search.keep_going,
            "time_limit": search.time_limit.map(|t| t.as_secs_f64()),
            "max_steps": search.max_steps, "livelock_window": search.livelock_window,
            "timeout_ms": search.timeout_ms, "spurious": search.spurious,
            "timeouts": search.timeouts, "jvm_args": search.jvm_args, "cpus": search.cpus,
            "jdk_collections": search.jdk_collections,
            "check_determinism": self.check_determinism,
            "minimize": search.minimize.map(|m| m.time.as_secs_f64()),
        })
    }
}

/// The default `-j`: one JVM per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
