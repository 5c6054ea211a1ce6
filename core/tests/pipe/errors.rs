//! Every `PipeError` reachable from the public API, each provoked the simplest way and
//! checked field by field, plus the `OptionsError`s of `PipeOptions::build`. A refused
//! call must leave the pipe usable. A side's failure reaches the other side with its
//! cause: the very error value, downcastable to its real type.

use crate::common::block_on;
use crate::common::watchdog::Watch;

use pipecheck_pipe::{Failure, OptionsError, PipeError, PipeOptions, Reader, Writer};

fn flushed(data: &[u8]) -> (Writer, Reader) {
    let (mut writer, reader) = pipecheck_pipe::pipe();
    writer.write(data).unwrap();
    block_on(writer.flush()).unwrap();
    (writer, reader)
}

#[test]
fn advance_past_memory() {
    let (mut writer, _reader) = PipeOptions::new().minimum_segment_size(64).build().unwrap();
    writer.get_memory(1).unwrap();
    assert_eq!(writer.advance(100), Err(PipeError::AdvancePastMemory { requested: 100, available: 64 }));
}

/// .NET hands out a separate array above its pool's largest buffer; pipecheck refuses
/// a hint above its maximum segment size (`docs/semantics.md`).
#[test]
fn size_hint_too_large() {
    let (mut writer, _reader) = pipecheck_pipe::pipe();
    let max = PipeOptions::DEFAULT_MAXIMUM_SEGMENT_SIZE;
    assert_eq!(writer.get_memory(max + 1), Err(PipeError::SizeHintTooLarge { size_hint: max + 1, max }));
}

/// Flush and `advance(0)` included, which .NET lets through after `Complete`
/// (`docs/semantics.md`).
#[test]
fn writer_completed_refuses_every_writer_operation() {
    let (mut writer, _reader) = pipecheck_pipe::pipe();
    writer.get_memory(1).unwrap();
    writer.complete(None);
    assert_eq!(writer.get_memory(1), Err(PipeError::WriterCompleted));
    assert_eq!(writer.advance(1), Err(PipeError::WriterCompleted));
    assert_eq!(writer.advance(0), Err(PipeError::WriterCompleted));
    assert_eq!(writer.write(b"late"), Err(PipeError::WriterCompleted));
    assert_eq!(block_on(writer.flush()), Err(PipeError::WriterCompleted));
}

#[test]
fn reader_completed_refuses_every_reader_operation() {
    let (_writer, mut reader) = flushed(b"abc");
    let result = reader.try_read().unwrap().unwrap();
    let end = result.buffer().end();
    reader.complete(None);
    assert_eq!(block_on(reader.read()).unwrap_err(), PipeError::ReaderCompleted);
    assert_eq!(reader.try_read().unwrap_err(), PipeError::ReaderCompleted);
    assert_eq!(reader.advance_to(end, end), Err(PipeError::ReaderCompleted));
}

#[test]
fn advance_required_when_reading_twice_without_advance_to() {
    let (_writer, mut reader) = flushed(b"abc");
    let first = reader.try_read().unwrap().unwrap();
    let end = first.buffer().end();
    assert_eq!(reader.try_read().unwrap_err(), PipeError::AdvanceRequired);
    assert_eq!(block_on(reader.read()).unwrap_err(), PipeError::AdvanceRequired);
    // The first buffer is still outstanding and can be released.
    reader.advance_to(end, end).unwrap();
}

#[test]
fn nothing_to_advance_without_an_outstanding_buffer() {
    let (_writer, mut reader) = flushed(b"abc");
    let result = reader.try_read().unwrap().unwrap();
    let start = result.buffer().start();
    reader.advance_to(start, start).unwrap();
    assert_eq!(reader.advance_to(start, start), Err(PipeError::NothingToAdvance));
}

#[test]
fn stale_position_from_an_older_read() {
    let (_writer, mut reader) = flushed(b"abcdef");
    let result = reader.try_read().unwrap().unwrap();
    let old = result.buffer().position(2).unwrap();
    let start = result.buffer().start();
    reader.advance_to(start, start).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    let end = result.buffer().end();
    assert_eq!(
        reader.advance_to(old, end),
        Err(PipeError::StalePosition { position_read: 1, current_read: 2 })
    );
    assert_eq!(
        reader.advance_to(start, end),
        Err(PipeError::StalePosition { position_read: 1, current_read: 2 })
    );
    // Refused positions leave the buffer outstanding.
    reader.advance_to(end, end).unwrap();
}

