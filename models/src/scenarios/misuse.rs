//! The misuse family: the reader misuses `advance_to` (examined before consumed,
//! examined going backwards) while the writer flushes and completes. Each misuse must
//! come back as its typed error with nothing changed — the buffer still outstanding,
//! the offsets where they were — and no invariant may break.
//!
//! After each refused advance the reader asks for `buffered_len`, which takes the lock
//! with the reader's offsets and reports the count (**buffered-length** checks it
//! against the offsets the log shows released). The `MisuseMovesExamined` planted bug
//! takes the requested offsets before it checks them, so the check against the
//! previous examined offset passes and the advance with examined going backwards is
//! accepted, which **monotonic-offsets** reports at its `Consumed`.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_pipe::PipeError;
use pipecheck_properties::{CheckConfig, CheckedReader, Monitor, checked_pipe};

use crate::Scenario;
use crate::scenarios::drive::{expect_bytes, join, read_to_end};
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "misused-advance-races-flush",
    summary: "the writer flushes \"ab\", then \"cd\", and completes while the reader advances with examined \
              going backwards, then with examined before consumed: both refused, then released correctly",
    scale: Scale::Small,
    config: CheckConfig::default,
    body: misused_advance_races_flush,
}];

/// `result` is the misuse error `expected` describes, and the length the reader asks
/// for next is checked by the monitor.
fn expect_refused(reader: &CheckedReader, result: Result<(), PipeError>, expected: fn(&PipeError) -> bool) {
    ensure(result.as_ref().is_err_and(expected), pipecheck_pipe::invariant::MONOTONIC_OFFSETS, || {
        format!("a misused advance_to returned {result:?}, not its typed error")
    });
    reader.buffered_len().expect("the reader has not completed");
}

fn misused_advance_races_flush(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.send(b"cd").unwrap();
        writer.complete(None);
    });
    // "ab" is one flush: each read has both bytes.
    let first = reader.read_held(None).expect("the first read succeeds");
    reader.advance_to(first.start(), first.positions[1]).expect("consume nothing, examine one byte");
    let second = reader.read_held(None).expect("the second read succeeds");
    let refused = reader.advance_to(second.start(), second.start());
    expect_refused(&reader, refused, |e| matches!(e, PipeError::ExaminedWentBackwards { .. }));
    let refused = reader.advance_to(second.positions[2], second.positions[1]);
    expect_refused(&reader, refused, |e| matches!(e, PipeError::ExaminedBeforeConsumed { .. }));
    reader.advance_to(second.end(), second.end()).expect("consume all");
    let mut bytes = second.outcome.bytes.clone();
    bytes.extend(read_to_end(&mut reader, monitor, |len| len).expect("the reads to the end succeed"));
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"abcd");
}
