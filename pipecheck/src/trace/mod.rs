//! # Traces
//!
//! Saved failing shuttle schedules (the corpus in `traces/corpus/`, new finds under
//! `target/pipecheck/traces/`: [`location`]) and the tooling that finds,
//! minimizes, replays and explains them.
//!
//! * [`schedule`] and [`trace_file`]: the schedule encoding (shuttle's) and the trace
//!   file format, std-only, with errors that name the file and line;
//! * with feature `shuttle`: `explore` (random and PCT exploration with budgets and
//!   seeds from the environment), `minimize` (fewer preemptions and steps, same
//!   invariant), `replay` (deterministic, exact replay), `table` (the failing
//!   execution as a per-task table) and `rerecord` (saved traces recorded again from
//!   their headers after a change moved the program's scheduling points);
//! * [`cli`]: the command line on top, for pipecheck's own targets (`src/main.rs`) and
//!   a user crate's ([`cli::main`]), `corpus --rerecord` included.

pub mod cli;
pub mod location;
pub mod schedule;
pub mod trace_file;

#[cfg(feature = "shuttle")]
pub mod explore;
#[cfg(feature = "shuttle")]
pub mod minimize;
#[cfg(feature = "shuttle")]
mod record;
#[cfg(feature = "shuttle")]
pub mod replay;
#[cfg(feature = "shuttle")]
pub mod rerecord;
#[cfg(feature = "shuttle")]
mod run;
#[cfg(feature = "shuttle")]
pub mod table;

#[cfg(feature = "shuttle")]
pub use run::Failure;
