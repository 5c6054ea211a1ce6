//! **byte-exact**: every committed byte is read exactly once, in order; nothing lost,
//! duplicated or torn.

use pipecheck::InvariantId;
use pipecheck_pipe::PipeEvent;

use pipecheck::Invariant;
use crate::Observation;

/// Compares what reads returned with what the writer wrote.
#[derive(Debug, Default)]
pub struct ByteExact {
    written: Vec<u8>,
    consumed: u64,
    committed: u64,
    drained: bool,
}

impl Invariant<Observation> for ByteExact {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::BYTE_EXACT
    }

    fn statement(&self) -> &'static str {
        "every committed byte is read exactly once, in order; nothing lost, duplicated or torn"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            Observation::Wrote { offset, bytes } => {
                if *offset != self.written.len() as u64 {
                    return Err(format!(
                        "write at offset {offset}, but {} bytes were written",
                        self.written.len()
                    ));
                }
                self.written.extend_from_slice(bytes);
            }
            Observation::ReadData { start, bytes } => {
                if *start != self.consumed {
                    return Err(format!("read starts at {start}, but {} bytes were consumed", self.consumed));
                }
                let from = *start as usize;
                let expected = self.written.get(from..from + bytes.len());
                if expected != Some(&bytes[..]) {
                    let first_bad = bytes
                        .iter()
                        .enumerate()
                        .find(|&(i, b)| self.written.get(from + i) != Some(b))
                        .map_or(0, |(i, _)| i);
                    return Err(format!(
                        "read {} bytes at {start}; byte {} is {:?}, the writer wrote {:?}",
                        bytes.len(),
                        from + first_bad,
                        bytes.get(first_bad),
                        self.written.get(from + first_bad)
                    ));
                }
            }
            Observation::Pipe(PipeEvent::Consumed { consumed, .. }) => self.consumed = *consumed,
            Observation::Pipe(PipeEvent::Flushed { committed, .. })
            | Observation::Pipe(PipeEvent::Published { committed })
            | Observation::Pipe(PipeEvent::WriterCompleted { committed, .. }) => self.committed = *committed,
            Observation::Drained => self.drained = true,
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        if self.drained && self.consumed != self.committed {
            return Err(format!(
                "the reader drained the pipe at {} bytes, but {} were committed",
                self.consumed, self.committed
            ));
        }
        // The reader saw the writer's completion, which came after everything it wrote:
        // every written byte, flushed or only advanced, must have been read.
        if self.drained && self.consumed != self.written.len() as u64 {
            return Err(format!(
                "the reader drained the pipe at {} bytes, but the writer wrote {} before completing",
                self.consumed,
                self.written.len()
            ));
        }
        Ok(())
    }
}
