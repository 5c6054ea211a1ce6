//! [`PipeModel`]: the pipe as a sequential object — a byte stream with one writer and
//! one reader — for linearizability checks of concurrent pipe histories.
//!
//! The operations are the ones whose effects cross threads: the writer's write plus
//! flush (one operation: its bytes are committed at the flush), its completion, the
//! reader's read and `advance_to`, and a cancel of the pending read from any thread.
//! The rules mirror the pipe (core/src/pipe/reader.rs `poll_read`): a read returns
//! every committed, unconsumed byte, with the completion and cancel flags as they are
//! at its linearization point, and it is a *blocking* operation, enabled only when a
//! byte is unexamined, the writer completed, or a cancel is pending (see
//! [`SequentialModel`]'s rule for blocking operations). A canceled read takes the
//! cancel flag down.
//!
//! ## Back-pressure is outside the model
//!
//! Flush results are not modelled, and scenarios checked with this model keep the pause
//! threshold out of reach (`pipe-linearizable` commits 3 bytes, `pipe-reread-linearizable`
//! 2, against the default threshold of 16). A flush that pauses is not one atomic step:
//! its bytes are committed (a read may return them) *before* it returns, and it returns
//! only once the reader examined enough to go below the resume threshold (or completed,
//! or the flush was canceled). One linearization point cannot serve both: placed at the
//! commit, the return's condition (committed − examined < resume) is false there; placed
//! at the release, a read that returned the flushed bytes earlier would come before the
//! write. Modelling it takes the split the message channel's close gets
//! ([`MessageChannelModel::split_closes`](super::MessageChannelModel::split_closes)): a
//! commit, then a blocking *return* enabled while the writer is not paused, with
//! `paused` set at a commit that leaves committed − examined ≥ pause, cleared by an
//! `advance_to` below resume, by the reader's completion or by a flush cancel, and the
//! flush's `is_completed`/`is_canceled` checked at the return.
//! [`BackpressurePipeModel`](super::BackpressurePipeModel) does that for the plain
//! case (no flush cancel, no `read_at_least`, the reader not completed while a flush
//! waits); the `backpressure` invariant checks every case online, against every commit
//! and release in the event log (taken under the pipe lock, in linearization order).

use pipecheck::linearizability::SequentialModel;

/// A pipe operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipeOp {
    /// `write(bytes)` then `flush()`, by the writer.
    WriteFlush(Vec<u8>),
    /// `complete(None)`, by the writer.
    CompleteWriter,
    /// `read()`, by the reader.
    Read,
    /// `advance_to(consumed, examined)`, by the reader, with both positions as offsets
    /// into the buffer of the reader's last read.
    AdvanceTo {
        /// Bytes consumed from the start of the last read's buffer.
        consumed: usize,
        /// Bytes examined from the start of the last read's buffer (at least `consumed`).
        examined: usize,
    },
    /// `cancel_pending_read()`, from any thread.
    CancelRead,
}

/// What a pipe operation returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipeOutput {
    /// The operation returned nothing the model checks.
    Done,
    /// A read's buffer and flags.
    Read {
        /// The bytes in the buffer.
        bytes: Vec<u8>,
        /// `is_completed()`.
        completed: bool,
        /// `is_canceled()`.
        canceled: bool,
    },
}

/// The pipe's abstract state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PipeState {
    /// Committed bytes not consumed yet.
    unread: Vec<u8>,
    /// How many of them the reader examined.
    examined: usize,
    /// The writer completed.
    writer_completed: bool,
    /// A cancel waits for the next (or pending) read.
    read_canceled: bool,
}

impl PipeState {
    /// Committed bytes not consumed yet: what a read returns.
    pub fn unread(&self) -> &[u8] {
        &self.unread
    }

    /// Whether the writer completed.
    pub fn writer_completed(&self) -> bool {
        self.writer_completed
    }

    /// Committed bytes the reader has not examined: what back-pressure counts.
    pub fn unexamined(&self) -> usize {
        self.unread.len() - self.examined
    }
}

/// The pipe's sequential specification (see the module docs).
///
/// # Examples
///
/// ```
/// use pipecheck_properties::linearizability::{PipeModel, PipeOp, PipeOutput};
/// use pipecheck::linearizability::SequentialModel;
///
/// let model = PipeModel;
/// let empty = model.init();
/// let read = PipeOutput::Read { bytes: vec![], completed: false, canceled: false };
/// assert!(model.step(&empty, &PipeOp::Read, &read).is_none()); // a read waits on an empty pipe
/// let written = model.step(&empty, &PipeOp::WriteFlush(vec![1, 2]), &PipeOutput::Done).unwrap();
/// let read = PipeOutput::Read { bytes: vec![1, 2], completed: false, canceled: false };
/// assert!(model.step(&written, &PipeOp::Read, &read).is_some());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PipeModel;

impl SequentialModel for PipeModel {
    type State = PipeState;
    type Input = PipeOp;
    type Output = PipeOutput;

    fn init(&self) -> PipeState {
        PipeState::default()
    }

    fn step(&self, state: &PipeState, input: &PipeOp, output: &PipeOutput) -> Option<PipeState> {
        let mut next = state.clone();
        match (input, output) {
            (PipeOp::WriteFlush(bytes), PipeOutput::Done) => next.unread.extend_from_slice(bytes),
            (PipeOp::CompleteWriter, PipeOutput::Done) => next.writer_completed = true,
            (PipeOp::CancelRead, PipeOutput::Done) => next.read_canceled = true,
            (PipeOp::AdvanceTo { consumed, examined }, PipeOutput::Done) => {
                if consumed > examined || *examined > next.unread.len() {
                    return None;
                }
                next.unread.drain(..*consumed);
                next.examined = examined - consumed;
            }
            (PipeOp::Read, PipeOutput::Read { bytes, completed, canceled }) => {
                let enabled =
                    state.read_canceled || state.writer_completed || state.unread.len() > state.examined;
                if !enabled
                    || *bytes != state.unread
                    || *completed != state.writer_completed
                    || *canceled != state.read_canceled
                {
                    return None;
                }
                next.read_canceled = false;
            }
            _ => return None,
        }
        Some(next)
    }

    fn step_pending(&self, state: &PipeState, input: &PipeOp) -> Vec<PipeState> {
        // Only the writer's and the canceller's effects can land unseen; a pending read
        // or advance is a reader that stopped, with nothing observable.
        match input {
            PipeOp::WriteFlush(_) | PipeOp::CompleteWriter | PipeOp::CancelRead => {
                self.step(state, input, &PipeOutput::Done).into_iter().collect()
            }
            PipeOp::Read | PipeOp::AdvanceTo { .. } => Vec::new(),
        }
    }
}
