//! The spins before parking (`core/src/pipe/spin.rs`): a flush paused by back-pressure,
//! and the first read after an `advance_to` that resumed the paused writer, look again up
//! to `spins_before_park` times before they park; a read that finds nothing while the
//! writer streams (an `advance_to` saw bytes published after its read) looks up to
//! `batching_looks` times. Each reports it (`PipeEvent::Spun`); every other wait parks at
//! once. The looks decide nothing, so the outcomes are those without the spin. One
//! thread here, so nothing ends a spin early: each runs out, except where bytes were
//! published that the read's lock-free try could not take.

use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use crate::common::watchdog::watched;
use crate::common::{Recorder, WakeCounter, poll_once, poll_with};
use pipecheck_pipe::{FlushResult, PipeEnd, PipeEvent, PipeOptions, Reader, Writer};

const LOOKS: u32 = 5;

/// A pipe that pauses at 16 unexamined bytes and resumes below 8, looking `looks` times.
fn pipe(looks: u32) -> (Writer, Reader, Arc<Recorder>) {
    let recorder = Recorder::new();
    let (writer, reader) = PipeOptions::new()
        .pause_writer_threshold(16)
        .resume_writer_threshold(8)
        .spins_before_park(looks)
        .observer(recorder.clone())
        .build()
        .unwrap();
    (writer, reader, recorder)
}

/// The spins reported since the last call.
fn spins(recorder: &Recorder) -> Vec<PipeEvent> {
    recorder.take().into_iter().filter(|e| matches!(e, PipeEvent::Spun { .. })).collect()
}

/// A flush of 20 bytes, past the pause threshold, polled once: pending.
fn paused_flush(writer: &mut Writer) {
    writer.write(&[1; 20]).unwrap();
    assert!(poll_once(pin!(writer.flush())).is_pending(), "nobody consumes: the flush parks");
}

#[test]
fn a_paused_flush_looks_again_before_it_parks() {
    watched(|| {
        let (mut writer, _reader, recorder) = pipe(LOOKS);
        recorder.take();
        paused_flush(&mut writer);
        assert_eq!(spins(&recorder), [PipeEvent::Spun { end: PipeEnd::Writer, looks: LOOKS, ended: false }]);
    });
}

#[test]
fn with_no_looks_a_paused_flush_parks_at_once() {
    watched(|| {
        let (mut writer, _reader, recorder) = pipe(0);
        paused_flush(&mut writer);
        assert_eq!(spins(&recorder), []);
    });
}

#[test]
fn a_flush_that_need_not_wait_does_not_look() {
    watched(|| {
        let (mut writer, _reader, recorder) = pipe(LOOKS);
        writer.write(&[1; 10]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready());
        assert_eq!(spins(&recorder), []);
    });
}

/// The paused flush's outcome without looks, as .NET's: `FlushAsync` that crosses the
/// pause threshold hands out a pending `ValueTask`, and the reader's `AdvanceTo` that
/// drops below the resume threshold completes it (`Pipe.AdvanceReader` →
/// `_writerAwaitable.Complete`), which schedules the writer's continuation. Here: the
/// first poll is pending with the waker registered at once (no look), and the reader's
/// `advance_to` wakes it.
#[test]
fn with_no_looks_a_paused_flush_is_pending_until_the_readers_advance_wakes_it() {
    watched(|| {
        let (mut writer, mut reader, recorder) = pipe(0);
        writer.write(&[1; 20]).unwrap();
        let (counter, waker) = WakeCounter::new();
        let mut flush = pin!(writer.flush());
        assert!(poll_with(flush.as_mut(), &waker).is_pending(), "20 unexamined bytes pause the writer");
        let events = recorder.take();
        assert!(!events.iter().any(|e| matches!(e, PipeEvent::Spun { .. })), "no look: {events:?}");
        assert!(events.contains(&PipeEvent::WakerRegistered { end: PipeEnd::Writer }), "{events:?}");
        let result = reader.try_read().unwrap().expect("20 bytes flushed");
        let end = result.buffer().end();
        assert_eq!(counter.wakes(), 0);
        reader.advance_to(end, end).unwrap(); // below the resume threshold
        assert_eq!(counter.wakes(), 1, "the reader's advance wakes the paused flush");
        assert_eq!(poll_with(flush.as_mut(), &waker), Poll::Ready(Ok(FlushResult::default())));
    });
}

