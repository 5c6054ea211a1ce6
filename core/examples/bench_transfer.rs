//! One benchmark transfer outside criterion, for profilers (`perf`, valgrind's
//! callgrind) and for `bench_report`'s A/B: the same code as `cargo bench`'s, chosen by
//! name.
//!
//! ```text
//! cargo build --release -p pipecheck-pipe --example bench_transfer
//! valgrind --tool=callgrind target/release/examples/bench_transfer pipe 64 16
//! ```
//!
//! Built as an example of `pipecheck-pipe`, it gets that package's dev-dependencies,
//! and with them the planted-bug switches (`pipecheck-sync/faults`): each
//! `PlantedFault::is_active` on the pipe's path is then a thread-local lookup, not the
//! constant `false` of a user's build. For figures of the pipe as users build it, run
//! `pipecheck-bench`'s binary of the same name and code (`cargo build --release -p
//! pipecheck-bench`, then `target/release/bench_transfer`).
//!
//! Arguments: contender (`pipe`, `before`, `pipe-4-chunks`, `duplex`, `rtrb`, `mpsc`,
//! `crossbeam`, `memcpy`; on one thread, for instruction counts: `pipe-1t`, `duplex-1t`,
//! `rtrb-1t`, `pipe-batch-1t`, `rtrb-batch-1t`), chunk size in bytes, MiB to move
//! (default 256), transfers (default 1). One result line per transfer (format:
//! `common/transfer.rs`).
#![cfg_attr(any(feature = "loom", feature = "shuttle"), allow(dead_code, unused_imports))]

#[path = "../benches/common/mod.rs"]
mod common;

use std::process::ExitCode;

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match common::transfer::main_with(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(usage) => {
            eprintln!("{usage}");
            ExitCode::from(2)
        }
    }
}

/// Under loom or shuttle there is nothing to measure (the primitives run only inside a
/// model): the rest is type-checked, not compiled, so the checkers' test builds stay fast.
#[cfg(any(feature = "loom", feature = "shuttle"))]
fn main() {
    eprintln!("this example runs on std primitives; build it without `loom`/`shuttle`");
}
