//! The proptest-state-machine glue: [`PipeMachine`] generates [`Op`] sequences from the
//! [`ReferenceModel`]'s state, and [`PipeTest`] runs them on a monitored pipe through the
//! [`Driver`], comparing every step with the model.
//!
//! ```no_run
//! use pipecheck_properties::PipeTest;
//! use proptest_state_machine::prop_state_machine;
//!
//! prop_state_machine! {
//!     #[test]
//!     fn pipe_matches_the_model(sequential 1..48 => PipeTest);
//! }
//! ```

use proptest::prelude::*;
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};

use crate::driver::Driver;
use crate::ops::{Op, Pos};
use crate::reference::ReferenceModel;
use crate::{CheckConfig, Monitor};

/// Small pipe settings, so short sequences cross segment boundaries, the pause and
/// resume thresholds and the pool's maximum. Shrinks toward 1-byte segments, the
/// default thresholds and a pool of one.
pub fn config_strategy() -> impl Strategy<Value = CheckConfig> {
    let thresholds = prop_oneof![
        4 => Just((16u64, 8u64)),
        1 => Just((0, 0)),
        2 => (1u64..=24).prop_flat_map(|pause| (Just(pause), 0..=pause)),
    ];
    (1usize..=4, 0u32..=3, thresholds, 1usize..=3, 1usize..=2).prop_map(
        |(minimum, growth, (pause, resume), pooled, first_chunk)| CheckConfig {
            minimum_segment_size: minimum,
            maximum_segment_size: minimum << growth,
            pause_writer_threshold: pause,
            resume_writer_threshold: resume,
            max_pooled_segments: pooled,
            pool_first_chunk: first_chunk,
        },
    )
}

/// Operations worth trying in `model`'s state: mostly valid arguments (hints up to the
/// maximum segment size, advances within the memory handed out, ordered positions in
/// the outstanding buffer), plus invalid ones (huge hints, advances past the memory,
/// stale and out-of-range positions) often enough to exercise every error. Weights
/// follow the state (advance after `get_memory`, consume while a buffer is
/// outstanding), and completions are rare, so most sequences keep both ends busy.
pub fn op_strategy(model: &ReferenceModel) -> BoxedStrategy<Op> {
    let max = model.config().maximum_segment_size;
    let available = model.advance_available();
    let outstanding = model.outstanding_len();
    let len = outstanding.unwrap_or(0).min(usize::from(u8::MAX)) as u8;
    let (writing, reading) = (!model.writer_completed(), !model.reader_completed());
    // Weight `w` while the end is open, 1 once it has completed (errors stay covered).
    let open = |side_open: bool, w: u32| if side_open { w } else { 1 };

    let size_hint = prop_oneof![
        12 => 0..=max,
        1 => Just(max + 1),
        1 => Just(usize::MAX),
        1 => any::<usize>(),
    ];
    let advance = prop_oneof![
        10 => 1..=available.max(1),
        1 => Just(0),
        1 => available + 1..=available + 8,
    ];
    let ordered = (0..=len, 0..=len, any::<bool>()).prop_map(|(a, b, to_end)| Op::AdvanceTo {
        consumed: Pos::At(a.min(b)),
        examined: if to_end { Pos::End } else { Pos::At(a.max(b)) },
    });
    let any_pos = || {
        prop_oneof![
            3 => (0..=len).prop_map(Pos::At),
            1 => Just(Pos::End),
            1 => any::<u8>().prop_map(Pos::At),
            1 => any::<u8>().prop_map(Pos::Stale),
        ]
    };
    let wild = (any_pos(), any_pos()).prop_map(|(consumed, examined)| Op::AdvanceTo { consumed, examined });
    let consuming = outstanding.is_some();
    // Minimums up to twice the pause threshold, so a read-at-least often waits for more
    // than the writer may buffer before it pauses.
    let pause = model.config().pause_writer_threshold;
    let above_pause = u8::try_from(pause.saturating_add(1)).unwrap_or(u8::MAX);
    let read_at_least_max = u8::try_from(pause.saturating_mul(2).saturating_add(4)).unwrap_or(u8::MAX);
    let read_at_least_minimum = prop_oneof![
        1 => 0..=above_pause,
        3 => above_pause..=read_at_least_max,
    ];
    let ready = model.read_ready();
    prop_oneof![
        open(writing, if available == 0 { 16 } else { 8 }) =>
            size_hint.prop_map(|size_hint| Op::GetMemory { size_hint }),
        open(writing, if available > 0 { 20 } else { 3 }) => advance.prop_map(|bytes| Op::Advance { bytes }),
        open(writing, if model.unflushed() > 0 { 14 } else { 4 }) => Just(Op::Flush),
        open(reading, if consuming { 2 } else if ready { 14 } else { 3 }) => Just(Op::Read),
        open(reading, if consuming { 1 } else if ready { 6 } else { 2 }) => Just(Op::TryRead),
        open(reading, if consuming { 1 } else if model.writer_paused() { 12 } else { 5 }) =>
            read_at_least_minimum.prop_map(|minimum| Op::ReadAtLeast { minimum }),
        open(reading, 2) => Just(Op::BufferedLen),
        open(reading && consuming, 20) => ordered,
        open(reading && consuming, 8) => Just(Op::AdvanceTo { consumed: Pos::End, examined: Pos::End }),
        open(model.has_read(), 3) => wild,
        2 => Just(Op::CancelRead),
        if model.writer_paused() { 4 } else { 1 } => Just(Op::CancelFlush),
        1 => any::<bool>().prop_map(|failed| Op::CompleteWriter { failed }),
        1 => any::<bool>().prop_map(|failed| Op::CompleteReader { failed }),
    ]
    .boxed()
}

/// The reference side: the model's state generates and predicts the operations.
#[derive(Clone, Copy, Debug)]
pub struct PipeMachine;

impl ReferenceStateMachine for PipeMachine {
    type State = ReferenceModel;
    type Transition = Op;

    fn init_state() -> BoxedStrategy<ReferenceModel> {
        config_strategy().prop_map(ReferenceModel::new).boxed()
    }

    fn transitions(state: &ReferenceModel) -> BoxedStrategy<Op> {
        op_strategy(state)
    }

    fn apply(mut state: ReferenceModel, op: &Op) -> ReferenceModel {
        state.apply(op);
        state
    }
}

/// The system under test: a monitored pipe driven by a [`Driver`]. Every step must
/// equal the model's prediction; the monitor checks every registered invariant on every
/// step; the teardown drains the pipe and runs the end-of-run checks.
#[derive(Clone, Copy, Debug)]
pub struct PipeTest;

impl StateMachineTest for PipeTest {
    type SystemUnderTest = Driver;
    type Reference = PipeMachine;

    fn init_test(model: &ReferenceModel) -> Driver {
        Driver::new(Monitor::new(model.config().clone()))
    }

    fn apply(mut driver: Driver, model: &ReferenceModel, op: Op) -> Driver {
        let expected = model.last_step().expect("the model applied this op first");
        driver.apply_expecting(&op, expected);
        driver
    }

    fn teardown(driver: Driver, _model: ReferenceModel) {
        driver.finish();
    }
}
