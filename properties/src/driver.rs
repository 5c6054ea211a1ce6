//! The driver: applies [`Op`]s to a real, monitored pipe and reports each [`Step`].
//!
//! [`WriterEnd`] and [`ReaderEnd`] each own one end of the pipe and record what they do
//! into the [`Monitor`] exactly as [`CheckedWriter`](crate::CheckedWriter) and
//! [`CheckedReader`](crate::CheckedReader) do (`Wrote`, `ReadData`, `FlushReturned`,
//! `Drained`), so byte-exact and every other registered invariant check each run.
//! They work in two modes ([`Wait`]):
//!
//! * **sequential** ([`Driver`]): a read or flush is polled once with a recording waker
//!   (built from [`std::task::Wake`]). `Pending` is a result; the future is dropped and
//!   its waker stays registered in the pipe, and when the pipe later wakes it the driver
//!   records [`Observation::Woken`]. After each op the driver records
//!   [`Observation::Quiescent`], where no-lost-wakeup checks that every owed wake came;
//! * **concurrent** (split across two threads, e.g. under shuttle): reads and flushes
//!   block until they complete; a lost wakeup shows as the engine's deadlock.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use pipecheck::future::block_on;
use pipecheck_pipe::{
    Failure, FlushCanceller, FlushResult, PipeError, Position, ReadCanceller, ReadResult, Reader, Writer,
};

use crate::ops::{Op, POSITIONS_PER_READ, Pos, SequenceFailure, fill_byte};
use crate::outcome::{Outcome, ReadSummary, Step, Woken};
use crate::{Monitor, Observation, Side};
use pipecheck::ModelMismatch;

/// How a read or flush that cannot complete at once is handled.
#[derive(Clone, Debug)]
pub enum Wait {
    /// Poll once with a waker that records into `wakes` (sequential driving).
    Once(Arc<WakeLog>),
    /// Block until the future completes (one thread per end).
    Block,
}

/// The wakeups delivered to the driver's recording wakers since the last [`WakeLog::take`].
#[derive(Debug, Default)]
pub struct WakeLog(Mutex<Woken>);

impl WakeLog {
    /// The wakeups so far, resetting the log.
    pub fn take(&self) -> Woken {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A waker that notes its wakeup in the driver's log and the monitor.
struct RecordingWaker {
    side: Side,
    monitor: Arc<Monitor>,
    log: Arc<WakeLog>,
}

impl Wake for RecordingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        {
            let mut woken = self.log.0.lock().unwrap_or_else(PoisonError::into_inner);
            match self.side {
                Side::Reader => woken.reader = true,
                Side::Writer => woken.writer = true,
            }
        }
        self.monitor.record_by(task(self.side), Observation::Woken(self.side));
    }
}

fn task(side: Side) -> &'static str {
    match side {
        Side::Writer => "writer",
        Side::Reader => "reader",
    }
}

/// Polls `future` once; `Pending` records [`Observation::Waiting`].
fn poll_once<F: Future + Unpin>(
    future: &mut F,
    side: Side,
    monitor: &Arc<Monitor>,
    log: &Arc<WakeLog>,
) -> Option<F::Output> {
    let waker = Waker::from(Arc::new(RecordingWaker { side, monitor: monitor.clone(), log: log.clone() }));
    match Pin::new(future).poll(&mut Context::from_waker(&waker)) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => {
            monitor.record_by(task(side), Observation::Waiting(side));
            None
        }
    }
}

/// The writing end under test, with the reader's canceller (for [`Op::CancelRead`]).
pub struct WriterEnd {
    writer: Writer,
    read_canceller: ReadCanceller,
    monitor: Arc<Monitor>,
    /// Successful `get_memory` calls; part of the fill pattern.
    generation: u64,
    /// Stream offset of the end of advanced bytes.
    written: u64,
}

impl WriterEnd {
    /// Applies a writer-side op (see [`Op::side`]).
    ///
    /// # Panics
    ///
    /// On a reader-side op.
    pub fn apply(&mut self, op: &Op, wait: &Wait) -> Outcome {
        match *op {
            Op::GetMemory { size_hint } => Outcome::Memory(self.get_memory(size_hint)),
            Op::Advance { bytes } => Outcome::Done(self.advance(bytes)),
            Op::Flush => Outcome::Flush(self.flush(wait)),
            Op::CancelRead => {
                self.read_canceller.cancel_pending_read();
                Outcome::Unit
            }
            Op::CompleteWriter { failed } => {
                self.complete(failed);
                Outcome::Unit
            }
            _ => panic!("{op:?} is not a writer op"),
        }
    }