#[test]
fn position_out_of_range_from_the_read_view() {
    let (_writer, mut reader) = flushed(b"abcdef");
    let result = reader.try_read().unwrap().unwrap();
    let buffer = result.buffer();
    assert_eq!(buffer.position(7), Err(PipeError::PositionOutOfRange { offset: 7, start: 0, end: 6 }));
    assert_eq!(
        buffer.slice(2..9).unwrap_err(),
        PipeError::PositionOutOfRange { offset: 9, start: 0, end: 6 }
    );
    let inner = buffer.slice(2..4).unwrap();
    let outside = buffer.position(5).unwrap();
    assert_eq!(
        inner.slice_between(inner.start(), outside).unwrap_err(),
        PipeError::PositionOutOfRange { offset: 5, start: 2, end: 4 }
    );
}

#[test]
fn examined_before_consumed() {
    let (_writer, mut reader) = flushed(b"abcdef");
    let result = reader.try_read().unwrap().unwrap();
    let consumed = result.buffer().position(4).unwrap();
    let examined = result.buffer().position(2).unwrap();
    assert_eq!(
        reader.advance_to(consumed, examined),
        Err(PipeError::ExaminedBeforeConsumed { consumed: 4, examined: 2 })
    );
    reader.advance_to(examined, consumed).unwrap();
}

/// Refused while examined stays at or after consumed, which .NET 9 accepts
/// (dotnet/runtime#107360; `docs/semantics.md`); the refusal changes nothing.
#[test]
fn examined_went_backwards() {
    let (mut writer, mut reader) = flushed(b"abcdef");
    let result = reader.try_read().unwrap().unwrap();
    let start = result.buffer().start();
    let examined = result.buffer().position(5).unwrap();
    reader.advance_to(start, examined).unwrap();
    writer.write(b"gh").unwrap();
    block_on(writer.flush()).unwrap();
    let result = reader.try_read().unwrap().unwrap();
    let start = result.buffer().start();
    let earlier = result.buffer().position(3).unwrap();
    let same = result.buffer().position(5).unwrap();
    assert_eq!(
        reader.advance_to(start, earlier),
        Err(PipeError::ExaminedWentBackwards { previous: 5, examined: 3 })
    );
    assert_eq!(reader.buffered_len(), Ok(3), "the refused call left examined at 5 of 8");
    // Examining the same position again is not going backwards.
    reader.advance_to(start, same).unwrap();
}

#[test]
fn writer_failed_reaches_the_next_read() {
    let (mut writer, mut reader) = flushed(b"partial");
    writer.complete(Some(Failure::new("disk on fire")));
    assert_eq!(block_on(reader.read()).unwrap_err(), PipeError::WriterFailed(Failure::new("disk on fire")));
    // The failure is sticky.
    assert_eq!(reader.try_read().unwrap_err(), PipeError::WriterFailed(Failure::new("disk on fire")));
}

#[test]
fn writer_failed_wakes_a_blocked_read() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let watch = Watch::new();
    let failing = watch.spawn("writer complete()", move || writer.complete(Some("boom".into())));
    assert_eq!(block_on(reader.read()).unwrap_err(), PipeError::WriterFailed(Failure::new("boom")));
    watch.join(failing);
}

#[test]
fn reader_failed_reaches_the_next_flush() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    reader.complete(Some(Failure::new("parse error")));
    writer.write(b"ignored").unwrap();
    assert_eq!(block_on(writer.flush()), Err(PipeError::ReaderFailed(Failure::new("parse error"))));
    assert_eq!(block_on(writer.flush()), Err(PipeError::ReaderFailed(Failure::new("parse error"))));
}

/// A typed error a side completes with.
#[derive(Debug, PartialEq)]
struct ProtocolError {
    code: u16,
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "protocol error {}", self.code)
    }
}

impl std::error::Error for ProtocolError {}

