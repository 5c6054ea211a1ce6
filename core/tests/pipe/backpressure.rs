//! Back-pressure: a flush waits while unexamined bytes (committed − examined, as .NET
//! counts them) are at or above the pause threshold and is woken once the reader's
//! `advance_to` brings them below the resume threshold (examining without consuming
//! counts, so a frame larger than the pause threshold crosses the examine-all /
//! consume-none loop); a pause threshold of 0 disables it; reader completion and
//! `cancel_pending_flush` release a paused flush; and a writer blocked on a real
//! thread is released by a reader on another. Every test body runs on a watched thread,
//! so a loop in the pipe that never ends (a chunk walk, a write that makes no room)
//! fails the test in seconds, naming the operation, instead of hanging the suite.

use crate::common::block_on;
use crate::common::watchdog::{Watch, phase, phase_at, watched};

use std::pin::pin;
use std::task::Poll;

use crate::common::{Recorder, WakeCounter, poll_once, poll_with};
use pipecheck_pipe::{FlushResult, PipeEvent, PipeOptions, Reader, Writer};

/// A pipe that pauses at 100 unconsumed bytes and resumes below 50.
fn throttled() -> (Writer, Reader) {
    PipeOptions::new().pause_writer_threshold(100).resume_writer_threshold(50).build().unwrap()
}

/// Reads and consumes `n` bytes, examining only those (so the rest stays readable).
fn consume(reader: &mut Reader, n: usize) {
    let result = reader.try_read().unwrap().expect("unexamined bytes");
    let consumed = result.buffer().position(n).unwrap();
    reader.advance(consumed).unwrap();
}

#[test]
fn flush_below_the_pause_threshold_does_not_wait() {
    watched(move || {
        let (mut writer, _reader) = throttled();
        writer.write(&[0; 99]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready());
    });
}

#[test]
fn flush_at_the_pause_threshold_waits() {
    watched(move || {
        let (mut writer, _reader) = throttled();
        writer.write(&[0; 100]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_pending());
    });
}

