//! System.IO.Pipelines' own pool tests, as scenarios on the recorded event log:
//! (a) a returned segment is reused by the next write; (b) after 257 full segments are
//! written and consumed, the next 256 writes reuse 256 of them in FIFO order and the
//! 257th was discarded; (c) completing both sides releases every buffer exactly once;
//! (d) the write head is never returned while the writer is writing it. Then pipecheck's
//! own sizing, where it differs from .NET (see `docs/semantics.md`): (e) segment sizes
//! start at the minimum and double up to the maximum, where .NET rents the minimum (or
//! the hint) for every segment; a maximum equal to the minimum gives .NET's sizes. (A
//! fully consumed pipe keeping no segment, .NET's idle-head rule, has its own file:
//! `segment_reuse.rs`.)
//!
//! Every scenario also runs the log through `common::check_lifecycle`, which enforces the
//! segment life cycle (no-double-return, bounded-pool) on every event.

use crate::common::block_on;

use crate::common::{
    Recorder, check_lifecycle, created, discarded, fixed, head_released, recorded, returned, taken,
};
use pipecheck_pipe::{PipeEvent, PipeOptions, PoolDesign, Reader, SegmentId, Writer};

const SEGMENT: usize = 64;

/// The capacity of every segment created, in order.
fn created_capacities(recorder: &Recorder) -> Vec<usize> {
    recorder
        .events()
        .iter()
        .filter_map(|e| match e {
            PipeEvent::SegmentCreated { capacity, .. } => Some(*capacity),
            _ => None,
        })
        .collect()
}

/// Reads, checks the bytes against `expected`, and consumes everything.
fn consume_all(reader: &mut Reader, expected: &[u8]) {
    let result = reader.try_read().unwrap().expect("bytes are ready");
    let actual = result.buffer().to_vec();
    assert_eq!(actual.len(), expected.len(), "read a different number of bytes");
    if let Some(i) = actual.iter().zip(expected).position(|(a, e)| a != e) {
        panic!("byte {i} is {:#04x}, expected {:#04x}", actual[i], expected[i]);
    }
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
}

/// Writes one full segment of `byte` through `get_memory(SEGMENT)`/`advance`.
fn write_full_segment(writer: &mut Writer, byte: u8) {
    let memory = writer.get_memory(SEGMENT).unwrap();
    assert_eq!(memory.len(), SEGMENT);
    memory.fill(byte);
    writer.advance(SEGMENT).unwrap();
}

#[test]
fn a_returned_segment_is_reused_by_the_next_write() {
    let (mut writer, mut reader, recorder, _pool) = recorded(fixed(SEGMENT));
    writer.write(&[1; SEGMENT + 1]).unwrap(); // fills segment 0, one byte into segment 1
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, &[1; SEGMENT + 1]);
    assert_eq!(recorder.segments(returned), vec![0, 1], "segment 0, then the idle head: all is consumed");

    write_full_segment(&mut writer, 2); // does not fit in segment 1's 63 free bytes
    block_on(writer.flush()).unwrap();
    assert_eq!(recorder.segments(taken), vec![0]);
    assert_eq!(recorder.segments(created), vec![0, 1], "no new segment object was needed");
    let events = recorder.events();
    let returned_at = events.iter().position(|e| returned(e) == Some(0)).unwrap();
    let taken_at = events.iter().position(|e| taken(e) == Some(0)).unwrap();
    assert!(returned_at < taken_at);
    consume_all(&mut reader, &[2; SEGMENT]);
    check_lifecycle(&recorder.events(), PipeOptions::DEFAULT_MAX_POOLED_SEGMENTS);
}

#[test]
fn after_257_consumed_segments_the_next_256_writes_reuse_them_in_fifo_order() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    // 257 full segments (0..=256) plus one byte in segment 257, the writer's idle head:
    // all 258 go back, the pool keeps the first 256.
    let first: Vec<u8> = (0..257 * SEGMENT + 1).map(|i| (i / SEGMENT) as u8).collect();
    writer.write(&first).unwrap();
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, &first);

    let ids: Vec<SegmentId> = (0..=255).collect();
    assert_eq!(recorder.segments(returned), ids, "returned in list order until the pool is full");
    assert_eq!(recorder.segments(discarded), vec![256, 257], "the 257th and the head find the pool full");
    assert_eq!(pool.outstanding(), 0, "a fully consumed pipe keeps no buffer");
    assert_eq!(recorder.segments(created), (0..=257).collect::<Vec<_>>());
    check_lifecycle(&recorder.events(), 256);
    let before = recorder.take();

    for i in 0..257 {
        write_full_segment(&mut writer, i as u8);
    }
    block_on(writer.flush()).unwrap();
    assert_eq!(recorder.segments(taken), ids, "reused in the order they were returned");
    assert_eq!(recorder.segments(created), vec![258], "the 257th write needs a new object");

    let second: Vec<u8> = (0..257).flat_map(|i| [i as u8; SEGMENT]).collect();
    consume_all(&mut reader, &second);
    let mut all = before;
    all.extend(recorder.events());
    check_lifecycle(&all, 256);

    writer.complete(None);
    reader.complete(None);
    pool.assert_all_returned();
}

