//! **cancel-observed**: `cancel_pending_read` is reported: the pending read, or else the
//! next read to return, has `is_canceled` set (once per cancel, however many were
//! called before a read saw them), and no read reports a cancel nobody asked for.
//!
//! Both events are emitted under the pipe lock, so their log order is the lock order
//! and the check is exact online. (The flush side has no such event — a flush's result
//! is recorded after it returns — so it is left to the scenarios' own outcome checks.)

use pipecheck_core::{InvariantId, PipeEvent};

use crate::{Invariant, Observation};

/// Whether a cancel is waiting to be reported by a read.
#[derive(Debug, Default)]
pub struct CancelObserved {
    pending: bool,
}

impl Invariant for CancelObserved {
    fn id(&self) -> InvariantId {
        InvariantId::CANCEL_OBSERVED
    }

    fn statement(&self) -> &'static str {
        "a canceled read is reported (is_canceled) by the pending read or the next one, once"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::ReadCanceled) => self.pending = true,
            Observation::Pipe(PipeEvent::ReadReturned { start, end, canceled, .. }) => {
                let pending = std::mem::take(&mut self.pending);
                if pending && !canceled {
                    return Err(format!(
                        "a read returned bytes {start}..{end} without is_canceled after cancel_pending_read: \
                         the cancel was lost"
                    ));
                }
                if *canceled && !pending {
                    return Err("a read reported is_canceled, but no cancel was pending".into());
                }
            }
            Observation::Pipe(PipeEvent::ReaderCompleted { .. }) => self.pending = false,
            _ => {}
        }
        Ok(())
    }
}
