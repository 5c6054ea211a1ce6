//! Monitored pipe ends: [`CheckedWriter`] and [`CheckedReader`] wrap the pipe's ends
//! and record what each operation did (bytes written, bytes read, flush outcomes), so
//! scenario bodies stay short and every engine feeds invariants the same facts.
//!
//! Blocking calls use the facade's `block_on`, so the same body runs on `std`
//! threads, as loom threads, and as shuttle tasks.

use std::sync::Arc;

use pipecheck::future::block_on;
use pipecheck_pipe::{Failure, FlushResult, PipeError, PipeOptions, Position, ReadResult, Reader, Writer};

use crate::{Monitor, Observation, Side};

/// Builds a monitored pipe from the monitor's config.
///
/// # Panics
///
/// If the monitor's config is not valid pipe options.
pub fn checked_pipe(monitor: &Arc<Monitor>) -> (CheckedWriter, CheckedReader) {
    checked_pipe_with(monitor, |options| options)
}

/// [`checked_pipe`] with options the config does not set (a scenario's own wait, say)
/// changed by `tune` from the monitor's.
///
/// # Panics
///
/// If the tuned options are not valid pipe options.
pub fn checked_pipe_with(
    monitor: &Arc<Monitor>,
    tune: impl FnOnce(PipeOptions) -> PipeOptions,
) -> (CheckedWriter, CheckedReader) {
    let (writer, reader) = tune(monitor.pipe_options()).build().expect("the check config is valid");
    (
        CheckedWriter { writer, monitor: monitor.clone(), written: 0 },
        CheckedReader { reader, monitor: monitor.clone() },
    )
}

/// [`reset_pipe`](pipecheck_pipe::reset_pipe) on monitored ends: the writer's record of
/// offsets starts again at 0 with the pipe's (the monitor starts the pipe's invariants
/// afresh at the reset's event).
///
/// # Errors
///
/// As [`reset_pipe`](pipecheck_pipe::reset_pipe); nothing changes then.
pub fn reset_checked(writer: &mut CheckedWriter, reader: &mut CheckedReader) -> Result<(), PipeError> {
    pipecheck_pipe::reset_pipe(&mut writer.writer, &mut reader.reader)?;
    writer.written = 0;
    Ok(())
}

/// A writer that records what it writes and how flushes end.
#[derive(Debug)]
pub struct CheckedWriter {
    writer: Writer,
    monitor: Arc<Monitor>,
    written: u64,
}