#[test]
fn the_locked_stack_design_reuses_the_most_recent_segment_first() {
    let (mut writer, mut reader, recorder, _pool) =
        recorded(fixed(SEGMENT).pool_design(PoolDesign::LockedStack));
    writer.write(&[0; 4 * SEGMENT + 1]).unwrap();
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, &[0; 4 * SEGMENT + 1]);
    assert_eq!(recorder.segments(returned), vec![0, 1, 2, 3, 4]);
    for _ in 0..4 {
        write_full_segment(&mut writer, 9);
    }
    assert_eq!(recorder.segments(taken), vec![4, 3, 2, 1], "LIFO, the design before seed 000");
}

#[test]
fn the_pool_bound_is_configurable() {
    let (mut writer, mut reader, recorder, _pool) = recorded(fixed(SEGMENT).max_pooled_segments(2));
    writer.write(&[0; 5 * SEGMENT + 1]).unwrap();
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, &[0; 5 * SEGMENT + 1]);
    assert_eq!(recorder.segments(returned), vec![0, 1]);
    assert_eq!(recorder.segments(discarded), vec![2, 3, 4, 5]);
    for _ in 0..3 {
        write_full_segment(&mut writer, 1);
    }
    assert_eq!(recorder.segments(taken), vec![0, 1]);
    assert_eq!(recorder.segments(created), vec![0, 1, 2, 3, 4, 5, 6]);
    check_lifecycle(&recorder.events(), 2);
}

#[test]
fn a_pool_bound_of_zero_pools_nothing() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT).max_pooled_segments(0));
    writer.write(&[0; 3 * SEGMENT + 1]).unwrap();
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, &[0; 3 * SEGMENT + 1]);
    assert!(recorder.segments(returned).is_empty());
    assert_eq!(recorder.segments(discarded), vec![0, 1, 2, 3]);
    assert_eq!(pool.outstanding(), 0, "buffers of discarded segments still go back, the idle head's too");
}

#[test]
fn the_write_head_is_not_returned_while_the_writer_is_writing_it() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    writer.write(&[b'a'; 10]).unwrap();
    block_on(writer.flush()).unwrap();
    // The writer asks for memory again before the reader consumes: a write is in
    // progress, so the head stays although every committed byte is consumed.
    writer.get_memory(1).unwrap()[..10].fill(b'b');
    consume_all(&mut reader, &[b'a'; 10]);
    assert!(recorder.segments(returned).is_empty(), "segment 0 is being written");
    assert_eq!(pool.outstanding(), 1);

    // The writer keeps filling the same segment, and the reader sees exactly the new bytes.
    writer.advance(10).unwrap();
    writer.write(&[b'c'; 50]).unwrap(); // 44 bytes finish segment 0, 6 go to segment 1
    block_on(writer.flush()).unwrap();
    assert_eq!(recorder.segments(created), vec![0, 1]);
    assert_eq!(recorder.segments(head_released), vec![0]);
    let mut expected = vec![b'b'; 10];
    expected.extend([b'c'; 50]);
    // Once the writer moved on, segment 0 goes; the idle head follows, all being consumed.
    consume_all(&mut reader, &expected);
    assert_eq!(recorder.segments(returned), vec![0, 1]);
    assert_eq!(pool.outstanding(), 0);

    writer.complete(None);
    let result = reader.try_read().unwrap().unwrap();
    assert!(result.is_completed() && result.buffer().is_empty());
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    check_lifecycle(&recorder.events(), PipeOptions::DEFAULT_MAX_POOLED_SEGMENTS);
    reader.complete(None);
    pool.assert_all_returned();
}

