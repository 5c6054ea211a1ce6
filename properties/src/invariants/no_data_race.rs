//! **no-data-race**: reader and writer never touch the same bytes at once.
//!
//! Under loom, the pipe's tracked segment memory reports any racing access directly.
//! This checker adds the protocol-level half that every engine can see: a read never
//! hands out bytes past the committed end, which is the writer's free tail.

use pipecheck::InvariantId;
use pipecheck_pipe::PipeEvent;

use pipecheck::Invariant;
use crate::Observation;

/// Checks read bounds against the committed offset.
#[derive(Debug, Default)]
pub struct NoDataRace {
    committed: u64,
}

impl Invariant<Observation> for NoDataRace {
    fn id(&self) -> InvariantId {
        InvariantId::NO_DATA_RACE
    }

    fn statement(&self) -> &'static str {
        "reader and writer never touch the same bytes at once; memory is never used after release"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::Flushed { committed, .. })
            | Observation::Pipe(PipeEvent::Published { committed })
            | Observation::Pipe(PipeEvent::WriterCompleted { committed, .. }) => self.committed = *committed,
            Observation::Pipe(PipeEvent::ReadReturned { end, .. }) if *end > self.committed => {
                return Err(format!(
                    "a read hands out bytes up to {end}, past the committed end {}: the writer may be \
                     writing them",
                    self.committed
                ));
            }
            _ => {}
        }
        Ok(())
    }
}
