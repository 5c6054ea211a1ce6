//! # pipecheck-pipe
//!
//! A single-reader/single-writer byte pipe in the style of .NET's
//! System.IO.Pipelines after its contention-reduction work, built on pipecheck's
//! swappable sync primitives (`pipecheck-sync`) so the same code runs on `std`, under
//! loom and under shuttle.
//!
// Under loom and shuttle the sync primitives only work inside a model/test run: compile, do not run.
#![cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#![cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
//! use pipecheck_sync::future::block_on;
//!
//! let (mut writer, mut reader) = pipecheck_pipe::pipe();
//! writer.write(b"hello, pipe").unwrap();
//! block_on(writer.flush()).unwrap();
//!
//! let result = block_on(reader.read()).unwrap();
//! assert_eq!(result.buffer().to_vec(), b"hello, pipe");
//! let end = result.buffer().end();
//! reader.advance_to(end, end).unwrap();
//! ```
//!
//! Modules: [`fault`] (planted bugs, switchable in verification builds), [`invariant`]
//! (the names of the invariants they break), [`spsc`] (the segment pool's queue), and
//! the pipe itself
//! ([`Writer`], [`Reader`], [`PipeOptions`]).
//!
//! Next to the pipe, other concurrent designs on the same facade, checked the same way:
//! [`AsyncMutex`] (an async lock on one interlocked gate), [`message_channel`]
//! (a close racing a receive), [`CompletionSource`] (a reusable, versioned completion
//! source) and [`PartitionedPool`] (a per-thread partitioned buffer pool).
//!
//! With feature `tokio` or `futures-io`, the `adapters` module makes the ends async I/O streams
//! (`AsyncRead`, `AsyncBufRead`, `AsyncWrite`) and copies between a pipe and a stream.

// Three concerns, one folder each: the pipe (`pipe/`: its ends, options, events, buffer
// pool, segment queue and async I/O adapters), the seed primitives checked beside it
// (`seeds/`), and the checking vocabulary every target shares (`check/`: invariant ids,
// violations, planted bugs). The sync facade (`primitive/`) is under all of them. Every
// item has one public path: the root re-exports below, or the modules `primitive`,
// `fault`, `spsc` and `adapters`.
pub mod fault;
pub mod invariant;
mod pipe;
mod seeds;

#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub use pipe::adapters;
pub use pipe::spsc;

pub use pipe::buffer_pool::{BufferPool, DefaultBufferPool, LockedBufferPool};
pub use pipe::error::{Failure, OptionsError, PipeError};
pub use pipe::observe::{PipeEnd, PipeEvent, PipeObserver, PipeOperation, SegmentId, WakerId};
pub use pipe::options::{LockScope, PipeOptions, PoolDesign};
pub use pipe::{
    Chunks, FlushCanceller, FlushFuture, FlushResult, Position, ReadBuf, ReadCanceller, ReadCursor,
    ReadFuture, ReadResult, Reader, Writer, reset_pipe,
};
pub use seeds::async_mutex::{AsyncMutex, AsyncMutexGuard, Lock};
pub use seeds::completion_source::{CompletionError, CompletionSource, Token, Wait};
pub use seeds::message_channel::{
    ChannelError, Message, MessageReceiver, MessageSender, message_channel, message_channel_observed,
};
pub use seeds::partitioned_pool::{PartitionHandle, PartitionedPool, PoolStats};
pub use seeds::primitive_event::{Handover, PrimitiveEvent, PrimitiveId, PrimitiveObserver};

/// A pipe with the default [`PipeOptions`].
pub fn pipe() -> (Writer, Reader) {
    PipeOptions::new().build().expect("default options are valid")
}

/// README's Rust examples, compiled and run as doctests (not under loom or shuttle: their
/// sync primitives only work inside a model, and the examples build pipes outside one).
#[cfg(all(doctest, not(any(feature = "loom", feature = "shuttle"))))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
