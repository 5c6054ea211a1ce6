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
//! Modules: [`primitive`] (the sync facade), [`faults`] (planted bugs, feature
//! `faults`), [`spsc`] (the segment pool's queue), and the pipe itself
//! ([`Writer`], [`Reader`], [`PipeOptions`]).

pub mod buffer_pool;
pub mod error;
pub mod faults;
pub mod observe;
pub mod options;
mod pipe;
pub mod primitive;
pub mod spsc;

pub use buffer_pool::{BufferPool, DefaultBufferPool};
pub use error::{Failure, OptionsError, PipeError};
pub use faults::{Fault, FaultSet};
pub use observe::{PipeEvent, PipeObserver, SegmentId};
pub use options::{PipeOptions, PoolDesign};
pub use pipe::{
    Chunks, FlushCanceller, FlushFuture, FlushResult, Position, ReadBuf, ReadCanceller, ReadCursor,
    ReadFuture, ReadResult, Reader, Writer,
};

/// A pipe with the default [`PipeOptions`].
pub fn pipe() -> (Writer, Reader) {
    PipeOptions::new().build().expect("default options are valid")
}