/// A flush the reader resumed after `flush` paused it but before its first poll is ready
/// at that poll, with looks or without: .NET's `await` does the same, since the pending
/// `ValueTask`'s `IsCompleted` asks the pipe again (`Pipe.GetFlushAsyncStatus`) and
/// continues at once if the reader's `AdvanceTo` completed it meanwhile. The looks only
/// widen that window: a reader that resumes the writer while the first poll is still
/// looking finds it ready too, where .NET's `await` had already registered its
/// continuation.
#[test]
fn a_flush_resumed_before_its_first_poll_is_ready_at_that_poll_with_or_without_looks() {
    for looks in [0, LOOKS] {
        watched(move || {
            let (mut writer, mut reader, _recorder) = pipe(looks);
            writer.write(&[1; 20]).unwrap();
            let (counter, waker) = WakeCounter::new();
            let mut flush = pin!(writer.flush()); // committed and paused, not yet polled
            let result = reader.try_read().unwrap().expect("20 bytes flushed");
            let end = result.buffer().end();
            reader.advance_to(end, end).unwrap();
            assert_eq!(
                poll_with(flush.as_mut(), &waker),
                Poll::Ready(Ok(FlushResult::default())),
                "{looks} looks"
            );
            assert_eq!(counter.wakes(), 0, "ready at the first poll: nothing to wake");
        });
    }
}

#[test]
fn a_paused_flush_released_before_it_polls_again_looks_once() {
    watched(|| {
        let (mut writer, mut reader, recorder) = pipe(LOOKS);
        writer.write(&[1; 20]).unwrap();
        let mut flush = pin!(writer.flush());
        assert!(poll_once(flush.as_mut()).is_pending());
        let result = reader.try_read().unwrap().expect("20 bytes flushed");
        let end = result.buffer().end();
        reader.advance_to(end, end).unwrap(); // below the resume threshold: resumed
        recorder.take();
        assert!(poll_once(flush.as_mut()).is_ready());
        assert_eq!(spins(&recorder), [PipeEvent::Spun { end: PipeEnd::Writer, looks: 1, ended: true }]);
    });
}

#[test]
fn the_read_after_resuming_the_writer_looks_again_and_only_that_one() {
    watched(|| {
        let (mut writer, mut reader, recorder) = pipe(LOOKS);
        paused_flush(&mut writer);
        let result = reader.try_read().unwrap().expect("20 bytes flushed");
        let end = result.buffer().end();
        // Everything consumed: below the resume threshold, so this advance resumes the writer.
        reader.advance_to(end, end).unwrap();
        recorder.take();
        assert!(poll_once(pin!(reader.read())).is_pending(), "nothing new was flushed");
        assert_eq!(spins(&recorder), [PipeEvent::Spun { end: PipeEnd::Reader, looks: LOOKS, ended: false }]);
        assert!(poll_once(pin!(reader.read())).is_pending());
        assert_eq!(spins(&recorder), [], "the next read did not follow a resume: it parks at once");
    });
}

#[test]
fn a_look_that_finds_bytes_ends_the_spin() {
    watched(|| {
        // 16-byte segments: the second batch fills the head and links a new segment, so
        // the read's lock-free try misses (the view lacks that segment) although bytes
        // are published, and the spin's first look sees them.
        let recorder = Recorder::new();
        let (mut writer, mut reader) = PipeOptions::new()
            .minimum_segment_size(16)
            .maximum_segment_size(16)
            .pause_writer_threshold(16)
            .resume_writer_threshold(8)
            .spins_before_park(LOOKS)
            .observer(recorder.clone())
            .build()
            .unwrap();
        writer.write(&[1; 20]).unwrap();
        {
            let mut flush = pin!(writer.flush());
            assert!(poll_once(flush.as_mut()).is_pending());
            let result = reader.try_read().unwrap().expect("20 bytes flushed");
            let end = result.buffer().end();
            reader.advance_to(end, end).unwrap(); // resumes the writer
            assert!(poll_once(flush.as_mut()).is_ready());
        }
        writer.write(&[2; 20]).unwrap();
        let _still_paused = poll_once(pin!(writer.flush()));
        recorder.take();
        let Poll::Ready(Ok(result)) = poll_once(pin!(reader.read())) else { panic!("bytes were published") };
        assert_eq!(result.buffer().len(), 20);
        assert_eq!(spins(&recorder), [PipeEvent::Spun { end: PipeEnd::Reader, looks: 1, ended: true }]);
    });
}

