//! **fifo-pool**: segments are reused in the order they were returned.

use std::collections::VecDeque;

use pipecheck::InvariantId;
use pipecheck_pipe::{PipeEvent, SegmentId};

use pipecheck::Invariant;
use crate::Observation;

/// A reference FIFO queue of pooled segments.
#[derive(Debug, Default)]
pub struct FifoPool {
    pooled: VecDeque<SegmentId>,
}

impl Invariant<Observation> for FifoPool {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::FIFO_POOL
    }

    fn statement(&self) -> &'static str {
        "segments are reused in the order they were returned"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::SegmentReturned { segment }) => self.pooled.push_back(*segment),
            Observation::Pipe(PipeEvent::SegmentTaken { segment }) => match self.pooled.pop_front() {
                Some(oldest) if oldest == *segment => {}
                Some(oldest) => {
                    return Err(format!(
                        "took segment {segment}, but segment {oldest} was returned earlier (pool: {:?})",
                        std::iter::once(oldest).chain(self.pooled.iter().copied()).collect::<Vec<_>>()
                    ));
                }
                None => return Err(format!("took segment {segment} from an empty pool")),
            },
            _ => {}
        }
        Ok(())
    }
}