    fn get_memory(&mut self, size_hint: usize) -> Result<usize, PipeError> {
        let memory = self.writer.get_memory(size_hint)?;
        self.generation += 1;
        for (i, byte) in memory.iter_mut().enumerate() {
            *byte = fill_byte(self.written + i as u64, self.generation);
        }
        Ok(memory.len())
    }

    fn advance(&mut self, bytes: usize) -> Result<(), PipeError> {
        self.writer.advance(bytes)?;
        let offset = self.written;
        let data = (offset..offset + bytes as u64).map(|o| fill_byte(o, self.generation)).collect();
        self.monitor.record_by("writer", Observation::Wrote { offset, bytes: data });
        self.written += bytes as u64;
        Ok(())
    }

    fn flush(&mut self, wait: &Wait) -> Option<Result<FlushResult, PipeError>> {
        let mut future = self.writer.flush();
        let result = match wait {
            Wait::Once(log) => poll_once(&mut future, Side::Writer, &self.monitor, log)?,
            Wait::Block => block_on(future),
        };
        if let Err(error) = &result {
            self.monitor.record_by("writer", Observation::FlushRefused(error.clone()));
        }
        if let Ok(flush) = &result {
            self.monitor.record_by(
                "writer",
                Observation::FlushReturned { canceled: flush.is_canceled, completed: flush.is_completed },
            );
        }
        Some(result)
    }

    /// Completes the writer, with the sequence's failure if `failed`.
    pub fn complete(&mut self, failed: bool) {
        let failure = failed.then(|| Failure::from_error(SequenceFailure(Side::Writer)));
        if let Some(failure) = &failure {
            self.monitor.record_by("writer", Observation::Failed(Side::Writer, failure.clone()));
        }
        self.writer.complete(failure);
    }
}

impl fmt::Debug for WriterEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriterEnd").field("writer", &self.writer).field("written", &self.written).finish()
    }
}

/// Positions taken from one read, for resolving [`Pos`]es later.
#[derive(Debug)]
struct PositionTable {
    /// `buffer.position(n)` for `n < POSITIONS_PER_READ`.
    at: Vec<Result<Position, PipeError>>,
    end: Position,
}

/// The reading end under test, with the writer's canceller (for [`Op::CancelFlush`]).
pub struct ReaderEnd {
    reader: Reader,
    flush_canceller: FlushCanceller,
    monitor: Arc<Monitor>,
    latest: Option<PositionTable>,
    previous: Option<PositionTable>,
}

// `Pos::At(n)` takes `n: u8`, so a table covers every position an op can name.
const _: () = assert!(POSITIONS_PER_READ > u8::MAX as usize);

impl ReaderEnd {
    /// Applies a reader-side op (see [`Op::side`]). Examining without consuming is safe
    /// with [`Wait::Block`] too: back-pressure counts committed − examined, so a read
    /// that must wait (everything committed is examined) never meets a paused writer.
    ///
    /// # Panics
    ///
    /// On a writer-side op.
    pub fn apply(&mut self, op: &Op, wait: &Wait) -> Outcome {
        match *op {
            Op::Read => Outcome::Read(self.read(Some(wait), None)),
            Op::TryRead => Outcome::Read(self.read(None, None)),
            Op::ReadAtLeast { minimum } => Outcome::Read(self.read(Some(wait), Some(usize::from(minimum)))),
            Op::BufferedLen => Outcome::Length(self.reader.buffered_len()),
            Op::AdvanceTo { consumed, examined } => match (self.resolve(consumed), self.resolve(examined)) {
                (Some(Ok(c)), Some(Ok(e))) => Outcome::Done(self.reader.advance_to(c, e)),
                (Some(Err(error)), _) | (_, Some(Err(error))) => Outcome::NoPosition(error),
                _ => Outcome::Skipped,
            },
            Op::CancelFlush => {
                self.flush_canceller.cancel_pending_flush();
                Outcome::Unit
            }
            Op::CompleteReader { failed } => {
                self.complete(failed);
                Outcome::Unit
            }
            _ => panic!("{op:?} is not a reader op"),
        }
    }

