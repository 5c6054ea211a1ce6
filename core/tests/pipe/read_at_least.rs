//! `read_at_least(n)` (.NET `ReadAtLeastAsync`): it completes once `n` committed bytes
//! are unexamined, the writer completed, or the read was canceled; it counts what
//! `buffered_len` counts (committed − examined); `n` = 0 waits like `read`; misuse is
//! refused as for `read`; and a pending read-at-least above the pause threshold releases
//! a paused writer and keeps flushes from pausing until its bytes are there, so a frame
//! four times the pause threshold crosses on real threads.

use std::pin::pin;
use std::task::Poll;

use crate::common::watchdog::Watch;
use crate::common::{WakeCounter, block_on, poll_once, poll_with};
use pipecheck_pipe::{Failure, FlushResult, PipeError, PipeOptions, Reader, Writer};

/// Options that pause at 100 unexamined bytes and resume below 50.
fn throttled_options() -> PipeOptions {
    PipeOptions::new().pause_writer_threshold(100).resume_writer_threshold(50)
}

/// A pipe that pauses at 100 unexamined bytes and resumes below 50.
fn throttled() -> (Writer, Reader) {
    throttled_options().build().unwrap()
}

fn send(writer: &mut Writer, bytes: &[u8]) {
    writer.write(bytes).unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready(), "the flush does not pause");
}

#[test]
fn read_at_least_waits_until_the_minimum_is_buffered() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    send(&mut writer, b"ab");
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read_at_least(4));
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    send(&mut writer, b"c");
    assert!(poll_with(read.as_mut(), &waker).is_pending(), "3 of 4 bytes");
    send(&mut writer, b"d");
    assert!(counter.wakes() >= 2, "every flush wakes the read to look again");
    match poll_with(read.as_mut(), &waker) {
        Poll::Ready(Ok(result)) => assert_eq!(result.buffer().to_vec(), b"abcd"),
        other => panic!("expected the 4 bytes, got {:?}", other.map(|r| r.map(|r| r.buffer().len()))),
    }
}

#[test]
fn read_at_least_returns_everything_buffered_at_once_when_there_is_enough() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    send(&mut writer, b"abcdef");
    let result = reader.try_read_at_least(4).unwrap().expect("6 bytes are enough");
    assert_eq!(result.buffer().to_vec(), b"abcdef");
    assert!(!result.is_completed() && !result.is_canceled());
}

#[test]
fn read_at_least_zero_waits_like_read() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    assert!(reader.try_read_at_least(0).unwrap().is_none(), "nothing buffered: it waits, as in .NET");
    send(&mut writer, b"a");
    assert_eq!(reader.try_read_at_least(0).unwrap().unwrap().buffer().len(), 1);
}

#[test]
fn read_at_least_counts_only_unexamined_bytes() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    send(&mut writer, b"ab");
    let result = reader.try_read().unwrap().unwrap();
    let (start, end) = (result.buffer().start(), result.buffer().end());
    reader.advance_to(start, end).unwrap(); // examined both, consumed none
    send(&mut writer, b"c");
    assert!(reader.try_read_at_least(2).unwrap().is_none(), "one unexamined byte, though three are buffered");
    send(&mut writer, b"d");
    assert_eq!(reader.try_read_at_least(2).unwrap().unwrap().buffer().to_vec(), b"abcd");
}

#[test]
fn read_at_least_returns_fewer_bytes_once_the_writer_completed() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"ab").unwrap();
    writer.complete(None);
    let result = block_on(reader.read_at_least(10)).unwrap();
    assert!(result.is_completed());
    assert_eq!(result.buffer().to_vec(), b"ab");
}

#[test]
fn a_canceled_read_at_least_returns_what_is_buffered() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    send(&mut writer, b"ab");
    let canceller = reader.read_canceller();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read_at_least(10));
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    canceller.cancel_pending_read();
    assert_eq!(counter.wakes(), 1);
    match poll_with(read.as_mut(), &waker) {
        Poll::Ready(Ok(result)) => {
            assert!(result.is_canceled());
            assert_eq!(result.buffer().to_vec(), b"ab");
        }
        _ => panic!("the canceled read completes"),
    }
}

#[test]
fn read_at_least_while_a_buffer_is_outstanding_is_refused() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    send(&mut writer, b"ab");
    assert_eq!(reader.try_read().unwrap().unwrap().buffer().len(), 2);
    assert_eq!(reader.try_read_at_least(1).err(), Some(PipeError::AdvanceRequired));
}

#[test]
fn read_at_least_after_the_reader_completed_is_refused() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    reader.complete(None);
    assert_eq!(block_on(reader.read_at_least(1)).err(), Some(PipeError::ReaderCompleted));
}

#[test]
fn read_at_least_reports_the_writers_failure() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.complete(Some(Failure::new("boom")));
    assert!(matches!(block_on(reader.read_at_least(4)), Err(PipeError::WriterFailed(_))));
}

#[test]
fn a_pending_read_at_least_above_the_pause_threshold_releases_the_paused_writer() {
    let (mut writer, mut reader) = throttled();
    writer.write(&[1; 120]).unwrap();
    let (flush_wakes, flush_waker) = WakeCounter::new();
    let mut flush = pin!(writer.flush());
    assert!(poll_with(flush.as_mut(), &flush_waker).is_pending(), "120 unexamined bytes pause the writer");

    let (_, read_waker) = WakeCounter::new();
    assert!(poll_with(pin!(reader.read_at_least(200)), &read_waker).is_pending());
    assert_eq!(flush_wakes.wakes(), 1, "the waiting read released the writer");
    assert_eq!(poll_with(flush.as_mut(), &flush_waker), Poll::Ready(Ok(FlushResult::default())));
}

