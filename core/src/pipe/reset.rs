//! [`reset_pipe`]: makes a pipe whose both ends completed usable again, keeping its
//! memory (.NET's `Pipe.Reset`, which Kestrel uses to pool pipes).

use crate::fault;
use crate::pipe::error::PipeError;
use crate::pipe::observe::PipeEvent;
use crate::pipe::{Reader, Writer};
use pipecheck_sync::sync::Arc;

/// Makes the pipe of `writer` and `reader` new again once both have completed: offsets
/// back to 0, nothing buffered, neither end completed, no cancel or failure pending,
/// the default-sized first segment next. What it keeps is what pooling pipes is for:
/// the pipe's shared state and lock, its segment objects (pooled by the reader as
/// segments were consumed and released, taken again by the next writes) and its
/// buffer pool. Positions from reads before the reset stay stale.
///
/// A cancel from a canceller handle that lands before the reset is forgotten by it.
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_sync::future::block_on;
/// let (mut writer, mut reader) = pipecheck_pipe::pipe();
/// writer.write(b"first").unwrap();
/// writer.complete(None);
/// reader.complete(None);
/// pipecheck_pipe::reset_pipe(&mut writer, &mut reader).unwrap();
/// writer.write(b"second").unwrap();
/// block_on(writer.flush()).unwrap();
/// let result = block_on(reader.read()).unwrap();
/// assert_eq!(result.buffer().to_vec(), b"second");
/// assert_eq!(result.buffer().start().offset(), 0);
/// ```
///
/// # Errors
///
/// [`PipeError::ResetOtherPipe`] when the ends belong to different pipes;
/// [`PipeError::ResetWhileActive`] while either end has not completed (nothing changes).
pub fn reset_pipe(writer: &mut Writer, reader: &mut Reader) -> Result<(), PipeError> {
    let shared = writer.shared().clone();
    if !Arc::ptr_eq(&shared, reader.shared()) {
        return Err(PipeError::ResetOtherPipe);
    }
    {
        let mut state = shared.lock();
        let writer_completed = state.writer_completion.is_some();
        let reader_completed = state.reader_completion.is_some();
        if !writer_completed || !reader_completed {
            return Err(PipeError::ResetWhileActive { writer_completed, reader_completed });
        }
        let examined = state.examined;
        state.reset();
        if fault::ResetKeepsExamined.is_active() {
            // The planted bug: the ending run's examined offset survives the reset.
            state.examined = examined;
        }
        // Both ends completed, so no fast path runs: the word starts over.
        // The planted bug: the lock-free flush's count keeps the ending run's offset.
        let kept = fault::ResetKeepsReleased.is_active().then(|| shared.published.released());
        shared.published.reset();
        if let Some(released) = kept {
            shared.published.set_released(released);
        }
        shared.publish_released(&mut state);
        shared.observer.emit(|| PipeEvent::Reset);
    }
    writer.reset_after_completion();
    reader.reset_after_completion();
    Ok(())
}
