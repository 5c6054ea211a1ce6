//! Reader operations one at a time: `read` and `try_read` on an empty pipe, after a
//! flush, after the writer completed and after a cancel (which persists until a read
//! observes it), and `advance_to`'s consumed/examined semantics: what the next read
//! returns and whether it waits.

use crate::common::block_on;
use crate::common::watchdog::Watch;

use std::pin::pin;
use std::task::Poll;

use crate::common::{WakeCounter, poll_once, poll_with};
use pipecheck_pipe::{Reader, Writer};

fn flushed(data: &[u8]) -> (Writer, Reader) {
    let (mut writer, reader) = pipecheck_pipe::pipe();
    writer.write(data).unwrap();
    block_on(writer.flush()).unwrap();
    (writer, reader)
}

#[test]
fn read_on_an_empty_pipe_is_pending() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    assert!(poll_once(pin!(reader.read())).is_pending());
}

#[test]
fn try_read_on_an_empty_pipe_returns_none() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    assert!(reader.try_read().unwrap().is_none());
    // Still none, and no buffer became outstanding.
    assert!(reader.try_read().unwrap().is_none());
}

#[test]
fn read_before_any_flush_ignores_unflushed_bytes() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"not yet").unwrap();
    assert!(reader.try_read().unwrap().is_none());
}

#[test]
fn read_after_flush_returns_the_flushed_bytes() {
    let (_writer, mut reader) = flushed(b"payload");
    let result = block_on(reader.read()).unwrap();
    assert_eq!(result.buffer().to_vec(), b"payload");
    assert!(!result.is_completed() && !result.is_canceled());
    assert_eq!(result.buffer().start().offset(), 0);
    assert_eq!(result.buffer().end().offset(), 7);
}

#[test]
fn try_read_after_flush_returns_the_flushed_bytes() {
    let (_writer, mut reader) = flushed(b"payload");
    let result = reader.try_read().unwrap().expect("flushed bytes are ready");
    assert_eq!(result.buffer().to_vec(), b"payload");
}

#[test]
fn read_is_completed_once_the_writer_completed() {
    let (mut writer, mut reader) = flushed(b"last words");
    writer.complete(None);
    let result = block_on(reader.read()).unwrap();
    assert!(result.is_completed());
    assert_eq!(result.buffer().to_vec(), b"last words");
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    // Completed and drained: reads stay ready, with an empty buffer.
    let result = reader.try_read().unwrap().expect("a completed pipe never waits");
    assert!(result.is_completed() && result.buffer().is_empty());
}

#[test]
fn writer_completion_commits_unflushed_bytes() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"never flushed").unwrap();
    writer.complete(None);
    let result = reader.try_read().unwrap().unwrap();
    assert!(result.is_completed());
    assert_eq!(result.buffer().to_vec(), b"never flushed");
}

#[test]
fn dropping_the_writer_completes_it() {
    let (writer, mut reader) = flushed(b"bye");
    drop(writer);
    assert!(reader.try_read().unwrap().unwrap().is_completed());
}

#[test]
fn writer_completion_wakes_a_pending_read() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    writer.complete(None);
    assert_eq!(counter.wakes(), 1);
    match poll_with(read.as_mut(), &waker) {
        Poll::Ready(Ok(result)) => assert!(result.is_completed() && result.buffer().is_empty()),
        other => panic!("expected a completed read, got {other:?}"),
    }
}

#[test]
fn cancel_pending_read_releases_a_pending_read_as_canceled() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    let canceller = reader.read_canceller();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    canceller.cancel_pending_read();
    assert_eq!(counter.wakes(), 1);
    match poll_with(read.as_mut(), &waker) {
        Poll::Ready(Ok(result)) => {
            assert!(result.is_canceled() && !result.is_completed() && result.buffer().is_empty())
        }
        other => panic!("expected a canceled read, got {other:?}"),
    }
}

#[test]
fn cancel_persists_until_a_read_observes_it() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    reader.cancel_pending_read();
    let result = reader.try_read().unwrap().expect("a pending cancel makes the read ready");
    assert!(result.is_canceled());
    let start = result.buffer().start();
    reader.advance_to(start, start).unwrap();
    // Observed once: the next read waits again.
    assert!(reader.try_read().unwrap().is_none());
}

#[test]
fn canceled_read_still_carries_the_unread_bytes() {
    let (_writer, mut reader) = flushed(b"data");
    reader.cancel_pending_read();
    let result = reader.try_read().unwrap().unwrap();
    assert!(result.is_canceled());
    assert_eq!(result.buffer().to_vec(), b"data");
}

#[test]
fn cancel_from_another_thread_releases_a_blocked_read() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    let canceller = reader.read_canceller();
    // Whether the cancel lands before or during the read, the read ends canceled.
    let watch = Watch::new();
    let cancelling = watch.spawn("canceller cancel_pending_read()", move || canceller.cancel_pending_read());
    let result = block_on(reader.read()).unwrap();
    assert!(result.is_canceled());
    watch.join(cancelling);
}

