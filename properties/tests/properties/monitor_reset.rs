//! The monitor at a pipe reset: it checks the ending run's
//! end-of-run obligations, then checks the next run as a new pipe's.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::panic::{AssertUnwindSafe, catch_unwind};

use pipecheck::Violation;
use pipecheck_pipe::PipeEvent;
use pipecheck_properties::{CheckConfig, Monitor, Observation};

/// Feeds `observations` to a fresh monitor of the whole registry; the violation raised, if any.
fn run(observations: Vec<Observation>) -> Option<Violation> {
    let monitor = Monitor::new(CheckConfig::default());
    let run = catch_unwind(AssertUnwindSafe(|| {
        for observation in observations {
            monitor.record(observation);
        }
        monitor.assert_finished();
    }));
    run.err().map(|panic| *panic.downcast::<Violation>().expect("a typed violation"))
}

fn both_complete() -> Vec<Observation> {
    vec![
        Observation::Pipe(PipeEvent::WriterCompleted { failed: false, committed: 0 }),
        Observation::Pipe(PipeEvent::ReaderCompleted { failed: false }),
    ]
}

#[test]
fn a_buffer_still_rented_at_the_reset_breaks_release_once_there() {
    let mut log = vec![Observation::Rented { buffer: 0x1000, len: 4 }];
    log.extend(both_complete());
    log.push(Observation::Pipe(PipeEvent::Reset));
    let violation = run(log).expect("the leak is reported at the reset");
    assert_eq!(violation.invariant, pipecheck_pipe::invariant::RELEASE_ONCE, "{violation}");
    assert_eq!(violation.step, Some(3), "reported at the reset, not at the end: {violation}");
}

#[test]
fn the_run_after_a_reset_starts_at_offset_zero() {
    let mut log = vec![Observation::Wrote { offset: 0, bytes: b"a".to_vec() }];
    log.extend(both_complete());
    log.push(Observation::Pipe(PipeEvent::Reset));
    log.push(Observation::Wrote { offset: 0, bytes: b"bc".to_vec() });
    log.push(Observation::Pipe(PipeEvent::Flushed { committed: 2, unconsumed: 2, paused: false }));
    assert_eq!(run(log), None, "the second run is checked as a new pipe's");
}

#[test]
fn offsets_carried_over_a_reset_are_caught() {
    let log_of_first_run = [
        PipeEvent::Flushed { committed: 1, unconsumed: 1, paused: false },
        PipeEvent::Consumed { consumed: 1, examined: 1, unconsumed: 0 },
        PipeEvent::WriterCompleted { failed: false, committed: 1 },
        PipeEvent::ReaderCompleted { failed: false },
        PipeEvent::Reset,
    ];
    let mut log: Vec<_> = log_of_first_run.into_iter().map(Observation::Pipe).collect();
    // The new run's first flush counts against an examined offset it never had.
    log.push(Observation::Pipe(PipeEvent::Flushed { committed: 2, unconsumed: 1, paused: false }));
    let violation = run(log).expect("the stale count is reported");
    assert_eq!(violation.invariant, pipecheck_pipe::invariant::BACKPRESSURE, "{violation}");
}
