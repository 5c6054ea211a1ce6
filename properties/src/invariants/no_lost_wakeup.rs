//! **no-lost-wakeup**: a pending read wakes on flush, writer completion or cancel; a
//! paused flush wakes on consume, reader completion or cancel.
//!
//! Checked online, from the pipe's own events, in every engine: each operation that
//! changes what a waiting end waits for (a flush committing past what the reader
//! examined, a completion, a cancel, a consume releasing a paused flush) creates a wake
//! *obligation* at the event that creates it, if a waker is registered for that end.
//! The operation must take that waker — the one the end's task polled with last — before
//! it releases the pipe lock ([`PipeEvent::LockReleased`]); events under the lock come
//! in lock order, so this is decided at that event, naming the operation that owed the
//! wake. A lost wake is reported where it happens, even when a later operation (the
//! writer completing) would have rescued the wait, and without waiting for a deadlock.
//!
//! Sequential drivers also record [`Observation::Waiting`] when a poll registers a
//! waker, [`Observation::Woken`] when that waker fires, and [`Observation::Quiescent`]
//! after each operation: a wake the pipe owed by then and did not deliver is a
//! violation. Under loom and shuttle a wait nobody ends is also the engine's deadlock,
//! which the harness attributes to this invariant.
//!
//! The lock-free flush publishes without the lock, so it has no lock order to be judged
//! in: a read that parks ([`PipeEvent::ReadParked`]) for an end a flush had already
//! published is reported instead, whichever of the two the log shows first.

use pipecheck::InvariantId;
use pipecheck_pipe::{PipeEnd, PipeEvent, WakerId};

use pipecheck::Invariant;
use crate::{Observation, Side};

/// Tracks which side waits and which wakes it is owed.
#[derive(Debug, Default)]
pub struct NoLostWakeup {
    waiting: [bool; 2],
    owed: [Option<String>; 2],
    examined: u64,
    online: Online,
    parks: ParkRecheck,
}

/// The lock-free flush's half of the check: a read must not park waiting for an end
/// that a flush has already published. The fast path publishes only while no reader
/// is parked (the park's read-modify-write and the publish's compare-and-swap meet on
/// one word), so a read that parks after a publish it did not look at waits for a wake
/// nobody owes it: the next flush (or the writer's completion) may rescue it, but the
/// wake it needed was lost here. Decided on the log alone, whichever of the two events
/// the log shows first.
#[derive(Debug, Default)]
struct ParkRecheck {
    /// The newest committed end a flush published, under the lock or without it.
    published: u64,
    /// The end a fast flush announced (`Published`), until its `FlushReturned` (it
    /// published without the lock) or its `Flushed` (it took the lock after all).
    announced: Option<u64>,
    /// The end a parked read waits for, until its waker is taken or it returns.
    parked: Option<u64>,
}

