//! Typed errors for every misuse of the pipe, and the failure a side completes with.

use std::fmt;
use std::sync::Arc;

/// The error a side completes with, handed to the other side's next read or flush.
///
/// It carries its cause: a [`Failure::from_error`] keeps the error value itself, so the
/// other side can [`downcast_ref`](Failure::downcast_ref) it to the writer's (or
/// reader's) real error type, and [`std::error::Error::source`] returns it. A
/// [`Failure::new`] carries a message only. Clones share the cause; two failures compare
/// equal when their messages do.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::Failure;
/// let failure = Failure::new("connection reset");
/// assert_eq!(failure.message(), "connection reset");
///
/// let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "peer went away");
/// let failure = Failure::from_error(io);
/// let cause = failure.downcast_ref::<std::io::Error>().expect("the real error type");
/// assert_eq!(cause.kind(), std::io::ErrorKind::ConnectionReset);
/// ```
#[derive(Clone)]
pub struct Failure {
    message: Arc<str>,
    cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl Failure {
    /// A failure with a human-readable `message` and no other cause.
    pub fn new(message: impl Into<Arc<str>>) -> Failure {
        Failure { message: message.into(), cause: None }
    }

    /// A failure caused by `error`, which the other side can get back with
    /// [`downcast_ref`](Self::downcast_ref) or [`cause`](Self::cause).
    pub fn from_error(error: impl std::error::Error + Send + Sync + 'static) -> Failure {
        Failure::from_boxed(Box::new(error))
    }

    /// A failure caused by a boxed `error`.
    pub fn from_boxed(error: Box<dyn std::error::Error + Send + Sync>) -> Failure {
        Failure { message: error.to_string().into(), cause: Some(Arc::from(error)) }
    }

    /// The failure's message (the cause's `Display` text, for [`from_error`](Self::from_error)).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error the failure was made from, if any.
    pub fn cause(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.cause.as_deref()
    }

    /// The cause as an `E`, if it is one.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.cause()?.downcast_ref::<E>()
    }

