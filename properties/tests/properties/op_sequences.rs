//! Random operation sequences against the reference model (proptest-state-machine),
//! plus hand-written sequences pinning down the semantics the model mirrors.
//!
//! A failure prints the shrunk sequence and what broke; proptest saves its seed in
//! `target/pipecheck/proptest-regressions/op_sequences.txt` (never in the source tree),
//! and `cargo test -p pipecheck-properties --test properties -- op_sequences::` replays it, and the
//! committed seeds of `properties/proptest-regressions/op_sequences.txt`, first.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use arbitrary::{Arbitrary, Unstructured};
use pipecheck::{FailureKind, Regressions, Reported};
use pipecheck_pipe::{FlushResult, PipeError};
use pipecheck_properties::{
    CheckConfig, Driver, Monitor, Op, Outcome, PipeTest, Pos, ReferenceModel, Step, Woken, check_sequence,
};
use proptest_state_machine::prop_state_machine;

prop_state_machine! {
    #![proptest_config(proptest::test_runner::Config {
        // 256 cases by default (PROPTEST_CASES overrides).
        // Committed seeds replayed, new ones saved under target/.
        failure_persistence: Regressions::new(env!("CARGO_MANIFEST_DIR"), "op_sequences").boxed(),
        .. proptest::test_runner::Config::default()
    })]

    /// Every result, error and wakeup of the pipe equals the model's, and every
    /// registered invariant holds, over random sequences of up to 48 operations.
    #[test]
    fn pipe_matches_the_reference_model(sequential 1..48 => Reported<PipeTest>);
}

/// Runs `ops` through model and pipe, returning the model's outcomes.
fn run(config: CheckConfig, ops: &[Op]) -> Vec<Outcome> {
    check_sequence(config.clone(), ops);
    let mut model = ReferenceModel::new(config);
    ops.iter().map(|op| model.apply(op).outcome).collect()
}

fn write(n: usize) -> [Op; 2] {
    [Op::GetMemory { size_hint: n }, Op::Advance { bytes: n }]
}

#[test]
fn segments_double_from_the_minimum_up_to_the_maximum() {
    let config = CheckConfig { minimum_segment_size: 2, maximum_segment_size: 8, ..CheckConfig::default() };
    let mut ops = Vec::new();
    for _ in 0..4 {
        ops.push(Op::GetMemory { size_hint: 1 });
        ops.push(Op::Advance { bytes: usize::MAX }); // refused: reports what is available
        ops.push(Op::Advance { bytes: 0 });
        ops.push(Op::GetMemory { size_hint: 8 }); // never fits the rest: a new segment
        ops.push(Op::Advance { bytes: 8 });
    }
    let outcomes = run(config, &ops);
    let memories: Vec<_> = outcomes
        .iter()
        .filter_map(|o| if let Outcome::Memory(m) = o { m.clone().ok() } else { None })
        .collect();
    // The empty head of size 2 is replaced in place by an 8-byte one, but the size
    // still doubles: 2, 8 (needed), then 8, 8, ... capped at the maximum.
    assert_eq!(memories, [2, 8, 8, 8, 8, 8, 8, 8]);
}

#[test]
fn size_hints_above_the_maximum_are_refused_and_zero_means_one() {
    let outcomes = run(
        CheckConfig::default(),
        &[
            Op::GetMemory { size_hint: 9 },
            Op::GetMemory { size_hint: usize::MAX },
            Op::GetMemory { size_hint: 0 },
        ],
    );
    assert_eq!(outcomes[0], Outcome::Memory(Err(PipeError::SizeHintTooLarge { size_hint: 9, max: 8 })));
    assert!(matches!(outcomes[1], Outcome::Memory(Err(PipeError::SizeHintTooLarge { .. }))));
    assert_eq!(outcomes[2], Outcome::Memory(Ok(4)));
}

#[test]
fn advance_before_get_memory_has_nothing_available() {
    let outcomes = run(CheckConfig::default(), &[Op::Advance { bytes: 1 }, Op::Advance { bytes: 0 }]);
    assert_eq!(outcomes[0], Outcome::Done(Err(PipeError::AdvancePastMemory { requested: 1, available: 0 })));
    assert_eq!(outcomes[1], Outcome::Done(Ok(())));
}