#[test]
fn examined_before_the_end_makes_the_next_read_ready_at_once() {
    let (_writer, mut reader) = flushed(b"abcdef");
    let result = reader.try_read().unwrap().unwrap();
    let consumed = result.buffer().position(2).unwrap();
    let examined = result.buffer().position(4).unwrap();
    reader.advance_to(consumed, examined).unwrap();
    let result = reader.try_read().unwrap().expect("unexamined bytes remain, so no wait");
    assert_eq!(result.buffer().to_vec(), b"cdef");
}

#[test]
fn examined_to_the_end_makes_the_next_read_wait_for_new_bytes() {
    let (mut writer, mut reader) = flushed(b"abcdef");
    let result = reader.try_read().unwrap().unwrap();
    let consumed = result.buffer().position(2).unwrap();
    let end = result.buffer().end();
    reader.advance_to(consumed, end).unwrap();
    assert!(reader.try_read().unwrap().is_none(), "everything was examined");
    assert!(poll_once(pin!(reader.read())).is_pending());

    writer.write(b"gh").unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().expect("new bytes arrived");
    assert_eq!(result.buffer().to_vec(), b"cdefgh", "unconsumed bytes come back with the new ones");
}

#[test]
fn consuming_nothing_and_examining_nothing_returns_the_same_bytes() {
    let (_writer, mut reader) = flushed(b"again");
    for _ in 0..3 {
        let result = reader.try_read().unwrap().unwrap();
        assert_eq!(result.buffer().to_vec(), b"again");
        let start = result.buffer().start();
        reader.advance_to(start, start).unwrap();
    }
}

#[test]
fn consuming_everything_makes_the_next_read_wait() {
    let (mut writer, mut reader) = flushed(b"all");
    let result = reader.try_read().unwrap().unwrap();
    let end = result.buffer().end();
    reader.advance(end).unwrap();
    assert!(reader.try_read().unwrap().is_none());
    writer.write(b" more").unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    assert_eq!(result.buffer().to_vec(), b" more");
    assert_eq!(result.buffer().start().offset(), 3, "positions are absolute stream offsets");
}

#[test]
fn advance_consumes_and_examines_the_same_position() {
    let (_writer, mut reader) = flushed(b"0123456789");
    let result = reader.try_read().unwrap().unwrap();
    let middle = result.buffer().position(5).unwrap();
    reader.advance(middle).unwrap();
    // Examined only up to the middle, so the rest is ready at once.
    let result = reader.try_read().unwrap().unwrap();
    assert_eq!(result.buffer().to_vec(), b"56789");
}

#[test]
fn blocking_read_returns_when_another_thread_flushes() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let watch = Watch::new();
    let writing = watch.spawn("writer", move || {
        writer.write(b"across threads").unwrap();
        block_on(writer.flush()).unwrap();
        writer
    });
    let result = block_on(reader.read()).unwrap();
    assert_eq!(result.buffer().to_vec(), b"across threads");
    drop(watch.join(writing));
}

/// A pending read polled again with another waker (its task moved) must be woken
/// through the new waker, not the one of the first poll: only the new task waits.
#[test]
fn a_read_repolled_with_another_waker_wakes_the_new_one() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let (first, first_waker) = WakeCounter::new();
    let (second, second_waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &first_waker).is_pending());
    assert!(poll_with(read.as_mut(), &second_waker).is_pending());
    writer.write(b"a").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!((first.wakes(), second.wakes()), (0, 1), "wakes of (first, second) waker");
    match poll_with(read.as_mut(), &second_waker) {
        Poll::Ready(Ok(result)) => assert_eq!(result.buffer().to_vec(), b"a"),
        other => panic!("expected the flushed byte, got {other:?}"),
    }
}

/// Polling again with the same waker keeps it: one wake, to that waker.
#[test]
fn a_read_repolled_with_the_same_waker_is_woken_once() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    writer.complete(None);
    assert_eq!(counter.wakes(), 1);
}

#[test]
fn a_writer_thread_that_panics_completes_the_pipe_as_it_unwinds() {
    // Dropping the writer completes it, also while its thread unwinds: the reader then
    // sees the stream end instead of waiting for a writer that is gone.
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let writing = std::thread::spawn(move || {
        writer.write(b"last words").unwrap();
        block_on(writer.flush()).unwrap();
        panic!("the writer's thread fails while holding the writer");
    });
    assert!(writing.join().is_err(), "the writer's thread panicked");
    let result = block_on(reader.read()).unwrap();
    assert_eq!(result.buffer().to_vec(), b"last words");
    assert!(result.is_completed(), "the unwinding writer completed the pipe");
}