#[test]
fn a_read_after_an_advance_that_resumed_nobody_does_not_look() {
    watched(|| {
        let (mut writer, mut reader, recorder) = pipe(LOOKS);
        writer.write(&[1; 4]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready(), "below the pause threshold");
        let result = reader.try_read().unwrap().expect("4 bytes flushed");
        let end = result.buffer().end();
        reader.advance_to(end, end).unwrap();
        assert!(poll_once(pin!(reader.read())).is_pending());
        assert_eq!(spins(&recorder), []);
    });
}

/// A pipe with 16-byte segments, no short spins and `looks` batching looks, whose reader
/// has seen the writer stream: its last `advance_to` found 1 byte published after the
/// read it ended. Everything published is consumed.
fn streaming(looks: u32) -> (Writer, Reader, Arc<Recorder>) {
    let recorder = Recorder::new();
    let (mut writer, mut reader) = PipeOptions::new()
        .minimum_segment_size(16)
        .maximum_segment_size(16)
        .spins_before_park(0)
        .batching_looks(looks)
        .observer(recorder.clone())
        .build()
        .unwrap();
    writer.write(b"a").unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    let result = reader.try_read().unwrap().expect("1 byte flushed");
    let end = result.buffer().end();
    writer.write(b"b").unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    reader.advance_to(end, end).unwrap(); // sees "b", published after the read
    let result = reader.try_read().unwrap().expect("1 byte flushed");
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    recorder.take();
    (writer, reader, recorder)
}

/// Flushes `bytes` (a flush that need not wait), then reads everything published and
/// consumes it.
fn flush_and_consume(writer: &mut Writer, reader: &mut Reader, bytes: &[u8]) {
    writer.write(bytes).unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
    let Poll::Ready(Ok(result)) = poll_once(pin!(reader.read())) else { panic!("bytes were published") };
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
}

#[test]
fn a_read_that_finds_nothing_while_the_writer_streams_looks_before_it_parks() {
    watched(|| {
        let (mut writer, mut reader, recorder) = streaming(LOOKS);
        assert!(poll_once(pin!(reader.read())).is_pending(), "nothing new was flushed");
        assert_eq!(spins(&recorder), [PipeEvent::Spun { end: PipeEnd::Reader, looks: LOOKS, ended: false }]);
        // The flush wakes the parked read (clearing `READER_PARKED`, which alone would
        // send the next read to the lock); the advance after it sees nothing newer.
        flush_and_consume(&mut writer, &mut reader, b"c");
        recorder.take();
        assert!(poll_once(pin!(reader.read())).is_pending());
        assert_eq!(
            spins(&recorder),
            [],
            "the wait ran out: the writer stopped, so an empty read parks at once"
        );
    });
}

#[test]
fn a_batching_look_that_finds_bytes_ends_the_wait_and_the_batching_goes_on() {
    watched(|| {
        let (mut writer, mut reader, recorder) = streaming(LOOKS);
        // 3 bytes in a new segment (the reader returned the idle head), read under the
        // lock and released unexamined. A `read_at_least(4)` then misses for lack of
        // bytes, and the wait's first look sees the 3 (a look asks for any new byte; the
        // lock-free read after it decides, and parks the read).
        writer.write(&[2; 3]).unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready());
        let result = reader.try_read().unwrap().expect("3 bytes flushed");
        let start = result.buffer().start();
        reader.advance_to(start, start).unwrap();
        recorder.take();
        assert!(poll_once(pin!(reader.read_at_least(4))).is_pending());
        assert_eq!(spins(&recorder), [PipeEvent::Spun { end: PipeEnd::Reader, looks: 1, ended: true }]);
        flush_and_consume(&mut writer, &mut reader, &[3; 1]);
        recorder.take();
        assert!(poll_once(pin!(reader.read())).is_pending());
        assert_eq!(
            spins(&recorder),
            [PipeEvent::Spun { end: PipeEnd::Reader, looks: LOOKS, ended: false }],
            "the last wait found bytes: the next empty read waits again"
        );
    });
}

