//! Completion and memory release: completing either side first, twice, or by drop
//! releases every rented buffer exactly once (release-once, checked by a counting
//! buffer pool that also refuses double returns), never before both sides are done;
//! completion wakes the other side; and a completion racing the other side's
//! operations on another thread still releases everything once; and once the reader
//! completed, writes pile up nowhere (.NET: `Advance` is a no-op and flushes report
//! completion), so the writer holds at most one segment whatever it writes.

use crate::common::block_on;
use crate::common::watchdog::{Watch, phase};

use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use crate::common::{CountingPool, Recorder, WakeCounter, poll_with};
use pipecheck_pipe::{Failure, PipeEvent, PipeOptions, Reader, Writer};

/// A pipe with 64-byte segments over a counting pool.
fn counted() -> (Writer, Reader, Arc<CountingPool>) {
    let pool = CountingPool::new();
    let (writer, reader) = PipeOptions::new()
        .minimum_segment_size(64)
        .maximum_segment_size(64)
        .buffer_pool(pool.clone())
        .build()
        .unwrap();
    (writer, reader, pool)
}

/// Writes 200 bytes (four segments) and flushes them, consumes 100, then writes 30
/// more without flushing: linked, consumed, unlinked and unflushed bytes all at once.
fn busy(writer: &mut Writer, reader: &mut Reader) {
    writer.write(&[1; 200]).unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    let consumed = result.buffer().position(100).unwrap();
    reader.advance(consumed).unwrap();
    writer.write(&[2; 30]).unwrap();
}

#[test]
fn writer_then_reader_completion_releases_every_buffer_once() {
    let (mut writer, mut reader, pool) = counted();
    busy(&mut writer, &mut reader);
    writer.complete(None);
    assert!(pool.outstanding() > 0, "the reader may still read: nothing is released yet");
    reader.complete(None);
    pool.assert_all_returned();
}

#[test]
fn reader_then_writer_completion_releases_every_buffer_once() {
    let (mut writer, mut reader, pool) = counted();
    busy(&mut writer, &mut reader);
    reader.complete(None);
    assert!(pool.outstanding() > 0, "the writer still holds its head");
    writer.write(&[3; 100]).unwrap(); // more segments after the reader left
    writer.complete(None);
    pool.assert_all_returned();
}

#[test]
fn completing_twice_and_dropping_releases_nothing_more() {
    let (mut writer, mut reader, pool) = counted();
    busy(&mut writer, &mut reader);
    writer.complete(None);
    reader.complete(None);
    let (rents, returns) = (pool.rents(), pool.returns());
    writer.complete(None);
    reader.complete(Some(Failure::new("late")));
    writer.complete(Some(Failure::new("late")));
    drop(writer);
    drop(reader);
    assert_eq!((pool.rents(), pool.returns()), (rents, returns));
    pool.assert_all_returned();
}

#[test]
fn dropping_both_ends_releases_every_buffer_once() {
    for reader_first in [false, true] {
        let (mut writer, mut reader, pool) = counted();
        busy(&mut writer, &mut reader);
        if reader_first {
            drop(reader);
            drop(writer);
        } else {
            drop(writer);
            drop(reader);
        }
        pool.assert_all_returned();
    }
}

#[test]
fn completing_with_an_outstanding_read_releases_it() {
    let (mut writer, mut reader, pool) = counted();
    writer.write(&[5; 150]).unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    assert_eq!(result.buffer().len(), 150);
    reader.complete(None); // without advance_to
    writer.complete(None);
    pool.assert_all_returned();
}

#[test]
fn a_writer_that_only_asked_for_memory_gives_it_back() {
    let (mut writer, reader, pool) = counted();
    writer.get_memory(10).unwrap();
    assert_eq!(pool.outstanding(), 1);
    drop(writer);
    assert_eq!(pool.outstanding(), 0, "an unlinked, empty head goes straight back");
    drop(reader);
    pool.assert_all_returned();
}

#[test]
fn a_fully_consumed_completed_pipe_has_already_released_the_head() {
    let (mut writer, mut reader, pool) = counted();
    writer.write(&[9; 100]).unwrap();
    writer.complete(None);
    let result = reader.try_read().unwrap().unwrap();
    let end = result.buffer().end();
    reader.advance(end).unwrap();
    // The writer is done, so even its former head was returned by the consume.
    assert_eq!(pool.outstanding(), 0);
    reader.complete(None);
    pool.assert_all_returned();
}

