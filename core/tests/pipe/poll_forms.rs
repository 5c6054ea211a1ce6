//! The poll forms (`Writer::poll_flush_result`, `Reader::poll_read_result`), used by
//! `poll_*` implementations such as the I/O adapters: the same operations as `flush` and
//! `read`, one poll at a time, with nothing stored between polls.

use std::task::{Context, Poll, Waker};

use crate::common::WakeCounter;
use pipecheck_pipe::{FlushResult, PipeOptions};

/// Pause the writer at 2 unexamined bytes, resume it below 1.
fn pause_at_two() -> PipeOptions {
    PipeOptions::new().pause_writer_threshold(2).resume_writer_threshold(1)
}

#[test]
fn poll_flush_result_commits_what_was_advanced() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"ping").unwrap();
    let polled = writer.poll_flush_result(&mut Context::from_waker(Waker::noop()));
    assert!(
        matches!(polled, Poll::Ready(Ok(FlushResult { is_completed: false, is_canceled: false }))),
        "{polled:?}"
    );
    let read = reader.try_read().unwrap().expect("the poll committed the bytes");
    assert_eq!(read.buffer().to_vec(), b"ping");
}

#[test]
fn poll_flush_result_waits_while_paused_and_is_woken_by_the_consume() {
    let (mut writer, mut reader) = pause_at_two().build().unwrap();
    writer.write(b"abcd").unwrap();
    let (counter, waker) = WakeCounter::new();
    let mut cx = Context::from_waker(&waker);
    assert!(writer.poll_flush_result(&mut cx).is_pending(), "4 unexamined bytes, pause threshold 2");
    let read = reader.try_read().unwrap().expect("the pending flush committed the bytes");
    assert_eq!(read.buffer().to_vec(), b"abcd");
    let end = read.buffer().end();
    reader.advance_to(end, end).unwrap();
    assert_eq!(counter.wakes(), 1, "consuming below the resume threshold wakes the paused flush");
    assert!(matches!(writer.poll_flush_result(&mut cx), Poll::Ready(Ok(_))));
}

/// The poll form commits only when bytes were advanced since the last commit, so a
/// poll with nothing advanced leaves the writer's head, and the memory it handed out,
/// with the writer (a `flush` would end the write: memory handed out before it may not
/// be advanced into after it).
#[test]
fn a_poll_flush_with_nothing_advanced_keeps_the_memory_handed_out() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let memory = writer.get_memory(4).unwrap();
    memory[..2].copy_from_slice(b"hi");
    let polled = writer.poll_flush_result(&mut Context::from_waker(Waker::noop()));
    assert!(matches!(polled, Poll::Ready(Ok(_))), "{polled:?}");
    writer.advance(2).expect("the memory handed out before the poll is still the writer's");
    assert!(writer.poll_flush_result(&mut Context::from_waker(Waker::noop())).is_ready());
    assert_eq!(reader.try_read().unwrap().expect("committed").buffer().to_vec(), b"hi");
}
