//! **tentative-cancel**: a canceled read needs no `advance_to` — the next read releases
//! its buffer and returns the unconsumed bytes (.NET's `ReadingTentative` state).
//!
//! Only a canceled read is: a read after one that was not canceled, before its
//! `advance_to`, must be refused with `AdvanceRequired`.
//!
//! The checker remembers whether the reader's outstanding buffer came from a canceled
//! read (`ReadReturned { canceled: true }`, released by `Consumed`), and reports a read
//! refused with `AdvanceRequired` while it did, and a read that returned while the
//! outstanding buffer was a read's that was not canceled.

use pipecheck::InvariantId;
use pipecheck_pipe::{PipeError, PipeEvent};

use pipecheck::Invariant;
use crate::Observation;

/// Tracks whether a buffer is outstanding, and whether it is a canceled read's.
#[derive(Debug, Default)]
pub struct TentativeCancel {
    /// `Some(canceled)` from a `ReadReturned` to its release.
    outstanding: Option<bool>,
}

impl Invariant<Observation> for TentativeCancel {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::TENTATIVE_CANCEL
    }

    fn statement(&self) -> &'static str {
        "a canceled read, and only a canceled read, needs no advance_to: the next read releases it and \
         returns the unconsumed bytes"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::ReadReturned { canceled, start, end, .. }) => {
                if self.outstanding == Some(false) {
                    return Err(format!(
                        "a read returned [{start}, {end}) while the previous read's buffer, not canceled, was \
                         outstanding: it needs advance_to first (AdvanceRequired)"
                    ));
                }
                self.outstanding = Some(*canceled);
            }
            Observation::Pipe(PipeEvent::Consumed { .. } | PipeEvent::ReaderCompleted { .. }) => {
                self.outstanding = None;
            }
            Observation::ReadRefused(PipeError::AdvanceRequired) if self.outstanding == Some(true) => {
                return Err("a read after a canceled read was refused with AdvanceRequired: a canceled \
                            read is tentative and needs no advance_to"
                    .into());
            }
            _ => {}
        }
        Ok(())
    }
}
