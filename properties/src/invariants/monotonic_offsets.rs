//! **monotonic-offsets**: the committed, consumed and examined offsets never go
//! backwards, and nothing is consumed before it is committed or examined (examined bytes
//! past the commit are no-data-race's to report). README's worked example of adding an
//! invariant: this file plus one line in `registry.rs`.

use pipecheck_pipe::PipeEvent::{Consumed, Flushed, Published, WriterCompleted};

use pipecheck::InvariantId;

use pipecheck::Invariant;
use crate::Observation;

/// The offsets seen last.
#[derive(Clone, Copy, Debug, Default)]
pub struct MonotonicOffsets {
    committed: u64,
    consumed: u64,
    examined: u64,
}

impl Invariant<Observation> for MonotonicOffsets {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::MONOTONIC_OFFSETS
    }

    fn statement(&self) -> &'static str {
        "offsets never go backwards, and nothing is consumed before it is committed"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Pipe(event) = observation else { return Ok(()) };
        let mut now = *self;
        match *event {
            Flushed { committed, .. } | Published { committed } | WriterCompleted { committed, .. } => {
                now.committed = committed
            }
            Consumed { consumed, examined, .. } => (now.consumed, now.examined) = (consumed, examined),
            _ => return Ok(()),
        }
        let back =
            now.committed < self.committed || now.consumed < self.consumed || now.examined < self.examined;
        if back || now.consumed > now.examined || now.consumed > now.committed {
            return Err(format!("offsets went from {self:?} to {now:?}"));
        }
        *self = now;
        Ok(())
    }
}
