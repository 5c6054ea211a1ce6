//! **fast-read-unparked**: a read returns without the pipe lock only while no reader
//! waker is registered. A registered waker (`READER_PARKED` in the published word)
//! sends every read to the lock, where the pipe keeps its waker and its flag exact; a
//! lock-free read that ignored it would return while a waker of an earlier poll stays
//! registered and the flag stays set, so later flushes take the lock to wake a task
//! that no longer waits.
//!
//! The checker follows the reader's waker from the log: registered at
//! `WakerRegistered { end: Reader }`, gone at `WakerTaken { end: Reader }` (a flush,
//! the writer's completion or a cancel took it; the pipe reports the take before it
//! clears the flag) or at the reader's completion (which clears the flag). A lock-free
//! read is a `FastReadTried` answered by `ReadReturned` rather than `FastReadMissed`
//! (one reader: its events do not interleave with each other).

use pipecheck::InvariantId;
use pipecheck_pipe::{PipeEnd, PipeEvent};

use pipecheck::Invariant;
use crate::Observation;

/// The invariant's id.
pub const FAST_READ_UNPARKED: InvariantId = InvariantId::new("fast-read-unparked");

/// Whether a reader waker is registered, and whether the reader's read is on the
/// lock-free path.
#[derive(Debug, Default)]
pub struct FastReadUnparked {
    waker_registered: bool,
    trying_fast: bool,
}

impl Invariant<Observation> for FastReadUnparked {
    fn id(&self) -> InvariantId {
        FAST_READ_UNPARKED
    }

    fn statement(&self) -> &'static str {
        "a read returns without the pipe lock only while no reader waker is registered (READER_PARKED \
         sends it to the lock)"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Pipe(event) = observation else { return Ok(()) };
        match *event {
            PipeEvent::WakerRegistered { end: PipeEnd::Reader } => self.waker_registered = true,
            PipeEvent::WakerTaken { end: PipeEnd::Reader, .. } | PipeEvent::ReaderCompleted { .. } => {
                self.waker_registered = false;
            }
            PipeEvent::FastReadTried => self.trying_fast = true,
            PipeEvent::FastReadMissed => self.trying_fast = false,
            PipeEvent::ReadReturned { start, end, .. } => {
                let without_lock = std::mem::take(&mut self.trying_fast);
                if without_lock && self.waker_registered {
                    return Err(format!(
                        "a read returned [{start}, {end}) without the lock while a reader waker was registered: \
                         the waker and READER_PARKED stay behind it"
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
