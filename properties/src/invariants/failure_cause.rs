//! **failure-cause**: the failure a side completes with reaches the other side with its
//! cause intact — the same error value, so the reader sees the writer's real error type
//! (and the writer the reader's).
//!
//! Drivers record [`Observation::Failed`] before completing a side with a failure (a
//! second completion, which the pipe ignores, does not count); the
//! other side's refused read or flush ([`Observation::ReadRefused`],
//! [`Observation::FlushRefused`]) must carry a failure with [`Failure::same_cause`].

use pipecheck::InvariantId;
use pipecheck_pipe::{Failure, PipeError, PipeEvent};

use pipecheck::Invariant;
use crate::{Observation, Side};

/// The failures each side completed with.
#[derive(Debug, Default)]
pub struct FailureCause {
    writer: Option<Failure>,
    reader: Option<Failure>,
    writer_completed: bool,
    reader_completed: bool,
}

fn check(sent: Option<&Failure>, got: &Failure, what: &str) -> Result<(), String> {
    match sent {
        Some(sent) if !got.same_cause(sent) => Err(format!(
            "{what} got {got:?}, but the failure completed with was {sent:?}: its cause was lost"
        )),
        _ => Ok(()),
    }
}

impl Invariant<Observation> for FailureCause {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::FAILURE_CAUSE
    }

    fn statement(&self) -> &'static str {
        "a side's failure reaches the other side with its cause: the same error value and type"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match observation {
            // Completing is idempotent: only the failure of the first completion counts.
            Observation::Failed(Side::Writer, failure) if !self.writer_completed => {
                self.writer = Some(failure.clone());
            }
            Observation::Failed(Side::Reader, failure) if !self.reader_completed => {
                self.reader = Some(failure.clone());
            }
            Observation::Pipe(PipeEvent::WriterCompleted { .. }) => self.writer_completed = true,
            Observation::Pipe(PipeEvent::ReaderCompleted { .. }) => self.reader_completed = true,
            Observation::ReadRefused(PipeError::WriterFailed(got)) => {
                check(self.writer.as_ref(), got, "a read")?;
            }
            Observation::FlushRefused(PipeError::ReaderFailed(got)) => {
                check(self.reader.as_ref(), got, "a flush")?;
            }
            _ => {}
        }
        Ok(())
    }
}