    /// Whether `self` and `other` carry the very same cause (or both carry none), as a
    /// clone does: the check that a failure crossed the pipe intact.
    pub fn same_cause(&self, other: &Failure) -> bool {
        match (&self.cause, &other.cause) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl PartialEq for Failure {
    fn eq(&self, other: &Failure) -> bool {
        self.message == other.message
    }
}

impl Eq for Failure {}

impl std::hash::Hash for Failure {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.message.hash(state);
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            None => write!(f, "Failure({:?})", &*self.message),
            Some(cause) => write!(f, "Failure({cause:?})"),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|cause| cause as &(dyn std::error::Error + 'static))
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::new(message)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::new(message)
    }
}

/// Everything a pipe operation can refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PipeError {
    /// `advance(n)` asked for more bytes than the last `get_memory` handed out.
    AdvancePastMemory {
        /// Bytes asked for.
        requested: usize,
        /// Bytes still available in the memory handed out.
        available: usize,
    },
    /// `get_memory(size_hint)` asked for more than the largest segment
    /// ([`PipeOptions::maximum_segment_size`](crate::PipeOptions::maximum_segment_size)).
    /// .NET has no maximum and hands out a separate array for such a hint; see that
    /// option for why pipecheck bounds it.
    SizeHintTooLarge {
        /// The hint given.
        size_hint: usize,
        /// The maximum segment size of this pipe.
        max: usize,
    },
    /// A writer operation after the writer completed: `get_memory`, `advance` (also of
    /// 0 bytes), `write` and `flush`. .NET throws for `GetMemory` and `WriteAsync`, but
    /// its `FlushAsync` after `Complete` flushes nothing and returns a result, and its
    /// `Advance(0)` is a no-op; here every use after completion is refused alike.
    WriterCompleted,
    /// A reader operation after the reader completed.
    ReaderCompleted,
    /// `read` or `try_read` again before `advance_to` released the previous buffer.
    AdvanceRequired,
    /// `advance_to` with no buffer from `read` or `try_read` outstanding.
    NothingToAdvance,
    /// A position from an older read result.
    StalePosition {
        /// The read the position came from.
        position_read: u64,
        /// The read currently outstanding.
        current_read: u64,
    },
    /// A position or offset outside the buffer it is used with.
    PositionOutOfRange {
        /// The stream offset given.
        offset: u64,
        /// The buffer's first stream offset.
        start: u64,
        /// The buffer's end stream offset.
        end: u64,
    },
    /// `advance_to` with `examined` before `consumed`.
    ExaminedBeforeConsumed {
        /// Stream offset of `consumed`.
        consumed: u64,
        /// Stream offset of `examined`.
        examined: u64,
    },
    /// `advance_to` with `examined` before a previously examined position. .NET up to 8
    /// throws here too (`Pipe.AdvanceReader`); .NET 9 lets examined go back as long as it
    /// is not before consumed (dotnet/runtime#107360). pipecheck keeps refusing: the
    /// writer's lock-free flush counts back-pressure from the examined offset and relies
    /// on it never moving back.
    ExaminedWentBackwards {
        /// Stream offset examined before.
        previous: u64,
        /// Stream offset given now.
        examined: u64,
    },
    /// The writer completed with this failure.
    WriterFailed(Failure),
    /// The reader completed with this failure.
    ReaderFailed(Failure),
    /// [`reset_pipe`](crate::reset_pipe) while a side has not completed: a pipe is reset
    /// only once both its ends are done with it.
    ResetWhileActive {
        /// Whether the writer had completed.
        writer_completed: bool,
        /// Whether the reader had completed.
        reader_completed: bool,
    },
    /// [`reset_pipe`](crate::reset_pipe) with a writer and a reader of different pipes.
    ResetOtherPipe,
}

impl fmt::Display for PipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipeError::AdvancePastMemory { requested, available } => {
                write!(f, "advance({requested}) past the memory handed out ({available} bytes available)")
            }
            PipeError::SizeHintTooLarge { size_hint, max } => {
                write!(f, "size hint {size_hint} exceeds the maximum segment size {max}")
            }
            PipeError::WriterCompleted => f.write_str("the writer has completed"),
            PipeError::ReaderCompleted => f.write_str("the reader has completed"),
            PipeError::AdvanceRequired => {
                f.write_str("read called again before advance_to released the previous buffer")
            }
            PipeError::NothingToAdvance => f.write_str("advance_to called with no buffer outstanding"),
            PipeError::StalePosition { position_read, current_read } => {
                write!(f, "position from read #{position_read} used with read #{current_read}")
            }
            PipeError::PositionOutOfRange { offset, start, end } => {
                write!(f, "position {offset} outside the buffer [{start}, {end})")
            }
            PipeError::ExaminedBeforeConsumed { consumed, examined } => {
                write!(f, "examined position {examined} is before consumed position {consumed}")
            }
            PipeError::ExaminedWentBackwards { previous, examined } => {
                write!(f, "examined position {examined} is before the previously examined {previous}")
            }
            PipeError::WriterFailed(failure) => write!(f, "the writer failed: {failure}"),
            PipeError::ReaderFailed(failure) => write!(f, "the reader failed: {failure}"),
            PipeError::ResetWhileActive { writer_completed, reader_completed } => write!(
                f,
                "reset of a pipe still in use (writer completed: {writer_completed}, reader completed: \
                 {reader_completed})"
            ),
            PipeError::ResetOtherPipe => f.write_str("reset with a writer and a reader of different pipes"),
        }
    }
}

impl std::error::Error for PipeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PipeError::WriterFailed(failure) | PipeError::ReaderFailed(failure) => Some(failure),
            _ => None,
        }
    }
}

/// Invalid [`PipeOptions`](crate::PipeOptions).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionsError {
    /// The minimum segment size is zero or above the maximum (.NET accepts a minimum of
    /// 0; see [`PipeOptions::minimum_segment_size`](crate::PipeOptions::minimum_segment_size)).
    SegmentSizes {
        /// The minimum given.
        minimum: usize,
        /// The maximum given.
        maximum: usize,
    },
    /// The resume threshold is above the (non-zero) pause threshold.
    Thresholds {
        /// The pause threshold given.
        pause: u64,
        /// The resume threshold given.
        resume: u64,
    },
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsError::SegmentSizes { minimum, maximum } => {
                write!(f, "segment sizes must satisfy 0 < minimum <= maximum (got {minimum} and {maximum})")
            }
            OptionsError::Thresholds { pause, resume } => {
                write!(f, "resume threshold {resume} must not exceed the pause threshold {pause}")
            }
        }
    }
}

impl std::error::Error for OptionsError {}
