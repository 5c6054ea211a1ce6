//! The read-at-least family: `read_at_least(n)` with `n` above the
//! pause threshold, racing flushes that would pause the writer.
//!
//! The reader waits for a whole frame with `read_at_least(frame)` and examines only
//! what it consumes, so it examines nothing while a frame is partial: with the pause
//! counted on unexamined bytes, the writer pauses long before the frame is whole. The
//! pending read must release it and keep it from pausing until the frame is there, as
//! .NET's `ReadAtLeastAsync` does; the `ReadAtLeastKeepsWriterPaused` planted bug
//! leaves it paused, which **backpressure** reports at once (a deadlock otherwise).
//!
//! `read-at-least-after-examining` waits again after an `advance_to` that examined
//! everything and consumed nothing: the second `read_at_least(2)` must wait for two
//! *new* bytes (the count is committed − examined, as `buffered_len` reports it). The
//! `ReadAtLeastCountsConsumed` planted bug counts from the consumed offset and returns
//! at once with bytes already examined, which the body reports as **buffered-length**.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, CheckedReader, Monitor, Observation, checked_pipe};

use super::drive::{expect_bytes, join};
use super::frames::{
    LARGE_FRAME, SMALL_FRAME, expect_frames, expect_whole_frames, frame, large_frames_config, send_in_pieces,
    small_frames,
};
use super::large_stream::message;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "read-at-least-above-pause",
        summary: "read_at_least(4) with a pause threshold of 1 races two 2-byte flushes that would \
                  each pause the writer; the reader examines only what it consumes",
        scale: Scale::Small,
        config: small_frames,
        body: read_at_least_above_pause,
    },
    Scenario {
        name: "read-at-least-after-examining",
        summary: "the writer flushes \"ab\", then \"cd\"; the reader's read_at_least(2) examines what it got \
                  without consuming it, so its next read_at_least(2) waits for two new bytes",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: read_at_least_after_examining,
    },
    Scenario {
        name: "large-read-at-least",
        summary: "ten 64-byte frames (4x the pause threshold of 16) in 1-9 byte flushes; the reader \
                  waits for each whole frame with read_at_least(64) and consumes it",
        scale: Scale::Large,
        config: large_frames_config,
        body: large_read_at_least,
    },
];

/// The read-at-least loop: waits for a whole frame, consumes the whole frames it got
/// (examining nothing more), until the writer completed and everything is consumed.
/// Records [`Observation::Drained`]; returns the frames.
pub(super) fn read_frames_at_least(
    reader: &mut CheckedReader,
    monitor: &Monitor,
    frame_len: usize,
) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    loop {
        let mut whole = 0;
        let outcome = reader
            .read_at_least_and_consume(frame_len, |len| {
                whole = len - len % frame_len;
                whole
            })
            .expect("reads succeed");
        // A short read before the end hands the reader a torn frame.
        ensure(
            outcome.completed || outcome.bytes.len() >= frame_len,
            pipecheck_pipe::invariant::BYTE_EXACT,
            || {
                format!(
                    "read_at_least({frame_len}) returned {} bytes before the writer completed",
                    outcome.bytes.len()
                )
            },
        );
        frames.extend(outcome.bytes[..whole].chunks(frame_len).map(<[u8]>::to_vec));
        if outcome.completed {
            expect_whole_frames(whole, outcome.bytes.len());
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    frames
}

fn read_at_least_above_pause(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        send_in_pieces(&mut writer, &frame(0, SMALL_FRAME), || 2);
        writer.complete(None);
    });
    let frames = read_frames_at_least(&mut reader, monitor, SMALL_FRAME);
    reader.complete(None);
    join(writer);
    expect_frames(&frames, &[frame(0, SMALL_FRAME)]);
}

fn large_read_at_least(monitor: &Arc<Monitor>) {
    const FRAMES: usize = 10;
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
    let frames = read_frames_at_least(&mut reader, monitor, LARGE_FRAME);
    reader.complete(None);
    join(writer);
    expect_frames(&frames, &(0..FRAMES).map(|f| frame(f, LARGE_FRAME)).collect::<Vec<_>>());
}

/// The first `read_at_least(2)` consumes nothing and examines everything; every later
/// one consumes everything. Each must return with two unexamined bytes unless the
/// writer completed.
fn read_at_least_after_examining(monitor: &Arc<Monitor>) {
    const MINIMUM: u64 = 2;
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.send(b"cd").unwrap();
        writer.complete(None);
    });
    let (mut consumed, mut examined, mut first) = (Vec::new(), 0, true);
    loop {
        let held = reader.read_held(Some(MINIMUM as usize)).expect("reads succeed");
        let outcome = &held.outcome;
        let end = outcome.start + outcome.bytes.len() as u64;
        ensure(
            outcome.completed || end - examined >= MINIMUM,
            pipecheck_pipe::invariant::BUFFERED_LENGTH,
            || {
                format!(
                    "read_at_least({MINIMUM}) returned [{}, {end}) with {} unexamined bytes (examined to {examined}) \
                 before the writer completed",
                    outcome.start,
                    end - examined
                )
            },
        );
        if first && !outcome.completed {
            reader.advance_to(held.start(), held.end()).expect("consume nothing, examine all");
        } else {
            reader.advance_to(held.end(), held.end()).expect("consume all");
            consumed.extend_from_slice(&outcome.bytes);
        }
        (first, examined) = (false, end);
        if outcome.completed {
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    reader.complete(None);
    join(writer);
    expect_bytes(&consumed, b"abcd");
}