impl ParkRecheck {
    fn observe(&mut self, event: &PipeEvent) -> Result<(), String> {
        use PipeEvent as E;
        match *event {
            E::Published { committed } => self.announced = Some(committed),
            E::Flushed { committed, .. } => {
                self.announced = None;
                self.published = self.published.max(committed);
            }
            E::FlushReturned { .. } => {
                if let Some(committed) = self.announced.take() {
                    self.published = self.published.max(committed);
                    if let Some(awaits) = self.parked.filter(|awaits| committed >= *awaits) {
                        return Err(format!(
                            "a flush published up to {committed} without the lock while the pending read \
                             was parked waiting for {awaits}: the read parked without seeing the publish, \
                             and the flush, finding no reader parked, owed it no wake"
                        ));
                    }
                }
            }
            E::ReadParked { awaits_end } => {
                if self.published >= awaits_end {
                    return Err(format!(
                        "the pending read parked waiting for the committed end to reach {awaits_end}, \
                         though a flush had already published up to {}: nothing will wake it for bytes \
                         that are there",
                        self.published
                    ));
                }
                self.parked = Some(awaits_end);
            }
            E::Woke { end: PipeEnd::Reader } | E::ReadReturned { .. } | E::ReaderCompleted { .. } => {
                self.parked = None;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The online check, from the pipe's events alone.
#[derive(Debug, Default)]
struct Online {
    /// A waker is registered in the end's slot (not yet taken).
    registered: [bool; 2],
    /// The waker the end's task polled with last, while it waits.
    polled: [Option<WakerId>; 2],
    /// The waker the pipe took last for the end (reported just before `Woke`).
    taken: [Option<WakerId>; 2],
    /// Wakes owed by the operation holding the lock now: why, and what went wrong.
    owed: [Option<String>; 2],
}

fn index(side: Side) -> usize {
    match side {
        Side::Writer => 0,
        Side::Reader => 1,
    }
}

fn end_index(end: PipeEnd) -> usize {
    match end {
        PipeEnd::Writer => 0,
        PipeEnd::Reader => 1,
    }
}

fn waiter(i: usize) -> &'static str {
    if i == 1 { "the pending read" } else { "the paused flush" }
}

impl NoLostWakeup {
    fn owe(&mut self, side: Side, reason: String) {
        let i = index(side);
        if self.waiting[i] && self.owed[i].is_none() {
            self.owed[i] = Some(reason.clone());
        }
        self.online.owe(side, reason);
    }

    fn stop_waiting(&mut self, side: Side) {
        self.waiting[index(side)] = false;
        self.owed[index(side)] = None;
        self.online.forget(side);
    }

    fn check(&self) -> Result<(), String> {
        for side in [Side::Writer, Side::Reader] {
            if let Some(reason) = &self.owed[index(side)] {
                let what = if side == Side::Reader { "a pending read" } else { "a paused flush" };
                return Err(format!("{what} was never woken, though {reason}"));
            }
        }
        Ok(())
    }
}

impl Online {
    /// An obligation arises for `side` now, if a waker is registered for it.
    fn owe(&mut self, side: Side, reason: String) {
        let i = index(side);
        if self.registered[i] && self.owed[i].is_none() {
            self.owed[i] = Some(reason);
        }
    }

    /// `side` can no longer wait (it completed): nothing is owed to it any more.
    fn forget(&mut self, side: Side) {
        let i = index(side);
        self.registered[i] = false;
        self.polled[i] = None;
        self.owed[i] = None;
    }

    /// The pipe took `end`'s waker to wake it: that settles what is owed to `end`, if it
    /// is the waker the end's task waits on.
    fn woke(&mut self, end: PipeEnd) {
        let i = end_index(end);
        self.registered[i] = false;
        let (taken, polled) = (self.taken[i].take(), self.polled[i].take());
        match (taken, polled) {
            (Some(taken), Some(polled)) if taken != polled => {
                // No addresses in the message: replays of a trace must read the same.
                if let Some(reason) = &mut self.owed[i] {
                    reason.push_str(
                        ", but it woke a stale waker: the task polled again with another (it moved), and \
                         only that one ends the wait",
                    );
                }
            }
            _ => self.owed[i] = None,
        }
    }

    /// The operation `op` releases the lock: what it owed must have been woken.
    fn released(&mut self, op: pipecheck_pipe::PipeOperation) -> Result<(), String> {
        for i in [1, 0] {
            if let Some(reason) = self.owed[i].take() {
                self.owed = [None, None];
                return Err(format!(
                    "`{op}` owed a wake to {} ({reason}) and released the pipe lock without waking it",
                    waiter(i)
                ));
            }
        }
        Ok(())
    }
}

impl Invariant<Observation> for NoLostWakeup {
    fn id(&self) -> InvariantId {
        InvariantId::NO_LOST_WAKEUP
    }

    fn statement(&self) -> &'static str {
        "a pending read wakes on flush, writer complete or cancel; a paused flush wakes on consume, \
         reader complete or cancel"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Waiting(side) => {
                self.waiting[index(*side)] = true;
                self.owed[index(*side)] = None;
            }
            Observation::Woken(side) => {
                self.waiting[index(*side)] = false;
                self.owed[index(*side)] = None;
            }
            Observation::Quiescent => return self.check(),
            Observation::Pipe(event) => {
                self.parks.observe(event)?;
                return self.observe_pipe(event);
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.check()
    }
}

impl NoLostWakeup {
    /// The lock-ordered obligations of one pipe event.
    fn observe_pipe(&mut self, event: &PipeEvent) -> Result<(), String> {
        use PipeEvent as E;
        match *event {
            E::Flushed { committed, .. } if committed > self.examined => {
                self.owe(Side::Reader, format!("a flush committed bytes up to {committed}"));
            }
            // A fast flush (`Published`) owes nothing: it publishes only while no
            // reader is parked, and when it finds one parked it takes the lock and
            // reports `Flushed`, which owes the wake. A read that parks in the race
            // re-checks the end and sees the bytes; one that does not is caught by
            // `ParkRecheck` when the log shows both (and, unrescued, it is the engines'
            // deadlock, attributed to this invariant).
            // (A sequential driver's reader that polled ready again after waiting
            // still counts as waiting here, so owing at `Published` would be wrong.)
            E::WriterCompleted { .. } => {
                self.stop_waiting(Side::Writer);
                self.owe(Side::Reader, "the writer completed".into());
            }
            E::ReadCanceled => self.owe(Side::Reader, "the read was canceled".into()),
            E::Consumed { examined, .. } => self.examined = examined,
            E::FlushResumed { unconsumed } => {
                self.owe(Side::Writer, format!("the flush was released at {unconsumed} unconsumed bytes"))
            }
            E::FlushCanceled => self.owe(Side::Writer, "the flush was canceled".into()),
            E::ReaderCompleted { .. } => {
                // Completing takes `&mut Reader`, so the reader's own pending read is
                // gone: nothing is owed to it any more (a later flush does not wake it).
                self.stop_waiting(Side::Reader);
                self.owe(Side::Writer, "the reader completed".into());
            }
            E::WakerPolled { end, waker } => self.online.polled[end_index(end)] = Some(waker),
            E::WakerRegistered { end } => self.online.registered[end_index(end)] = true,
            E::WakerTaken { end, waker } => self.online.taken[end_index(end)] = Some(waker),
            E::Woke { end } => self.online.woke(end),
            E::LockReleased { op } => return self.online.released(op),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[PipeEvent]) -> Result<(), String> {
        let mut check = NoLostWakeup::default();
        events.iter().try_for_each(|e| check.observe(&Observation::Pipe(e.clone())))
    }

    const PUBLISHED: PipeEvent = PipeEvent::Published { committed: 2 };
    const RETURNED: PipeEvent = PipeEvent::FlushReturned { completed: false, canceled: false };
    const PARKED: PipeEvent = PipeEvent::ReadParked { awaits_end: 2 };

    #[test]
    fn a_read_parking_for_bytes_a_fast_flush_published_is_reported_in_either_log_order() {
        let parked_first = run(&[PARKED, PUBLISHED, RETURNED]).unwrap_err();
        assert!(parked_first.contains("published up to 2 without the lock"), "{parked_first}");
        let published_first = run(&[PUBLISHED, RETURNED, PARKED]).unwrap_err();
        assert!(
            published_first.contains("parked waiting for the committed end to reach 2"),
            "{published_first}"
        );
    }

    #[test]
    fn a_read_parking_before_a_publish_it_could_not_see_is_fine() {
        // The publish falls back to the lock (the flag was set): `Flushed`, which wakes.
        let flushed = PipeEvent::Flushed { committed: 2, unconsumed: 2, paused: false };
        assert!(run(&[PUBLISHED, PARKED, flushed, PipeEvent::Woke { end: PipeEnd::Reader }]).is_ok());
        // A fast publish of fewer bytes than the read waits for.
        let short = PipeEvent::Published { committed: 1 };
        assert!(run(&[PARKED, short, RETURNED]).is_ok());
    }

    #[test]
    fn a_fast_publish_after_the_parked_read_was_woken_is_fine() {
        let woke = PipeEvent::Woke { end: PipeEnd::Reader };
        assert!(run(&[PARKED, woke, PUBLISHED, RETURNED]).is_ok());
    }

    #[test]
    fn a_read_parking_after_a_locked_flush_committed_its_bytes_is_reported() {
        let flushed = PipeEvent::Flushed { committed: 2, unconsumed: 2, paused: false };
        assert!(run(&[flushed, PARKED]).is_err());
    }
}
