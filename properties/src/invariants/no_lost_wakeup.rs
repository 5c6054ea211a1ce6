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

use pipecheck_core::{InvariantId, PipeEnd, PipeEvent, WakerId};

use crate::{Invariant, Observation, Side};

/// Tracks which side waits and which wakes it is owed.
#[derive(Debug, Default)]
pub struct NoLostWakeup {
    waiting: [bool; 2],
    owed: [Option<String>; 2],
    examined: u64,
    online: Online,
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
    fn released(&mut self, op: pipecheck_core::PipeOperation) -> Result<(), String> {
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

impl Invariant for NoLostWakeup {
    fn id(&self) -> InvariantId {
        InvariantId::NO_LOST_WAKEUP
    }

    fn statement(&self) -> &'static str {
        "a pending read wakes on flush, writer complete or cancel; a paused flush wakes on consume, \
         reader complete or cancel"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        use PipeEvent as E;
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
            Observation::Pipe(event) => match *event {
                E::Flushed { committed, .. } if committed > self.examined => {
                    self.owe(Side::Reader, format!("a flush committed bytes up to {committed}"));
                }
                // A fast flush (`Published`) owes nothing: it publishes only while no
                // reader is parked, and when it finds one parked it takes the lock and
                // reports `Flushed`, which owes the wake. A read that parks in the race
                // re-checks the end and sees the bytes; one that does not is a wait
                // nobody ends: the engines' deadlock, attributed to this invariant.
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
            },
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.check()
    }
}
