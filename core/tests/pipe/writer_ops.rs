//! Writer operations one at a time: `get_memory` hints (0, 1, exact room, more than the
//! head's room, the maximum), `advance` (within, exactly, past, without memory), `write`
//! across segments, `unflushed_bytes`, and `flush` (what it publishes, whom it wakes,
//! and its result flags).

use crate::common::block_on;

use std::pin::pin;

use crate::common::{Recorder, WakeCounter, created, fixed, head_released, poll_once, poll_with, recorded};
use pipecheck_pipe::{FlushResult, PipeError, PipeEvent, PipeOperation, PipeOptions, Reader, Writer};

/// A pipe with fixed-size segments of `size` bytes, recording its events.
fn fixed_segments(size: usize) -> (Writer, Reader, std::sync::Arc<Recorder>) {
    let recorder = Recorder::new();
    let (writer, reader) = PipeOptions::new()
        .minimum_segment_size(size)
        .maximum_segment_size(size)
        .observer(recorder.clone())
        .build()
        .unwrap();
    (writer, reader, recorder)
}

/// Reads everything committed so far, consumes it, and returns it.
fn drain(reader: &mut Reader) -> Vec<u8> {
    let result = reader.try_read().unwrap().expect("bytes were flushed");
    let bytes = result.buffer().to_vec();
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    bytes
}

#[test]
fn get_memory_with_hint_zero_returns_a_whole_minimum_segment() {
    let (mut writer, _reader) = pipecheck_pipe::pipe();
    let memory = writer.get_memory(0).unwrap();
    assert_eq!(memory.len(), PipeOptions::DEFAULT_MINIMUM_SEGMENT_SIZE);
}

#[test]
fn get_memory_with_hint_one_returns_at_least_one_byte() {
    let (mut writer, _reader) = PipeOptions::new().minimum_segment_size(64).build().unwrap();
    assert_eq!(writer.get_memory(1).unwrap().len(), 64);
}

#[test]
fn get_memory_returns_the_same_region_until_advanced() {
    let (mut writer, _reader, recorder) = fixed_segments(64);
    let first = writer.get_memory(1).unwrap().as_ptr();
    let second = writer.get_memory(10).unwrap().as_ptr();
    assert_eq!(first, second);
    assert_eq!(recorder.segments(created), vec![0]);
}

#[test]
fn get_memory_for_exactly_the_room_left_stays_in_the_head() {
    let (mut writer, _reader, recorder) = fixed_segments(64);
    writer.get_memory(10).unwrap();
    writer.advance(10).unwrap();
    let memory = writer.get_memory(54).unwrap();
    assert_eq!(memory.len(), 54);
    assert_eq!(recorder.segments(created), vec![0], "no new segment for a hint that fits");
    assert!(recorder.segments(head_released).is_empty());
}

#[test]
fn get_memory_for_more_than_the_room_left_starts_a_new_segment() {
    let (mut writer, _reader, recorder) = fixed_segments(64);
    writer.get_memory(10).unwrap();
    writer.advance(10).unwrap();
    let memory = writer.get_memory(55).unwrap();
    assert_eq!(memory.len(), 64, "a whole new segment");
    assert_eq!(recorder.segments(created), vec![0, 1]);
    assert_eq!(recorder.segments(head_released), vec![0]);
}

#[test]
fn get_memory_hint_above_the_next_segment_size_gets_a_segment_that_large() {
    let (mut writer, _reader) =
        PipeOptions::new().minimum_segment_size(64).maximum_segment_size(4096).build().unwrap();
    assert_eq!(writer.get_memory(1000).unwrap().len(), 1000);
}

#[test]
fn get_memory_accepts_the_maximum_segment_size() {
    let (mut writer, _reader) =
        PipeOptions::new().minimum_segment_size(64).maximum_segment_size(1024).build().unwrap();
    assert_eq!(writer.get_memory(1024).unwrap().len(), 1024);
}

