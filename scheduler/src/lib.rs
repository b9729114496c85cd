//! The controlled scheduler, with no JVM in sight.
//!
//! **Its one job:** given the operations that program threads announce at scheduling points,
//! keep the execution model (threads, monitors, wait sets, joins, sleeps, interrupts, park
//! permits), decide which thread runs next through a [`Strategy`], record the choices as a
//! replayable schedule, and track happens-before.
//!
//! **Architecture invariant:** no JNI, no I/O, no processes, no clocks. Everything here is a
//! deterministic function of the announced operations and a seeded random source, which is what
//! lets it be tested on simulated programs.
pub mod bounds;
pub mod hb;