#[test]
fn consuming_below_the_resume_threshold_wakes_the_paused_flush() {
    watched(move || {
        let (mut writer, mut reader) = throttled();
        writer.write(&[0; 120]).unwrap();
        let (counter, waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        assert!(poll_with(flush.as_mut(), &waker).is_pending());

        consume(&mut reader, 70); // 50 left: not below the resume threshold
        assert_eq!(counter.wakes(), 0);
        assert!(poll_with(flush.as_mut(), &waker).is_pending());

        consume(&mut reader, 1); // 49 left
        assert_eq!(counter.wakes(), 1);
        assert_eq!(poll_with(flush.as_mut(), &waker), Poll::Ready(Ok(FlushResult::default())));
    });
}

#[test]
fn examining_without_consuming_resumes_the_writer() {
    watched(move || {
        // .NET: AdvanceTo(consumed, examined) lowers the unconsumed length by the examined
        // bytes, so a reader waiting for the rest of a frame releases the writer.
        let (mut writer, mut reader) = throttled();
        writer.write(&[0; 100]).unwrap();
        let (counter, waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        assert!(poll_with(flush.as_mut(), &waker).is_pending());
        let result = reader.try_read().unwrap().unwrap();
        let (start, end) = (result.buffer().start(), result.buffer().end());
        reader.advance_to(start, end).unwrap();
        assert_eq!(counter.wakes(), 1);
        assert_eq!(poll_with(flush.as_mut(), &waker), Poll::Ready(Ok(FlushResult::default())));
    });
}

#[test]
fn examining_part_of_the_buffer_counts_only_the_examined_bytes() {
    watched(move || {
        let (mut writer, mut reader) = throttled();
        writer.write(&[0; 120]).unwrap();
        let (counter, waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        assert!(poll_with(flush.as_mut(), &waker).is_pending());
        let result = reader.try_read().unwrap().unwrap();
        let (start, examined) = (result.buffer().start(), result.buffer().position(70).unwrap());
        reader.advance_to(start, examined).unwrap(); // 50 unexamined: not below 50
        assert_eq!(counter.wakes(), 0);
        let result = reader.try_read().unwrap().unwrap();
        let (start, examined) = (result.buffer().start(), result.buffer().position(71).unwrap());
        reader.advance_to(start, examined).unwrap(); // 49 unexamined
        assert_eq!(counter.wakes(), 1);
        assert!(poll_with(flush.as_mut(), &waker).is_ready());
    });
}

#[test]
fn a_flush_pauses_on_unexamined_bytes_even_when_nothing_was_consumed() {
    watched(move || {
        let (mut writer, mut reader) = throttled();
        writer.write(&[0; 90]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready());
        let result = reader.try_read().unwrap().unwrap();
        let (start, end) = (result.buffer().start(), result.buffer().end());
        reader.advance_to(start, end).unwrap(); // 90 buffered, 0 unexamined
        writer.write(&[0; 90]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready(), "90 unexamined bytes: below the threshold");
        writer.write(&[0; 10]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_pending(), "100 unexamined bytes");
    });
}

/// The framing loop of a protocol reader: examine everything, consume nothing until a
/// whole frame is buffered. Returns the frames received.
fn read_frames(reader: &mut Reader, frame_len: usize) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    // Bytes examined but not consumed by the last read: the next read must bring more.
    let mut examined = 0;
    loop {
        phase("read()");
        let result = block_on(reader.read()).unwrap();
        let buffer = result.buffer();
        assert!(
            result.is_completed() || buffer.len() > examined,
            "read() returned {} bytes, none new past the {examined} examined, without completing",
            buffer.len()
        );
        let whole = buffer.len() - buffer.len() % frame_len;
        let bytes = buffer.to_vec();
        frames.extend(bytes[..whole].chunks(frame_len).map(<[u8]>::to_vec));
        let done = result.is_completed();
        let (consumed, end) = (buffer.position(whole).unwrap(), buffer.end());
        examined = bytes.len() - whole;
        reader.advance_to(consumed, end).unwrap();
        if done {
            assert_eq!(whole, bytes.len(), "the stream ends on a frame boundary");
            return frames;
        }
    }
}

#[test]
fn a_frame_four_times_the_pause_threshold_crosses_with_examine_all_consume_none() {
    const PAUSE: usize = 1024;
    const FRAME: usize = 4 * PAUSE;
    const FRAMES: usize = 16;
    let (mut writer, mut reader) = PipeOptions::new()
        .minimum_segment_size(256)
        .maximum_segment_size(1024)
        .pause_writer_threshold(PAUSE as u64)
        .resume_writer_threshold(PAUSE as u64 / 2)
        // A paused flush's first poll reports the pause at once, instead of looking again
        // while the reader may release it: the test counts the pauses.
        .spins_before_park(0)
        .build()
        .unwrap();
    let frame = |i: usize| -> Vec<u8> { (0..FRAME).map(|j| (i * 7 + j) as u8).collect() };
    let watch = Watch::new();
    let writing = watch.spawn("writer", move || {
        let mut pauses = 0;
        for i in 0..FRAMES {
            // Each flush sends the pause threshold's worth, so every flush may pause.
            for piece in frame(i).chunks(PAUSE) {
                writer.write(piece).unwrap();
                phase_at("flush()", (i * FRAME) as u64);
                let mut flush = pin!(writer.flush());
                if poll_once(flush.as_mut()).is_pending() {
                    pauses += 1;
                    block_on(flush).unwrap();
                }
            }
        }
        phase("complete()");
        writer.complete(None);
        pauses
    });
    // The reader on a watched thread too: a chunk walk that never ends stalls it there.
    let reading = watch.spawn("reader", move || read_frames(&mut reader, FRAME));
    let frames = watch.join(reading);
    let pauses = watch.join(writing);
    assert_eq!(frames, (0..FRAMES).map(frame).collect::<Vec<_>>());
    assert!(pauses > 0, "the writer was paused inside frames and released by examine-all");
}

#[test]
fn a_paused_writer_stays_paused_until_resumed_even_if_the_flush_is_dropped() {
    watched(move || {
        let (mut writer, mut reader) = throttled();
        writer.write(&[0; 100]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_pending());
        consume(&mut reader, 30); // 70 left: between the thresholds
        assert!(poll_once(pin!(writer.flush())).is_pending(), "still above the resume threshold");
        consume(&mut reader, 30); // 40 left
        assert!(poll_once(pin!(writer.flush())).is_ready());
    });
}

#[test]
fn pause_threshold_zero_never_pauses() {
    watched(move || {
        let recorder = Recorder::new();
        let (mut writer, _reader) =
            PipeOptions::new().pause_writer_threshold(0).observer(recorder.clone()).build().unwrap();
        for _ in 0..20 {
            writer.write(&[0; 10_000]).unwrap();
            assert!(poll_once(pin!(writer.flush())).is_ready());
        }
        assert!(
            recorder.events().iter().all(|e| !matches!(e, PipeEvent::Flushed { paused: true, .. })),
            "no flush may report a pause"
        );
    });
}

#[test]
fn pause_threshold_zero_keeps_flushes_lock_free() {
    watched(move || {
        // With back-pressure off there is no count to check: a flush into the linked head
        // publishes without the lock (and never reads the reader's released offset).
        let recorder = Recorder::new();
        let (mut writer, _reader) =
            PipeOptions::new().pause_writer_threshold(0).observer(recorder.clone()).build().unwrap();
        writer.write(&[0; 10]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready(), "the first flush links the head");
        recorder.take();
        for _ in 0..20 {
            writer.write(&[0; 10]).unwrap();
            assert!(poll_once(pin!(writer.flush())).is_ready());
        }
        assert_eq!(recorder.take_locked_flushes(), 0, "no flush into the linked head needs the lock");
    });
}

#[test]
fn resume_threshold_zero_still_resumes_once_everything_is_consumed() {
    watched(move || {
        // dotnet/runtime#75166: with a resume threshold of 0, "unconsumed < 0" never holds
        // and the writer hung forever even after the reader consumed everything.
        let (mut writer, mut reader) =
            PipeOptions::new().pause_writer_threshold(10).resume_writer_threshold(0).build().unwrap();
        writer.write(&[0; 10]).unwrap();
        let (counter, waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        assert!(poll_with(flush.as_mut(), &waker).is_pending());
        consume(&mut reader, 9);
        assert_eq!(counter.wakes(), 0, "one byte is still unconsumed");
        consume(&mut reader, 1);
        assert_eq!(counter.wakes(), 1, "a drained pipe must release the writer");
        assert!(poll_with(flush.as_mut(), &waker).is_ready());
    });
}

#[test]
fn cancel_pending_flush_releases_a_paused_flush() {
    watched(move || {
        let (mut writer, _reader) = throttled();
        let canceller = writer.flush_canceller();
        writer.write(&[0; 100]).unwrap();
        let (counter, waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        assert!(poll_with(flush.as_mut(), &waker).is_pending());
        canceller.cancel_pending_flush();
        assert_eq!(counter.wakes(), 1);
        assert_eq!(
            poll_with(flush.as_mut(), &waker),
            Poll::Ready(Ok(FlushResult { is_completed: false, is_canceled: true }))
        );
    });
}

#[test]
fn a_canceled_flush_does_not_resume_the_writer() {
    watched(move || {
        let (mut writer, _reader) = throttled();
        writer.write(&[0; 100]).unwrap();
        writer.cancel_pending_flush();
        assert!(block_on(writer.flush()).unwrap().is_canceled);
        // The cancel was observed; the pipe is still full, so the next flush waits again.
        assert!(poll_once(pin!(writer.flush())).is_pending());
    });
}

#[test]
fn the_writer_never_pauses_once_the_reader_completed() {
    watched(move || {
        let (mut writer, mut reader) = throttled();
        reader.complete(None);
        writer.write(&[0; 1000]).unwrap();
        assert_eq!(
            poll_once(pin!(writer.flush())),
            Poll::Ready(Ok(FlushResult { is_completed: true, is_canceled: false }))
        );
    });
}

#[test]
fn flush_and_consume_events_report_the_pause_and_the_resume() {
    watched(move || {
        let recorder = Recorder::new();
        let (mut writer, mut reader) = PipeOptions::new()
            .pause_writer_threshold(100)
            .resume_writer_threshold(50)
            .observer(recorder.clone())
            .build()
            .unwrap();
        writer.write(&[0; 100]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_pending());
        consume(&mut reader, 60);
        let events = recorder.events();
        assert!(events.contains(&PipeEvent::Flushed { committed: 100, unconsumed: 100, paused: true }));
        assert!(events.contains(&PipeEvent::FlushResumed { unconsumed: 40 }));
    });
}

#[test]
fn a_writer_blocked_on_flush_is_released_by_a_reader_thread() {
    let (mut writer, mut reader) =
        PipeOptions::new().pause_writer_threshold(1024).resume_writer_threshold(512).build().unwrap();
    const TOTAL: usize = 1 << 20;
    let watch = Watch::new();
    let writing = watch.spawn("writer", move || {
        let mut paused = 0;
        for chunk in 0..TOTAL / 4096 {
            writer.write(&[chunk as u8; 4096]).unwrap();
            phase_at("flush()", chunk as u64 * 4096);
            // Every chunk crosses the pause threshold, so every flush pauses.
            block_on(writer.flush()).unwrap();
            paused += 1;
        }
        phase("complete()");
        writer.complete(None);
        paused
    });
    // The reader on a watched thread too: a chunk walk that never ends stalls it there.
    let reading = watch.spawn("reader", move || {
        let mut received = 0usize;
        loop {
            phase_at("read()", received as u64);
            let result = block_on(reader.read()).unwrap();
            let done = result.is_completed();
            assert!(
                done || !result.buffer().is_empty(),
                "read() at offset {received} returned no bytes without completing"
            );
            for chunk in result.buffer().chunks() {
                for (i, &b) in chunk.iter().enumerate() {
                    assert_eq!(b, ((received + i) / 4096) as u8);
                }
                received += chunk.len();
            }
            let end = result.buffer().end();
            reader.advance(end).unwrap();
            if done {
                return received;
            }
        }
    });
    assert_eq!(watch.join(reading), TOTAL);
    assert_eq!(watch.join(writing), TOTAL / 4096);
}

/// A paused flush polled again with another waker (its task moved) is woken through
/// the new waker when the reader consumes.
#[test]
fn a_paused_flush_repolled_with_another_waker_wakes_the_new_one() {
    watched(move || {
        let (mut writer, mut reader) = throttled();
        writer.write(&[0; 100]).unwrap();
        let (first, first_waker) = WakeCounter::new();
        let (second, second_waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        assert!(poll_with(flush.as_mut(), &first_waker).is_pending());
        assert!(poll_with(flush.as_mut(), &second_waker).is_pending());
        consume(&mut reader, 100);
        assert_eq!((first.wakes(), second.wakes()), (0, 1), "wakes of (first, second) waker");
        assert_eq!(poll_with(flush.as_mut(), &second_waker), Poll::Ready(Ok(FlushResult::default())));
    });
}

#[test]
fn a_flush_after_the_reader_completed_never_pauses() {
    watched(move || {
        // Nothing will read these bytes: however many, the flush reports completion
        // instead of waiting for a reader that is gone.
        let (mut writer, mut reader) = throttled();
        reader.complete(None);
        writer.write(&[0; 200]).unwrap();
        let (_counter, waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        let completed = FlushResult { is_completed: true, ..FlushResult::default() };
        assert_eq!(poll_with(flush.as_mut(), &waker), Poll::Ready(Ok(completed)));
    });
}