    /// `read` with `Some(wait)`, `try_read` with `None`; `None` while not ready. With
    /// `minimum`, `read_at_least(minimum)` (`try_read_at_least` without `wait`).
    fn read(
        &mut self,
        wait: Option<&Wait>,
        minimum: Option<usize>,
    ) -> Option<Result<ReadSummary, PipeError>> {
        let monitor = self.monitor.clone();
        let reader = &mut self.reader;
        let result = match (wait, minimum) {
            (Some(Wait::Once(log)), None) => poll_once(&mut reader.read(), Side::Reader, &monitor, log)?,
            (Some(Wait::Once(log)), Some(n)) => {
                poll_once(&mut reader.read_at_least(n), Side::Reader, &monitor, log)?
            }
            (Some(Wait::Block), None) => block_on(reader.read()),
            (Some(Wait::Block), Some(n)) => block_on(reader.read_at_least(n)),
            (None, None) => reader.try_read().transpose()?,
            (None, Some(n)) => reader.try_read_at_least(n).transpose()?,
        };
        if let Err(error) = &result {
            monitor.record_by("reader", Observation::ReadRefused(error.clone()));
        }
        Some(result.map(|result| {
            let (summary, table) = summarize(&result);
            monitor.record_by(
                "reader",
                Observation::ReadData { start: summary.start, bytes: summary.bytes.clone() },
            );
            self.previous = self.latest.replace(table);
            summary
        }))
    }

    fn resolve(&self, pos: Pos) -> Option<Result<Position, PipeError>> {
        Some(match pos {
            Pos::At(n) => self.latest.as_ref()?.at[usize::from(n)].clone(),
            Pos::End => Ok(self.latest.as_ref()?.end),
            Pos::Stale(n) => self.previous.as_ref()?.at[usize::from(n)].clone(),
        })
    }

    /// Reads and consumes everything until the writer's completion is seen, then records
    /// [`Observation::Drained`]. Stops early (without `Drained`) at an error, such as
    /// the writer's failure or the reader's own completion.
    pub fn drain(&mut self, wait: &Wait) {
        for _ in 0..8 {
            match self.read(Some(wait), None) {
                Some(Ok(summary)) => {
                    let end = self.latest.as_ref().expect("a read just succeeded").end;
                    if self.reader.advance_to(end, end).is_err() {
                        return;
                    }
                    if summary.completed {
                        self.monitor.record_by("reader", Observation::Drained);
                        return;
                    }
                }
                Some(Err(PipeError::AdvanceRequired)) => {
                    // Release the outstanding buffer (its bytes were recorded when read).
                    let end = self.latest.as_ref().expect("a buffer is outstanding").end;
                    if self.reader.advance_to(end, end).is_err() {
                        return;
                    }
                }
                Some(Err(_)) | None => return,
            }
        }
    }

    /// Completes the reader, with the sequence's failure if `failed`.
    pub fn complete(&mut self, failed: bool) {
        let failure = failed.then(|| Failure::from_error(SequenceFailure(Side::Reader)));
        if let Some(failure) = &failure {
            self.monitor.record_by("reader", Observation::Failed(Side::Reader, failure.clone()));
        }
        self.reader.complete(failure);
    }
}

/// What a read returned, and the positions it offers.
fn summarize(result: &ReadResult<'_>) -> (ReadSummary, PositionTable) {
    let buffer = result.buffer();
    let summary = ReadSummary {
        start: buffer.start().offset(),
        bytes: buffer.to_vec(),
        completed: result.is_completed(),
        canceled: result.is_canceled(),
    };
    let table = PositionTable {
        at: (0..POSITIONS_PER_READ).map(|n| buffer.position(n)).collect(),
        end: buffer.end(),
    };
    (summary, table)
}

impl fmt::Debug for ReaderEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReaderEnd").field("reader", &self.reader).finish_non_exhaustive()
    }
}

