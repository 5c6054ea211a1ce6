//! pipecheck-pipe's integration tests, one module per area, in one test binary (one
//! link instead of one per file; the helpers in `common/` compile once). Run one area
//! with its module path as the filter: `cargo test -p pipecheck-pipe --test pipe -- backpressure::`.
//! Plain `std` only: under loom or shuttle this binary is empty (the models run there).
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

#[path = "../common/mod.rs"]
mod common;

mod backpressure;
mod buffer_pool;
mod cancellation;
mod completion;
mod errors;
mod fast_advance;
mod fast_read;
mod length;
mod lock_scope;
mod names;
mod poll_forms;
mod pool_scenarios;
mod read_at_least;
mod read_buf;
mod reader_ops;
mod seed_primitives;
mod segment_reuse;
mod soak;
mod spin;
mod spsc;
mod stress;
mod tokio_runtime;
mod wakers;
mod watchdog;
mod writer_ops;
