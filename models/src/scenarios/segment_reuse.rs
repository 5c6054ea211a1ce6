//! The segment-reuse family (**segments-in-use**, **no-double-return**): a fully consumed
//! segment goes back in the `advance_to` that consumed it — exactly to its end included —
//! and, as in .NET, a reader that consumes everything while the writer is idle returns
//! the writer's head too, racing the writer's next `get_memory`/`advance`/`flush` for it.
//!
//! Four-byte segments (two-byte ones for the boundary), no
//! back-pressure, a pool of two.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_pipe::PipeEvent;
use pipecheck_properties::{CheckConfig, Monitor, Observation, checked_pipe};

use crate::Scenario;
use crate::scenarios::drive::{expect_bytes, held, join};
use crate::scenarios::only_wake::reply_monitor;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "idle-head-races-next-write",
        summary: "the reader consumes everything while the writer, idle after a flush, starts its next \
                  write (get_memory, advance, flush): exactly one of them gets the head",
        scale: Scale::Small,
        config: four_byte_segments,
        body: idle_head_races_next_write,
    },
    Scenario {
        name: "consume-to-segment-boundary",
        summary: "the reader consumes exactly to the first segment's end while the writer completes: that \
                  segment goes back in the same advance_to",
        scale: Scale::Small,
        config: two_byte_segments,
        body: consume_to_segment_boundary,
    },
    Scenario {
        name: "fast-flush-behind-reclaimed-head",
        summary: "the reader, holding \"ab\", consumes it while the writer resumes its idle head, writes \
                  \"c\" and flushes without the lock, parking the head again: the reader's claim must see \
                  the new end and leave the head",
        scale: Scale::Small,
        config: four_byte_segments,
        body: fast_flush_behind_reclaimed_head,
    },
    Scenario {
        name: "head-reparked-while-reader-reclaims",
        summary: "the writer sends \"ab\", writes \"c\" into its idle head and flushes, then waits for the \
                  reader's reply: an advance_to that consumed \"ab\" may find the head parked again, \
                  holding \"c\", and must leave it",
        scale: Scale::Small,
        config: four_byte_segments,
        body: head_reparked_while_reader_reclaims,
    },
    Scenario {
        name: "idle-head-returned-while-writer-waits",
        summary: "the writer sends \"ab\" and waits for the reader's reply: the advance_to that consumes \
                  \"ab\" finds the head parked and idle, and must return it before it ends",
        scale: Scale::Small,
        config: four_byte_segments,
        body: idle_head_returned_while_writer_waits,
    },
];

/// Four-byte segments, no back-pressure, a pool of two.
pub(super) fn four_byte_segments() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 4,
        maximum_segment_size: 4,
        pause_writer_threshold: 0,
        resume_writer_threshold: 0,
        max_pooled_segments: 2,
        ..CheckConfig::default()
    }
}

/// Two-byte segments, otherwise as [`four_byte_segments`].
fn two_byte_segments() -> CheckConfig {
    CheckConfig { minimum_segment_size: 2, maximum_segment_size: 2, ..four_byte_segments() }
}

/// The writer sends two bytes (its head is then idle, parked), then writes one more
/// through `get_memory`/`advance` and flushes, and completes. The reader drains: its
/// first `advance_to` consumes everything, and either takes the idle head back (the
/// writer's `get_memory` then starts a new segment, usually the pooled one) or finds the
/// writer already writing into it (the head stays, and the byte lands after "ab").
fn idle_head_races_next_write(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").expect("the reader does not complete early");
        writer.write_contiguous(b"c").expect("the writer is open");
        writer.flush().expect("the reader does not complete early");
        writer.complete(None);
    });
    let bytes = reader.drain().expect("the writer does not fail");
    reader.complete(None);
    join(writer);
    // Every byte, in order, whoever got the head.
    expect_bytes(&bytes, b"abc");
}

/// The writer sends four bytes in one flush (two full segments; the second is its head)
/// and completes. The reader consumes exactly two bytes — the first segment's end — and
/// then drains. The `advance_to` that consumed to the boundary must have returned the
/// first segment before it finished: checked here on the log, and by **segments-in-use**.
fn consume_to_segment_boundary(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"abcd").expect("the reader does not complete early");
        writer.complete(None);
    });
    let first = reader.read_and_consume(|_| 2).expect("the writer does not fail");
    let returned = returned_by_last_advance(monitor);
    ensure(returned == 1, pipecheck_pipe::invariant::SEGMENTS_IN_USE, || {
        format!("consuming exactly to a segment's end returned {returned} segments in that advance_to, not 1")
    });
    // Everything was examined, so this waits for the writer's completion.
    let rest = reader.drain().expect("the writer does not fail");
    reader.complete(None);
    join(writer);
    let all = [held(&first.bytes, 2), &rest[..]].concat();
    expect_bytes(&all, b"abcd");
}

