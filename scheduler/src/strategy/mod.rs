//! Search strategies, one file each, and the [`Strategy`] trait they implement (in `api`).

mod api;
pub mod by_name;
pub mod dfs;
pub mod icb;
pub mod mcr;
pub mod nonpreemptive;
pub mod partition;
pub mod pct;
pub mod pctvb;
pub mod portfolio;
pub mod pos;
pub mod random;
pub mod rankchecker;
pub mod replay;
pub mod rff;
pub mod scs;
pub mod surw;
pub mod warm_up;

pub use api::{Candidate, Divergence, Ending, ExecutionSummary, Pick, Stop, Strategy, Via, View};
pub use by_name::{
    bounds_variables, from_name, info, member_of, switches_at_accesses, Bounds, ChooseError,
    Chosen, StrategyInfo, DEFAULT, ICB, MCR, NAMES, NONPREEMPTIVE, PCT, PCTVB, PORTFOLIO, POS,
    POS_STAR, RANDOM, RANKCHECKER, RANKCHECKER_EXHAUSTIVE, SCS, STRATEGIES,
};
pub use dfs::Dfs;
pub use nonpreemptive::NonPreemptive;
pub use pct::{Pct, PctConfig};
pub use random::RandomWalk;
pub use replay::{Replay, ReplayResult};
pub use warm_up::WarmUp;
