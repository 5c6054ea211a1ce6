//! **buffered-length**: the length the reader sees (`Reader::buffered_len`) is committed
//! − examined bytes, the count back-pressure uses.
//!
//! `buffered_len` reports `LengthObserved` under the pipe lock, so the checker compares
//! it with the committed and examined offsets it replays from the events before it in
//! the log (`Flushed`, `WriterCompleted`, `Consumed`): no other step can fall between
//! the pipe's answer and the state it describes. A fast flush's `Published` is not
//! lock-ordered: a length read under the lock may not see a fast publish yet, so any
//! committed end from the last lock-ordered commit to the newest `Published` is
//! accepted.

use pipecheck::InvariantId;
use pipecheck_pipe::PipeEvent;

use pipecheck::Invariant;
use crate::Observation;

/// Replays the committed and examined offsets and checks every reported length.
#[derive(Debug, Default)]
pub struct BufferedLength {
    committed: u64,
    /// The newest `Published` end (at least `committed`).
    published: u64,
    examined: u64,
}

impl Invariant<Observation> for BufferedLength {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::BUFFERED_LENGTH
    }

    fn statement(&self) -> &'static str {
        "the buffered length the reader sees is committed − examined bytes"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Pipe(event) = observation else { return Ok(()) };
        match *event {
            PipeEvent::Flushed { committed, .. } | PipeEvent::WriterCompleted { committed, .. } => {
                self.committed = committed;
                self.published = self.published.max(committed);
            }
            PipeEvent::Published { committed } => self.published = committed,
            PipeEvent::Consumed { examined, .. } => self.examined = examined,
            PipeEvent::LengthObserved { len } => {
                let expected = self.committed.saturating_sub(self.examined);
                let in_flight = self.published.saturating_sub(self.examined);
                if !(expected..=in_flight).contains(&len) {
                    return Err(format!(
                        "buffered_len reported {len} bytes, but committed − examined is {} − {} = {expected}",
                        self.committed, self.examined
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
