//! **cancel-observed**: `cancel_pending_read` is reported: the pending read, or else the
//! next read to return, has `is_canceled` set (once per cancel, however many were
//! called before a read saw them), and no read reports a cancel nobody asked for. The
//! same for `cancel_pending_flush` and flushes, with one allowance: a flush that finds
//! the reader completed reports completion, and may drop a pending cancel (a flush
//! started after the writer saw the completion never reports one).
//!
//! Every event here is emitted under the pipe lock, so their log order is the lock
//! order and the check is exact online — except a fast flush's `FlushReturned`
//! (`Published` and no `Flushed` after it): its result was decided by the lock-free
//! publish, which succeeds only while no flush cancel is pending. A cancel logged
//! before its `Published` was set before the publish (so the publish had to fail and
//! the flush to take the lock); one logged after it may have come after the publish.
//! The fast return is judged against the cancels pending at its `Published`, and a
//! cancel logged since stays pending for the next flush.

use pipecheck_core::{InvariantId, PipeEvent};

use crate::{Invariant, Observation};

/// Whether a cancel is waiting to be reported, by a read and by a flush.
#[derive(Debug, Default)]
pub struct CancelObserved {
    pending: bool,
    flush_pending: bool,
    /// Between a fast flush's `Published` and its return (or its `Flushed`, when the
    /// publish failed and it took the lock): whether a flush cancel was pending at the
    /// `Published`.
    pending_at_publish: Option<bool>,
}

impl Invariant for CancelObserved {
    fn id(&self) -> InvariantId {
        InvariantId::CANCEL_OBSERVED
    }

    fn statement(&self) -> &'static str {
        "a canceled read (or flush) is reported (is_canceled) by the pending read (flush) or the next one, once"
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
            Observation::Pipe(PipeEvent::FlushCanceled) => self.flush_pending = true,
            Observation::Pipe(PipeEvent::Published { .. }) => {
                self.pending_at_publish = Some(self.flush_pending)
            }
            Observation::Pipe(PipeEvent::Flushed { .. }) => self.pending_at_publish = None,
            Observation::Pipe(PipeEvent::FlushReturned { completed, canceled }) => {
                let pending = match self.pending_at_publish.take() {
                    // A fast return: it could take only what was pending at its publish;
                    // a cancel logged since is left for the next flush.
                    Some(at_publish) => {
                        if at_publish {
                            self.flush_pending = false;
                        }
                        at_publish
                    }
                    None => std::mem::take(&mut self.flush_pending),
                };
                if pending && !canceled && !completed {
                    return Err(
                        "a flush returned without is_canceled after cancel_pending_flush (the reader \
                                still open): the cancel was lost"
                            .into(),
                    );
                }
                if *canceled && !pending {
                    return Err("a flush reported is_canceled, but no cancel was pending".into());
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[PipeEvent]) -> Result<(), String> {
        let mut check = CancelObserved::default();
        events.iter().try_for_each(|e| check.observe(&Observation::Pipe(e.clone())))
    }

    const PUBLISHED: PipeEvent = PipeEvent::Published { committed: 1 };
    const PLAIN: PipeEvent = PipeEvent::FlushReturned { completed: false, canceled: false };
    const CANCELED: PipeEvent = PipeEvent::FlushReturned { completed: false, canceled: true };

    #[test]
    fn a_fast_return_after_a_cancel_logged_before_its_publish_lost_it() {
        assert!(run(&[PipeEvent::FlushCanceled, PUBLISHED, PLAIN]).is_err());
    }

    #[test]
    fn a_cancel_logged_after_a_fast_publish_is_left_for_the_next_flush() {
        assert!(run(&[PUBLISHED, PipeEvent::FlushCanceled, PLAIN, CANCELED]).is_ok());
        assert!(run(&[PUBLISHED, PipeEvent::FlushCanceled, PLAIN, PLAIN]).is_err());
    }

    #[test]
    fn a_publish_that_fell_back_to_the_lock_is_judged_in_lock_order() {
        let flushed = PipeEvent::Flushed { committed: 1, unconsumed: 1, paused: false };
        assert!(run(&[PUBLISHED, PipeEvent::FlushCanceled, flushed.clone(), PLAIN]).is_err());
        assert!(run(&[PUBLISHED, PipeEvent::FlushCanceled, flushed, CANCELED]).is_ok());
    }
}
