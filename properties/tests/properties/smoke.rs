//! A sequential scenario under the monitor: clean with no fault, and each fault that a
//! single thread can trip is reported under the invariant it breaks.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::panic::{AssertUnwindSafe, catch_unwind};

use pipecheck::PlantedFault;
use pipecheck::{FailureKind, Invariant, classify};
use pipecheck_pipe::fault;
use pipecheck_properties::invariants::MonotonicOffsets;
use pipecheck_properties::{CheckConfig, Monitor, Observation, checked_pipe};

/// Writes 40 bytes in 3-byte pieces, reading everything after every sixth, then
/// completes both sides,
/// under the whole registry.
fn scenario(fault: Option<&'static PlantedFault>) -> Result<(), FailureKind> {
    let config = CheckConfig { pause_writer_threshold: 0, ..CheckConfig::default() };
    PlantedFault::activate_opt(fault, || run_under(Monitor::new(config)))
}

/// The same run under one monitor.
fn run_under(monitor: std::sync::Arc<Monitor>) -> Result<(), FailureKind> {
    let run = catch_unwind(AssertUnwindSafe(|| {
        let (mut writer, mut reader) = checked_pipe(&monitor);
        let data: Vec<u8> = (0..40).collect();
        for (i, piece) in data.chunks(3).enumerate() {
            writer.send(piece).unwrap();
            // Every sixth piece: 18 bytes over three segments, so a batch of returns can
            // outgrow the pool of two (the fully consumed head goes back with the others).
            if i % 6 == 5 {
                if i == 11 {
                    // The writer starts its next write before the reader consumes
                    // everything: its head is busy, so it must stay.
                    writer.inner().get_memory(1).unwrap();
                }
                reader.read_and_consume(|len| len).unwrap();
            }
        }
        writer.complete(None);
        reader.drain().unwrap();
        reader.complete(None);
        monitor.assert_finished();
    }));
    run.map_err(|panic| classify(&*panic, None))
}

#[test]
fn clean_run_passes() {
    scenario(None).unwrap();
}

#[test]
fn sequential_faults_are_named() {
    for fault in [
        &fault::LifoPool,
        &fault::DoubleReturn,
        &fault::PoolOverflow,
        &fault::ReturnWriteHead,
        &fault::ReadPastCommit,
        &fault::LeakOnComplete,
    ] {
        let failure = scenario(Some(fault)).expect_err(fault.name());
        assert_eq!(failure.invariant(), Some(fault.breaks()), "{fault}: {failure}");
    }
}

/// README's worked example has a planted bug too: a read past the commit lets the
/// reader consume a byte that was never committed. Alone in the monitor (the registry
/// would report no-data-race first), monotonic-offsets catches it.
#[test]
fn monotonic_offsets_catches_consuming_past_the_commit() {
    let config = CheckConfig { pause_writer_threshold: 0, ..CheckConfig::default() };
    let only = vec![Box::new(MonotonicOffsets::default()) as Box<dyn Invariant<Observation>>];
    let planted = || run_under(Monitor::with_invariants(config, only));
    let failure = fault::ReadPastCommit.activate(planted).expect_err("the planted bug is caught");
    assert_eq!(failure.invariant(), Some(pipecheck_pipe::invariant::MONOTONIC_OFFSETS), "{failure}");
}