/// As .NET's `GetReadResult`: the writer's failure is thrown before a cancel is observed.
#[test]
fn a_writer_failure_reaches_the_reader_even_when_the_read_was_canceled() {
    let mut ops = write(3).to_vec();
    ops.extend([Op::Flush, Op::CompleteWriter { failed: true }, Op::TryRead, Op::CancelRead, Op::TryRead]);
    let outcomes = run(CheckConfig::default(), &ops);
    for i in [4, 6] {
        assert!(
            matches!(outcomes[i], Outcome::Read(Some(Err(PipeError::WriterFailed(_))))),
            "{:?}",
            outcomes[i]
        );
    }
}

#[test]
fn flush_after_the_reader_completed_reports_completion_and_commits() {
    let mut ops = vec![Op::CompleteReader { failed: false }];
    ops.extend(write(2));
    ops.push(Op::CancelFlush);
    ops.push(Op::Flush);
    let outcomes = run(CheckConfig::default(), &ops);
    assert_eq!(outcomes[4], Outcome::Flush(Some(Ok(FlushResult { is_completed: true, is_canceled: false }))));
}

#[test]
fn a_paused_flush_waits_until_consumed_below_resume() {
    // Pause at 16, resume below 8; segments of at most 8 bytes.
    let mut ops = Vec::new();
    for _ in 0..2 {
        ops.extend(write(8));
    }
    ops.extend([Op::Flush, Op::Read]);
    ops.push(Op::AdvanceTo { consumed: Pos::At(8), examined: Pos::At(8) }); // 8 left: still paused
    ops.push(Op::Flush);
    ops.push(Op::Read);
    ops.push(Op::AdvanceTo { consumed: Pos::At(1), examined: Pos::End }); // 7 left: resumes
    let mut model = ReferenceModel::new(CheckConfig::default());
    let mut driver = Driver::new(Monitor::new(CheckConfig::default()));
    let mut steps = Vec::new();
    for op in &ops {
        let expected = model.apply(op);
        driver.apply_expecting(op, &expected);
        steps.push(expected);
    }
    driver.finish();
    assert_eq!(steps[4].outcome, Outcome::Flush(None));
    assert_eq!(steps[7].outcome, Outcome::Flush(None));
    assert!(!steps[6].woken.writer);
    assert!(steps[9].woken.writer);
}

#[test]
fn advance_to_reports_errors_in_the_pipes_order() {
    let mut ops = write(4).to_vec();
    ops.extend([
        Op::AdvanceTo { consumed: Pos::End, examined: Pos::End }, // no read to take positions from
        Op::Flush,
        Op::Read,
        Op::AdvanceTo { consumed: Pos::At(9), examined: Pos::End }, // position() refuses
        Op::AdvanceTo { consumed: Pos::At(3), examined: Pos::At(1) }, // examined < consumed
        Op::AdvanceTo { consumed: Pos::At(1), examined: Pos::At(3) },
        Op::GetMemory { size_hint: 2 },
        Op::Advance { bytes: 2 },
        Op::Flush,
        Op::Read,
        Op::AdvanceTo { consumed: Pos::Stale(1), examined: Pos::End }, // stale
        Op::AdvanceTo { consumed: Pos::At(0), examined: Pos::At(0) },  // examined went back
        Op::AdvanceTo { consumed: Pos::End, examined: Pos::End },
        Op::AdvanceTo { consumed: Pos::End, examined: Pos::End }, // nothing outstanding
    ]);
    let outcomes = run(CheckConfig::default(), &ops);
    assert_eq!(outcomes[2], Outcome::Skipped);
    assert!(matches!(outcomes[5], Outcome::NoPosition(PipeError::PositionOutOfRange { offset: 9, .. })));
    assert!(matches!(outcomes[6], Outcome::Done(Err(PipeError::ExaminedBeforeConsumed { .. }))));
    assert_eq!(outcomes[7], Outcome::Done(Ok(())));
    assert!(matches!(outcomes[12], Outcome::Done(Err(PipeError::StalePosition { .. }))));
    assert!(matches!(outcomes[13], Outcome::Done(Err(PipeError::ExaminedWentBackwards { .. }))));
    assert_eq!(outcomes[14], Outcome::Done(Ok(())));
    assert_eq!(outcomes[15], Outcome::Done(Err(PipeError::NothingToAdvance)));
}

