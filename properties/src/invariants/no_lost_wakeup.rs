//! **no-lost-wakeup**: a pending read wakes on flush, writer completion or cancel; a
//! paused flush wakes on consume, reader completion or cancel.
//!
//! Sequential drivers record [`Observation::Waiting`] when a poll registers a waker,
//! [`Observation::Woken`] when that waker fires, and [`Observation::Quiescent`] after
//! each operation: a wake the pipe owed by then and did not deliver is a violation.
//! Under loom and shuttle a lost wakeup shows as a deadlock, which the engine reports
//! and the harness attributes to this invariant.

use pipecheck_core::{InvariantId, PipeEvent};

use crate::{Invariant, Observation, Side};

/// Tracks which side waits and which wakes it is owed.
#[derive(Debug, Default)]
pub struct NoLostWakeup {
    waiting: [bool; 2],
    owed: [Option<String>; 2],
    examined: u64,
}

fn index(side: Side) -> usize {
    match side {
        Side::Writer => 0,
        Side::Reader => 1,
    }
}

impl NoLostWakeup {
    fn owe(&mut self, side: Side, reason: String) {
        let i = index(side);
        if self.waiting[i] && self.owed[i].is_none() {
            self.owed[i] = Some(reason);
        }
    }

    fn stop_waiting(&mut self, side: Side) {
        self.waiting[index(side)] = false;
        self.owed[index(side)] = None;
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
