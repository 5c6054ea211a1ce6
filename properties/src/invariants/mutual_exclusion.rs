//! **mutual-exclusion**: the async mutex admits one holder at a time.
//!
//! The mutex reports an admission after it happened and a release before it happens,
//! so two admissions with no release between them in the log overlapped really.

use std::collections::HashMap;

use pipecheck_pipe::{Handover, PrimitiveEvent, PrimitiveId};
use pipecheck::InvariantId;

use pipecheck::Invariant;
use crate::Observation;

/// Tracks each async mutex's holder and reserved permit.
#[derive(Debug, Default)]
pub struct MutualExclusion {
    /// Per mutex: whether it is held, and how it was entered (for the report).
    held: HashMap<PrimitiveId, Option<u64>>,
    /// Mutexes whose exit left a permit for an entrant not yet queued.
    reserved: HashMap<PrimitiveId, bool>,
}

fn entry(ticket: Option<u64>) -> String {
    match ticket {
        Some(ticket) => format!("waiter {ticket}, by hand-over"),
        None => "an entrant that found it free".to_owned(),
    }
}

impl Invariant<Observation> for MutualExclusion {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::MUTUAL_EXCLUSION
    }

    fn statement(&self) -> &'static str {
        "the async mutex admits one holder; exit with waiters hands over without a lost wakeup"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Primitive(event) = observation else { return Ok(()) };
        match *event {
            PrimitiveEvent::MutexAcquired { mutex, ticket } => {
                if let Some(holder) = self.held.insert(mutex, ticket) {
                    return Err(format!(
                        "async mutex {mutex} admitted {} while {} still held it",
                        entry(ticket),
                        entry(holder)
                    ));
                }
                if ticket.is_none() {
                    self.reserved.remove(&mutex);
                }
            }
            PrimitiveEvent::MutexReleased { mutex } if self.held.remove(&mutex).is_none() => {
                return Err(format!("async mutex {mutex} was released by a task that did not hold it"));
            }
            PrimitiveEvent::MutexHandedOver { mutex, to: Handover::Reserved, .. }
                if self.reserved.insert(mutex, true).is_some() =>
            {
                return Err(format!("an exit of async mutex {mutex} reserved a second permit"));
            }
            _ => {}
        }
        Ok(())
    }
}
