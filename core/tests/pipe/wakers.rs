//! A pending operation polled again is woken once, through the waker of its last poll.
//! (Re-polling with a *different* waker is tested next to each operation:
//! `reader_ops.rs` and `backpressure.rs`, `..._repolled_with_another_waker_wakes_the_new_one`.)

use std::pin::pin;

use crate::common::{WakeCounter, poll_with};

#[test]
fn a_read_polled_again_with_the_same_waker_is_woken_once() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
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

/// The crate's own `block_on` (`primitive::future::block_on`, what the pipe's blocking
/// users call), on a watched thread: a lost wake stalls it, and the watchdog fails the
/// test naming it instead of hanging.
mod crate_block_on {
    use std::future::poll_fn;
    use std::task::Poll;

    use pipecheck_pipe::{PipeEvent, PipeOptions};
    use pipecheck_sync::future::block_on;

    use crate::common::Recorder;
    use crate::common::watchdog::Watch;

    #[test]
    fn a_read_parked_in_block_on_resumes_when_a_flush_wakes_it() {
        let recorder = Recorder::new();
        let (mut writer, mut reader) = PipeOptions::new().observer(recorder.clone()).build().unwrap();
        let watch = Watch::new();
        let reading = watch.spawn("reader", move || {
            let result = block_on(reader.read()).unwrap();
            result.buffer().to_vec()
        });
        // Flush only once the read has parked, so only the flush's wake can end it.
        while !recorder.events().iter().any(|e| matches!(e, PipeEvent::ReadParked { .. })) {
            watch.check();
            std::thread::yield_now();
        }
        writer.write(b"woken").unwrap();
        drop(writer.flush());
        assert_eq!(watch.join(reading), b"woken");
    }

    #[test]
    fn a_future_that_wakes_itself_by_reference_is_polled_again() {
        let watch = Watch::new();
        let yielding = watch.spawn("yielder", || {
            let mut polls = 0;
            block_on(poll_fn(move |cx| {
                polls += 1;
                if polls < 3 {
                    // A yield: ask to be polled again, then return pending.
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Ready(polls)
            }))
        });
        assert_eq!(watch.join(yielding), 3);
    }
}
