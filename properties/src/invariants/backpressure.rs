//! **backpressure**: a flush waits while unconsumed bytes are at or above the pause
//! threshold, and is released once they drop below the resume threshold.

use pipecheck_core::PipeEvent as E;

use pipecheck_core::InvariantId;

use crate::{CheckConfig, Invariant, Observation};

/// Replays the pause/resume state machine over the pipe's events.
#[derive(Debug)]
pub struct Backpressure {
    pause: u64,
    resume: u64,
    paused: bool,
    reader_completed: bool,
    /// Consumed below the resume threshold while paused: the very next state event
    /// must be the release.
    resume_due: Option<u64>,
}

impl Backpressure {
    /// Checks against the thresholds in `config`.
    pub fn new(config: &CheckConfig) -> Backpressure {
        Backpressure {
            pause: config.pause_writer_threshold,
            // The pipe treats a resume threshold of 0 as 1 (options.rs): nothing is below 0.
            resume: config.resume_writer_threshold.max(1),
            paused: false,
            reader_completed: false,
            resume_due: None,
        }
    }
}

impl Invariant for Backpressure {
    fn id(&self) -> InvariantId {
        InvariantId::BACKPRESSURE
    }

    fn statement(&self) -> &'static str {
        "flush waits while unconsumed >= pause threshold and resumes below resume threshold"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let event = match observation {
            Observation::FlushReturned { canceled, completed } => {
                if self.paused && !canceled && !completed && !self.reader_completed {
                    return Err("a flush returned while the writer was paused".into());
                }
                return Ok(());
            }
            Observation::Pipe(event) => event,
            _ => return Ok(()),
        };
        if let Some(unconsumed) = self.resume_due.take()
            && !matches!(event, E::FlushResumed { .. })
            && is_state_event(event)
        {
            return Err(format!(
                "consumed down to {unconsumed} bytes (resume threshold {}) but the paused flush \
                 was not released",
                self.resume
            ));
        }
        match *event {
            E::Flushed { unconsumed, paused, .. } if !self.reader_completed => {
                let must = self.pause > 0 && unconsumed >= self.pause;
                if must && !paused {
                    return Err(format!(
                        "a flush left {unconsumed} bytes unconsumed (pause threshold {}) without pausing",
                        self.pause
                    ));
                }
                if paused && !must && !self.paused {
                    return Err(format!("a flush paused the writer at only {unconsumed} unconsumed bytes"));
                }
                self.paused = paused;
            }
            E::Consumed { unconsumed, .. } if self.paused && unconsumed < self.resume => {
                self.resume_due = Some(unconsumed);
            }
            E::FlushResumed { unconsumed } => {
                if !self.reader_completed && unconsumed >= self.resume {
                    return Err(format!(
                        "the flush was released at {unconsumed} unconsumed bytes, not below {}",
                        self.resume
                    ));
                }
                self.paused = false;
            }
            E::ReaderCompleted { .. } => self.reader_completed = true,
            _ => {}
        }
        Ok(())
    }
}

/// Events emitted under the pipe lock (their log order is the lock order).
fn is_state_event(event: &E) -> bool {
    matches!(
        event,
        E::Flushed { .. }
            | E::ReadReturned { .. }
            | E::Consumed { .. }
            | E::FlushResumed { .. }
            | E::WriterCompleted { .. }
            | E::ReaderCompleted { .. }
            | E::ReadCanceled
            | E::FlushCanceled
    )
}
