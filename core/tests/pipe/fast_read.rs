//! The lock-free read (seed 001's uncontended path on the reader's side): a read that
//! finds published bytes in segments it already holds takes them without the pipe lock,
//! and every state a read must see under the lock sends it there — a pending cancel,
//! the writer's completion, a segment it has not seen, its own parked waker.

use crate::common::block_on;

use crate::common::{Recorder, fixed, recorded};
use pipecheck_pipe::{PipeEvent, Reader, Writer};

/// A pipe with one 16-byte segment and a log of its events.
fn pipe() -> (Writer, Reader, std::sync::Arc<Recorder>) {
    let (writer, reader, recorder, _pool) = recorded(fixed(16));
    (writer, reader, recorder)
}

fn send(writer: &mut Writer, bytes: &[u8]) {
    writer.write(bytes).unwrap();
    block_on(writer.flush()).unwrap();
}

/// Reads, examines everything and consumes nothing (so the head stays linked and the
/// next write goes into it), returning the bytes and whether the read was canceled.
fn examine_all(reader: &mut Reader) -> (Vec<u8>, bool) {
    let result = block_on(reader.read()).unwrap();
    let (bytes, canceled) = (result.buffer().to_vec(), result.is_canceled());
    let (start, end) = (result.buffer().start(), result.buffer().end());
    reader.advance_to(start, end).unwrap();
    (bytes, canceled)
}

/// Whether the last read in the log took its bytes without the lock: its
/// `ReadReturned` follows a `FastReadTried` with no `FastReadMissed` between.
fn last_read_was_lock_free(recorder: &Recorder) -> bool {
    let events = recorder.events();
    let returned = events.iter().rposition(|e| matches!(e, PipeEvent::ReadReturned { .. })).expect("a read");
    let tried = events[..returned].iter().rposition(|e| matches!(e, PipeEvent::FastReadTried));
    tried.is_some_and(|tried| !events[tried..returned].iter().any(|e| matches!(e, PipeEvent::FastReadMissed)))
}

#[test]
fn bytes_flushed_into_a_segment_the_reader_holds_are_read_without_the_lock() {
    let (mut writer, mut reader, recorder) = pipe();
    send(&mut writer, b"a");
    assert_eq!(examine_all(&mut reader), (b"a".to_vec(), false));
    assert!(!last_read_was_lock_free(&recorder), "the first read must take the new segment into its view");
    send(&mut writer, b"b");
    assert_eq!(examine_all(&mut reader), (b"ab".to_vec(), false));
    assert!(last_read_was_lock_free(&recorder), "the second byte is in the segment the reader holds");
}

#[test]
fn a_cancel_before_the_read_sends_it_to_the_lock_and_is_reported() {
    let (mut writer, mut reader, recorder) = pipe();
    send(&mut writer, b"a");
    examine_all(&mut reader);
    send(&mut writer, b"b");
    reader.cancel_pending_read();
    assert_eq!(examine_all(&mut reader), (b"ab".to_vec(), true));
    assert!(!last_read_was_lock_free(&recorder));
    // Observed once: the next read is lock-free again.
    send(&mut writer, b"c");
    assert_eq!(examine_all(&mut reader), (b"abc".to_vec(), false));
    assert!(last_read_was_lock_free(&recorder));
}

#[test]
fn the_writers_completion_sends_the_read_to_the_lock() {
    let (mut writer, mut reader, recorder) = pipe();
    send(&mut writer, b"a");
    examine_all(&mut reader);
    writer.write(b"b").unwrap(); // committed by the completion, with it
    writer.complete(None);
    let result = block_on(reader.read()).unwrap();
    assert_eq!(result.buffer().to_vec(), b"ab");
    assert!(result.is_completed(), "the completion's last bytes come with the completion");
    assert!(!last_read_was_lock_free(&recorder));
}

#[test]
fn a_segment_the_reader_has_not_seen_sends_the_read_to_the_lock() {
    let (mut writer, mut reader, recorder) = pipe();
    send(&mut writer, b"0123456789abcdef"); // fills the only segment
    examine_all(&mut reader);
    send(&mut writer, b"g"); // a second segment, linked by this flush
    let (bytes, _) = examine_all(&mut reader);
    assert_eq!(bytes, b"0123456789abcdefg");
    assert!(!last_read_was_lock_free(&recorder), "the new segment is not in the reader's view");
}

#[test]
fn a_read_that_must_wait_tries_then_parks_under_the_lock() {
    let (mut writer, mut reader, recorder) = pipe();
    send(&mut writer, b"a");
    examine_all(&mut reader);
    assert!(reader.try_read().unwrap().is_none(), "nothing unexamined");
    let events = recorder.take();
    let tail: Vec<_> = events.iter().rev().take(2).rev().cloned().collect();
    assert_eq!(tail, [PipeEvent::FastReadTried, PipeEvent::FastReadMissed], "{events:?}");
}

#[test]
fn the_pre_seed_design_never_reads_without_the_lock() {
    let (mut writer, mut reader, recorder, _pool) =
        recorded(fixed(16).lock_scope(pipecheck_pipe::LockScope::EveryOperation));
    send(&mut writer, b"a");
    examine_all(&mut reader);
    send(&mut writer, b"b");
    examine_all(&mut reader);
    assert!(!recorder.events().iter().any(|e| matches!(e, PipeEvent::FastReadTried)));
}
