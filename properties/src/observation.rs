//! What a run shows its invariants: pipe events, seed-primitive events and
//! scenario-level facts.

use pipecheck_pipe::{Failure, PipeError, PipeEvent, PrimitiveEvent};

/// The side of the pipe a fact belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The writer (and its flushes).
    Writer,
    /// The reader (and its reads).
    Reader,
}

/// One fact observed during a run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Observation {
    /// An event reported by the pipe itself.
    Pipe(PipeEvent),
    /// The writer advanced over these bytes, starting at stream offset `offset`.
    Wrote {
        /// Stream offset of the first byte.
        offset: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A read returned these bytes, starting at stream offset `start`.
    ReadData {
        /// Stream offset of the first byte.
        start: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A read or `try_read` was refused with this error (the reader's own misuse, or a
    /// side's completion).
    ReadRefused(PipeError),
    /// A flush was refused with this error (e.g. the reader's failure).
    FlushRefused(PipeError),
    /// `side` is about to complete with this failure.
    Failed(Side, Failure),
    /// A flush future resolved.
    FlushReturned {
        /// It reported `is_canceled`.
        canceled: bool,
        /// It reported `is_completed`.
        completed: bool,
    },
    /// A poll of `side`'s read or flush returned `Pending` with a waker registered.
    Waiting(Side),
    /// The waker registered by `side` was woken.
    Woken(Side),
    /// Every operation started so far has returned (a sequential driver's step
    /// boundary): wakes owed by then must have happened.
    Quiescent,
    /// The buffer pool rented a buffer (identified by its address).
    Rented {
        /// Address of the buffer.
        buffer: usize,
        /// Its length.
        len: usize,
    },
    /// A buffer went back to the buffer pool.
    GaveBack {
        /// Address of the buffer.
        buffer: usize,
    },
    /// The reader saw completion and consumed every byte.
    Drained,
    /// An event reported by a seed primitive (async mutex, completion source, message
    /// channel, partitioned pool).
    Primitive(PrimitiveEvent),
}

impl Observation {
    /// The side this observation is about, for per-task tables.
    pub fn side(&self) -> Option<Side> {
        use PipeEvent as E;
        match self {
            Observation::Pipe(event) => match event {
                E::SegmentCreated { .. }
                | E::SegmentTaken { .. }
                | E::HeadReleased { .. }
                | E::Flushed { .. }
                | E::Published { .. }
                | E::WriterCompleted { .. }
                | E::FlushCanceled
                | E::HeadParked { .. }
                | E::HeadResumed { .. }
                | E::SegmentLinked { .. } => Some(Side::Writer),
                E::SegmentReturned { .. }
                | E::SegmentDiscarded { .. }
                | E::Consumed { .. }
                | E::FlushResumed { .. }
                | E::ReaderCompleted { .. }
                | E::ReadReturned { .. }
                | E::ReadCanceled
                | E::HeadReclaimed { .. }
                | E::HeadBusy
                | E::HeadKept { .. }
                | E::AdvanceFinished => Some(Side::Reader),
                E::ReadAtLeastPending { .. } | E::LengthObserved { .. } => Some(Side::Reader),
                E::FlushReturned { .. } => Some(Side::Writer),
                _ => None,
            },
            Observation::Wrote { .. } | Observation::FlushReturned { .. } | Observation::FlushRefused(_) => {
                Some(Side::Writer)
            }
            Observation::Failed(side, _) => Some(*side),
            Observation::ReadData { .. } | Observation::ReadRefused(_) | Observation::Drained => {
                Some(Side::Reader)
            }
            Observation::Waiting(side) | Observation::Woken(side) => Some(*side),
            _ => None,
        }
    }
}