#[test]
fn flushes_do_not_pause_while_a_read_at_least_waits_for_more() {
    let (mut writer, mut reader) = throttled();
    let (_, read_waker) = WakeCounter::new();
    assert!(poll_with(pin!(reader.read_at_least(300)), &read_waker).is_pending());
    for _ in 0..2 {
        writer.write(&[1; 120]).unwrap(); // 120, then 240 unexamined: past the pause threshold
        assert!(poll_once(pin!(writer.flush())).is_ready(), "below the read's minimum the writer runs on");
    }
    writer.write(&[1; 60]).unwrap(); // 300: the read has its bytes, back-pressure applies again
    assert!(poll_once(pin!(writer.flush())).is_pending());
    assert_eq!(reader.try_read_at_least(300).unwrap().unwrap().buffer().len(), 300);
}

#[test]
fn a_returned_read_ends_the_exemption_from_pausing() {
    let (mut writer, mut reader) = throttled();
    let (_, read_waker) = WakeCounter::new();
    assert!(poll_with(pin!(reader.read_at_least(300)), &read_waker).is_pending());
    send(&mut writer, &[1; 10]);
    // A plain read returns: nobody waits for a minimum any more.
    let result = reader.try_read().unwrap().unwrap();
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    writer.write(&[1; 100]).unwrap();
    assert!(poll_once(pin!(writer.flush())).is_pending(), "100 unexamined bytes pause the writer again");
}

#[test]
fn a_frame_four_times_the_pause_threshold_crosses_with_read_at_least() {
    const PAUSE: usize = 1024;
    const FRAME: usize = 4 * PAUSE;
    const FRAMES: usize = 16;
    let (mut writer, mut reader) = PipeOptions::new()
        .minimum_segment_size(256)
        .maximum_segment_size(1024)
        .pause_writer_threshold(PAUSE as u64)
        .resume_writer_threshold(PAUSE as u64 / 2)
        .build()
        .unwrap();
    let frame = |i: usize| -> Vec<u8> { (0..FRAME).map(|j| (i * 13 + j) as u8).collect() };
    let watch = Watch::new();
    let writing = watch.spawn("writer", move || {
        for i in 0..FRAMES {
            // Each flush sends the pause threshold's worth, so every flush could pause.
            for piece in frame(i).chunks(PAUSE) {
                writer.write(piece).unwrap();
                block_on(writer.flush()).unwrap();
            }
        }
        writer.complete(None);
    });
    let mut frames = Vec::new();
    loop {
        let result = block_on(reader.read_at_least(FRAME)).unwrap();
        let buffer = result.buffer();
        let done = result.is_completed();
        assert!(done || buffer.len() >= FRAME, "read_at_least returned {} bytes early", buffer.len());
        let whole = buffer.len() - buffer.len() % FRAME;
        frames.extend(buffer.to_vec()[..whole].chunks(FRAME).map(<[u8]>::to_vec));
        let consumed = buffer.position(whole).unwrap();
        // Examine only what is consumed: the rest of a partial frame counts toward the
        // next read_at_least.
        reader.advance(consumed).unwrap();
        if done {
            break;
        }
    }
    watch.join(writing);
    assert_eq!(frames, (0..FRAMES).map(frame).collect::<Vec<_>>());
}

/// What a pending read-at-least reports (`ReadAtLeastPending`, `FlushResumed`): the
/// checkers judge back-pressure by these events, so a resume is reported only when a
/// paused writer was released, and "the writer stays paused" only when it does.
#[test]
fn a_pending_read_at_least_reports_a_resume_only_for_a_paused_writer() {
    use crate::common::Recorder;
    use pipecheck_pipe::PipeEvent;
    let recorder = Recorder::new();
    let (mut writer, mut reader) = throttled_options().observer(recorder.clone()).build().unwrap();
    let pending = |events: &[PipeEvent]| -> Vec<(u64, bool)> {
        events
            .iter()
            .filter_map(|e| match e {
                PipeEvent::ReadAtLeastPending { minimum, writer_stays_paused, .. } => {
                    Some((*minimum, *writer_stays_paused))
                }
                _ => None,
            })
            .collect()
    };
    let resumes =
        |events: &[PipeEvent]| events.iter().filter(|e| matches!(e, PipeEvent::FlushResumed { .. })).count();

    // Not paused: the read waits, and there is nothing to resume.
    send(&mut writer, &[1; 10]);
    assert!(poll_once(pin!(reader.read_at_least(20))).is_pending());
    let events = recorder.take();
    assert_eq!(pending(&events), [(20, false)]);
    assert_eq!(resumes(&events), 0, "no paused writer, no resume: {events:?}");

    // Paused at 100 unexamined bytes: a read-at-least for more releases it.
    writer.write(&[2; 100]).unwrap();
    let mut flush = pin!(writer.flush());
    assert!(poll_once(flush.as_mut()).is_pending(), "110 unexamined bytes pause the writer");
    recorder.take();
    assert!(poll_once(pin!(reader.read_at_least(200))).is_pending());
    let events = recorder.take();
    assert_eq!(pending(&events), [(200, false)], "released, so it does not stay paused");
    assert_eq!(resumes(&events), 1, "the paused writer was resumed: {events:?}");
    assert!(poll_once(flush.as_mut()).is_ready());
}
