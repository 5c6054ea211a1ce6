//! [`BackpressurePipeModel`]: [`PipeModel`] with the writer's pause and resume, for
//! histories whose flushes cross the pause threshold.
//!
//! A flush that pauses is two steps (see [`PipeModel`]'s docs): its bytes are committed,
//! then it waits until the reader has examined enough. The model checks each recorded
//! `WriteFlush` as a commit ([`BackpressureOp::Pipe`]) followed, in the same thread, by
//! a [`BackpressureOp::FlushReturn`] that is *blocking*: enabled only while the writer
//! is not paused. A commit that leaves committed − examined ≥ `pause` pauses the writer
//! (.NET counts examined bytes); an `advance_to` that leaves fewer than `resume`
//! unexamined bytes resumes it. [`BackpressurePipeModel::split_flushes`] rewrites a
//! recorded pipe history that way.
//!
//! Out of scope, as the scenarios it checks avoid them: flush cancels, `read_at_least`
//! (which suspends the pause below its minimum), and a reader that completes while a
//! flush waits (which releases it). Once paused, the writer is only released by the
//! reader, so a return placed at its flush's response sees the same state as one
//! placed at the release: `split_flushes` puts it there.

use super::pipe_model::{PipeModel, PipeOp, PipeOutput, PipeState};
use pipecheck::linearizability::SequentialModel;
use pipecheck::linearizability::{History, OpId, Operation};

/// An operation of [`BackpressurePipeModel`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackpressureOp {
    /// A pipe operation; a `WriteFlush` here is the flush's commit.
    Pipe(PipeOp),
    /// The flush returning: enabled only while the writer is not paused.
    FlushReturn,
}

/// [`PipeState`] plus whether the writer is paused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BackpressureState {
    /// The byte stream.
    pub pipe: PipeState,
    /// A flush waits for the reader.
    pub paused: bool,
}

/// The pipe's sequential specification with back-pressure (see the module docs).
///
/// # Examples
///
/// ```
/// use pipecheck_properties::linearizability::{BackpressureOp, BackpressurePipeModel, PipeOp, PipeOutput};
/// use pipecheck::linearizability::SequentialModel;
///
/// let model = BackpressurePipeModel { pause: 2, resume: 1 };
/// let commit = BackpressureOp::Pipe(PipeOp::WriteFlush(b"ab".to_vec()));
/// let paused = model.step(&model.init(), &commit, &PipeOutput::Done).unwrap();
/// assert!(paused.paused);
/// assert!(model.step(&paused, &BackpressureOp::FlushReturn, &PipeOutput::Done).is_none()); // waits
/// let advance = BackpressureOp::Pipe(PipeOp::AdvanceTo { consumed: 2, examined: 2 });
/// let resumed = model.step(&paused, &advance, &PipeOutput::Done).unwrap();
/// assert!(model.step(&resumed, &BackpressureOp::FlushReturn, &PipeOutput::Done).is_some());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BackpressurePipeModel {
    /// A flush pauses when it leaves this many unexamined bytes or more.
    pub pause: usize,
    /// A paused flush resumes when fewer unexamined bytes than this remain.
    pub resume: usize,
}

impl BackpressurePipeModel {
    /// `history` with every stamp doubled and each completed `WriteFlush` (invoked at
    /// `i`, returned at `r`) split into its commit, stamped `2i..=2r-2`, and a
    /// `FlushReturn`, stamped `2r-1..=2r`, in the same thread: each has the flush's
    /// real-time order with every other operation, and the commit comes first. Other
    /// operations keep their place (as [`BackpressureOp::Pipe`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck_properties::linearizability::{BackpressureOp, BackpressurePipeModel, PipeOp, PipeOutput};
    /// use pipecheck::linearizability::History;
    ///
    /// let mut history = History::new();
    /// history.complete(0, PipeOp::WriteFlush(b"a".to_vec()), PipeOutput::Done, 0, 3);
    /// let split = BackpressurePipeModel::split_flushes(&history);
    /// let stamps: Vec<_> = split.ops().iter().map(|op| (op.invoked, op.responded)).collect();
    /// assert_eq!(stamps, [(0, Some(4)), (5, Some(6))]);
    /// assert_eq!(split.ops()[1].input, BackpressureOp::FlushReturn);
    /// ```
    pub fn split_flushes(history: &History<PipeOp, PipeOutput>) -> History<BackpressureOp, PipeOutput> {
        let mut split = Vec::new();
        for (index, op) in history.ops().iter().enumerate() {
            let invoked = op.invoked * 2;
            let responded = op.responded.map(|r| r * 2);
            match (&op.input, responded) {
                (PipeOp::WriteFlush(_), Some(responded)) => {
                    split.push((
                        OpId(index),
                        Operation {
                            thread: op.thread,
                            input: BackpressureOp::Pipe(op.input.clone()),
                            output: op.output.clone(),
                            invoked,
                            responded: Some(responded - 2),
                        },
                    ));
                    split.push((
                        OpId(index),
                        Operation {
                            thread: op.thread,
                            input: BackpressureOp::FlushReturn,
                            output: op.output.clone(),
                            invoked: responded - 1,
                            responded: Some(responded),
                        },
                    ));
                }
                _ => {
                    split.push((
                        OpId(index),
                        Operation {
                            thread: op.thread,
                            input: BackpressureOp::Pipe(op.input.clone()),
                            output: op.output.clone(),
                            invoked,
                            responded,
                        },
                    ));
                }
            }
        }
        history.derive(split)
    }
}

