//! A pending operation polled again with a different waker (its task moved to another
//! executor thread, or the caller rebuilt its context) must be woken through the *new*
//! waker: the old one may belong to a task that no longer polls this future.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

mod common;

use std::pin::pin;

use common::{WakeCounter, poll_with};
use pipecheck_core::PipeOptions;

#[test]
fn a_read_polled_again_with_a_new_waker_wakes_the_new_one() {
    let (mut writer, mut reader) = pipecheck_core::pipe();
    let (old, old_waker) = WakeCounter::new();
    let (new, new_waker) = WakeCounter::new();
    {
        let mut read = pin!(reader.read());
        assert!(poll_with(read.as_mut(), &old_waker).is_pending());
        assert!(poll_with(read.as_mut(), &new_waker).is_pending(), "nothing was written yet");
        writer.write(b"x").unwrap();
        drop(writer.flush()); // the flush commits (and wakes) at the call; nothing to wait for
        assert_eq!(new.wakes(), 1, "the flush must wake the waker of the last poll");
        assert_eq!(old.wakes(), 0, "the replaced waker is not the one to wake");
        assert!(poll_with(read.as_mut(), &new_waker).is_ready());
    }
}

#[test]
fn a_paused_flush_polled_again_with_a_new_waker_wakes_the_new_one() {
    let (mut writer, mut reader) =
        PipeOptions::new().pause_writer_threshold(100).resume_writer_threshold(50).build().unwrap();
    let (old, old_waker) = WakeCounter::new();
    let (new, new_waker) = WakeCounter::new();
    writer.write(&[0; 100]).unwrap();
    let mut flush = pin!(writer.flush());
    assert!(poll_with(flush.as_mut(), &old_waker).is_pending(), "100 unexamined bytes pause the flush");
    assert!(poll_with(flush.as_mut(), &new_waker).is_pending(), "still paused");
    let result = reader.try_read().unwrap().expect("100 bytes");
    let end = result.buffer().end();
    reader.advance(end).unwrap();
    assert_eq!(new.wakes(), 1, "consuming below the resume threshold must wake the last poll's waker");
    assert_eq!(old.wakes(), 0, "the replaced waker is not the one to wake");
    assert!(poll_with(flush.as_mut(), &new_waker).is_ready());
}

#[test]
fn a_read_polled_again_with_the_same_waker_is_woken_once() {
    let (mut writer, mut reader) = pipecheck_core::pipe();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    for _ in 0..3 {
        assert!(poll_with(read.as_mut(), &waker).is_pending());
    }
    writer.write(b"x").unwrap();
    drop(writer.flush()); // the flush commits (and wakes) at the call; nothing to wait for
    assert_eq!(counter.wakes(), 1, "one pending read, one wake, however often it was polled");
    assert!(poll_with(read.as_mut(), &waker).is_ready());
}
