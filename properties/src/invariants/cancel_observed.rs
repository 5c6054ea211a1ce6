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
//!
//! Reads alike: a lock-free read (`FastReadTried`, then its `ReadReturned` with no
//! `FastReadMissed` between) decided with one read-modify-write after its try, and a
//! cancel's flag is set before its `ReadCanceled` is logged. So it is judged against the
//! cancels pending at its `FastReadTried`; one logged since stays pending for the next
//! read.

use pipecheck::InvariantId;
use pipecheck_pipe::PipeEvent;

use pipecheck::Invariant;
use crate::Observation;

/// Whether a cancel is waiting to be reported, by a read and by a flush.
#[derive(Debug, Default)]
pub struct CancelObserved {
    pending: bool,
    flush_pending: bool,
    /// Between a fast flush's `Published` and its return (or its `Flushed`, when the
    /// publish failed and it took the lock): whether a flush cancel was pending at the
    /// `Published`.
    pending_at_publish: Option<bool>,
    /// Between a lock-free read's `FastReadTried` and its return (or its
    /// `FastReadMissed`, when it took the lock): whether a read cancel was pending at
    /// the try.
    pending_at_try: Option<bool>,
}

impl Invariant<Observation> for CancelObserved {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::CANCEL_OBSERVED
    }

    fn statement(&self) -> &'static str {
        "a canceled read (or flush) is reported (is_canceled) by the pending read (flush) or the next one, once"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Pipe(PipeEvent::ReadCanceled) => self.pending = true,
            Observation::Pipe(PipeEvent::FastReadTried) => self.pending_at_try = Some(self.pending),
            Observation::Pipe(PipeEvent::FastReadMissed) => self.pending_at_try = None,
            Observation::Pipe(PipeEvent::ReadReturned { start, end, canceled, .. })
                if let Some(at_try) = self.pending_at_try.take() =>
            {
                // A lock-free return: it could see only what was flagged at its try; a
                // cancel logged since is left for the next read.
                if at_try && !canceled {
                    return Err(format!(
                        "a read that began after cancel_pending_read returned bytes {start}..{end} \
                         without the lock and without is_canceled: the cancel was lost"
                    ));
                }
                if *canceled {
                    return Err("a lock-free read reported is_canceled: only the lock takes a cancel".into());
                }
            }
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
            Observation::Pipe(PipeEvent::ReaderCompleted { .. }) => {
                self.pending = false;
                self.pending_at_try = None;
            }
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

    const TRIED: PipeEvent = PipeEvent::FastReadTried;
    const MISSED: PipeEvent = PipeEvent::FastReadMissed;
    const READ: PipeEvent = PipeEvent::ReadReturned { start: 0, end: 1, completed: false, canceled: false };
    const READ_CANCELED: PipeEvent =
        PipeEvent::ReadReturned { start: 0, end: 1, completed: false, canceled: true };

    #[test]
    fn a_lock_free_read_after_a_cancel_logged_before_its_try_lost_it() {
        assert!(run(&[PipeEvent::ReadCanceled, TRIED, READ]).is_err());
    }

    #[test]
    fn a_cancel_logged_after_a_lock_free_try_is_left_for_the_next_read() {
        assert!(run(&[TRIED, PipeEvent::ReadCanceled, READ, READ_CANCELED]).is_ok());
        assert!(run(&[TRIED, PipeEvent::ReadCanceled, READ, READ]).is_err());
    }

    #[test]
    fn a_read_that_missed_the_lock_free_path_is_judged_in_lock_order() {
        assert!(run(&[TRIED, PipeEvent::ReadCanceled, MISSED, READ]).is_err());
        assert!(run(&[TRIED, PipeEvent::ReadCanceled, MISSED, READ_CANCELED]).is_ok());
        assert!(run(&[PipeEvent::ReadCanceled, TRIED, MISSED, READ_CANCELED]).is_ok());
    }

    #[test]
    fn a_lock_free_read_never_reports_a_cancel() {
        assert!(run(&[PipeEvent::ReadCanceled, TRIED, READ_CANCELED]).is_err());
    }

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
