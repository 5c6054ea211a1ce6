//! # pipecheck-core
//!
//! A single-reader/single-writer byte pipe in the style of .NET's
//! System.IO.Pipelines after its contention-reduction work, built on swappable sync
//! primitives ([`primitive`]) so the same code runs on `std`, under loom and under
//! shuttle.
//!
// Under loom and shuttle the sync primitives only work inside a model/test run: compile, do not run.
#![cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#![cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
//! use pipecheck_core::primitive::future::block_on;
//!
//! let (mut writer, mut reader) = pipecheck_core::pipe();
//! writer.write(b"hello, pipe").unwrap();
//! block_on(writer.flush()).unwrap();
//!
//! let result = block_on(reader.read()).unwrap();
//! assert_eq!(result.buffer().to_vec(), b"hello, pipe");
//! let end = result.buffer().end();
//! reader.advance_to(end, end).unwrap();
//! ```
//!
//! Modules: [`primitive`] (the sync facade), [`fault`] (planted bugs, feature
//! `faults`), [`spsc`] (the segment pool's queue), and the pipe itself
//! ([`Writer`], [`Reader`], [`PipeOptions`]).
//!
//! Next to the pipe, other concurrent designs on the same facade, checked the same way:
//! [`async_mutex`] (an async lock on one interlocked gate), [`message_channel`](mod@message_channel)
//! (a close racing a receive), [`completion_source`] (a reusable, versioned completion
//! source) and [`partitioned_pool`] (a per-thread partitioned buffer pool).
//!
//! With feature `tokio` or `futures-io`, the `adapters` module makes the ends async I/O streams
//! (`AsyncRead`, `AsyncBufRead`, `AsyncWrite`) and copies between a pipe and a stream.

#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod adapters;
pub mod async_mutex;
pub mod buffer_pool;
pub mod completion_source;
pub mod error;
pub mod fault;
mod invariant_id;
pub mod message_channel;
pub mod observe;
pub mod options;
pub mod partitioned_pool;
mod pipe;
pub mod planted;
pub mod primitive;
pub mod primitive_event;
pub mod spsc;
mod violation;

pub use async_mutex::{AsyncMutex, AsyncMutexGuard, Lock};
pub use buffer_pool::{BufferPool, DefaultBufferPool, LockedBufferPool};
pub use completion_source::{CompletionError, CompletionSource, Token, Wait};
pub use error::{Failure, OptionsError, PipeError};
pub use invariant_id::InvariantId;
pub use message_channel::{
    ChannelError, Message, MessageReceiver, MessageSender, message_channel, message_channel_observed,
};
pub use observe::{PipeEnd, PipeEvent, PipeObserver, PipeOperation, SegmentId, WakerId};
pub use options::{LockScope, PipeOptions, PoolDesign};
pub use partitioned_pool::{PartitionHandle, PartitionedPool, PoolStats};
pub use pipe::{
    Chunks, FlushCanceller, FlushFuture, FlushResult, Position, ReadBuf, ReadCanceller, ReadCursor,
    ReadFuture, ReadResult, Reader, Writer, reset_pipe,
};
pub use planted::PlantedFault;
pub use primitive_event::{Handover, PrimitiveEvent, PrimitiveId, PrimitiveObserver};
pub use violation::Violation;

/// A pipe with the default [`PipeOptions`].
pub fn pipe() -> (Writer, Reader) {
    PipeOptions::new().build().expect("default options are valid")
}
