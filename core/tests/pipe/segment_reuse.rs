//! A fully consumed pipe keeps no segment, as System.IO.Pipelines: when the reader
//! consumes everything and no write is in progress, the writer's idle head goes back to
//! the pool with the rest, and the next write reuses a pooled segment. Segments are
//! counted through the buffer pool's own counters (`CountingPool`) and the pipe's
//! segment events.

use crate::common::block_on;

use crate::common::{CountingPool, check_lifecycle, created, discarded, fixed, recorded, returned, taken};
use pipecheck_pipe::{PipeEvent, PipeOptions, Reader};

const SEGMENT: usize = 64;

/// Reads, checks the length, and consumes (and examines) `consume` bytes, so the next
/// read returns the rest at once.
fn read_consuming(reader: &mut Reader, expected_len: usize, consume: usize) {
    let result = reader.try_read().unwrap().expect("bytes are ready");
    assert_eq!(result.buffer().len(), expected_len);
    let consumed = result.buffer().position(consume).unwrap();
    reader.advance(consumed).unwrap();
}

/// Reads and consumes everything.
fn consume_all(reader: &mut Reader, expected_len: usize) {
    read_consuming(reader, expected_len, expected_len);
}

#[test]
fn a_fully_consumed_pipe_has_zero_segments_rented() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    writer.write(b"hello").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(pool.outstanding(), 1);
    consume_all(&mut reader, 5);
    assert_eq!(pool.outstanding(), 0, "the idle head went back with the last consumed byte");
    assert_eq!(recorder.segments(returned), vec![0], "its segment object is pooled");
    check_lifecycle(&recorder.events(), PipeOptions::DEFAULT_MAX_POOLED_SEGMENTS);
}

#[test]
fn the_next_write_reuses_the_pooled_segment() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    writer.write(b"hello").unwrap();
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, 5);

    writer.write(b"world").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(recorder.segments(created), vec![0], "no new segment object");
    assert_eq!(recorder.segments(taken), vec![0], "the returned head is taken from the pool");
    assert_eq!(pool.outstanding(), 1);
    let result = reader.try_read().unwrap().unwrap();
    assert_eq!(result.buffer().to_vec(), b"world", "the new segment starts at the new bytes");
    assert_eq!(result.buffer().start().offset(), 5);
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    assert_eq!(pool.outstanding(), 0);
    check_lifecycle(&recorder.events(), PipeOptions::DEFAULT_MAX_POOLED_SEGMENTS);
}

#[test]
fn consuming_part_of_the_data_keeps_the_head() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    writer.write(b"hello").unwrap();
    block_on(writer.flush()).unwrap();
    read_consuming(&mut reader, 5, 4);
    assert_eq!(pool.outstanding(), 1, "one byte is still unconsumed");
    assert!(recorder.segments(returned).is_empty());
    read_consuming(&mut reader, 1, 1);
    assert_eq!(pool.outstanding(), 0);
}

#[test]
fn the_head_is_kept_while_a_write_is_in_progress() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    writer.write(b"hello").unwrap();
    block_on(writer.flush()).unwrap();
    // `get_memory` starts the next write before the reader consumes everything.
    writer.get_memory(3).unwrap()[..3].copy_from_slice(b"abc");
    consume_all(&mut reader, 5);
    assert_eq!(pool.outstanding(), 1, "the writer is writing into its head");
    assert!(recorder.events().contains(&PipeEvent::HeadBusy));
    writer.advance(3).unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    assert_eq!(result.buffer().to_vec(), b"abc", "the bytes written meanwhile are intact");
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    assert_eq!(pool.outstanding(), 0, "idle again: now it goes");
    assert_eq!(recorder.segments(created), vec![0]);
    check_lifecycle(&recorder.events(), PipeOptions::DEFAULT_MAX_POOLED_SEGMENTS);
}

#[test]
fn a_flush_ends_the_write_so_advance_needs_new_memory() {
    let (mut writer, _reader, _recorder, _pool) = recorded(fixed(SEGMENT));
    writer.get_memory(1).unwrap();
    writer.advance(1).unwrap();
    block_on(writer.flush()).unwrap();
    assert!(writer.advance(1).is_err(), "the memory handed out before the flush is gone");
    writer.get_memory(1).unwrap();
    writer.advance(1).unwrap();
}

#[test]
fn consuming_exactly_to_a_full_head_s_end_returns_it_once_the_writer_is_idle() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    let memory = writer.get_memory(SEGMENT).unwrap();
    memory.fill(7);
    writer.advance(SEGMENT).unwrap(); // full, but the writer has not moved on
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, SEGMENT);
    assert_eq!(recorder.segments(returned), vec![0]);
    assert_eq!(pool.outstanding(), 0);
}

#[test]
fn consuming_exactly_to_a_segment_end_returns_that_segment() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(8));
    writer.write(&[0; 20]).unwrap(); // segments 0, 1 full, 2 holding 4 bytes
    block_on(writer.flush()).unwrap();
    read_consuming(&mut reader, 20, 8); // exactly segment 0's end
    assert_eq!(recorder.segments(returned), vec![0], "consumed to its end, in the same advance_to");
    read_consuming(&mut reader, 12, 8); // exactly segment 1's end
    assert_eq!(recorder.segments(returned), vec![0, 1]);
    assert_eq!(pool.outstanding(), 1, "only the head, with 4 unconsumed bytes, is in use");
}

