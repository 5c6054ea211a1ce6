//! The fast-path family: the races of the lock-free flush and read protocol
//! (`core/src/pipe/published.rs`, `core/src/pipe/reader/fast.rs`).
//!
//! * a read registers its waker while a flush publishes without the lock: the second
//!   flush writes into the head the first one linked, so it takes the fast path, and the
//!   writer then waits for the reader's reply before completing, so no later wake can
//!   rescue a read that parked past the publish (`ParksWithoutRecheck`); the reader
//!   reads the fast flush's bytes, so a publish that does not release them is a race on
//!   the segment bytes (`RelaxedPublish`, loom only) — and so is a lock-free read of
//!   them that does not acquire the end (`RelaxedFastRead`, loom only);
//! * a read cancel races a read that finds published bytes it could take without the
//!   lock: a cancel called before the read began must send the read to the lock and be
//!   reported by it (`FastReadIgnoresCancel`);
//! * a flush crosses the pause threshold while the reader consumes below resume, the
//!   resume decided on a count from before the flush (`ResumesOnStaleCount`);
//! * the reader's lock-free `advance_to` (examining a byte it does not consume) races a
//!   flush that decides its pause under the lock: the flush must wait for the advance
//!   and count with its examined offset, or the advance must take the lock after it
//!   (`AdvanceSkipsHandshake`, a flush that counts an examined offset the log already
//!   shows replaced);
//! * a flush cancel and the reader's completion race a paused flush, and a read cancel
//!   and the writer's completion race a pending read: whichever comes first must
//!   release the waiting side, and each flag the fast path looks at must follow.

use std::cell::Cell;
use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::data::one_segment_of_four;
use super::drive::{join, read_to_end};
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "read-parks-while-flush-publishes",
        summary: "three one-byte flushes into one four-byte segment (the later two without the lock) while \
                  the reader examines without consuming until all are there; the writer then waits for the \
                  reader's reply before completing",
        scale: Scale::Small,
        config: one_segment_of_four,
        body: read_parks_while_flush_publishes,
    },
    Scenario {
        name: "pause-crossed-while-consuming",
        summary: "the writer's second byte crosses a pause threshold of two while the reader consumes the \
                  first byte, resume below one",
        scale: Scale::Small,
        config: pause_at_two,
        body: pause_crossed_while_consuming,
    },
    Scenario {
        name: "advance-races-locked-flush",
        summary: "three one-byte flushes (pause at two) while the reader examines every byte and consumes \
                  all but the last, so its advances take no lock, until all three are there",
        scale: Scale::Small,
        config: pause_at_two,
        body: advance_races_locked_flush,
    },
    Scenario {
        name: "cancel-races-lock-free-read",
        summary: "a read cancel from another thread racing a second byte flushed without the lock into \
                  the head the reader already holds, and the read that finds that byte",
        scale: Scale::Small,
        config: one_segment_of_four,
        body: cancel_races_lock_free_read,
    },
    Scenario {
        name: "cancel-and-complete-race",
        summary: "a paused flush is canceled while the reader completes, and a pending read is canceled \
                  while the writer completes",
        scale: Scale::Small,
        config: pause_at_one,
        body: cancel_and_complete_race,
    },
];

/// Pause at two unexamined bytes, resume below one (once all is examined).
fn pause_at_two() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 2, resume_writer_threshold: 1, ..one_segment_of_four() }
}

/// Pause at one unexamined byte: every flush waits for the reader.
fn pause_at_one() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 1, resume_writer_threshold: 1, ..one_segment_of_four() }
}