/// Before the threads start, the writer sends "ab" (its four-byte head, half full, is
/// then parked) and the reader reads it, holding the buffer. Then, beside the reader's
/// `advance_to` that consumes "ab" (everything it saw committed), the writer resumes the
/// head, writes "c" into it and flushes without the lock, which parks the head again,
/// yields, and completes. The reader's claim of the idle head must read the new end in
/// the same read-modify-write as the flag and leave the head linked: it holds "c".
///
/// The race needs the reader's advance to load the word before the writer takes the
/// head back, and its claim to come after the flush parks the head again but before
/// the completion takes it back once more. The yield stands for a writer that does
/// something else between its flush and its completion; it is the point where the
/// claim fits. (Loom switches threads at a yield without spending a preemption, and
/// PCT lowers the yielding thread's priority: without it, PCT needs two well-placed
/// priority changes and missed the race in 4,000 schedules once the lock-free
/// advance claims only a head its load saw parked.)
fn fast_flush_behind_reclaimed_head(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    writer.send(b"ab").expect("the reader does not complete early");
    let first = reader.read_held(None).expect("the writer does not fail");
    let writer = thread::spawn(move || {
        writer.write_contiguous(b"c").expect("the writer is open");
        writer.flush().expect("the reader does not complete early");
        thread::yield_now();
        writer.complete(None);
    });
    reader.advance_to(first.end(), first.end()).expect("the end of the buffer just read");
    let rest = reader.drain().expect("the writer does not fail");
    reader.complete(None);
    join(writer);
    let all = [&first.outcome.bytes[..], &rest[..]].concat();
    expect_bytes(&all, b"abc");
}

/// The writer sends "ab" (its four-byte head is then idle, parked), writes "c" into that
/// head and flushes, then waits for the reader's reply on a second pipe before it
/// completes. The reader consumes "ab", all it saw committed: a fast flush may have
/// resumed, filled and parked the head again between the end the reader's
/// `advance_to` compared and its take of the parked head, so the head holds "c" and
/// is not idle (the reader must keep it, `HeadKept`). Because the writer then waits
/// for the reply instead of completing (its completion takes the head back), the race
/// takes one preemption, the reader's inside its advance.
fn head_reparked_while_reader_reclaims(monitor: &Arc<Monitor>) {
    let replies = reply_monitor(monitor);
    let (mut writer, mut reader) = checked_pipe(monitor);
    let (mut reply_writer, mut reply_reader) = checked_pipe(&replies);
    let writer = thread::spawn(move || {
        writer.send(b"ab").expect("the reader does not complete early");
        writer.write_contiguous(b"c").expect("the writer is open");
        writer.flush().expect("the reader does not complete early");
        let reply = reply_reader.drain().expect("the reply's writer does not fail");
        reply_reader.complete(None);
        writer.complete(None);
        reply
    });
    let mut bytes = Vec::new();
    while bytes.len() < 3 {
        let outcome = reader.read_and_consume(|len| len).expect("the writer does not fail");
        bytes.extend_from_slice(&outcome.bytes);
        if outcome.completed {
            break;
        }
    }
    reply_writer.send(b"r").expect("the reply's reader does not complete early");
    reply_writer.complete(None);
    bytes.extend(reader.drain().expect("the writer does not fail"));
    reader.complete(None);
    let reply = join(writer);
    expect_bytes(&bytes, b"abc");
    expect_bytes(&reply, b"r");
    replies.assert_finished();
}

/// The writer sends "ab" (its four-byte head, half full, is then parked) and waits for
/// the reader's reply on a second pipe. The reader reads and consumes "ab": whatever
/// path its `advance_to` takes, the head is parked and idle (the read saw the bytes the
/// parking flush published, and the writer touches the pipe again only after the reply),
/// so the advance must reclaim it and return it before it ends, as .NET returns an idle
/// writing head. Checked here on the log: **segments-in-use** on its own cannot tell a
/// reader that skips a parked head and reports it busy (the writer takes it back after
/// the reply, which is all the checker can ask of a busy head) from a busy one.
fn idle_head_returned_while_writer_waits(monitor: &Arc<Monitor>) {
    let replies = reply_monitor(monitor);
    let (mut writer, mut reader) = checked_pipe(monitor);
    let (mut reply_writer, mut reply_reader) = checked_pipe(&replies);
    let writer = thread::spawn(move || {
        writer.send(b"ab").expect("the reader does not complete early");
        let reply = reply_reader.drain().expect("the reply's writer does not fail");
        reply_reader.complete(None);
        writer.complete(None);
        reply
    });
    let outcome = reader.read_and_consume(|len| len).expect("the writer does not fail");
    expect_bytes(&outcome.bytes, b"ab");
    let returned = returned_by_last_advance(monitor);
    ensure(returned == 1, pipecheck_pipe::invariant::SEGMENTS_IN_USE, || {
        format!(
            "the reader consumed everything while the writer waited with its head parked, but that \
             advance_to returned {returned} segments, not the idle head"
        )
    });
    reply_writer.send(b"r").expect("the reply's reader does not complete early");
    reply_writer.complete(None);
    let rest = reader.drain().expect("the writer does not fail");
    reader.complete(None);
    let reply = join(writer);
    expect_bytes(&rest, b"");
    expect_bytes(&reply, b"r");
    replies.assert_finished();
}

/// Segments returned or discarded between the last `Consumed` and its `AdvanceFinished`.
fn returned_by_last_advance(monitor: &Arc<Monitor>) -> usize {
    let log = monitor.log();
    let start = log
        .iter()
        .rposition(|e| matches!(e.observation, Observation::Pipe(PipeEvent::Consumed { .. })))
        .expect("an advance_to ran");
    log[start..]
        .iter()
        .take_while(|e| !matches!(e.observation, Observation::Pipe(PipeEvent::AdvanceFinished)))
        .filter(|e| {
            matches!(
                e.observation,
                Observation::Pipe(PipeEvent::SegmentReturned { .. } | PipeEvent::SegmentDiscarded { .. })
            )
        })
        .count()
}