#[test]
fn arbitrary_bytes_decode_to_sequences_the_driver_runs() {
    // What the fuzz target does, on fixed inputs.
    for seed in 0u32..64 {
        let bytes: Vec<u8> =
            (0..512u32).map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed * 97) >> 13) as u8).collect();
        let ops = Vec::<Op>::arbitrary(&mut Unstructured::new(&bytes)).expect("decodes");
        check_sequence(CheckConfig::default(), &ops);
    }
}

#[test]
fn a_step_that_differs_from_the_model_fails_the_case() {
    let mut driver = Driver::new(Monitor::new(CheckConfig::default()));
    let wrong = Step { outcome: Outcome::Memory(Ok(5)), woken: Woken::default() }; // the pipe hands out 4
    let capture = pipecheck::Capture::start(true);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        driver.apply_expecting(&Op::GetMemory { size_hint: 0 }, &wrong)
    }));
    drop(capture);
    match pipecheck::classify(&*panic.expect_err("the step differs"), None) {
        FailureKind::ModelMismatch(mismatch) => assert_eq!(mismatch.index, 0, "{mismatch}"),
        other => panic!("expected a model mismatch, got {other}"),
    }
}

/// proptest prints what broke, not `<unknown panic value>`, for a checker's typed panic.
#[test]
fn a_proptest_failure_prints_the_violation() {
    use pipecheck::Violation;
    use proptest::test_runner::{Config, TestError, TestRunner};
    let config = Config { failure_persistence: None, max_shrink_iters: 0, ..Config::default() };
    let quiet = pipecheck::Capture::start(true);
    let result = TestRunner::new(config).run(&proptest::num::u8::ANY, |_| {
        pipecheck::reported(|| {
            std::panic::panic_any(Violation::new(
                pipecheck_pipe::invariant::FIFO_POOL,
                "segment 2 reused before segment 1",
            ))
        })
    });
    drop(quiet.finish());
    let Err(TestError::Fail(reason, _)) = result else { panic!("the case should fail: {result:?}") };
    let reason = reason.to_string();
    assert!(reason.contains("fifo-pool") && reason.contains("segment 2 reused"), "{reason}");
}

/// No run writes into a tracked file: new failure seeds go under target/.
#[test]
fn failure_seeds_are_saved_under_target_not_in_the_source_tree() {
    use proptest::test_runner::FailurePersistence;
    let committed_path = concat!(env!("CARGO_MANIFEST_DIR"), "/proptest-regressions/op_sequences.txt");
    let committed = std::fs::read_to_string(committed_path).expect("the committed seeds");
    let seeds = Regressions::new(env!("CARGO_MANIFEST_DIR"), "op_sequences").load_persisted_failures2(None);
    let seed = seeds.into_iter().next().expect("a committed seed");
    let mut scratch = Regressions::new(env!("CARGO_MANIFEST_DIR"), "persistence-check");
    let found = scratch.found_path().to_owned();
    let _ = std::fs::remove_file(&found);
    scratch.save_persisted_failure2(None, seed.clone(), &"a shrunk value");
    // Under the target directory, whatever it is called (CARGO_TARGET_DIR may name any).
    assert!(found.starts_with(pipecheck::trace::location::target_dir()), "{}", found.display());
    let saved = std::fs::read_to_string(&found).expect("the seed was saved under target/");
    assert!(saved.contains(&seed.to_string()), "{saved}");
    assert_eq!(std::fs::read_to_string(committed_path).unwrap(), committed);
    assert_eq!(scratch.load_persisted_failures2(None), vec![seed], "saved seeds are replayed");
}
