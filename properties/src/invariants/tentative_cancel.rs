//! **tentative-cancel**: a canceled read needs no `advance_to` — the next read releases
//! its buffer and returns the unconsumed bytes (.NET's `ReadingTentative` state).
//!
//! The checker remembers whether the reader's outstanding buffer came from a canceled
//! read (`ReadReturned { canceled: true }`, released by `Consumed`), and reports a read
//! refused with `AdvanceRequired` while it did.

use pipecheck_core::InvariantId;
use pipecheck_core::{PipeError, PipeEvent};

use crate::{Invariant, Observation};

/// Tracks whether the outstanding buffer is a canceled read's.
#[derive(Debug, Default)]
pub struct TentativeCancel {
    canceled_outstanding: bool,
}

impl Invariant for TentativeCancel {
    fn id(&self) -> InvariantId {
        InvariantId::TENTATIVE_CANCEL
    }

    fn statement(&self) -> &'static str {
        "a canceled read needs no advance_to: the next read releases it and returns the unconsumed bytes"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::ReadReturned { canceled, .. }) => {
                self.canceled_outstanding = *canceled
            }
            Observation::Pipe(PipeEvent::Consumed { .. } | PipeEvent::ReaderCompleted { .. }) => {
                self.canceled_outstanding = false;
            }
            Observation::ReadRefused(PipeError::AdvanceRequired) if self.canceled_outstanding => {
                return Err("a read after a canceled read was refused with AdvanceRequired: a canceled \
                            read is tentative and needs no advance_to"
                    .into());
            }
            _ => {}
        }
        Ok(())
    }
}
