//! One benchmark transfer per process, built as users build the pipe: the same code as
//! `pipecheck-pipe`'s `bench_transfer` example (`core/benches/common/`), without the
//! `faults` feature that the example gets from `pipecheck-pipe`'s dev-dependencies.
//! `bench_report` runs this binary for its throughput tables.
//!
//! ```text
//! cargo build --release -p pipecheck-bench
//! target/release/bench_transfer pipe 64 256
//! valgrind --tool=callgrind target/release/bench_transfer pipe-batch-1t 64 16
//! ```
//!
//! Arguments as the example's: contender, chunk size in bytes, MiB (default 256),
//! transfers (default 1); one result line per transfer.

#[path = "../../benches/common/mod.rs"]
mod common;

use std::process::ExitCode;

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