/// .NET hands out a separate array for such a hint (`docs/semantics.md`).
#[test]
fn get_memory_above_the_maximum_segment_size_is_refused() {
    let (mut writer, _reader) =
        PipeOptions::new().minimum_segment_size(64).maximum_segment_size(1024).build().unwrap();
    assert_eq!(writer.get_memory(1025), Err(PipeError::SizeHintTooLarge { size_hint: 1025, max: 1024 }));
    // The refusal changes nothing: a valid request still works.
    assert_eq!(writer.get_memory(8).unwrap().len(), 64);
}

#[test]
fn advance_within_the_memory_counts_the_bytes() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.get_memory(8).unwrap()[..3].copy_from_slice(b"abc");
    writer.advance(3).unwrap();
    assert_eq!(writer.unflushed_bytes(), 3);
    block_on(writer.flush()).unwrap();
    assert_eq!(drain(&mut reader), b"abc");
}

#[test]
fn advance_by_exactly_the_memory_fills_the_segment() {
    let (mut writer, mut reader, recorder) = fixed_segments(64);
    writer.get_memory(1).unwrap().fill(7);
    writer.advance(64).unwrap();
    writer.get_memory(1).unwrap().fill(8);
    writer.advance(1).unwrap();
    assert_eq!(recorder.segments(created), vec![0, 1], "a full head makes the next get_memory move on");
    block_on(writer.flush()).unwrap();
    let bytes = drain(&mut reader);
    assert_eq!(bytes.len(), 65);
    assert!(bytes[..64].iter().all(|&b| b == 7) && bytes[64] == 8);
}

#[test]
fn advance_past_the_memory_reports_what_is_available() {
    let (mut writer, _reader, _recorder) = fixed_segments(64);
    writer.get_memory(1).unwrap();
    assert_eq!(writer.advance(65), Err(PipeError::AdvancePastMemory { requested: 65, available: 64 }));
    writer.advance(40).unwrap();
    assert_eq!(writer.advance(25), Err(PipeError::AdvancePastMemory { requested: 25, available: 24 }));
    // The failed calls counted nothing.
    assert_eq!(writer.unflushed_bytes(), 40);
    writer.advance(24).unwrap();
    assert_eq!(writer.unflushed_bytes(), 64);
}

#[test]
fn advance_without_get_memory_is_refused() {
    let (mut writer, _reader) = pipecheck_pipe::pipe();
    assert_eq!(writer.advance(1), Err(PipeError::AdvancePastMemory { requested: 1, available: 0 }));
    assert_eq!(writer.advance(0), Ok(()), "advancing by nothing is always fine");
    assert_eq!(writer.unflushed_bytes(), 0);
}

#[test]
fn write_copies_across_segment_boundaries() {
    let (mut writer, mut reader, recorder) = fixed_segments(8);
    let data: Vec<u8> = (0..100).collect();
    writer.write(&data).unwrap();
    assert_eq!(writer.unflushed_bytes(), 100);
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    let chunks: Vec<&[u8]> = result.buffer().chunks().collect();
    assert_eq!(chunks.len(), 13, "100 bytes in 8-byte segments");
    assert!(chunks[..12].iter().all(|c| c.len() == 8) && chunks[12].len() == 4);
    assert_eq!(result.buffer().to_vec(), data);
    assert_eq!(recorder.segments(created), (0..13).collect::<Vec<_>>());
}

#[test]
fn write_of_nothing_allocates_nothing() {
    let (mut writer, _reader, recorder) = fixed_segments(8);
    writer.write(&[]).unwrap();
    assert!(recorder.segments(created).is_empty());
}

#[test]
fn writes_after_a_flush_continue_in_the_same_segment() {
    let (mut writer, mut reader, recorder) = fixed_segments(64);
    writer.write(b"hello ").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(drain(&mut reader), b"hello ");
    writer.write(b"world").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(drain(&mut reader), b"world");
    assert_eq!(recorder.segments(created), vec![0]);
}

#[test]
fn flush_publishes_only_advanced_bytes() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"seen").unwrap();
    block_on(writer.flush()).unwrap();
    writer.write(b" unflushed").unwrap();
    assert_eq!(writer.unflushed_bytes(), 10);
    let result = reader.try_read().unwrap().unwrap();
    assert_eq!(result.buffer().to_vec(), b"seen");
}

