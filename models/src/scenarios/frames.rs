//! The framing family: the standard protocol-reader loop against back-pressure. The
//! reader examines everything and consumes nothing until a whole frame is buffered,
//! and frames are four times the pause threshold.
//!
//! With .NET's accounting (back-pressure counts committed − *examined* bytes) the
//! reader's examine-all releases the paused writer, which sends the rest of the frame.
//! Counting committed − consumed instead (the `BackpressureByConsumed` planted bug)
//! leaves the writer paused while the reader waits for the rest of the frame: the
//! checker sees the wrong count at the reader's first examine-all.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, CheckedReader, CheckedWriter, Monitor, Observation, checked_pipe};

use super::drive::held;
use super::large_stream::message;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "frame-crosses-pause",
        summary: "one 4-byte frame (4x the pause threshold of 1) in two 2-byte flushes; the reader \
                  examines all and consumes nothing until the frame is whole",
        scale: Scale::Small,
        config: small_frames,
        body: frame_crosses_pause,
    },
    Scenario {
        name: "large-frames",
        summary: "twelve 64-byte frames (4x the pause threshold of 16) sent in 1-9 byte flushes; the \
                  reader examines all and consumes only whole frames",
        scale: Scale::Large,
        config: large_frames_config,
        body: large_frames,
    },
];

/// Frame length of the small scenario: four times its pause threshold.
pub(super) const SMALL_FRAME: usize = 4;
/// Frame length of the large scenario: four times its pause threshold.
pub(super) const LARGE_FRAME: usize = 64;

pub(super) fn small_frames() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 4,
        maximum_segment_size: 4,
        pause_writer_threshold: (SMALL_FRAME / 4) as u64,
        resume_writer_threshold: 1,
        max_pooled_segments: 2,
        pool_first_chunk: 1,
    }
}

pub(super) fn large_frames_config() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 4,
        maximum_segment_size: 16,
        pause_writer_threshold: (LARGE_FRAME / 4) as u64,
        resume_writer_threshold: 8,
        max_pooled_segments: 4,
        pool_first_chunk: 1,
    }
}

/// Frame `i` of length `len`: each byte depends on the frame and its position.
pub(super) fn frame(i: usize, len: usize) -> Vec<u8> {
    (0..len).map(|j| (i * 37 + j * 11) as u8).collect()
}

/// The framing loop: reads, examines everything, consumes only whole frames of
/// `frame_len` bytes (nothing while a frame is partial), until the writer completed
/// and every byte is consumed. Records [`Observation::Drained`]; returns the frames.
pub(crate) fn read_frames(reader: &mut CheckedReader, monitor: &Monitor, frame_len: usize) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    loop {
        let mut whole = 0;
        let outcome = reader
            .read_and_consume(|len| {
                whole = len - len % frame_len;
                whole
            })
            .expect("reads succeed");
        frames.extend(held(&outcome.bytes, whole).chunks(frame_len).map(<[u8]>::to_vec));
        if outcome.completed {
            expect_whole_frames(whole, outcome.bytes.len());
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    frames
}

/// The writer sends whole frames only, so the last read (after its completion) ends
/// on a frame boundary: a torn frame is a **byte-exact** violation.
pub(super) fn expect_whole_frames(whole: usize, len: usize) {
    ensure(whole == len, pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!(
            "the stream ended with {} bytes of a torn frame after {whole} bytes of whole frames",
            len.abs_diff(whole)
        )
    });
}

/// The run's outcome: the reader got exactly the frames sent, in order (**byte-exact**).
/// Checked after the joins, as [`expect_bytes`](super::drive::expect_bytes).
pub(super) fn expect_frames(got: &[Vec<u8>], sent: &[Vec<u8>]) {
    ensure(got == sent, pipecheck_pipe::invariant::BYTE_EXACT, || {
        let first_bad = got.iter().zip(sent).position(|(g, s)| g != s);
        format!(
            "the reader got {} frames, {} were sent; first differing frame: {first_bad:?}",
            got.len(),
            sent.len()
        )
    });
}

/// Sends `frame` in flushes of the sizes `piece` returns.
pub(super) fn send_in_pieces(writer: &mut CheckedWriter, frame: &[u8], mut piece: impl FnMut() -> usize) {
    let mut rest = frame;
    while !rest.is_empty() {
        let n = piece().clamp(1, rest.len());
        writer.send(&rest[..n]).expect("the reader stays open");
        rest = &rest[n..];
    }
}

fn frame_crosses_pause(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        send_in_pieces(&mut writer, &frame(0, SMALL_FRAME), || 2);
        writer.complete(None);
    });
    let frames = read_frames(&mut reader, monitor, SMALL_FRAME);
    reader.complete(None);
    writer.join().unwrap();
    expect_frames(&frames, &[frame(0, SMALL_FRAME)]);
}

fn large_frames(monitor: &Arc<Monitor>) {
    const FRAMES: usize = 12;
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        let mut i = 0;
        for f in 0..FRAMES {
            send_in_pieces(&mut writer, &frame(f, LARGE_FRAME), || {
                i += 1;
                message(i).len()
            });
        }
        writer.complete(None);
    });
    let frames = read_frames(&mut reader, monitor, LARGE_FRAME);
    reader.complete(None);
    writer.join().expect("the writer does not panic");
    expect_frames(&frames, &(0..FRAMES).map(|f| frame(f, LARGE_FRAME)).collect::<Vec<_>>());
}
