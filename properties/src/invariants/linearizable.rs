//! **linearizable**: a recorded concurrent history fits some sequential order of its
//! operations that keeps every precedence the run established and that the object's
//! sequential model accepts. Under shuttle and real threads a precedence is real time
//! (one operation returned before the other began); under loom, whose weak memory has
//! no global clock, it is happens-before (program order, spawn and join).
//!
//! This is a check over a whole history, not over events: the scenarios that record one
//! ([`Recorder`](crate::linearizability::Recorder)) check it after their joins with
//! [`ensure_linearizable`](crate::linearizability::ensure_linearizable), which raises
//! the violation. The registry line names the invariant, so that verdicts, trace files
//! and the kill matrix know it; its online part has nothing to check, because the event
//! log carries no operation spans.

use pipecheck::InvariantId;

use pipecheck::Invariant;
use crate::Observation;

/// The registry's entry for **linearizable** (see the module docs: the history check
/// itself runs at the end of the scenarios that record a history).
#[derive(Debug, Default)]
pub struct Linearizable;

impl Invariant<Observation> for Linearizable {
    fn id(&self) -> InvariantId {
        InvariantId::LINEARIZABLE
    }

    fn statement(&self) -> &'static str {
        pipecheck::linearizability::STATEMENT
    }

    fn observe(&mut self, _: &Observation) -> Result<(), String> {
        Ok(())
    }
}
