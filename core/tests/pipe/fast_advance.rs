//! The lock-free `advance_to` (seed 001's uncontended path on the reader's side): an
//! advance that returns no segment, reclaims no idle head and resumes no writer takes
//! no lock, and every lock holder after it still counts with its offsets.

use crate::common::block_on;

use crate::common::{Recorder, fixed, poll_once, recorded};
use pipecheck_pipe::{PipeEvent, PipeOperation, PipeOptions, Reader, Writer};

fn pipe(options: PipeOptions) -> (Writer, Reader, std::sync::Arc<Recorder>) {
    let (writer, reader, recorder, _pool) = recorded(options);
    (writer, reader, recorder)
}

fn send(writer: &mut Writer, bytes: &[u8]) {
    writer.write(bytes).unwrap();
    block_on(writer.flush()).unwrap();
}

/// Reads, consumes `consume` bytes and examines everything; returns the bytes read.
fn read_consuming(reader: &mut Reader, consume: usize) -> Vec<u8> {
    let result = block_on(reader.read()).unwrap();
    let bytes = result.buffer().to_vec();
    let consumed = result.buffer().position(consume).unwrap();
    let end = result.buffer().end();
    reader.advance_to(consumed, end).unwrap();
    bytes
}

/// Whether the last `advance_to` in the log took the lock: a `LockReleased` of
/// `AdvanceTo` follows its `Consumed`.
fn last_advance_locked(recorder: &Recorder) -> bool {
    let events = recorder.events();
    let consumed = events.iter().rposition(|e| matches!(e, PipeEvent::Consumed { .. })).expect("an advance");
    events[consumed..].iter().any(|e| matches!(e, PipeEvent::LockReleased { op: PipeOperation::AdvanceTo }))
}

#[test]
fn consuming_part_of_the_published_bytes_takes_no_lock() {
    let (mut writer, mut reader, recorder) = pipe(fixed(16));
    send(&mut writer, b"abc");
    assert_eq!(read_consuming(&mut reader, 1), b"abc");
    assert!(!last_advance_locked(&recorder), "nothing to return, reclaim or resume");
    assert!(recorder.events().contains(&PipeEvent::Consumed { consumed: 1, examined: 3, unconsumed: 0 }));
    // The next read starts at the consumed offset the lock never saw.
    send(&mut writer, b"d");
    assert_eq!(read_consuming(&mut reader, 0), b"bcd");
}

#[test]
fn a_flush_under_the_lock_counts_with_the_offsets_of_a_lock_free_advance() {
    // Pause at five unexamined bytes: the second flush links a segment (so it locks),
    // and counts 7 − 3 = 4 only if it sees the examined offset the advance stored.
    let (mut writer, mut reader, recorder) =
        pipe(fixed(4).pause_writer_threshold(5).resume_writer_threshold(1));
    send(&mut writer, b"abc");
    read_consuming(&mut reader, 1);
    assert!(!last_advance_locked(&recorder));
    send(&mut writer, b"defg");
    let flushed = recorder.events().into_iter().rfind(|e| matches!(e, PipeEvent::Flushed { .. }));
    assert_eq!(flushed, Some(PipeEvent::Flushed { committed: 7, unconsumed: 4, paused: false }));
}

#[test]
fn buffered_len_after_a_lock_free_advance_counts_from_its_examined_offset() {
    let (mut writer, mut reader, _recorder) = pipe(fixed(16));
    send(&mut writer, b"abc");
    read_consuming(&mut reader, 1);
    send(&mut writer, b"de");
    assert_eq!(reader.buffered_len().unwrap(), 2);
}

#[test]
fn consuming_everything_published_takes_the_lock_to_reclaim_the_head() {
    let (mut writer, mut reader, recorder) = pipe(fixed(16));
    send(&mut writer, b"abc");
    read_consuming(&mut reader, 3);
    assert!(last_advance_locked(&recorder));
    assert!(recorder.events().iter().any(|e| matches!(e, PipeEvent::HeadReclaimed { .. })));
}

