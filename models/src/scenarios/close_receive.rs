//! The close/receive family: completion racing a pending read (seed 004's
//! `CloseAsync` running concurrently with `ReceiveAsync`).

use std::sync::Arc;

use pipecheck_core::Fault;
use pipecheck_core::primitive::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use crate::{Scale, Scenario};

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "writer-complete-races-read",
    summary: "the writer sends two bytes and completes while the reader drains",
    scale: Scale::Small,
    catches: &[Fault::LostWakeOnComplete],
    config: CheckConfig::default,
    body: writer_complete_races_read,
}];

fn writer_complete_races_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.complete(None);
    });
    let bytes = reader.drain().unwrap();
    assert_eq!(bytes, b"ab");
    reader.complete(None);
    writer.join().unwrap();
}
