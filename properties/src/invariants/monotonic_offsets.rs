//! **monotonic-offsets**: committed, consumed and examined offsets never go backwards,
//! and nothing is consumed before it is committed. (README's worked example.)

use pipecheck_core::PipeEvent::{Consumed, Flushed, WriterCompleted};

use crate::{Invariant, Observation};

/// Remembers the highest offsets seen.
#[derive(Debug, Default)]
pub struct MonotonicOffsets {
    committed: u64,
    consumed: u64,
}

impl Invariant for MonotonicOffsets {
    fn name(&self) -> &'static str {
        "monotonic-offsets"
    }

    fn statement(&self) -> &'static str {
        "offsets never go backwards, and nothing is consumed before it is committed"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match *observation {
            Observation::Pipe(Flushed { committed, .. } | WriterCompleted { committed, .. }) => {
                if committed < self.committed {
                    return Err(format!("committed went back from {} to {committed}", self.committed));
                }
                self.committed = committed;
                Ok(())
            }
            Observation::Pipe(Consumed { consumed, .. })
                if consumed < self.consumed || consumed > self.committed =>
            {
                Err(format!("consumed {consumed} outside [{}, {}]", self.consumed, self.committed))
            }
            Observation::Pipe(Consumed { consumed, .. }) => {
                self.consumed = consumed;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}
