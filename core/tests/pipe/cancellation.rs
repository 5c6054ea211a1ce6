//! Cancellation: `cancel_pending_read` releases a read as canceled, and a canceled read
//! is *tentative*, as in .NET (`ReadingTentative`): the next read needs no `advance_to`
//! and returns the same unconsumed bytes (and any new ones), while `advance_to` on the
//! canceled buffer still works. A read that was not canceled still requires
//! `advance_to` (`errors.rs`).

use std::pin::pin;
use std::task::Poll;

use crate::common::{WakeCounter, block_on, poll_with};
use pipecheck_pipe::{PipeError, Reader, Writer};

fn flushed(data: &[u8]) -> (Writer, Reader) {
    let (mut writer, reader) = pipecheck_pipe::pipe();
    writer.write(data).unwrap();
    block_on(writer.flush()).unwrap();
    (writer, reader)
}

#[test]
fn a_canceled_read_needs_no_advance_before_the_next_read() {
    let (_writer, mut reader) = flushed(b"abc");
    reader.cancel_pending_read();
    let canceled = reader.try_read().unwrap().unwrap();
    assert!(canceled.is_canceled());
    assert_eq!(canceled.buffer().to_vec(), b"abc");
    let next = reader.try_read().unwrap().expect("the unread bytes are still there");
    assert!(!next.is_canceled());
    assert_eq!(next.buffer().to_vec(), b"abc");
}

#[test]
fn the_read_after_a_canceled_read_returns_the_same_bytes_and_new_ones() {
    let (mut writer, mut reader) = flushed(b"ab");
    reader.cancel_pending_read();
    assert!(block_on(reader.read()).unwrap().is_canceled());
    writer.write(b"cd").unwrap();
    block_on(writer.flush()).unwrap();
    let next = block_on(reader.read()).unwrap();
    assert_eq!(next.buffer().to_vec(), b"abcd");
    let end = next.buffer().end();
    reader.advance_to(end, end).unwrap();
}

#[test]
fn a_canceled_read_on_an_empty_pipe_leaves_the_next_read_waiting() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    reader.cancel_pending_read();
    let canceled = reader.try_read().unwrap().unwrap();
    assert!(canceled.is_canceled() && canceled.buffer().is_empty());
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &waker).is_pending(), "nothing was examined, nothing is there");
    writer.write(b"x").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(counter.wakes(), 1);
    match poll_with(read.as_mut(), &waker) {
        Poll::Ready(Ok(result)) => assert_eq!(result.buffer().to_vec(), b"x"),
        other => panic!("expected the flushed byte, got {other:?}"),
    }
}

#[test]
fn a_canceled_read_may_still_be_advanced() {
    let (_writer, mut reader) = flushed(b"abc");
    reader.cancel_pending_read();
    let canceled = reader.try_read().unwrap().unwrap();
    let (consumed, end) = (canceled.buffer().position(1).unwrap(), canceled.buffer().end());
    reader.advance_to(consumed, end).unwrap();
    // Everything was examined: the next read waits for more.
    assert!(reader.try_read().unwrap().is_none());
}

#[test]
fn positions_of_a_released_tentative_read_are_stale() {
    let (_writer, mut reader) = flushed(b"abc");
    reader.cancel_pending_read();
    let canceled = reader.try_read().unwrap().unwrap();
    let old = canceled.buffer().position(1).unwrap();
    let next = reader.try_read().unwrap().unwrap();
    let current = next.buffer().end();
    assert!(matches!(reader.advance_to(old, current), Err(PipeError::StalePosition { .. })));
    reader.advance_to(current, current).unwrap();
}

#[test]
fn a_second_read_after_an_ordinary_read_still_requires_advance() {
    let (_writer, mut reader) = flushed(b"abc");
    reader.cancel_pending_read();
    assert!(reader.try_read().unwrap().unwrap().is_canceled());
    assert!(!reader.try_read().unwrap().unwrap().is_canceled());
    assert_eq!(reader.try_read().unwrap_err(), PipeError::AdvanceRequired);
}

/// .NET's `GetReadResult` checks the writer's completion (`IsCompletedOrThrow`) before
/// it observes a cancel: a read canceled after the writer failed throws the failure.
#[test]
fn a_read_canceled_after_the_writer_failed_reports_the_failure() {
    let (mut writer, mut reader) = flushed(b"abc");
    writer.complete(Some(pipecheck_pipe::Failure::new("disk on fire")));
    reader.cancel_pending_read();
    match reader.try_read() {
        Err(PipeError::WriterFailed(failure)) => assert_eq!(failure.message(), "disk on fire"),
        other => panic!("expected the writer's failure, got {other:?}"),
    }
}

#[test]
fn a_pending_read_canceled_after_the_writer_failed_reports_the_failure() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let canceller = reader.read_canceller();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &waker).is_pending(), "nothing was written");
    writer.complete(Some(pipecheck_pipe::Failure::new("disk on fire")));
    assert_eq!(counter.wakes(), 1, "completing the writer wakes the read");
    canceller.cancel_pending_read();
    match poll_with(read.as_mut(), &waker) {
        Poll::Ready(Err(PipeError::WriterFailed(failure))) => assert_eq!(failure.message(), "disk on fire"),
        other => panic!("expected the writer's failure, got {:?}", other.map(|r| r.map(|r| r.is_canceled()))),
    }
}

#[test]
fn a_read_canceled_after_a_clean_writer_completion_is_completed_and_canceled() {
    let (mut writer, mut reader) = flushed(b"abc");
    writer.complete(None);
    reader.cancel_pending_read();
    let result = reader.try_read().unwrap().unwrap();
    assert!(result.is_canceled() && result.is_completed());
    assert_eq!(result.buffer().to_vec(), b"abc");
}