#[test]
fn the_reader_sees_the_writers_real_error_type() {
    let (mut writer, mut reader) = flushed(b"x");
    writer.complete(Some(Failure::from_error(ProtocolError { code: 7 })));
    let Err(PipeError::WriterFailed(failure)) = reader.try_read() else { panic!("the writer's failure") };
    assert_eq!(failure.downcast_ref::<ProtocolError>(), Some(&ProtocolError { code: 7 }));
    assert_eq!(failure.message(), "protocol error 7");
}

#[test]
fn the_writer_sees_the_readers_real_error_type() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let failure = Failure::from_error(std::io::Error::other("disk full"));
    reader.complete(Some(failure.clone()));
    let Err(PipeError::ReaderFailed(got)) = block_on(writer.flush()) else { panic!("the reader's failure") };
    assert!(got.same_cause(&failure), "the very error value crossed the pipe");
    assert_eq!(got.downcast_ref::<std::io::Error>().unwrap().kind(), std::io::ErrorKind::Other);
}

#[test]
fn a_pipe_error_s_source_is_the_failure_and_its_cause() {
    use std::error::Error;
    let error = PipeError::WriterFailed(Failure::from_error(ProtocolError { code: 3 }));
    let failure = error.source().expect("the failure");
    let cause = failure.source().expect("its cause");
    assert_eq!(cause.downcast_ref::<ProtocolError>(), Some(&ProtocolError { code: 3 }));
    assert!(PipeError::WriterFailed(Failure::new("no cause")).source().unwrap().source().is_none());
}

#[test]
fn every_error_has_a_message() {
    let errors = [
        PipeError::AdvancePastMemory { requested: 2, available: 1 },
        PipeError::SizeHintTooLarge { size_hint: 2, max: 1 },
        PipeError::WriterCompleted,
        PipeError::ReaderCompleted,
        PipeError::AdvanceRequired,
        PipeError::NothingToAdvance,
        PipeError::StalePosition { position_read: 1, current_read: 2 },
        PipeError::PositionOutOfRange { offset: 9, start: 0, end: 4 },
        PipeError::ExaminedBeforeConsumed { consumed: 2, examined: 1 },
        PipeError::ExaminedWentBackwards { previous: 2, examined: 1 },
        PipeError::WriterFailed(Failure::new("w")),
        PipeError::ReaderFailed(Failure::new("r")),
    ];
    for error in errors {
        let text = error.to_string();
        assert!(!text.is_empty(), "{error:?} has no message");
        let _: &dyn std::error::Error = &error;
    }
    assert!(PipeError::WriterFailed(Failure::new("why")).to_string().contains("why"));
}

/// .NET accepts 0 and then hands out empty buffers (`docs/semantics.md`).
#[test]
fn options_refuse_a_zero_minimum_segment_size() {
    let error = PipeOptions::new().minimum_segment_size(0).build().unwrap_err();
    assert_eq!(
        error,
        OptionsError::SegmentSizes { minimum: 0, maximum: PipeOptions::DEFAULT_MAXIMUM_SEGMENT_SIZE }
    );
    assert!(!error.to_string().is_empty());
}

#[test]
fn options_refuse_a_minimum_above_the_maximum() {
    let error = PipeOptions::new().minimum_segment_size(8192).maximum_segment_size(4096).build().unwrap_err();
    assert_eq!(error, OptionsError::SegmentSizes { minimum: 8192, maximum: 4096 });
}

#[test]
fn options_refuse_a_resume_threshold_above_the_pause_threshold() {
    let error =
        PipeOptions::new().pause_writer_threshold(100).resume_writer_threshold(101).build().unwrap_err();
    assert_eq!(error, OptionsError::Thresholds { pause: 100, resume: 101 });
    assert!(!error.to_string().is_empty());
}

#[test]
fn options_accept_equal_sizes_and_thresholds_and_disabled_back_pressure() {
    assert!(PipeOptions::new().minimum_segment_size(4096).maximum_segment_size(4096).build().is_ok());
    assert!(PipeOptions::new().pause_writer_threshold(100).resume_writer_threshold(100).build().is_ok());
    // A pause threshold of 0 disables back-pressure, so any resume threshold is fine.
    assert!(PipeOptions::new().pause_writer_threshold(0).resume_writer_threshold(1 << 40).build().is_ok());
    assert!(PipeOptions::default().build().is_ok());
}