#[test]
fn flush_resets_unflushed_bytes_and_reports_committed_offsets() {
    let recorder = Recorder::new();
    let (mut writer, _reader) = PipeOptions::new().observer(recorder.clone()).build().unwrap();
    writer.write(&[1; 10]).unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(writer.unflushed_bytes(), 0);
    writer.write(&[2; 5]).unwrap();
    block_on(writer.flush()).unwrap();
    // The first flush links its segment under the lock (`Flushed`, with the count); the
    // second writes into the same, linked head and publishes without it (`Published`).
    let flushed: Vec<(u64, Option<u64>)> = recorder
        .events()
        .iter()
        .filter_map(|e| match e {
            PipeEvent::Flushed { committed, unconsumed, .. } => Some((*committed, Some(*unconsumed))),
            PipeEvent::Published { committed } => Some((*committed, None)),
            _ => None,
        })
        .collect();
    assert_eq!(flushed, vec![(10, Some(10)), (15, None)]);
}

#[test]
fn flush_wakes_a_pending_read() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    writer.write(b"x").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(counter.wakes(), 1, "the flush must wake the pending read");
    match poll_with(read.as_mut(), &waker) {
        std::task::Poll::Ready(Ok(result)) => assert_eq!(result.buffer().to_vec(), b"x"),
        other => panic!("read not ready after a wake: {other:?}"),
    }
}

#[test]
fn flush_of_nothing_does_not_wake_a_pending_read() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let (counter, waker) = WakeCounter::new();
    let mut read = pin!(reader.read());
    assert!(poll_with(read.as_mut(), &waker).is_pending());
    block_on(writer.flush()).unwrap();
    assert_eq!(counter.wakes(), 0);
    assert!(poll_with(read.as_mut(), &waker).is_pending());
}

#[test]
fn flush_result_is_plain_while_the_reader_is_active() {
    let (mut writer, _reader) = pipecheck_pipe::pipe();
    writer.write(b"abc").unwrap();
    assert_eq!(block_on(writer.flush()), Ok(FlushResult { is_completed: false, is_canceled: false }));
}

#[test]
fn flush_result_is_completed_after_the_reader_completed() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    reader.complete(None);
    writer.write(b"abc").unwrap();
    let result = block_on(writer.flush()).unwrap();
    assert!(result.is_completed && !result.is_canceled);
}

#[test]
fn flush_result_is_canceled_after_cancel_pending_flush() {
    let (mut writer, _reader) = pipecheck_pipe::pipe();
    writer.cancel_pending_flush();
    let result = block_on(writer.flush()).unwrap();
    assert!(result.is_canceled && !result.is_completed);
    // Observed once: the next flush is plain again.
    assert_eq!(block_on(writer.flush()), Ok(FlushResult::default()));
}

#[test]
fn flush_commits_before_the_future_is_polled() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write(b"early").unwrap();
    drop(writer.flush());
    assert_eq!(drain(&mut reader), b"early");
}

#[test]
fn flush_future_is_ready_at_once_without_back_pressure() {
    let (mut writer, _reader) = PipeOptions::new().pause_writer_threshold(0).build().unwrap();
    writer.write(&[0; 100_000]).unwrap();
    assert!(poll_once(pin!(writer.flush())).is_ready());
}

#[test]
fn a_partly_filled_segment_ends_where_the_next_one_begins() {
    let (mut writer, mut reader, recorder) = fixed_segments(64);
    writer.write(&[1; 10]).unwrap();
    block_on(writer.flush()).unwrap();
    write_whole_new_segment(&mut writer, 2); // 54 free bytes are too few: skip them
    block_on(writer.flush()).unwrap();
    assert_eq!(recorder.segments(created), vec![0, 1]);
    let result = reader.try_read().unwrap().unwrap();
    let chunks: Vec<&[u8]> = result.buffer().chunks().collect();
    assert_eq!(chunks, vec![&[1u8; 10][..], &[2u8; 64][..]], "the skipped tail is not data");
}

#[test]
fn unflushed_bytes_in_a_linked_segment_stay_invisible() {
    let (mut writer, mut reader, _recorder) = fixed_segments(64);
    writer.write(b"flushed").unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    let start = result.buffer().start();
    reader.advance_to(start, start).unwrap();
    writer.write(b" pending").unwrap(); // same segment, already linked
    let result = reader.try_read().unwrap().unwrap();
    assert_eq!(result.buffer().to_vec(), b"flushed");
    assert_eq!(result.buffer().chunks().count(), 1);
}