/// Builds both ends of a pipe from the monitor's config.
///
/// # Panics
///
/// If the monitor's config is not valid pipe options.
pub fn driven_pipe(monitor: &Arc<Monitor>) -> (WriterEnd, ReaderEnd) {
    let (writer, reader) = monitor.pipe_options().build().expect("the check config is valid");
    let writer_end = WriterEnd {
        read_canceller: reader.read_canceller(),
        writer,
        monitor: monitor.clone(),
        generation: 0,
        written: 0,
    };
    let reader_end = ReaderEnd {
        flush_canceller: writer_end.writer.flush_canceller(),
        reader,
        monitor: monitor.clone(),
        latest: None,
        previous: None,
    };
    (writer_end, reader_end)
}

/// Drives both ends of one pipe from a single thread, one [`Op`] at a time.
///
/// # Examples
///
// Under loom and shuttle the pipe's primitives only work inside a model: compile only.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_properties::{CheckConfig, Driver, Monitor, Op, Outcome};
/// let mut driver = Driver::new(Monitor::new(CheckConfig::default()));
/// assert_eq!(driver.apply(&Op::Read).outcome, Outcome::Read(None)); // pending
/// driver.apply(&Op::GetMemory { size_hint: 3 });
/// driver.apply(&Op::Advance { bytes: 3 });
/// let step = driver.apply(&Op::Flush);
/// assert!(step.woken.reader); // the pending read's waker fired
/// driver.finish(); // completes both sides, drains, runs end-of-run checks
/// ```
#[derive(Debug)]
pub struct Driver {
    monitor: Arc<Monitor>,
    writer: WriterEnd,
    reader: ReaderEnd,
    wait: Wait,
    log: Arc<WakeLog>,
    applied: usize,
}

impl Driver {
    /// A fresh pipe under `monitor`.
    pub fn new(monitor: Arc<Monitor>) -> Driver {
        let (writer, reader) = driven_pipe(&monitor);
        let log = Arc::new(WakeLog::default());
        Driver { monitor, writer, reader, wait: Wait::Once(log.clone()), log, applied: 0 }
    }

    /// The monitor checking this run.
    pub fn monitor(&self) -> &Arc<Monitor> {
        &self.monitor
    }

    /// Applies `op` to its end, then records [`Observation::Quiescent`] (so a wake owed
    /// by this op and not delivered fails here, naming no-lost-wakeup).
    ///
    /// # Panics
    ///
    /// When the monitor finds a violation.
    pub fn apply(&mut self, op: &Op) -> Step {
        self.log.take();
        let outcome = match op.side() {
            Side::Writer => self.writer.apply(op, &self.wait),
            Side::Reader => self.reader.apply(op, &self.wait),
        };
        self.monitor.record(Observation::Quiescent);
        self.applied += 1;
        Step { outcome, woken: self.log.take() }
    }

    /// Applies `op` and asserts that the pipe did what `expected` says.
    ///
    /// # Panics
    ///
    /// On a violation, or when the step differs from `expected` (a "model mismatch").
    pub fn apply_expecting(&mut self, op: &Op, expected: &Step) {
        let index = self.applied;
        let actual = self.apply(op);
        if actual != *expected {
            ModelMismatch {
                index,
                op: format!("{op:?}"),
                actual: format!("{actual:?}"),
                model: format!("{expected:?}"),
            }
            .raise();
        }
    }

    /// Ends the run: completes the writer, drains the reader to the end of the stream
    /// (recording [`Observation::Drained`] when it gets there), completes the reader,
    /// and runs the end-of-run checks.
    ///
    /// # Panics
    ///
    /// When an invariant is violated.
    pub fn finish(mut self) {
        self.writer.complete(false);
        self.reader.drain(&self.wait);
        self.reader.complete(false);
        self.monitor.record(Observation::Quiescent);
        self.monitor.assert_finished();
    }
}

/// Runs `ops` against a fresh pipe and the [`ReferenceModel`](crate::ReferenceModel),
/// asserting every step and the end-of-run checks. The fuzz target's body.
///
/// # Panics
///
/// On a violation or a model mismatch.
pub fn check_sequence(config: crate::CheckConfig, ops: &[Op]) {
    let mut model = crate::ReferenceModel::new(config.clone());
    let mut driver = Driver::new(Monitor::new(config));
    for op in ops {
        let expected = model.apply(op);
        driver.apply_expecting(op, &expected);
    }
    driver.finish();
}
