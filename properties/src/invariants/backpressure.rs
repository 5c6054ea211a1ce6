//! **backpressure**: a flush waits while committed − examined bytes are at or above the
//! pause threshold, and is released once they drop below the resume threshold.
//!
//! The count is .NET's: `AdvanceTo(consumed, examined)` lowers the pipe's unconsumed
//! length by the newly *examined* bytes, so a reader that examines a partial frame
//! without consuming it releases the writer. The checker keeps its own committed and
//! examined offsets (from `Flushed`, `WriterCompleted` and `Consumed`), checks that the
//! count each event reports is theirs, and decides pause and resume from it.
//!
//! A fast flush (`Published`, seed 001) publishes without the lock, so it must never be
//! one that should pause: the committed end it announces, less what the log shows
//! examined, is below the pause threshold. A count reported under the lock may use any
//! committed end from the last lock-ordered one (`Flushed`, `WriterCompleted`) to the
//! newest `Published`: a fast publish is not ordered with the lock, so the reader may
//! not see it yet. Any count in that range is accepted.
//!
//! A pending `read_at_least(n)` suspends the pause, as in .NET: the
//! reader will examine nothing before it has `n` bytes, so a writer paused while it
//! waits would deadlock the pipe. From its `ReadAtLeastPending` until a read returns, a
//! flush leaving fewer than `n` bytes unexamined must not pause, and a writer paused
//! when the read started waiting must be released by the very next state event.

use pipecheck_pipe::PipeEnd;
use pipecheck_pipe::PipeEvent as E;

use pipecheck::InvariantId;

use pipecheck::Invariant;
use crate::{CheckConfig, Observation};

/// Replays the pause/resume state machine over the pipe's events.
#[derive(Debug)]
pub struct Backpressure {
    pause: u64,
    resume: u64,
    paused: bool,
    reader_completed: bool,
    committed: u64,
    /// The committed end of the last lock-ordered event (`Flushed`, `WriterCompleted`),
    /// which a count under the lock may still report while a `Published` is in flight.
    committed_locked: u64,
    examined: u64,
    /// Examined below the resume threshold while paused: the very next state event
    /// must be the release.
    resume_due: Option<u64>,
    /// A `read_at_least(n)` waits: `Some(n)` until a read returns (or a plain read
    /// waits instead, or the reader completes).
    read_minimum: Option<u64>,
    /// A read-at-least started waiting while the writer was paused: the very next
    /// state event must release the writer, whatever the count.
    release_for_read_due: Option<u64>,
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
            committed: 0,
            committed_locked: 0,
            examined: 0,
            resume_due: None,
            read_minimum: None,
            release_for_read_due: None,
        }
    }

    /// Whether a pending read-at-least still waits for more than is unexamined.
    fn read_waits_for_more(&self) -> bool {
        self.read_minimum.is_some_and(|minimum| self.buffered() < minimum)
    }

    /// Committed − examined, as the checker counts it.
    fn buffered(&self) -> u64 {
        self.committed.saturating_sub(self.examined)
    }

    /// The pipe's reported count must be committed − examined.
    fn check_count(&self, reported: u64, what: &str) -> Result<(), String> {
        let expected = self.buffered();
        let before_publish = self.committed_locked.saturating_sub(self.examined);
        if !(before_publish..=expected).contains(&reported) {
            return Err(format!(
                "{what} counts {reported} bytes against the pause threshold, but committed − examined \
                 is {} − {} = {expected}",
                self.committed, self.examined
            ));
        }
        Ok(())
    }
}

impl Invariant<Observation> for Backpressure {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::BACKPRESSURE
    }

    fn statement(&self) -> &'static str {
        "flush waits while committed − examined >= pause threshold and resumes below resume threshold"
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
        if let Some(minimum) = self.release_for_read_due.take()
            && !matches!(event, E::FlushResumed { .. })
            && is_state_event(event)
        {
            return Err(format!(
                "a read waits for at least {minimum} bytes with {} unexamined, but the paused writer \
                 was not released: neither side can move",
                self.buffered()
            ));
        }
        if let Some(unconsumed) = self.resume_due.take()
            && !matches!(event, E::FlushResumed { .. })
            && is_state_event(event)
        {
            return Err(format!(
                "examined down to {unconsumed} unexamined bytes (resume threshold {}) but the paused \
                 flush was not released",
                self.resume
            ));
        }
        match *event {
            E::Published { committed } => {
                self.committed = committed;
                let buffered = self.buffered();
                if !self.reader_completed
                    && self.pause > 0
                    && buffered >= self.pause
                    && !self.read_waits_for_more()
                {
                    return Err(format!(
                        "a flush published without the lock, leaving {buffered} bytes unexamined (pause \
                         threshold {}): it had to take the lock and pause",
                        self.pause
                    ));
                }
            }
            E::Flushed { committed, unconsumed, paused } if !self.reader_completed => {
                self.committed = committed;
                self.committed_locked = committed;
                self.check_count(unconsumed, "a flush")?;
                let buffered = self.buffered();
                let must = self.pause > 0 && buffered >= self.pause && !self.read_waits_for_more();
                if paused && !must && self.read_waits_for_more() {
                    return Err(format!(
                        "a flush paused the writer at {buffered} unexamined bytes while a read waits for \
                         at least {}: neither side can move",
                        self.read_minimum.unwrap_or_default()
                    ));
                }
                if must && !paused {
                    return Err(format!(
                        "a flush left {buffered} bytes unexamined (pause threshold {}) without pausing",
                        self.pause
                    ));
                }
                if paused && !must && !self.paused {
                    return Err(format!("a flush paused the writer at only {buffered} unexamined bytes"));
                }
                self.paused = paused;
            }
            E::Flushed { paused: true, .. } => {
                return Err(
                    "a flush after the reader completed paused the writer: it must report completion".into(),
                );
            }
            E::Flushed { committed, .. } | E::WriterCompleted { committed, .. } => {
                self.committed = committed;
                self.committed_locked = committed;
            }
            E::Consumed { examined, unconsumed, .. } => {
                self.examined = examined;
                if !self.reader_completed {
                    self.check_count(unconsumed, "a consume")?;
                }
                let buffered = self.buffered();
                if self.paused && buffered < self.resume {
                    self.resume_due = Some(buffered);
                }
            }
            E::FlushResumed { .. } if self.read_waits_for_more() => self.paused = false,
            E::FlushResumed { unconsumed } => {
                if !self.reader_completed && unconsumed >= self.resume {
                    return Err(format!(
                        "the flush was released at {unconsumed} unexamined bytes, not below {}",
                        self.resume
                    ));
                }
                self.paused = false;
            }
            E::ReaderCompleted { .. } => {
                self.reader_completed = true;
                self.read_minimum = None;
            }
            E::ReadAtLeastPending { minimum, writer_stays_paused, .. } => {
                self.read_minimum = Some(minimum);
                if writer_stays_paused || (self.paused && self.read_waits_for_more()) {
                    if writer_stays_paused {
                        return Err(format!(
                            "a read waits for at least {minimum} bytes with {} unexamined, and the writer \
                             stays paused: neither side can move",
                            self.buffered()
                        ));
                    }
                    self.release_for_read_due = Some(minimum);
                }
            }
            E::WakerRegistered { end: PipeEnd::Reader } => self.read_minimum = None,
            E::ReadReturned { .. } => self.read_minimum = None,
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
            | E::ReadAtLeastPending { .. }
    )
}
