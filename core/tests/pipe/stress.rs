//! Two-thread stress: a writer thread and a reader thread move hundreds of MiB with
//! random chunk sizes, flush points and `advance_to` points (consumed anywhere in the
//! buffer, examined at or after it), and every byte is checked against a pattern
//! derived from its stream offset (byte-exact). Buffers are counted (release-once) and,
//! in the small-segment run, the event log is replayed through the segment life cycle
//! (no-double-return, bounded-pool) under real concurrency.
//!
//! The seed comes from `PIPECHECK_SEED` (decimal or `0x` hex) and is printed, with the
//! throughput; nothing here asserts on time.

use crate::common::transfer::{Plan, SEED_VAR, check_pattern, fill_pattern, seed_from_env, transfer};
use crate::common::{CountingPool, Recorder, check_lifecycle};

const DEFAULT_SEED: u64 = 0x5EED_2024_0000_0001;

fn announce(name: &str, seed: u64) {
    eprintln!("{name}: seed {seed:#x} (rerun with {SEED_VAR}={seed:#x})");
}

#[test]
fn two_threads_move_256_mib_byte_exact() {
    let seed = seed_from_env(DEFAULT_SEED);
    announce("two_threads_move_256_mib_byte_exact", seed);
    let pool = CountingPool::new();
    let report = transfer(Plan::new(256, seed), |options| options.buffer_pool(pool.clone()));
    eprintln!(
        "moved {} MiB in {:.2?}: {:.0} MiB/s ({} flushes, {} reads, {} partial consumes)",
        report.bytes >> 20,
        report.elapsed,
        report.mib_per_s(),
        report.flushes,
        report.reads,
        report.partial_consumes
    );
    assert!(report.partial_consumes > 0, "the plan must exercise partial consumes");
    pool.assert_all_returned();
}

#[test]
fn two_threads_with_tiny_segments_keep_the_segment_life_cycle() {
    let seed = seed_from_env(DEFAULT_SEED) ^ 1;
    announce("two_threads_with_tiny_segments_keep_the_segment_life_cycle", seed);
    let recorder = Recorder::new();
    let pool = CountingPool::new();
    let plan = Plan {
        minimum_segment_size: 64,
        maximum_segment_size: 512,
        pause_writer_threshold: 2048,
        resume_writer_threshold: 1024,
        ..Plan::new(8, seed)
    };
    let report = transfer(plan, |options| {
        options.max_pooled_segments(16).observer(recorder.clone()).buffer_pool(pool.clone())
    });
    eprintln!("tiny segments: {:.0} MiB/s ({} reads)", report.mib_per_s(), report.reads);
    pool.assert_all_returned();
    let events = recorder.events();
    check_lifecycle(&events, 16);
    let reused = events.iter().filter(|e| crate::common::taken(e).is_some()).count();
    assert!(reused > 0, "segments must have been recycled");
}

#[test]
#[should_panic(expected = "byte-exact violated at stream offset 1003")]
fn the_pattern_check_catches_a_shifted_byte() {
    let mut buf = vec![0u8; 64];
    fill_pattern(&mut buf, 1000);
    check_pattern(&buf, 1000);
    // One byte lost at offset 1003: everything after it is shifted.
    buf.remove(3);
    check_pattern(&buf, 1000);
}
