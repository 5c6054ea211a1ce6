//! The loom models, one module per area, in one test binary (`--test loom`):
//! `cargo test -p pipecheck-models --features loom --release --test loom`, or one
//! area with its module as the filter (`-- pool::`). A failing model prints its
//! `reproduce:` command with the test's full path (`pool::return_races_take`), and the
//! planted-bug twins re-run exactly that test in a child process of this binary.
#![cfg(feature = "loom")]

mod adapters;
mod backpressure;
mod cancel;
mod close_receive;
mod data;
mod failure;
mod fast_flush;
mod frames;
mod generated;
mod linearizable;
mod misuse;
mod pool;
mod primitives;
mod progress;
mod read_at_least;
mod reader_gone;
mod reset;
mod segment_reuse;
mod spsc;
mod target_all;
mod user_lock_free;
mod wakeup;