impl CheckedWriter {
    /// Writes `bytes` (unflushed), recording them first.
    ///
    /// # Errors
    ///
    /// As [`Writer::write`].
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), PipeError> {
        self.writer.write(bytes)?;
        self.monitor.record_by("writer", Observation::Wrote { offset: self.written, bytes: bytes.to_vec() });
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Writes `bytes` into the memory of one `get_memory(bytes.len())` (unflushed, so a
    /// new segment is started when the head has too little room), recording them first.
    ///
    /// # Errors
    ///
    /// As [`Writer::get_memory`] and [`Writer::advance`].
    pub fn write_contiguous(&mut self, bytes: &[u8]) -> Result<(), PipeError> {
        let memory = self.writer.get_memory(bytes.len())?;
        memory[..bytes.len()].copy_from_slice(bytes);
        self.writer.advance(bytes.len())?;
        self.monitor.record_by("writer", Observation::Wrote { offset: self.written, bytes: bytes.to_vec() });
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Flushes and waits for the flush to finish.
    ///
    /// # Errors
    ///
    /// As [`Writer::flush`].
    pub fn flush(&mut self) -> Result<FlushResult, PipeError> {
        let result = match block_on(self.writer.flush()) {
            Ok(result) => result,
            Err(error) => {
                self.monitor.record_by("writer", Observation::FlushRefused(error.clone()));
                return Err(error);
            }
        };
        self.monitor.record_by(
            "writer",
            Observation::FlushReturned { canceled: result.is_canceled, completed: result.is_completed },
        );
        Ok(result)
    }

    /// Writes `bytes` and flushes.
    ///
    /// # Errors
    ///
    /// As [`Writer::write`] and [`Writer::flush`].
    pub fn send(&mut self, bytes: &[u8]) -> Result<FlushResult, PipeError> {
        self.write(bytes)?;
        self.flush()
    }

    /// Completes the writer (recording its failure first, if any).
    pub fn complete(&mut self, failure: Option<Failure>) {
        if let Some(failure) = &failure {
            self.monitor.record_by("writer", Observation::Failed(Side::Writer, failure.clone()));
        }
        self.writer.complete(failure);
    }

    /// The wrapped writer, for operations without a recorded outcome.
    pub fn inner(&mut self) -> &mut Writer {
        &mut self.writer
    }
}

/// What a checked read returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    /// Stream offset of the first byte.
    pub start: u64,
    /// The unconsumed bytes.
    pub bytes: Vec<u8>,
    /// The writer had completed.
    pub completed: bool,
    /// The read was canceled.
    pub canceled: bool,
}

/// What [`CheckedReader::read_held`] returned: the read and its buffer's positions.
#[derive(Clone, Debug)]
pub struct HeldRead {
    /// What the read saw.
    pub outcome: ReadOutcome,
    /// The position of every offset of the buffer, its start to its end: `positions[i]`
    /// is `i` bytes past the start.
    pub positions: Vec<Position>,
}

impl HeldRead {
    /// The buffer's start.
    pub fn start(&self) -> Position {
        self.positions[0]
    }

    /// The buffer's end.
    pub fn end(&self) -> Position {
        self.positions[self.positions.len() - 1]
    }
}

/// Records what `result` returned ([`Observation::ReadData`]), as every checked read
/// does.
fn record_read(monitor: &Monitor, result: &ReadResult<'_>) -> ReadOutcome {
    let buffer = result.buffer();
    let outcome = ReadOutcome {
        start: buffer.start().offset(),
        bytes: buffer.to_vec(),
        completed: result.is_completed(),
        canceled: result.is_canceled(),
    };
    monitor.record_by("reader", Observation::ReadData { start: outcome.start, bytes: outcome.bytes.clone() });
    outcome
}

/// Records what `result` returned and keeps its buffer's positions.
fn hold(monitor: &Monitor, result: &ReadResult<'_>) -> HeldRead {
    let outcome = record_read(monitor, result);
    let buffer = result.buffer();
    let positions = (0..=buffer.len()).map(|i| buffer.position(i).expect("within the buffer")).collect();
    HeldRead { outcome, positions }
}

/// A reader that records what reads return.
#[derive(Debug)]
pub struct CheckedReader {
    reader: Reader,
    monitor: Arc<Monitor>,
}

impl CheckedReader {
    /// Reads (waiting if needed), then consumes `consume(len)` bytes and examines
    /// everything. Returns what the read saw.
    ///
    /// # Errors
    ///
    /// As [`Reader::read`] and [`Reader::advance_to`].
    pub fn read_and_consume(
        &mut self,
        consume: impl FnOnce(usize) -> usize,
    ) -> Result<ReadOutcome, PipeError> {
        self.read_then(consume, true)
    }

    /// As [`read_and_consume`](Self::read_and_consume), except that a canceled read's
    /// buffer is left outstanding: a canceled read is tentative, and the next read
    /// releases it.
    ///
    /// # Errors
    ///
    /// As [`Reader::read`] and [`Reader::advance_to`].
    pub fn read_and_consume_unless_canceled(
        &mut self,
        consume: impl FnOnce(usize) -> usize,
    ) -> Result<ReadOutcome, PipeError> {
        self.read_then(consume, false)
    }

    /// As [`read_and_consume`](Self::read_and_consume), calling `on_read` with what the
    /// read returned before the buffer is released: a history recorder stamps the
    /// read's response there and the `advance_to`'s invocation, so the release is
    /// recorded where it happens (it lets a paused flush go).
    ///
    /// # Errors
    ///
    /// As [`Reader::read`] and [`Reader::advance_to`].
    pub fn read_and_consume_observed(
        &mut self,
        consume: impl FnOnce(usize) -> usize,
        on_read: impl FnOnce(&ReadOutcome),
    ) -> Result<ReadOutcome, PipeError> {
        self.read_with(None, consume, true, true, on_read)
    }

    /// Waits with `read_at_least(minimum)`, then consumes `consume(len)` bytes and
    /// examines only those (so the bytes left count toward the next read-at-least).
    /// Returns what the read saw.
    ///
    /// # Errors
    ///
    /// As [`Reader::read_at_least`] and [`Reader::advance_to`].
    pub fn read_at_least_and_consume(
        &mut self,
        minimum: usize,
        consume: impl FnOnce(usize) -> usize,
    ) -> Result<ReadOutcome, PipeError> {
        self.read_with(Some(minimum), consume, true, false, |_| ())
    }

    /// Reads (`read_at_least(minimum)` with a minimum, else `read`) and keeps the buffer
    /// outstanding: release it with [`advance_to`](Self::advance_to) at the positions
    /// returned (or misuse it: advance at positions out of order, read again first).
    ///
    /// # Errors
    ///
    /// As [`Reader::read`] and [`Reader::read_at_least`].
    pub fn read_held(&mut self, minimum: Option<usize>) -> Result<HeldRead, PipeError> {
        let read = match minimum {
            Some(minimum) => block_on(self.reader.read_at_least(minimum)),
            None => block_on(self.reader.read()),
        };
        let result = read
            .inspect_err(|error| self.monitor.record_by("reader", Observation::ReadRefused(error.clone())))?;
        Ok(hold(&self.monitor, &result))
    }

    /// As [`read_held`](Self::read_held) with `try_read`: `Ok(None)` when a read would
    /// wait.
    ///
    /// # Errors
    ///
    /// As [`Reader::try_read`].
    pub fn try_read_held(&mut self) -> Result<Option<HeldRead>, PipeError> {
        let read = self.reader.try_read();
        let result = read
            .inspect_err(|error| self.monitor.record_by("reader", Observation::ReadRefused(error.clone())))?;
        Ok(result.map(|result| hold(&self.monitor, &result)))
    }

    /// `Reader::advance_to` (the pipe reports what it consumed and examined).
    ///
    /// # Errors
    ///
    /// As [`Reader::advance_to`].
    pub fn advance_to(&mut self, consumed: Position, examined: Position) -> Result<(), PipeError> {
        self.reader.advance_to(consumed, examined)
    }

    /// `Reader::buffered_len` (the pipe reports the length it returns to the monitor).
    ///
    /// # Errors
    ///
    /// As [`Reader::buffered_len`].
    pub fn buffered_len(&self) -> Result<u64, PipeError> {
        self.reader.buffered_len()
    }

    fn read_then(
        &mut self,
        consume: impl FnOnce(usize) -> usize,
        advance_canceled: bool,
    ) -> Result<ReadOutcome, PipeError> {
        self.read_with(None, consume, advance_canceled, true, |_| ())
    }

    fn read_with(
        &mut self,
        minimum: Option<usize>,
        consume: impl FnOnce(usize) -> usize,
        advance_canceled: bool,
        examine_all: bool,
        on_read: impl FnOnce(&ReadOutcome),
    ) -> Result<ReadOutcome, PipeError> {
        let read = match minimum {
            Some(minimum) => block_on(self.reader.read_at_least(minimum)),
            None => block_on(self.reader.read()),
        };
        let result = match read {
            Ok(result) => result,
            Err(error) => {
                self.monitor.record_by("reader", Observation::ReadRefused(error.clone()));
                return Err(error);
            }
        };
        let outcome = record_read(&self.monitor, &result);
        let buffer = result.buffer();
        let consumed = buffer.position(consume(buffer.len()).min(buffer.len()))?;
        let end = if examine_all { buffer.end() } else { consumed };
        on_read(&outcome);
        if advance_canceled || !outcome.canceled {
            self.reader.advance_to(consumed, end)?;
        }
        Ok(outcome)
    }

    /// Reads and consumes until the writer completes and every byte is consumed;
    /// records [`Observation::Drained`]. Returns the bytes.
    ///
    /// # Errors
    ///
    /// As [`Reader::read`].
    pub fn drain(&mut self) -> Result<Vec<u8>, PipeError> {
        let mut all = Vec::new();
        loop {
            let outcome = self.read_and_consume(|len| len)?;
            all.extend_from_slice(&outcome.bytes);
            if outcome.completed {
                self.monitor.record_by("reader", Observation::Drained);
                return Ok(all);
            }
        }
    }

    /// Completes the reader (recording its failure first, if any).
    pub fn complete(&mut self, failure: Option<Failure>) {
        if let Some(failure) = &failure {
            self.monitor.record_by("reader", Observation::Failed(Side::Reader, failure.clone()));
        }
        self.reader.complete(failure);
    }

    /// The wrapped reader, for operations without a recorded outcome.
    pub fn inner(&mut self) -> &mut Reader {
        &mut self.reader
    }
}
