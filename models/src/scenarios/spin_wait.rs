//! The progress family: a thread that waits for another by spinning, and a planted bug
//! that makes the wait endless, which the engines report as **progress** (a livelock)
//! naming the thread that kept running, not as a generic step-bound failure.
//!
//! The writer sends two bytes, completes, then raises a `sent` flag; the reader spins
//! on the flag (`hint::spin_loop`, as a hand-off without a waker does) before it reads.
//! With `SentFlagNeverRaised` the writer forgets the flag, the reader spins until the
//! checker's bound stops it: shuttle's `max_steps`, loom's branch limit.

use std::sync::Arc;

use pipecheck::InvariantId;
use pipecheck::sync::atomic::{AtomicBool, Ordering};
use pipecheck::{hint, sync, thread};
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::drive::{expect_bytes, join, read_to_end};
use crate::Scenario;
use pipecheck::Scale;

pipecheck::planted_faults! {
    /// The writer completes but never raises the `sent` flag the reader spins on, so
    /// the reader keeps spinning for a hand-off that never comes (a livelock: it runs,
    /// it makes no progress). Breaks **progress**.
    SentFlagNeverRaised breaks InvariantId::PROGRESS, caught_in(&["reader-spins-for-sent-flag"]);
}

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "reader-spins-for-sent-flag",
    summary: "the writer sends 2 bytes, completes and raises a flag; the reader spins on the flag, \
              then reads to the end",
    scale: Scale::Small,
    config: CheckConfig::default,
    body: reader_spins_for_sent_flag,
}];

fn reader_spins_for_sent_flag(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let sent = sync::Arc::new(AtomicBool::new(false));
    let raised = sent.clone();
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.complete(None);
        if !SentFlagNeverRaised.is_active() {
            raised.store(true, Ordering::Release);
        }
    });
    while !sent.load(Ordering::Acquire) {
        hint::spin_loop();
    }
    let bytes = read_to_end(&mut reader, monitor, |len| len).expect("reads succeed");
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"ab");
}
