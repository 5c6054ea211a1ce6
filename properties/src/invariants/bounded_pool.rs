//! **bounded-pool**: the pool never holds more than its maximum, however stale its
//! count is.
//!
//! The pipe reports a return before publishing it and a take before publishing the
//! free slot, so the occupancy counted from the log is never below the real one and
//! never above the count the pool checked: a log occupancy over the maximum is a real
//! overflow.

use pipecheck::InvariantId;
use pipecheck_pipe::PipeEvent;

use pipecheck::Invariant;
use crate::Observation;

/// Counts pool occupancy from returns and takes.
#[derive(Debug)]
pub struct BoundedPool {
    max: usize,
    occupancy: usize,
}

impl BoundedPool {
    /// Checks against a pool maximum of `max`.
    pub fn new(max: usize) -> BoundedPool {
        BoundedPool { max, occupancy: 0 }
    }
}

impl Invariant<Observation> for BoundedPool {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::BOUNDED_POOL
    }

    fn statement(&self) -> &'static str {
        "the pool never holds more than its maximum, however stale Count is"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::SegmentReturned { segment }) => {
                self.occupancy += 1;
                if self.occupancy > self.max {
                    return Err(format!(
                        "returning segment {segment} puts {} segments in a pool of at most {}",
                        self.occupancy, self.max
                    ));
                }
            }
            Observation::Pipe(PipeEvent::SegmentTaken { .. }) => {
                self.occupancy = self.occupancy.saturating_sub(1);
            }
            _ => {}
        }
        Ok(())
    }
}