fn read_parks_while_flush_publishes(monitor: &Arc<Monitor>) {
    // The reply pipe has a monitor of its own: its events must not mix with the data
    // pipe's. A planted bug switched on for the run is on in both pipes.
    let replies = Monitor::new(monitor.config().clone());
    let (mut writer, mut reader) = checked_pipe(monitor);
    let (mut reply_writer, mut reply_reader) = checked_pipe(&replies);
    let writer = thread::spawn(move || {
        for byte in [b"a", b"b", b"c"] {
            writer.send(byte).unwrap();
        }
        // Completing would wake a parked read: wait for the reply first.
        let reply = reply_reader.drain().unwrap();
        ensure(reply == b"r", pipecheck_pipe::invariant::BYTE_EXACT, || {
            format!("the reply was {reply:?}, not \"r\"")
        });
        reply_reader.complete(None);
        writer.complete(None);
    });
    // Examine without consuming until all three bytes are there: the first flush's head
    // is never idle to the reader, so the writer always resumes it and the later
    // flushes always take the fast path (the race is then in every schedule, not only
    // in those where the writer resumes before the reader consumes; two fast flushes
    // give a parking read two chances to miss one).
    let mut got = Vec::new();
    while got.len() < 3 {
        let outcome = reader.read_and_consume(|len| if len >= 3 { len } else { 0 }).unwrap();
        if outcome.bytes.len() >= 3 {
            got = outcome.bytes;
        }
    }
    reply_writer.send(b"r").unwrap();
    reply_writer.complete(None);
    let rest = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    ensure(got == b"abc" && rest.is_empty(), pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader got {got:?} then {rest:?}, not \"abc\"")
    });
    replies.assert_finished();
}

fn cancel_races_lock_free_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    // The first byte links the segment, so its read takes the lock and the reader's
    // view holds the segment. The reader examines it without consuming, so the head is
    // never idle to it and the writer writes the second byte into the same head with
    // the fast flush: the read that finds it may take it without the lock, and races
    // the cancel. The cancel starts before that flush, whose atomic steps let it finish
    // before the read begins (a read's first step is its lock-free look at the word,
    // after its try is logged).
    writer.send(b"a").unwrap();
    let first = reader.read_and_consume(|_| 0).unwrap();
    let read_canceller = reader.inner().read_canceller();
    let canceller = thread::spawn(move || read_canceller.cancel_pending_read());
    writer.send(b"b").unwrap();
    let second = reader.read_and_consume(|len| len).unwrap();
    join(canceller);
    writer.complete(None);
    // The cancel is reported once, by the racing read or by the next; cancel-observed
    // checks which may report it.
    let mut bytes = second.bytes;
    let mut cancels = usize::from(first.canceled) + usize::from(second.canceled);
    loop {
        let outcome = reader.read_and_consume(|len| len).unwrap();
        bytes.extend(&outcome.bytes);
        cancels += usize::from(outcome.canceled);
        if outcome.completed && !outcome.canceled {
            break;
        }
    }
    reader.complete(None);
    ensure(bytes == b"ab" && cancels == 1, pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader got {bytes:?} with {cancels} cancels, not \"ab\" with one")
    });
}

fn pause_crossed_while_consuming(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        writer.send(b"b").unwrap();
        writer.complete(None);
    });
    let bytes = read_to_end(&mut reader, monitor, |len| len.min(1)).unwrap();
    ensure(bytes == b"ab", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader got {bytes:?}, not \"ab\"")
    });
    reader.complete(None);
    join(writer);
}

fn advance_races_locked_flush(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        for byte in [b"a", b"b", b"c"] {
            writer.send(byte).unwrap();
        }
        writer.complete(None);
    });
    // Consuming less than was published keeps the advance lock-free (nothing to
    // return, no idle head to reclaim); the last byte is consumed once all three are in.
    let consumed = Cell::new(0);
    let bytes = read_to_end(&mut reader, monitor, |len| {
        let take = if consumed.get() + len >= 3 { len } else { len.saturating_sub(1) };
        consumed.set(consumed.get() + take);
        take
    })
    .unwrap();
    ensure(bytes == b"abc", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader got {bytes:?}, not \"abc\"")
    });
    reader.complete(None);
    join(writer);
}

fn cancel_and_complete_race(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let flush_canceller = writer.inner().flush_canceller();
    let read_canceller = reader.inner().read_canceller();
    // The writer's byte pauses it; the flush is released by the cancel, the reader's
    // examining read or its completion (the monitor checks which may release it).
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        writer.complete(None);
    });
    let canceller = thread::spawn(move || {
        flush_canceller.cancel_pending_flush();
        read_canceller.cancel_pending_read();
    });
    // A read that is canceled or finds the byte or the completion; then the reader goes.
    let outcome = reader.read_and_consume(|_| 0).unwrap();
    ensure(
        outcome.canceled || !outcome.bytes.is_empty() || outcome.completed,
        pipecheck_pipe::invariant::BYTE_EXACT,
        || format!("the read returned {outcome:?} with no reason"),
    );
    reader.complete(None);
    join(canceller);
    join(writer);
}
