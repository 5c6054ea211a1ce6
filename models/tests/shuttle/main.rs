//! The shuttle suites, one module per area, in one test binary (`--test shuttle`):
//! `cargo test -p pipecheck-models --features shuttle --release --test shuttle`, or one
//! area with its module as the filter (`-- generated::`). The planted-bug twins re-run
//! the calling test (by its full path) in a child process of this binary.
#![cfg(feature = "shuttle")]

mod generated;
mod primitives;
mod progress;
mod target_all;
mod user_lock_free;
