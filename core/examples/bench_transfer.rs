//! One benchmark transfer outside criterion, for profilers (`perf`, valgrind's
//! callgrind) and for `bench_report`: the same code as `cargo bench`'s, chosen by name.
//!
//! ```text
//! cargo build --release -p pipecheck-core --example bench_transfer
//! valgrind --tool=callgrind target/release/examples/bench_transfer pipe 64 16
//! ```
//!
//! Arguments: contender (`pipe`, `before`, `pipe-4-chunks`, `duplex`, `rtrb`, `mpsc`,
//! `crossbeam`, `memcpy`), chunk size in bytes, MiB to move (default 256), transfers
//! (default 1). One result line per transfer (format: `common/transfer.rs`).
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
