//! The pre-seed design kept for the contention benchmark (`LockScope::EveryOperation`
//! with `PoolDesign::LockedStack`: every operation under the pipe lock, rent and return
//! inside it) moves bytes exactly like the default design and gives every buffer back.

use std::pin::pin;

use crate::common::transfer::{Plan, seed_from_env, transfer};
use crate::common::{CountingPool, Recorder, poll_once};
use pipecheck_pipe::{LockScope, PipeOptions, PoolDesign};

fn pre_seed(options: PipeOptions, pool: &std::sync::Arc<CountingPool>) -> PipeOptions {
    options
        .pool_design(PoolDesign::LockedStack)
        .lock_scope(LockScope::EveryOperation)
        .buffer_pool(pool.clone())
}

#[test]
fn pre_seed_design_transfers_byte_exact_and_returns_every_buffer() {
    let seed = seed_from_env(0x7_0000);
    println!(
        "seed {seed:#x}; replay: PIPECHECK_SEED={seed:#x} cargo test -p pipecheck-pipe --test pipe -- lock_scope::pre_seed_design_transfers_byte_exact_and_returns_every_buffer --exact"
    );
    let pool = CountingPool::new();
    let report = transfer(Plan::new(4, seed), |options| pre_seed(options, &pool));
    assert_eq!(report.bytes, 4 << 20);
    pool.assert_all_returned();
}

#[test]
fn pre_seed_design_with_small_segments_recycles_through_the_locked_stack() {
    let seed = seed_from_env(0x7_0001);
    println!(
        "seed {seed:#x}; replay: PIPECHECK_SEED={seed:#x} cargo test -p pipecheck-pipe --test pipe -- lock_scope::pre_seed_design_with_small_segments_recycles_through_the_locked_stack --exact"
    );
    let pool = CountingPool::new();
    let plan = Plan {
        minimum_segment_size: 64,
        maximum_segment_size: 256,
        pause_writer_threshold: 1024,
        resume_writer_threshold: 512,
        ..Plan::new(1, seed)
    };
    transfer(plan, |options| pre_seed(options, &pool));
    pool.assert_all_returned();
}

#[test]
fn pre_seed_design_takes_the_lock_on_every_flush() {
    let pool = CountingPool::new();
    let recorder = Recorder::new();
    let (mut writer, _reader) =
        pre_seed(PipeOptions::new(), &pool).observer(recorder.clone()).build().unwrap();
    for _ in 0..5 {
        writer.write(&[0; 10]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready());
    }
    assert_eq!(recorder.take_locked_flushes(), 5, "the pre-seed design has no lock-free flush");
}