#[test]
fn consuming_a_whole_segment_takes_the_lock_to_return_it() {
    let (mut writer, mut reader, recorder) = pipe(fixed(4));
    send(&mut writer, b"abcdef");
    read_consuming(&mut reader, 5);
    assert!(last_advance_locked(&recorder));
    assert!(recorder.events().iter().any(|e| matches!(e, PipeEvent::SegmentReturned { .. })));
}

#[test]
fn an_advance_that_releases_a_paused_writer_takes_the_lock() {
    let (mut writer, mut reader, recorder) =
        pipe(fixed(16).pause_writer_threshold(2).resume_writer_threshold(2));
    writer.write(b"abc").unwrap();
    let mut flush = writer.flush();
    assert!(poll_once(std::pin::Pin::new(&mut flush)).is_pending(), "three bytes pause the writer");
    read_consuming(&mut reader, 1);
    assert!(last_advance_locked(&recorder), "the resume is decided under the lock");
    assert!(recorder.events().iter().any(|e| matches!(e, PipeEvent::FlushResumed { .. })));
    assert!(poll_once(std::pin::Pin::new(&mut flush)).is_ready());
}

#[test]
fn an_advance_after_the_writer_completed_takes_the_lock() {
    let (mut writer, mut reader, recorder) = pipe(fixed(16));
    send(&mut writer, b"abc");
    writer.complete(None);
    read_consuming(&mut reader, 1);
    assert!(last_advance_locked(&recorder), "the last segment's end is known: the lock decides");
}

#[test]
fn an_advance_with_a_segment_the_view_lacks_takes_the_lock() {
    let (mut writer, mut reader, recorder) = pipe(fixed(4));
    send(&mut writer, b"ab");
    let result = block_on(reader.read()).unwrap();
    let (consumed, end) = (result.buffer().position(1).unwrap(), result.buffer().end());
    // A flush links a second segment while the read's buffer is out.
    send(&mut writer, b"cdef");
    reader.advance_to(consumed, end).unwrap();
    assert!(last_advance_locked(&recorder), "the view does not tell which segments are consumed");
}

#[test]
fn consuming_everything_while_the_writer_writes_into_its_head_takes_no_lock() {
    let (mut writer, mut reader, recorder) = pipe(fixed(16));
    send(&mut writer, b"abc");
    writer.get_memory(1).unwrap(); // the writer takes its parked head back
    read_consuming(&mut reader, 3);
    assert!(!last_advance_locked(&recorder), "no head to reclaim: nothing needs the lock");
    assert_eq!(recorder.events().iter().filter(|e| matches!(e, PipeEvent::HeadBusy)).count(), 1);
    // The head stays the writer's: the next bytes land in it and are read.
    writer.advance(0).unwrap();
    send(&mut writer, b"d");
    assert_eq!(read_consuming(&mut reader, 1), b"d");
}

// The facade records operations only in a build with planted bugs (feature `faults`, on
// in every workspace build).

#[test]
fn an_advance_that_sees_the_head_busy_does_no_read_modify_write() {
    use pipecheck_sync::record::{Detail, OpKind, Recording};
    let (mut writer, mut reader, recorder) = pipe(fixed(16));
    send(&mut writer, b"abc");
    writer.get_memory(1).unwrap(); // the writer takes its parked head back
    let result = block_on(reader.read()).unwrap();
    let end = result.buffer().end();
    let recording = Recording::new(Detail::Sync);
    recording.run(|| reader.advance_to(end, end).unwrap());
    // Its load showed no head parked: no claim, so the writer's word keeps its line.
    // The advance's own marks and offsets are stores to the reader's line.
    let read_modify_writes: Vec<String> = recording
        .ops()
        .iter()
        .filter(|op| {
            matches!(op.kind, OpKind::Fetch { .. } | OpKind::CompareExchange { .. } | OpKind::Swap { .. })
        })
        .map(|op| op.what())
        .collect();
    assert!(read_modify_writes.is_empty(), "{read_modify_writes:?}");
    assert!(!last_advance_locked(&recorder));
    assert!(recorder.events().contains(&PipeEvent::HeadBusy));
}
