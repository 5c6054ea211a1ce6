//! The soak's short variant, for CI: a few seeds of a few MiB each, every one with
//! injected cancels and one of the three endings (see `common/soak.rs`). The long run
//! is `cargo run --release -p pipecheck-pipe --example soak -- --seeds 100 --mib 64`.
//!
//! `PIPECHECK_SEED=<seed>` runs that one seed (decimal or `0x` hex), at this test's size.

use crate::common::soak::{Ending, run};
use crate::common::transfer::{SEED_VAR, seed_from_env};

/// The first seed; the others follow it.
const FIRST_SEED: u64 = 0x50AC_2026_0000_0000;
const SEEDS: u64 = 16;
const BYTES: u64 = 2 << 20;

#[test]
fn sixteen_seeds_of_two_mib_with_injected_cancels_and_endings() {
    let replay = std::env::var(SEED_VAR).is_ok().then(|| seed_from_env(0));
    let seeds: Vec<u64> = match replay {
        Some(seed) => vec![seed],
        None => (0..SEEDS).map(|i| FIRST_SEED.wrapping_add(i)).collect(),
    };
    let mut reports = Vec::new();
    for seed in seeds {
        eprintln!("soak: seed {seed:#x} (rerun alone with {SEED_VAR}={seed:#x})");
        let report = run(seed, BYTES);
        eprintln!("  {report}");
        reports.push(report);
    }
    if replay.is_some() {
        return;
    }
    // The fixed seeds exercise everything the soak injects; otherwise it checks little.
    let ended = |f: fn(&Ending) -> bool| reports.iter().any(|r| f(&r.soak.ending));
    assert!(ended(|e| *e == Ending::Clean), "no seed ended cleanly");
    assert!(ended(|e| matches!(e, Ending::WriterFails { .. })), "no seed had the writer fail");
    assert!(ended(|e| matches!(e, Ending::ReaderQuits { failed: false, .. })), "no seed had the reader quit");
    assert!(ended(|e| matches!(e, Ending::ReaderQuits { failed: true, .. })), "no seed had the reader fail");
    assert!(reports.iter().any(|r| r.canceled_reads > 0), "no read was ever canceled");
    assert!(reports.iter().any(|r| r.canceled_flushes > 0), "no flush was ever canceled");
}