#[test]
fn a_batching_look_asks_for_unexamined_bytes() {
    watched(|| {
        let (mut writer, mut reader, recorder) = streaming(LOOKS);
        // Two bytes examined and left unconsumed (a partial frame): a look must not count
        // them, or every wait of a frame reader would end at its first look.
        writer.write(b"xy").unwrap();
        assert!(poll_once(pin!(writer.flush())).is_ready());
        let result = reader.try_read().unwrap().expect("2 bytes flushed");
        let (start, end) = (result.buffer().start(), result.buffer().end());
        reader.advance_to(start, end).unwrap();
        recorder.take();
        assert!(poll_once(pin!(reader.read())).is_pending());
        assert_eq!(spins(&recorder), [PipeEvent::Spun { end: PipeEnd::Reader, looks: LOOKS, ended: false }]);
    });
}

#[test]
fn a_read_the_lock_must_decide_does_not_wait_to_batch() {
    watched(|| {
        let (mut writer, mut reader, recorder) = streaming(LOOKS);
        // The writer's completion flags the word: the read goes to the lock at once and
        // reports it, without looking.
        writer.complete(None);
        let Poll::Ready(Ok(result)) = poll_once(pin!(reader.read())) else { panic!("the writer completed") };
        assert!(result.is_completed());
        assert_eq!(spins(&recorder), []);
    });
}

#[test]
fn a_writer_on_the_readers_thread_never_starts_the_batching() {
    watched(|| {
        let recorder = Recorder::new();
        let (mut writer, mut reader) =
            PipeOptions::new().batching_looks(LOOKS).observer(recorder.clone()).build().unwrap();
        for round in 0..3u8 {
            writer.write(&[round; 8]).unwrap();
            assert!(poll_once(pin!(writer.flush())).is_ready());
            let result = reader.try_read().unwrap().expect("8 bytes flushed");
            let end = result.buffer().end();
            reader.advance_to(end, end).unwrap();
            assert!(poll_once(pin!(reader.read())).is_pending());
        }
        assert_eq!(spins(&recorder), [], "no advance saw bytes published after its read");
    });
}

#[test]
fn a_read_without_a_waker_never_waits_to_batch() {
    watched(|| {
        let (_writer, mut reader, recorder) = streaming(LOOKS);
        assert!(reader.try_read().unwrap().is_none());
        assert_eq!(spins(&recorder), []);
        assert!(poll_once(pin!(reader.read())).is_pending());
        assert_eq!(spins(&recorder).len(), 1, "the streaming writer is still remembered");
    });
}

#[test]
fn with_no_batching_looks_an_empty_read_parks_at_once() {
    watched(|| {
        let (_writer, mut reader, recorder) = streaming(0);
        assert!(poll_once(pin!(reader.read())).is_pending());
        assert_eq!(spins(&recorder), []);
    });
}

#[test]
fn the_default_batching_looks_and_the_option_read_back() {
    assert_eq!(PipeOptions::new().get_batching_looks(), PipeOptions::DEFAULT_BATCHING_LOOKS);
    assert_eq!(PipeOptions::DEFAULT_BATCHING_LOOKS, 8, "the std default");
    assert_eq!(PipeOptions::new().batching_looks(3).get_batching_looks(), 3);
}

#[test]
fn the_default_looks_and_the_option_reads_back() {
    assert_eq!(PipeOptions::new().get_spins_before_park(), PipeOptions::DEFAULT_SPINS_BEFORE_PARK);
    assert_eq!(PipeOptions::DEFAULT_SPINS_BEFORE_PARK, 64, "the std default");
    assert_eq!(PipeOptions::new().spins_before_park(3).get_spins_before_park(), 3);
}
