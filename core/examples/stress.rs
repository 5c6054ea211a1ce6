//! The two-thread stress transfer of `tests/pipe/stress.rs`, for measuring throughput in
//! release mode:
//!
//! ```text
//! cargo run --release -p pipecheck-pipe --example stress -- [MiB]
//! ```
//!
//! The seed comes from `PIPECHECK_SEED` (decimal or `0x` hex). Every byte is generated
//! and checked against a pattern on both sides, so the figure is a lower bound on the
//! pipe's own throughput.

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[path = "../tests/common/transfer.rs"]
#[allow(dead_code)] // the tests use more of it than this example
mod transfer;

// The transfer's blocking waits go through the tests' watchdog (`super::watchdog`).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[path = "../tests/common/watchdog.rs"]
#[allow(dead_code)]
mod watchdog;

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn main() {
    use transfer::{Plan, SEED_VAR, seed_from_env, transfer};

    let mib: u64 = match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| panic!("usage: stress [MiB], got {arg:?}")),
        None => 1024,
    };
    let seed = seed_from_env(0x5EED_2024_0000_0001);
    println!("stress: {mib} MiB, seed {seed:#x} (set {SEED_VAR} to change)");
    let report = transfer(Plan::new(mib, seed), |options| options);
    println!(
        "moved {} MiB in {:.2?}: {:.0} MiB/s ({} flushes, {} reads, {} partial consumes)",
        report.bytes >> 20,
        report.elapsed,
        report.mib_per_s(),
        report.flushes,
        report.reads,
        report.partial_consumes
    );
}

#[cfg(any(feature = "loom", feature = "shuttle"))]
fn main() {
    eprintln!("the stress example runs on std primitives; build it without `loom`/`shuttle`");
}
