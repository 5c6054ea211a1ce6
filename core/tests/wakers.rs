//! A pending operation polled again is woken once, through the waker of its last poll.
//! (Re-polling with a *different* waker is tested next to each operation:
//! `reader_ops.rs` and `backpressure.rs`, `..._repolled_with_another_waker_wakes_the_new_one`.)
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

mod common;

use std::pin::pin;

use common::{WakeCounter, poll_with};

#[test]
fn a_read_polled_again_with_the_same_waker_is_woken_once() {
    let (mut writer, mut reader) = pipecheck_core::pipe();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    for _ in 0..3 {
        assert!(poll_with(read.as_mut(), &waker).is_pending());
    }
    writer.write(b"x").unwrap();
    drop(writer.flush());
    assert_eq!(counter.wakes(), 1, "one pending read, one wake, however often it was polled");
    assert!(poll_with(read.as_mut(), &waker).is_ready());
}