fn write_whole_new_segment(writer: &mut Writer, byte: u8) {
    let memory = writer.get_memory(64).unwrap();
    assert_eq!(memory.len(), 64);
    memory.fill(byte);
    writer.advance(64).unwrap();
}

/// How many flushes took the pipe lock so far.
fn locked_flushes(recorder: &Recorder) -> usize {
    recorder
        .events()
        .iter()
        .filter(|e| matches!(e, PipeEvent::LockReleased { op: PipeOperation::Flush }))
        .count()
}

/// Reads what is committed, examines all of it and consumes all but the last byte, so
/// the head stays linked and is not reclaimed: the next write goes into the same head.
fn consume_all_but_one(reader: &mut Reader) {
    let result = reader.try_read().unwrap().expect("bytes were flushed");
    let len = result.buffer().len();
    let (keep_from, end) =
        (result.buffer().position(len - 1).unwrap(), result.buffer().position(len).unwrap());
    reader.advance_to(keep_from, end).unwrap();
}

#[test]
fn flushes_below_the_pause_threshold_take_no_lock_once_the_reader_has_consumed() {
    // Seed 001's uncontended path: with the head linked and the reader keeping up, a
    // flush publishes with one compare-and-swap. It decides on what the reader last
    // *published* as consumed: without that publication every flush would look paused
    // and take the lock.
    let (mut writer, mut reader, recorder, _pool) =
        recorded(fixed(4096).pause_writer_threshold(64).resume_writer_threshold(32));
    writer.write(&[1; 40]).unwrap();
    assert_eq!(block_on(writer.flush()).unwrap(), FlushResult::default());
    assert_eq!(locked_flushes(&recorder), 1, "the first flush links the head, under the lock");
    consume_all_but_one(&mut reader);
    for round in 0..20 {
        writer.write(&[2; 40]).unwrap();
        assert_eq!(block_on(writer.flush()).unwrap(), FlushResult::default());
        assert_eq!(
            locked_flushes(&recorder),
            1,
            "round {round}: a flush 41 bytes below the pause threshold took the lock"
        );
        consume_all_but_one(&mut reader);
    }
}

#[test]
fn once_a_parked_read_was_woken_flushes_take_no_lock_again() {
    // A parked read makes the next flush take the lock to wake it; the wake clears the
    // parked flag, or every later flush would keep taking the lock.
    let (mut writer, mut reader, recorder) = fixed_segments(4096);
    writer.write(b"a").unwrap();
    block_on(writer.flush()).unwrap();
    consume_all_but_one(&mut reader);
    let (wakes, waker) = WakeCounter::new();
    {
        let mut read = pin!(reader.read());
        assert!(poll_with(read.as_mut(), &waker).is_pending(), "everything examined, nothing new");
    }
    writer.write(b"b").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(wakes.wakes(), 1, "the flush woke the parked read");
    let woke_at = locked_flushes(&recorder);
    consume_all_but_one(&mut reader);
    for round in 0..5 {
        writer.write(b"c").unwrap();
        block_on(writer.flush()).unwrap();
        assert_eq!(locked_flushes(&recorder), woke_at, "round {round}: a flush took the lock");
        consume_all_but_one(&mut reader);
    }
}

#[test]
fn a_flush_links_the_full_segments_but_not_an_empty_head() {
    // The head exists (get_memory rented it) but holds no byte: linking it would hand
    // the reader an empty segment, which it would have to skip and give back.
    // A full segment first, so the flush has a segment to link and takes the lock.
    let (mut writer, _reader, recorder) = fixed_segments(64);
    writer.write(&[1; 64]).unwrap();
    writer.get_memory(8).unwrap();
    assert_eq!(block_on(writer.flush()).unwrap(), FlushResult::default());
    let linked = recorder.events().iter().filter(|e| matches!(e, PipeEvent::SegmentLinked { .. })).count();
    assert_eq!(linked, 1, "only the full segment is linked, not the empty head");
}
