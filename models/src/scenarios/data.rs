//! The data family: bytes across segments (**byte-exact**), buffers released once when
//! both sides complete in either order (**release-once**), and the writer filling a
//! segment's free tail while the reader reads its committed front (**no-data-race**).
//!
//! Segment memory is tracked byte by byte under loom (`RegionTracker`), so the writer's
//! `get_memory` of its tail and the reader's read of the committed front touch
//! disjoint cells and never raise a false alarm, while a read one byte too far
//! overlaps the writer's cells and is reported by loom's race detector.

use std::sync::Arc;

use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe, checked_pipe_with};

use super::drive::{expect_bytes, join, read_to_end};
use super::frames::expect_frames;
use super::read_at_least::read_frames_at_least;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "bytes-across-segments",
        summary: "five bytes in two flushes over three two-byte segments, read in halves",
        scale: Scale::Small,
        config: segments_of_two,
        body: bytes_across_segments,
    },
    Scenario {
        name: "both-complete-race-last-read",
        summary: "the writer sends and completes while the reader reads once, keeps the last byte and completes, in either order",
        scale: Scale::Small,
        config: segments_of_two,
        body: both_complete_race_last_read,
    },
    Scenario {
        name: "writer-fills-tail-while-reader-reads",
        summary: "the writer takes the free tail of a four-byte segment while the reader reads its front",
        scale: Scale::Small,
        config: one_segment_of_four,
        body: writer_fills_tail_while_reader_reads,
    },
    Scenario {
        name: "reader-batches-streaming-writer",
        summary: "the writer streams four one-byte flushes into four-byte segments; the reader waits for 2-byte frames with read_at_least(2), and a read that finds too few bytes after it saw the writer stream looks twice before it parks",
        scale: Scale::Small,
        config: one_segment_of_four,
        body: reader_batches_streaming_writer,
    },
];

/// Two-byte segments, no back-pressure.
fn segments_of_two() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 2,
        maximum_segment_size: 2,
        pause_writer_threshold: 0,
        resume_writer_threshold: 0,
        ..CheckConfig::default()
    }
}

/// One four-byte segment holds the whole run, no back-pressure.
pub(super) fn one_segment_of_four() -> CheckConfig {
    CheckConfig { minimum_segment_size: 4, maximum_segment_size: 4, ..segments_of_two() }
}

fn bytes_across_segments(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"abc").unwrap();
        writer.send(b"de").unwrap();
        writer.complete(None);
    });
    let bytes = read_to_end(&mut reader, monitor, |len| len.div_ceil(2)).unwrap();
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"abcde");
}

/// The reader's only read may come before or after the writer's completion, and the
/// two completions may come in either order: every rented buffer must go back once.
fn both_complete_race_last_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"abc").unwrap();
        writer.complete(None);
    });
    // Leave the last byte unconsumed: a fully consumed pipe hands its idle head back
    // before the completions (the .NET rule), and the last segment must still be there
    // for the completions to release, whichever order they come in.
    // Saturating: a broken pipe may return nothing here, and the end-of-run checks say
    // what was lost (an overflow would hide that behind a panic).
    reader.read_and_consume(|len| len.saturating_sub(1)).unwrap();
    reader.complete(None);
    join(writer);
}

/// After "a" is flushed, the writer's `get_memory` for "b" takes bytes 1..4 of the
/// segment while the reader may be reading byte 0. The reader examines without
/// consuming, so even a read past the commit leaves the offsets consistent and the
/// overlap itself is what gets reported.
fn writer_fills_tail_while_reader_reads(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        writer.send(b"b").unwrap();
        writer.complete(None);
    });
    reader.read_and_consume(|_| 0).unwrap();
    reader.complete(None);
    join(writer);
}

/// The reader's batching wait (`core/src/pipe/spin.rs`), which the pipe's defaults leave
/// out of loom's and shuttle's models: turned on here, with two looks. An advance that
/// finds a flush published after its read (the writer streaming) makes the next read
/// that misses for lack of bytes look, a yield apart, before it parks. The reads are
/// `read_at_least(2)`, so a look that sees one new byte must not end the read with it (a
/// short read before the end is a torn frame, **byte-exact**). The segments hold four
/// bytes: a read finds too few bytes, not a new segment, when the writer has flushed
/// "c" before the advance of "ab" (which then sees it streaming and leaves the head).
fn reader_batches_streaming_writer(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe_with(monitor, |options| options.batching_looks(2));
    let writer = thread::spawn(move || {
        for byte in [b"a", b"b", b"c", b"d"] {
            writer.send(byte).unwrap();
            // A streaming writer's pace: the reader's read and advance fall between two
            // flushes without a preemption (so loom's bound 2 and PCT reach the look).
            thread::yield_now();
        }
        writer.complete(None);
    });
    let frames = read_frames_at_least(&mut reader, monitor, 2);
    reader.complete(None);
    join(writer);
    expect_frames(&frames, &[b"ab".to_vec(), b"cd".to_vec()]);
}
