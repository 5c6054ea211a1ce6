//! The observable length and options: `Reader::buffered_len` is
//! committed − examined bytes (unflushed bytes do not count, examined ones no longer
//! do); `PipeOptions` reports every option; and `reset_pipe` makes a pipe whose both
//! ends completed usable again, reusing its pooled segments, and refuses while an end
//! is still in use.

use std::pin::pin;

use crate::common::{Recorder, block_on, created, poll_once, taken};
use pipecheck_pipe::{Failure, LockScope, PipeError, PipeOptions, PoolDesign, reset_pipe};

#[test]
fn buffered_len_counts_flushed_bytes_only() {
    let (mut writer, reader) = pipecheck_pipe::pipe();
    writer.write(b"abc").unwrap();
    assert_eq!(reader.buffered_len(), Ok(0), "unflushed bytes are not buffered yet");
    assert!(poll_once(pin!(writer.flush())).is_ready());
    assert_eq!(reader.buffered_len(), Ok(3));
}

#[test]
fn buffered_len_drops_by_examined_bytes_not_consumed_ones() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"abcdef").unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    let result = reader.try_read().unwrap().unwrap();
    let (consumed, examined) = (result.buffer().position(1).unwrap(), result.buffer().position(4).unwrap());
    assert_eq!(reader.buffered_len(), Ok(6), "an outstanding read changes nothing yet");
    reader.advance_to(consumed, examined).unwrap();
    assert_eq!(reader.buffered_len(), Ok(2), "6 committed − 4 examined, though 5 are unconsumed");
}

#[test]
fn buffered_len_after_the_reader_completed_is_refused() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    reader.complete(None);
    assert_eq!(reader.buffered_len(), Err(PipeError::ReaderCompleted));
}

#[test]
fn options_report_the_defaults() {
    let options = PipeOptions::new();
    assert_eq!(options.get_minimum_segment_size(), PipeOptions::DEFAULT_MINIMUM_SEGMENT_SIZE);
    assert_eq!(options.get_maximum_segment_size(), PipeOptions::DEFAULT_MAXIMUM_SEGMENT_SIZE);
    assert_eq!(options.get_pause_writer_threshold(), PipeOptions::DEFAULT_PAUSE_WRITER_THRESHOLD);
    assert_eq!(options.get_resume_writer_threshold(), PipeOptions::DEFAULT_RESUME_WRITER_THRESHOLD);
    assert_eq!(options.get_max_pooled_segments(), PipeOptions::DEFAULT_MAX_POOLED_SEGMENTS);
    assert_eq!(options.get_pool_design(), PoolDesign::Fifo);
    assert_eq!(options.get_lock_scope(), LockScope::Narrow);
    assert!(!options.has_observer());
}

#[test]
fn options_report_what_was_set() {
    let options = PipeOptions::new()
        .minimum_segment_size(16)
        .maximum_segment_size(64)
        .pause_writer_threshold(300)
        .resume_writer_threshold(0)
        .max_pooled_segments(3)
        .pool_first_chunk(0)
        .pool_design(PoolDesign::LockedStack)
        .lock_scope(LockScope::EveryOperation)
        .observer(Recorder::new());
    assert_eq!(options.get_minimum_segment_size(), 16);
    assert_eq!(options.get_maximum_segment_size(), 64);
    assert_eq!(options.get_pause_writer_threshold(), 300);
    assert_eq!(options.get_resume_writer_threshold(), 0, "as set; the pipe acts on 0 as on 1");
    assert_eq!(options.get_max_pooled_segments(), 3);
    assert_eq!(options.get_pool_first_chunk(), 1, "at least one slot");
    assert_eq!(options.get_pool_design(), PoolDesign::LockedStack);
    assert_eq!(options.get_lock_scope(), LockScope::EveryOperation);
    assert!(options.has_observer());
    assert!(options.get_buffer_pool().rent(8).len() >= 8);
}

#[test]
fn reset_after_both_ends_completed_makes_the_pipe_new_again() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"first").unwrap();
    writer.complete(Some(Failure::new("first run failed")));
    reader.cancel_pending_read();
    reader.complete(None);
    reset_pipe(&mut writer, &mut reader).unwrap();

    assert_eq!(reader.buffered_len(), Ok(0));
    assert_eq!(writer.unflushed_bytes(), 0);
    writer.write(b"second").unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    let result = reader.try_read().unwrap().expect("the new bytes are readable");
    assert_eq!(result.buffer().to_vec(), b"second");
    assert_eq!(result.buffer().start().offset(), 0, "offsets start over");
    assert!(!result.is_completed() && !result.is_canceled(), "no completion, failure or cancel survives");
}

#[test]
fn reset_reuses_the_pooled_segments() {
    let recorder = Recorder::new();
    let (mut writer, mut reader) = PipeOptions::new()
        .minimum_segment_size(4)
        .maximum_segment_size(4)
        .observer(recorder.clone())
        .build()
        .unwrap();
    // Two segments' worth, fully consumed: the first segment goes back to the pool.
    writer.write(b"abcdefgh").unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    let result = block_on(reader.read()).unwrap();
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    writer.complete(None);
    reader.complete(None);
    let created_before = recorder.segments(created).len();

    reset_pipe(&mut writer, &mut reader).unwrap();
    writer.write(b"ijkl").unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    assert_eq!(recorder.segments(created).len(), created_before, "no new segment object after the reset");
    assert!(!recorder.segments(taken).is_empty(), "the new write took a pooled segment");
    assert_eq!(block_on(reader.read()).unwrap().buffer().to_vec(), b"ijkl");
}

#[test]
fn reset_while_an_end_is_in_use_is_refused() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    assert_eq!(
        reset_pipe(&mut writer, &mut reader),
        Err(PipeError::ResetWhileActive { writer_completed: false, reader_completed: false })
    );
    writer.complete(None);
    assert_eq!(
        reset_pipe(&mut writer, &mut reader),
        Err(PipeError::ResetWhileActive { writer_completed: true, reader_completed: false })
    );
    // Nothing changed: the reader still sees the completion.
    assert!(block_on(reader.read()).unwrap().is_completed());
}

#[test]
fn reset_with_the_ends_of_two_pipes_is_refused() {
    let (mut writer, mut reader_a) = pipecheck_pipe::pipe();
    let (mut writer_b, mut reader) = pipecheck_pipe::pipe();
    for w in [&mut writer, &mut writer_b] {
        w.complete(None);
    }
    reader.complete(None);
    reader_a.complete(None);
    assert_eq!(reset_pipe(&mut writer, &mut reader), Err(PipeError::ResetOtherPipe));
}

#[test]
fn positions_from_before_the_reset_are_stale() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"ab").unwrap();
    writer.complete(None);
    let old = block_on(reader.read()).unwrap().buffer().end();
    reader.complete(None);
    reset_pipe(&mut writer, &mut reader).unwrap();
    writer.write(b"cd").unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    assert_eq!(block_on(reader.read()).unwrap().buffer().to_vec(), b"cd");
    assert!(matches!(reader.advance_to(old, old), Err(PipeError::StalePosition { .. })));
}
