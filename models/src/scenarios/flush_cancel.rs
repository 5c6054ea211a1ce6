//! The flush-cancel family (**cancel-observed**, flush side): `cancel_pending_flush`
//! from the reader's thread races the writer's flushes. A flush that is not paused
//! does not wait, but the cancel must still be reported, by the flush it lands on or
//! the next one, once (`FlushLosesCancel` drops it unreported).

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::drive::{expect_bytes, join};
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "cancel-flush-races-flush",
    summary: "the reader cancels the pending flush while the writer sends two one-byte flushes (never paused) \
              and completes; the reader drains",
    scale: Scale::Small,
    config: CheckConfig::default,
    body: cancel_flush_races_flush,
}];

/// The cancel lands before the first flush, between the two, or after the last (then
/// no flush reports it); the monitor's cancel-observed checks that a flush after it
/// reports it, and the writer's count that none reports it twice.
fn cancel_flush_races_flush(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let canceller = writer.inner().flush_canceller();
    let writer = thread::spawn(move || {
        let mut cancels = 0usize;
        for byte in [b"a", b"b"] {
            cancels += usize::from(writer.send(byte).expect("the reader stays open").is_canceled);
        }
        writer.complete(None);
        cancels
    });
    canceller.cancel_pending_flush();
    let bytes = reader.drain().expect("the writer does not fail");
    reader.complete(None);
    let cancels = join(writer);
    expect_bytes(&bytes, b"ab");
    ensure(cancels <= 1, pipecheck_pipe::invariant::CANCEL_OBSERVED, || {
        format!("{cancels} flushes reported the one cancel")
    });
}
