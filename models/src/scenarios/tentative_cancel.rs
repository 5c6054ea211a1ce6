//! The tentative-cancel family: a read released by `cancel_pending_read` is tentative
//! (.NET's `ReadingTentative`), so the reader may read again without `advance_to`, and
//! gets the same unconsumed bytes plus any new ones.
//!
//! The `CanceledReadNeedsAdvance` planted bug refuses that second read with
//! `AdvanceRequired`; the checked reader records the refusal and **tentative-cancel**
//! names it.
//!
//! Only the canceled read is tentative: `canceled-read-advanced-then-reread` releases a
//! canceled read with `advance_to` anyway, reads (not canceled) and reads again before
//! advancing, which the pipe must refuse with `AdvanceRequired`. The
//! `TentativeOutlivesAdvance` planted bug carries the canceled read's mark over to the
//! read after it, so the read again is served, which **tentative-cancel** reports.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_pipe::PipeError;
use pipecheck_properties::{CheckConfig, Monitor, Observation, checked_pipe};

use crate::Scenario;
use crate::scenarios::drive::{expect_bytes, join, read_to_end};
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "canceled-read-is-tentative",
        summary: "the writer cancels the pending read, sends two bytes and completes; the reader never \
                  advances past a canceled read and reads again",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: canceled_read_is_tentative,
    },
    Scenario {
        name: "canceled-read-advanced-then-reread",
        summary: "the reader cancels its own read, releases it with advance_to, reads while the writer sends \
                  two bytes and completes, and reads again before advancing: refused",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: canceled_read_advanced_then_reread,
    },
];

fn canceled_read_is_tentative(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let canceller = reader.inner().read_canceller();
    let writer = thread::spawn(move || {
        canceller.cancel_pending_read();
        writer.send(b"ab").unwrap();
        writer.complete(None);
    });
    let mut consumed = Vec::new();
    loop {
        let outcome = reader.read_and_consume_unless_canceled(|len| len).expect("reads succeed");
        if outcome.canceled {
            continue; // tentative: no advance_to, read again
        }
        consumed.extend_from_slice(&outcome.bytes);
        if outcome.completed {
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    reader.complete(None);
    writer.join().unwrap();
    expect_bytes(&consumed, b"ab");
}

fn canceled_read_advanced_then_reread(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.complete(None);
    });
    // The cancel comes first, so the first read is canceled (tentative) whatever the
    // writer has done; releasing it with advance_to is allowed all the same.
    reader.inner().cancel_pending_read();
    let canceled = reader.read_held(None).expect("the canceled read succeeds");
    ensure(canceled.outcome.canceled, pipecheck_pipe::invariant::CANCEL_OBSERVED, || {
        format!("a read after cancel_pending_read returned {:?}, not canceled", canceled.outcome)
    });
    reader.advance_to(canceled.start(), canceled.start()).expect("a canceled read may be advanced");
    let held = reader.read_held(None).expect("the read after the advance succeeds");
    // Not canceled: the buffer needs advance_to before another read.
    let again = reader.try_read_held().map(|read| read.map(|read| read.outcome));
    ensure(
        matches!(again, Err(PipeError::AdvanceRequired)),
        pipecheck_pipe::invariant::TENTATIVE_CANCEL,
        || format!("a read before advancing past {:?} returned {again:?}, not AdvanceRequired", held.outcome),
    );
    reader.advance_to(held.end(), held.end()).expect("consume all");
    let mut bytes = held.outcome.bytes.clone();
    if !held.outcome.completed {
        bytes.extend(read_to_end(&mut reader, monitor, |len| len).expect("the reads to the end succeed"));
    } else {
        monitor.record_by("reader", Observation::Drained);
    }
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"ab");
}