impl SequentialModel for BackpressurePipeModel {
    type State = BackpressureState;
    type Input = BackpressureOp;
    type Output = PipeOutput;

    fn init(&self) -> BackpressureState {
        BackpressureState::default()
    }

    fn step(
        &self,
        state: &BackpressureState,
        input: &BackpressureOp,
        output: &PipeOutput,
    ) -> Option<BackpressureState> {
        match input {
            BackpressureOp::FlushReturn => {
                (!state.paused && *output == PipeOutput::Done).then(|| state.clone())
            }
            BackpressureOp::Pipe(op) => {
                let pipe = PipeModel.step(&state.pipe, op, output)?;
                let paused = match op {
                    PipeOp::WriteFlush(_) => pipe.unexamined() >= self.pause,
                    PipeOp::AdvanceTo { .. } => state.paused && pipe.unexamined() >= self.resume,
                    _ => state.paused,
                };
                Some(BackpressureState { pipe, paused })
            }
        }
    }

    fn step_pending(&self, state: &BackpressureState, input: &BackpressureOp) -> Vec<BackpressureState> {
        match input {
            BackpressureOp::FlushReturn => Vec::new(),
            BackpressureOp::Pipe(op) => PipeModel
                .step_pending(&state.pipe, op)
                .into_iter()
                .filter_map(|_| self.step(state, input, &PipeOutput::Done))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pipecheck::linearizability::{Budget, Linearization, check};

    const MODEL: BackpressurePipeModel = BackpressurePipeModel { pause: 2, resume: 1 };

    fn read(bytes: &[u8]) -> PipeOutput {
        PipeOutput::Read { bytes: bytes.to_vec(), completed: false, canceled: false }
    }

    fn linearizable(history: &History<PipeOp, PipeOutput>) -> bool {
        let split = BackpressurePipeModel::split_flushes(history);
        match check(&MODEL, &split, Budget::default()).expect("well-formed") {
            Linearization::Linearizable(_) => true,
            Linearization::NonLinearizable(_) => false,
            Linearization::Unknown { .. } => panic!("budget exhausted on a tiny history"),
        }
    }

    #[test]
    fn a_paused_flush_returns_after_the_reader_examined() {
        // The flush of "ab" (at the pause threshold) spans the read and the advance
        // that released it.
        let mut history = History::new();
        history.complete(0, PipeOp::WriteFlush(b"ab".to_vec()), PipeOutput::Done, 0, 7);
        history.complete(1, PipeOp::Read, read(b"ab"), 1, 3);
        history.complete(1, PipeOp::AdvanceTo { consumed: 2, examined: 2 }, PipeOutput::Done, 4, 5);
        assert!(linearizable(&history));
    }

    #[test]
    fn a_flush_returning_before_the_reader_examined_is_not_linearizable() {
        // The flush returned before the reader began: nothing could have released it.
        let mut history = History::new();
        history.complete(0, PipeOp::WriteFlush(b"ab".to_vec()), PipeOutput::Done, 0, 1);
        history.complete(1, PipeOp::Read, read(b"ab"), 2, 3);
        history.complete(1, PipeOp::AdvanceTo { consumed: 2, examined: 2 }, PipeOutput::Done, 4, 5);
        assert!(!linearizable(&history));
        // Below the threshold it need not wait.
        let mut small = History::new();
        small.complete(0, PipeOp::WriteFlush(b"a".to_vec()), PipeOutput::Done, 0, 1);
        small.complete(1, PipeOp::Read, read(b"a"), 2, 3);
        assert!(linearizable(&small));
    }

    #[test]
    fn examining_without_consuming_resumes_the_writer() {
        // .NET's count: the advance examined both bytes and consumed none.
        let mut history = History::new();
        history.complete(0, PipeOp::WriteFlush(b"ab".to_vec()), PipeOutput::Done, 0, 7);
        history.complete(1, PipeOp::Read, read(b"ab"), 1, 3);
        history.complete(1, PipeOp::AdvanceTo { consumed: 0, examined: 2 }, PipeOutput::Done, 4, 5);
        assert!(linearizable(&history));
        // Examining one byte of two leaves 1 ≥ resume: still paused.
        let mut partial = History::new();
        partial.complete(0, PipeOp::WriteFlush(b"ab".to_vec()), PipeOutput::Done, 0, 7);
        partial.complete(1, PipeOp::Read, read(b"ab"), 1, 3);
        partial.complete(1, PipeOp::AdvanceTo { consumed: 0, examined: 1 }, PipeOutput::Done, 4, 5);
        assert!(!linearizable(&partial));
    }
}
