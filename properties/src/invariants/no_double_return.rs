//! **no-double-return**: a segment is never in the pool twice, and never returned while
//! the writer is writing it — nor while the writer holds it parked (idle, but free to
//! resume writing it): the reader may return a parked head only after it reclaimed it,
//! and a writer never resumes a head that went back to the pool.

use std::collections::HashMap;

use pipecheck::InvariantId;
use pipecheck_pipe::{PipeEvent, SegmentId};

use pipecheck::Invariant;
use crate::Observation;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where {
    /// The writer's head: being written.
    Writing,
    /// The writer's idle head, parked by a flush: still the writer's until the reader
    /// reclaims it.
    Parked,
    /// Let go by the writer; linked or about to be.
    Released,
    /// In the pool.
    Pooled,
    /// Dropped by a full pool.
    Discarded,
}

/// Tracks where each segment object is.
#[derive(Debug, Default)]
pub struct NoDoubleReturn {
    segments: HashMap<SegmentId, Where>,
}

impl Invariant<Observation> for NoDoubleReturn {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::NO_DOUBLE_RETURN
    }

    fn statement(&self) -> &'static str {
        "a segment is never in the pool twice, never returned while linked or being written"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Pipe(event) = observation else { return Ok(()) };
        match *event {
            PipeEvent::SegmentCreated { segment, .. } => {
                self.segments.insert(segment, Where::Writing);
            }
            PipeEvent::SegmentTaken { segment } => {
                let was = self.segments.insert(segment, Where::Writing);
                if was != Some(Where::Pooled) {
                    return Err(format!("segment {segment} taken from the pool while {was:?}"));
                }
            }
            PipeEvent::HeadReleased { segment } => {
                self.segments.insert(segment, Where::Released);
            }
            PipeEvent::HeadParked { segment } => {
                self.segments.insert(segment, Where::Parked);
            }
            PipeEvent::HeadResumed { segment } => {
                let was = self.segments.insert(segment, Where::Writing);
                if matches!(was, Some(Where::Pooled | Where::Discarded)) {
                    return Err(format!(
                        "the writer resumed writing segment {segment} after the reader gave it back ({was:?})"
                    ));
                }
            }
            PipeEvent::HeadReclaimed { segment } => {
                let was = self.segments.insert(segment, Where::Released);
                if was != Some(Where::Parked) {
                    return Err(format!("the reader reclaimed segment {segment} while {was:?}, not parked"));
                }
            }
            PipeEvent::HeadKept { segment, .. } => {
                // The reader took the parked head but leaves it linked (a fast flush
                // published into it): the writer no longer holds it, the list does.
                let was = self.segments.insert(segment, Where::Released);
                if was != Some(Where::Parked) {
                    return Err(format!("the reader took segment {segment} while {was:?}, not parked"));
                }
            }
            PipeEvent::SegmentReturned { segment } | PipeEvent::SegmentDiscarded { segment } => {
                let returned = matches!(event, PipeEvent::SegmentReturned { .. });
                match self.segments.get(&segment) {
                    Some(Where::Pooled) if returned => {
                        return Err(format!("segment {segment} returned to the pool twice"));
                    }
                    Some(Where::Writing) => {
                        return Err(format!("segment {segment} returned while the writer still writes it"));
                    }
                    Some(Where::Parked) => {
                        return Err(format!(
                            "segment {segment} returned while the writer holds it parked (it may resume \
                             writing it at any time): only a reclaimed head may go back"
                        ));
                    }
                    _ => {}
                }
                self.segments.insert(segment, if returned { Where::Pooled } else { Where::Discarded });
            }
            _ => {}
        }
        Ok(())
    }
}