#[test]
fn segments_start_at_the_minimum_size_and_double_up_to_the_maximum() {
    let (mut writer, mut reader, recorder, pool) =
        recorded(PipeOptions::new().minimum_segment_size(64).maximum_segment_size(1024));
    let first = writer.get_memory(1).unwrap().len();
    assert_eq!(first, 64, "the minimum segment size is honoured for a small hint");
    let sizes = [64usize, 128, 256, 512, 1024, 1024, 1024];
    let total: usize = sizes.iter().sum();
    writer.write(&vec![3; total]).unwrap();
    block_on(writer.flush()).unwrap();
    let capacities = created_capacities(&recorder);
    assert_eq!(capacities, sizes);
    assert_eq!(pool.requests(), sizes, "each segment rents exactly its planned size");
    consume_all(&mut reader, &vec![3; total]);
}

/// .NET's sizes (`Pipe.GetSegmentSize`: the larger of the minimum and the hint, for every
/// segment): with the maximum at the minimum nothing grows.
#[test]
fn with_the_maximum_at_the_minimum_every_segment_has_the_minimum_size() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(64));
    writer.write(&[5; 64 * 5]).unwrap();
    block_on(writer.flush()).unwrap();
    let capacities = created_capacities(&recorder);
    assert_eq!(capacities, [64; 5]);
    assert_eq!(pool.requests(), [64; 5]);
    consume_all(&mut reader, &[5; 64 * 5]);
}

#[test]
fn a_large_hint_gets_a_segment_of_that_size() {
    let (mut writer, _reader, recorder, pool) =
        recorded(PipeOptions::new().minimum_segment_size(64).maximum_segment_size(4096));
    assert_eq!(writer.get_memory(3000).unwrap().len(), 3000);
    writer.advance(1).unwrap();
    assert!(recorder.events().contains(&PipeEvent::SegmentCreated { segment: 0, capacity: 3000 }));
    assert_eq!(pool.requests(), vec![3000]);
}

#[test]
fn a_large_hint_into_an_empty_head_replaces_its_buffer() {
    let (mut writer, mut reader, _recorder, pool) =
        recorded(PipeOptions::new().minimum_segment_size(64).maximum_segment_size(4096));
    assert_eq!(writer.get_memory(1).unwrap().len(), 64);
    // Nothing advanced: the 64-byte head is replaced, and its buffer goes straight back.
    assert_eq!(writer.get_memory(2000).unwrap().len(), 2000);
    assert_eq!(pool.rents(), 2);
    assert_eq!(pool.returns(), 1);
    writer.get_memory(2000).unwrap()[..3].copy_from_slice(b"big");
    writer.advance(3).unwrap();
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, b"big");
    drop(writer);
    drop(reader);
    pool.assert_all_returned();
}

#[test]
fn consuming_up_to_a_segment_boundary_returns_exactly_the_segments_before_it() {
    let (mut writer, mut reader, recorder, _pool) = recorded(fixed(8));
    writer.write(&[0; 26]).unwrap(); // segments 0..=3, the last holding 2 bytes
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    let inside = result.buffer().position(15).unwrap();
    reader.advance(inside).unwrap();
    assert_eq!(recorder.segments(returned), vec![0], "segment 1 still holds byte 15");
    let result = reader.try_read().unwrap().unwrap();
    let boundary = result.buffer().position(1).unwrap(); // stream offset 16
    reader.advance(boundary).unwrap();
    assert_eq!(recorder.segments(returned), vec![0, 1]);
}

#[test]
fn fifo_order_holds_across_the_pool_queue_s_ring_chunks() {
    // A first ring chunk of one slot: the queue links chunks of 1, 2, 4, 8, ... slots.
    let (mut writer, mut reader, recorder, _pool) = recorded(fixed(SEGMENT).pool_first_chunk(1));
    for round in 0..3u8 {
        let bytes = vec![round; 20 * SEGMENT];
        writer.write(&bytes).unwrap();
        block_on(writer.flush()).unwrap();
        consume_all(&mut reader, &bytes);
    }
    let returned_ids = recorder.segments(returned);
    let taken_ids = recorder.segments(taken);
    assert!(taken_ids.len() >= 30);
    assert_eq!(taken_ids[..], returned_ids[..taken_ids.len()], "taken in exactly the order returned");
    check_lifecycle(&recorder.events(), PipeOptions::DEFAULT_MAX_POOLED_SEGMENTS);
}
