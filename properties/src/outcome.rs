//! [`Step`]: what one [`Op`](crate::Op) did, as the driver saw it on the real pipe and as
//! the [`ReferenceModel`](crate::ReferenceModel) predicts it. The two must be equal.

use std::fmt;

use pipecheck_pipe::{FlushResult, PipeError};

/// What a read that completed handed out.
#[derive(Clone, PartialEq, Eq)]
pub struct ReadSummary {
    /// Stream offset of the first byte.
    pub start: u64,
    /// The bytes, in order.
    pub bytes: Vec<u8>,
    /// `is_completed()`.
    pub completed: bool,
    /// `is_canceled()`.
    pub canceled: bool,
}

impl fmt::Debug for ReadSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ReadSummary {{ start: {}, len: {}, bytes: {:02x?}, completed: {}, canceled: {} }}",
            self.start,
            self.bytes.len(),
            self.bytes,
            self.completed,
            self.canceled
        )
    }
}

/// The result of one operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `get_memory`: the length of the memory handed out.
    Memory(Result<usize, PipeError>),
    /// `advance` and `advance_to`.
    Done(Result<(), PipeError>),
    /// `advance_to` whose position could not be taken: `ReadBuf::position` refused it.
    NoPosition(PipeError),
    /// `advance_to` before any read (or a `Stale` position before a second read): there
    /// is no read to take a position from, so nothing was called.
    Skipped,
    /// `flush`: `None` while it waits (polled once and dropped, its waker registered).
    Flush(Option<Result<FlushResult, PipeError>>),
    /// `read` and `try_read`: `None` while it waits (`try_read`'s `Ok(None)`).
    Read(Option<Result<ReadSummary, PipeError>>),
    /// Cancels and completes, which return nothing.
    Unit,
    /// `buffered_len`: the length it reported.
    Length(Result<u64, PipeError>),
}

/// Which wakers the pipe woke during one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Woken {
    /// The waker of a pending read.
    pub reader: bool,
    /// The waker of a pending flush.
    pub writer: bool,
}

/// Everything one operation did that the model predicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Its result.
    pub outcome: Outcome,
    /// The wakeups it caused.
    pub woken: Woken,
}