#[test]
fn a_257_segment_write_fully_consumed_pools_256_drops_one_and_keeps_none() {
    let (mut writer, mut reader, recorder, pool) = recorded(fixed(SEGMENT));
    // 257 full segments, the last of them the writer's (idle) head.
    for i in 0..257 {
        let memory = writer.get_memory(SEGMENT).unwrap();
        memory.fill(i as u8);
        writer.advance(SEGMENT).unwrap();
    }
    block_on(writer.flush()).unwrap();
    assert_eq!(pool.outstanding(), 257);
    consume_all(&mut reader, 257 * SEGMENT);

    assert_eq!(recorder.segments(returned), (0..256).collect::<Vec<_>>(), "pooled up to the maximum");
    assert_eq!(recorder.segments(discarded), vec![256], "the head finds the pool full");
    assert_eq!(pool.outstanding(), 0, "nothing stays rented");
    assert_eq!(pool.rents(), 257);
    assert_eq!(pool.returns(), 257);
    check_lifecycle(&recorder.events(), 256);

    // The next write reuses the first pooled segment, in FIFO order.
    writer.write(b"next").unwrap();
    block_on(writer.flush()).unwrap();
    assert_eq!(recorder.segments(taken), vec![0]);
    assert_eq!(pool.outstanding(), 1);
}

#[test]
fn writing_64_mib_after_the_reader_completed_keeps_at_most_one_segment_rented() {
    let pool = CountingPool::new();
    let (mut writer, mut reader) = PipeOptions::new().buffer_pool(pool.clone()).build().unwrap();
    writer.write(b"hello").unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    let end = result.buffer().end();
    reader.advance_to(end, end).unwrap();
    assert_eq!(pool.outstanding(), 0, "fully consumed: nothing rented");
    reader.complete(None);

    let chunk = vec![7u8; 64 * 1024];
    let mut most = 0;
    for i in 0..1024 {
        // Half the chunks are flushed, half are not: neither piles up.
        writer.write(&chunk).unwrap();
        if i % 2 == 0 {
            assert!(block_on(writer.flush()).unwrap().is_completed);
        }
        most = most.max(pool.outstanding());
    }
    eprintln!("64 MiB after the reader completed: at most {most} segment(s) rented while writing");
    assert!(most <= 1, "writing 64 MiB after the reader completed held {most} segments at once");
    writer.complete(None);
    pool.assert_all_returned();
}

#[test]
fn segments_written_before_the_reader_completed_go_back_at_the_next_flush() {
    let pool = CountingPool::new();
    let (mut writer, mut reader) = PipeOptions::new().buffer_pool(pool.clone()).build().unwrap();
    // Several segments written and not yet flushed when the reader goes.
    writer.write(&vec![7u8; 64 * 1024]).unwrap();
    let written = pool.outstanding();
    assert!(written > 1, "a 64 KiB write spans segments ({written} rented)");
    reader.complete(None);
    assert!(block_on(writer.flush()).unwrap().is_completed);
    let kept = pool.outstanding();
    assert!(kept <= 1, "the flush that found the reader gone kept {kept} of {written} segments");
    writer.complete(None);
    pool.assert_all_returned();
}

#[test]
fn segments_written_before_the_reader_completed_go_back_when_the_writer_next_needs_memory() {
    let (mut writer, mut reader, _recorder, pool) = recorded(fixed(SEGMENT));
    // Three full segments, none flushed: two unlinked, the third the (full) head.
    writer.write(&[7; 3 * SEGMENT]).unwrap();
    assert_eq!(pool.outstanding(), 3);
    let rents = pool.rents();
    reader.complete(None);
    // The full head needs a new segment: that is where the writer learns the reader is
    // gone, gives the unlinked two back, and rewinds its own head instead of renting.
    writer.write(&[8; 10]).unwrap();
    assert_eq!(pool.outstanding(), 1, "the segments nobody will read went back at once");
    for _ in 0..8 {
        writer.write(&[9; SEGMENT]).unwrap();
    }
    assert_eq!(pool.rents(), rents, "with the reader gone, the head is rewound, not traded for a new buffer");
    assert_eq!(pool.outstanding(), 1);
    writer.complete(None);
    pool.assert_all_returned();
}

#[test]
fn writing_after_the_reader_took_the_idle_head_and_completed_starts_one_head() {
    let (mut writer, mut reader, _recorder, pool) = recorded(fixed(SEGMENT));
    writer.write(b"abc").unwrap();
    block_on(writer.flush()).unwrap();
    consume_all(&mut reader, 3);
    assert_eq!(pool.outstanding(), 0, "the reader took the idle head back");
    reader.complete(None);
    writer.write(b"more").unwrap();
    assert_eq!(pool.outstanding(), 1);
    writer.complete(None);
    pool.assert_all_returned();
}

#[test]
fn an_empty_head_too_small_for_the_next_request_trades_its_buffer_in_place() {
    let (mut writer, _reader, recorder, pool) =
        recorded(PipeOptions::new().minimum_segment_size(64).maximum_segment_size(4096));
    assert!(writer.get_memory(16).unwrap().len() >= 16);
    assert!(writer.get_memory(1024).unwrap().len() >= 1024);
    assert_eq!(pool.outstanding(), 1, "the empty head's buffer went back before the larger one was rented");
    assert_eq!(recorder.segments(created), vec![0], "and its segment object was kept for the new buffer");
    writer.complete(None);
    pool.assert_all_returned();
}
