//! The controlled scheduler, with no JVM in sight.
//!
//! **Its one job:** given the operations that program threads announce at scheduling points,
//! keep the execution model (threads, monitors, wait sets, joins, sleeps, interrupts, park
//! permits), decide which thread runs next through a [`Strategy`], record the choices as a
//! replayable [`Schedule`] and every performed step as an [`Event`].
//!
//! **Architecture invariant:** no JNI, no I/O, no processes, no clocks. Everything here is a
//! deterministic function of the announced operations and a seeded random source, which is what
//! lets it be tested on simulated programs.
//!
//! (The full guide — Background, Using it from an agent, Writing a strategy, Schedules,
//! Limitations — is being written; see `/work/coord/SCHEDULER_API.md` meanwhile.)

pub mod bounds;
mod events;
mod execution;
pub mod hb;
mod ids;
mod op;
mod rng;
pub mod schedule;
pub mod sim;
pub mod strategy;

pub use events::{Event, EventLog};
pub use execution::{Config, ExecError, Execution};
pub use ids::{Loc, ObjId, SiteId, ThreadId, VarId};
pub use op::{Decision, Op, OpKind, OpOutcome};
pub use rng::{RandomSource, SeededRandom};
pub use schedule::{Choice, ParseError, Schedule};
pub use strategy::{
    Candidate, Divergence, Ending, ExecutionSummary, Pick, Stop, Strategy, Via, View,
};
