//! **bounded-after-reader-complete**: once the reader has completed, the writer holds at
//! most one more segment, whatever it goes on writing (.NET: `Advance` becomes a no-op
//! and flushes report completion, so nothing piles up).
//!
//! The checker counts the buffers rented after `ReaderCompleted` and not given back.

use pipecheck::InvariantId;
use std::collections::HashSet;

use pipecheck_pipe::PipeEvent;

use pipecheck::Invariant;
use crate::Observation;

/// Buffers rented since the reader completed.
#[derive(Debug, Default)]
pub struct BoundedAfterReaderComplete {
    reader_completed: bool,
    rented_since: HashSet<usize>,
}

impl Invariant<Observation> for BoundedAfterReaderComplete {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::BOUNDED_AFTER_READER_COMPLETE
    }

    fn statement(&self) -> &'static str {
        "once the reader completed, the writer holds at most one more segment, whatever it writes"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::ReaderCompleted { .. }) => self.reader_completed = true,
            Observation::Rented { buffer, .. } if self.reader_completed => {
                self.rented_since.insert(*buffer);
                if self.rented_since.len() > 1 {
                    return Err(format!(
                        "{} buffers rented since the reader completed are still held: writes nobody \
                         will read are piling up",
                        self.rented_since.len()
                    ));
                }
            }
            Observation::GaveBack { buffer } => {
                self.rented_since.remove(buffer);
            }
            _ => {}
        }
        Ok(())
    }
}
