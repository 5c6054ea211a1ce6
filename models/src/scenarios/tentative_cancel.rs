//! The tentative-cancel family: a read released by `cancel_pending_read` is tentative
//! (.NET's `ReadingTentative`), so the reader may read again without `advance_to`, and
//! gets the same unconsumed bytes plus any new ones.
//!
//! The `CanceledReadNeedsAdvance` planted bug refuses that second read with
//! `AdvanceRequired`; the checked reader records the refusal and **tentative-cancel**
//! names it.

use std::sync::Arc;

use pipecheck_core::primitive::thread;
use pipecheck_properties::{CheckConfig, Monitor, Observation, checked_pipe};

use crate::scenarios::drive::expect_bytes;
use crate::{Scale, Scenario};

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "canceled-read-is-tentative",
    summary: "the writer cancels the pending read, sends two bytes and completes; the reader never \
              advances past a canceled read and reads again",
    scale: Scale::Small,
    config: CheckConfig::default,
    body: canceled_read_is_tentative,
}];

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
