//! **release-once**: every rented buffer is returned exactly once by the time both
//! sides complete.

use std::collections::HashSet;

use pipecheck::InvariantId;
use pipecheck_pipe::PipeEvent;

use pipecheck::Invariant;
use crate::Observation;

/// Tracks rented buffers by address.
#[derive(Debug, Default)]
pub struct ReleaseOnce {
    outstanding: HashSet<usize>,
    writer_completed: bool,
    reader_completed: bool,
}

impl Invariant<Observation> for ReleaseOnce {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::RELEASE_ONCE
    }

    fn statement(&self) -> &'static str {
        "every rented buffer is returned exactly once by the time both sides complete"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Rented { buffer, .. } if !self.outstanding.insert(*buffer) => {
                return Err(format!(
                    "buffer {buffer:#x} rented while still rented: it was freed without being returned"
                ));
            }
            Observation::GaveBack { buffer } if !self.outstanding.remove(buffer) => {
                return Err(format!("buffer {buffer:#x} returned but not rented (a second return?)"));
            }
            Observation::Pipe(PipeEvent::WriterCompleted { .. }) => self.writer_completed = true,
            Observation::Pipe(PipeEvent::ReaderCompleted { .. }) => self.reader_completed = true,
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        if self.writer_completed && self.reader_completed && !self.outstanding.is_empty() {
            return Err(format!(
                "both sides completed but {} buffer(s) were never returned",
                self.outstanding.len()
            ));
        }
        Ok(())
    }
}