#[test]
fn the_reader_reads_everything_left_after_the_writer_completed() {
    let (mut writer, mut reader, pool) = counted();
    let data: Vec<u8> = (0..=255).collect();
    writer.write(&data).unwrap();
    writer.complete(None);
    let result = reader.try_read().unwrap().unwrap();
    assert!(result.is_completed());
    assert_eq!(result.buffer().to_vec(), data);
    drop(reader);
    pool.assert_all_returned();
}

#[test]
fn reader_completion_wakes_a_paused_flush() {
    let pool = CountingPool::new();
    let (mut writer, mut reader) = PipeOptions::new()
        .pause_writer_threshold(10)
        .resume_writer_threshold(5)
        .buffer_pool(pool.clone())
        .build()
        .unwrap();
    writer.write(&[0; 10]).unwrap();
    let (counter, waker) = WakeCounter::new();
    let mut flush = pin!(writer.flush());
    assert!(poll_with(flush.as_mut(), &waker).is_pending());
    reader.complete(None);
    assert_eq!(counter.wakes(), 1);
    match poll_with(flush.as_mut(), &waker) {
        Poll::Ready(Ok(result)) => assert!(result.is_completed && !result.is_canceled),
        other => panic!("expected a completed flush, got {other:?}"),
    }
}

#[test]
fn completion_events_are_reported_once_per_side() {
    let recorder = Recorder::new();
    let (mut writer, mut reader) = PipeOptions::new().observer(recorder.clone()).build().unwrap();
    writer.write(b"abc").unwrap();
    writer.complete(Some(Failure::new("oops")));
    writer.complete(None);
    reader.complete(None);
    drop((writer, reader));
    let events = recorder.events();
    let writer_completions: Vec<&PipeEvent> =
        events.iter().filter(|e| matches!(e, PipeEvent::WriterCompleted { .. })).collect();
    assert_eq!(writer_completions.len(), 1);
    assert!(matches!(writer_completions[0], PipeEvent::WriterCompleted { failed: true, .. }));
    let reader_completions = events.iter().filter(|e| matches!(e, PipeEvent::ReaderCompleted { .. })).count();
    assert_eq!(reader_completions, 1);
}

/// The two sides complete on different threads while the other side is still reading
/// or writing; whatever the interleaving, every buffer comes back exactly once.
#[test]
fn racing_completions_release_every_buffer_once() {
    for round in 0..300u64 {
        let (mut writer, mut reader, pool) = counted();
        writer.write(&[7; 150]).unwrap();
        block_on(writer.flush()).unwrap();
        let watch = Watch::new();
        let writing = watch.spawn("writer", move || {
            writer.write(&vec![8; (round % 130) as usize]).unwrap();
            phase("complete()");
            writer.complete(None);
        });
        let reading = watch.spawn("reader", move || {
            loop {
                phase("read()");
                let result = block_on(reader.read()).unwrap();
                let done = result.is_completed();
                let end = result.buffer().end();
                reader.advance(end).unwrap();
                if done || round.is_multiple_of(3) {
                    break;
                }
            }
            phase("complete()");
            reader.complete(None);
        });
        watch.join(writing);
        watch.join(reading);
        pool.assert_all_returned();
    }
}

// Writing 64 MiB after the reader completed keeps at most one segment rented: tested
// with the other segment counts in `segment_reuse.rs`.

#[test]
fn advance_after_the_writer_saw_the_reader_complete_is_a_no_op() {
    let (mut writer, mut reader, _pool) = counted();
    reader.complete(None);
    writer.write(&[1; 10]).unwrap();
    assert!(block_on(writer.flush()).unwrap().is_completed);
    let first = writer.get_memory(1).unwrap().len();
    writer.advance(5).unwrap();
    assert_eq!(writer.unflushed_bytes(), 0, "nothing is counted once nobody will read it");
    assert_eq!(writer.get_memory(1).unwrap().len(), first, "the same memory is handed out again");
    assert!(matches!(writer.advance(first + 1), Err(pipecheck_pipe::PipeError::AdvancePastMemory { .. })));
}

#[test]
fn a_writer_that_never_flushes_stops_piling_up_once_the_reader_completed() {
    let (mut writer, mut reader, pool) = counted();
    reader.complete(None);
    for _ in 0..1000 {
        writer.write(&[2; 64]).unwrap(); // one full 64-byte segment each, never flushed
        assert!(pool.outstanding() <= 1, "{} buffers held", pool.outstanding());
    }
    writer.complete(None);
    pool.assert_all_returned();
}
