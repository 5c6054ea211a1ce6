//! [`ReferenceModel`]: what a pipe should do, as plain bytes, counters and flags.
//!
//! The model is deliberately naive: no segments shared between threads, no pool, no
//! wakers — just the offsets (written, committed, consumed, examined), the flags the
//! pipe keeps under its lock (paused, canceled, completed with or without failure),
//! whether a read or flush is waiting, and the capacities of the writer's head segment
//! (so that `get_memory` lengths and `advance` limits are predicted exactly). Each rule
//! below cites the pipe code it mirrors, in `core/src/pipe/`.

use pipecheck_pipe::{Failure, FlushResult, PipeError};

use crate::CheckConfig;
use crate::observation::Side;
use crate::ops::{Op, Pos, failure_message, fill_byte};
use crate::outcome::{Outcome, ReadSummary, Step, Woken};

/// A read's identity and bounds, for resolving positions taken from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ReadMark {
    read: u64,
    start: u64,
    end: u64,
}

/// The writer's head segment: its capacity and the bytes advanced into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Head {
    capacity: usize,
    written: usize,
    /// A flush linked it into the shared list (it had bytes then).
    linked: bool,
}

/// The state a pipe should be in after a sequence of [`Op`]s, and the results it
/// should have returned.
///
/// # Examples
///
/// ```
/// use pipecheck_properties::{CheckConfig, Op, Outcome, ReferenceModel};
/// let mut model = ReferenceModel::new(CheckConfig::default());
/// let step = model.apply(&Op::GetMemory { size_hint: 0 });
/// assert_eq!(step.outcome, Outcome::Memory(Ok(4))); // a fresh minimum-size segment
/// let step = model.apply(&Op::Advance { bytes: 5 });
/// assert!(matches!(step.outcome, Outcome::Done(Err(_)))); // only 4 bytes were handed out
/// ```
#[derive(Clone, Debug)]
pub struct ReferenceModel {
    config: CheckConfig,
    // The writer's own state (writer.rs, `Writer`).
    writer_done: bool,
    head: Option<Head>,
    /// A flush parked the head (writer.rs `parked`): the next `get_memory` resumes
    /// it, unless an `advance_to` consuming everything reclaims it first (.NET: a fully
    /// consumed pipe keeps no segment).
    parked: bool,
    next_segment_size: usize,
    memory_handed_out: bool,
    generation: u64,
    /// The writer has seen the reader's completion (writer.rs `reader_gone`).
    reader_gone: bool,
    written: u64,
    unflushed: u64,
    /// Every advanced byte, from stream offset 0.
    data: Vec<u8>,
    // The state under the pipe lock (mod.rs, `State`).
    committed: u64,
    consumed: u64,
    examined: u64,
    writer_paused: bool,
    read_canceled: bool,
    flush_canceled: bool,
    writer_completion: Option<Option<Failure>>,
    reader_completion: Option<Option<Failure>>,
    reader_waiting: bool,
    writer_waiting: bool,
    /// A `read_at_least(n)` waits (reader.rs `State::read_minimum`).
    read_minimum: Option<u64>,
    // The reader's own state (reader.rs, `Reader`).
    reader_done: bool,
    outstanding: Option<(u64, u64)>,
    /// The outstanding buffer is a canceled read's: the next read releases it.
    outstanding_tentative: bool,
    read_count: u64,
    latest: Option<ReadMark>,
    previous: Option<ReadMark>,
    last: Option<Step>,
}

impl ReferenceModel {
    /// A fresh pipe built with `config`'s sizes and thresholds.
    pub fn new(config: CheckConfig) -> ReferenceModel {
        ReferenceModel {
            next_segment_size: config.minimum_segment_size,
            config,
            writer_done: false,
            head: None,
            parked: false,
            memory_handed_out: false,
            generation: 0,
            reader_gone: false,
            written: 0,
            unflushed: 0,
            data: Vec::new(),
            committed: 0,
            consumed: 0,
            examined: 0,
            writer_paused: false,
            read_canceled: false,
            flush_canceled: false,
            writer_completion: None,
            reader_completion: None,
            reader_waiting: false,
            writer_waiting: false,
            read_minimum: None,
            reader_done: false,
            outstanding: None,
            outstanding_tentative: false,
            read_count: 0,
            latest: None,
            previous: None,
            last: None,
        }
    }

    /// The settings the pipe is built with.
    pub fn config(&self) -> &CheckConfig {
        &self.config
    }

    /// Mutable settings, e.g. to switch faults on before the run starts.
    pub fn config_mut(&mut self) -> &mut CheckConfig {
        &mut self.config
    }

    /// The predicted step of the last applied operation.
    pub fn last_step(&self) -> Option<&Step> {
        self.last.as_ref()
    }

    /// Bytes `advance` would accept now (what is left of the memory handed out).
    pub fn advance_available(&self) -> usize {
        match (self.memory_handed_out, self.head) {
            (true, Some(head)) => head.capacity - head.written,
            _ => 0,
        }
    }

    /// Length of the outstanding read's buffer, if one is outstanding.
    pub fn outstanding_len(&self) -> Option<usize> {
        self.outstanding.map(|(start, end)| (end - start) as usize)
    }

    /// Whether a read happened before the latest one (so `Pos::Stale` resolves).
    pub fn has_previous_read(&self) -> bool {
        self.previous.is_some()
    }

    /// Whether any read has returned a buffer (so `Pos::At` and `Pos::End` resolve).
    pub fn has_read(&self) -> bool {
        self.latest.is_some()
    }

    /// Whether a read would complete now (reader.rs: canceled, writer completed, or
    /// committed bytes past the examined offset).
    pub fn read_ready(&self) -> bool {
        self.read_canceled || self.writer_completion.is_some() || self.committed > self.examined
    }

    /// Bytes advanced and not yet flushed.
    pub fn unflushed(&self) -> u64 {
        self.unflushed
    }

    /// Whether a flush crossed the pause threshold and has not been released.
    pub fn writer_paused(&self) -> bool {
        self.writer_paused
    }

    /// Whether the writer has completed.
    pub fn writer_completed(&self) -> bool {
        self.writer_done
    }

    /// Whether the reader has completed.
    pub fn reader_completed(&self) -> bool {
        self.reader_done
    }

    /// Applies `op` and returns (and remembers) what the pipe must do.
    pub fn apply(&mut self, op: &Op) -> Step {
        let mut woken = Woken::default();
        let outcome = match *op {
            Op::GetMemory { size_hint } => Outcome::Memory(self.get_memory(size_hint)),
            Op::Advance { bytes } => Outcome::Done(self.advance(bytes)),
            Op::Flush => Outcome::Flush(self.flush(&mut woken)),
            Op::Read => Outcome::Read(self.read(true, None, &mut woken)),
            Op::TryRead => Outcome::Read(self.read(false, None, &mut woken)),
            Op::ReadAtLeast { minimum } => {
                Outcome::Read(self.read(true, Some(u64::from(minimum)), &mut woken))
            }
            Op::BufferedLen => Outcome::Length(if self.reader_done {
                Err(PipeError::ReaderCompleted)
            } else {
                // reader.rs `buffered_len`: committed − examined.
                Ok(self.committed - self.examined)
            }),
            Op::AdvanceTo { consumed, examined } => self.advance_to(consumed, examined, &mut woken),
            Op::CancelRead => {
                // reader.rs `cancel_read`: no completion check; always takes the waker.
                self.read_canceled = true;
                woken.reader = std::mem::take(&mut self.reader_waiting);
                Outcome::Unit
            }
            Op::CancelFlush => {
                // writer.rs `cancel_flush`.
                self.flush_canceled = true;
                woken.writer = std::mem::take(&mut self.writer_waiting);
                Outcome::Unit
            }
            Op::CompleteWriter { failed } => {
                self.complete_writer(failed, &mut woken);
                Outcome::Unit
            }
            Op::CompleteReader { failed } => {
                self.complete_reader(failed, &mut woken);
                Outcome::Unit
            }
        };
        let step = Step { outcome, woken };
        self.last = Some(step.clone());
        step
    }

    /// writer.rs `get_memory` and `start_segment`.
    fn get_memory(&mut self, size_hint: usize) -> Result<usize, PipeError> {
        if self.writer_done {
            return Err(PipeError::WriterCompleted);
        }
        let needed = size_hint.max(1);
        let max = self.config.maximum_segment_size;
        if needed > max {
            return Err(PipeError::SizeHintTooLarge { size_hint, max });
        }
        // writer.rs `resume_head`: the parked head is the writer's again (if the reader
        // reclaimed it, `head` is `None` and a new segment starts).
        self.parked = false;
        let head = match self.head {
            Some(head) if head.capacity - head.written >= needed => head,
            _ => self.start_segment(needed),
        };
        self.memory_handed_out = true;
        self.generation += 1;
        Ok(head.capacity - head.written)
    }

    /// writer.rs `start_segment`: the writer learns of the reader's completion here;
    /// after it, an unlinked head is rewound and reused while it is large enough.
    fn start_segment(&mut self, needed: usize) -> Head {
        if self.reader_completion.is_some() {
            self.reader_gone = true;
        }
        if self.reader_gone
            && let Some(head) = self.head.as_mut().filter(|h| !h.linked)
        {
            head.written = 0;
            if head.capacity >= needed {
                return *head;
            }
        }
        // The size doubles on every new segment, also when an empty unlinked head is
        // replaced in place.
        let max = self.config.maximum_segment_size;
        let size = needed.max(self.next_segment_size);
        self.next_segment_size = (self.next_segment_size * 2).min(max);
        let head = Head { capacity: size, written: 0, linked: false };
        self.head = Some(head);
        head
    }

    /// writer.rs `advance`.
    fn advance(&mut self, bytes: usize) -> Result<(), PipeError> {
        if self.writer_done {
            return Err(PipeError::WriterCompleted);
        }
        let available = self.advance_available();
        if bytes > available {
            return Err(PipeError::AdvancePastMemory { requested: bytes, available });
        }
        if self.reader_gone {
            return Ok(()); // a no-op once the writer saw the reader's completion
        }
        // `advance(0)` before any `get_memory` succeeds without a head.
        if let Some(head) = self.head.as_mut() {
            head.written += bytes;
        }
        let generation = self.generation;
        self.data.extend((self.written..self.written + bytes as u64).map(|o| fill_byte(o, generation)));
        self.written += bytes as u64;
        self.unflushed += bytes as u64;
        Ok(())
    }

    /// writer.rs `flush`, `commit` and `FlushFuture::poll`.
    fn flush(&mut self, woken: &mut Woken) -> Option<Result<FlushResult, PipeError>> {
        if self.writer_done {
            return Some(Err(PipeError::WriterCompleted));
        }
        if self.reader_completion.is_some() {
            // writer.rs `commit`: nothing is committed; an unlinked head is rewound.
            self.reader_gone = true;
            self.unflushed = 0;
            if let Some(head) = self.head.as_mut().filter(|h| !h.linked) {
                head.written = 0;
            }
        } else {
            self.committed += std::mem::take(&mut self.unflushed);
            if let Some(head) = self.head.as_mut().filter(|h| h.written > 0) {
                head.linked = true;
            }
            // writer.rs `commit`: the write ends; the idle head is parked (if linked: an
            // empty head the reader cannot reach stays the writer's) and the memory
            // handed out before may not be advanced into any more.
            if let Some(head) = &self.head {
                self.parked |= head.linked;
                self.memory_handed_out = false;
            }
        }
        if let Some(reader) = &self.reader_completion {
            // A pending cancel is dropped; the reader is not woken.
            self.flush_canceled = false;
            return Some(match reader {
                Some(failure) => Err(PipeError::ReaderFailed(failure.clone())),
                None => Ok(FlushResult { is_completed: true, is_canceled: false }),
            });
        }
        // mod.rs `State::flush_must_pause`: back-pressure counts committed − examined
        // (.NET), and a pending read-at-least still short of its minimum suspends it.
        let pause = self.config.pause_writer_threshold;
        let unexamined = self.committed - self.examined;
        let read_waits_for_more = self.read_minimum.is_some_and(|minimum| unexamined < minimum);
        if pause > 0 && unexamined >= pause && !read_waits_for_more {
            self.writer_paused = true;
        }
        if self.committed > self.examined {
            woken.reader = std::mem::take(&mut self.reader_waiting);
        }
        if std::mem::take(&mut self.flush_canceled) {
            return Some(Ok(FlushResult { is_completed: false, is_canceled: true }));
        }
        if !self.writer_paused {
            return Some(Ok(FlushResult::default()));
        }
        self.writer_waiting = true;
        None
    }

    /// reader.rs `poll_read`; `wait` registers a waker when not ready (`read`, not
    /// `try_read`); `minimum` makes it a read-at-least (reader/at_least.rs).
    fn read(
        &mut self,
        wait: bool,
        minimum: Option<u64>,
        woken: &mut Woken,
    ) -> Option<Result<ReadSummary, PipeError>> {
        if self.reader_done {
            return Some(Err(PipeError::ReaderCompleted));
        }
        if self.outstanding.is_some() {
            if !self.outstanding_tentative {
                return Some(Err(PipeError::AdvanceRequired));
            }
            // reader.rs `poll_read`: a canceled read is tentative; this read releases it
            // without consuming or examining anything.
            self.outstanding = None;
            self.outstanding_tentative = false;
        }
        // reader.rs `poll_read`: the writer's failure before the cancel (.NET's
        // `GetReadResult`); the cancel stays pending.
        if let Some(Some(failure)) = &self.writer_completion {
            return Some(Err(PipeError::WriterFailed(failure.clone())));
        }
        let canceled = std::mem::take(&mut self.read_canceled);
        let completed = self.writer_completion.is_some();
        if !canceled {
            let wanted = minimum.unwrap_or(0).max(1);
            if !completed && self.committed - self.examined < wanted {
                if wait {
                    self.reader_waiting = true;
                    self.read_minimum = minimum;
                    // at_least.rs `wait_for`: a waiting read-at-least releases the writer.
                    if minimum.is_some() && std::mem::take(&mut self.writer_paused) {
                        woken.writer = std::mem::take(&mut self.writer_waiting);
                    }
                }
                return None;
            }
        }
        self.read_minimum = None;
        let (start, end) = (self.consumed, self.committed);
        self.read_count += 1;
        self.outstanding = Some((start, end));
        self.outstanding_tentative = canceled;
        self.previous = self.latest.replace(ReadMark { read: self.read_count, start, end });
        let bytes = self.data[start as usize..end as usize].to_vec();
        Some(Ok(ReadSummary { start, bytes, completed, canceled }))
    }

    /// What the driver gets for `pos`: `(read, offset)`, or `ReadBuf::position`'s error.
    fn resolve(&self, pos: Pos) -> Option<Result<(u64, u64), PipeError>> {
        let (mark, n) = match pos {
            Pos::At(n) => (self.latest?, Some(n)),
            Pos::End => (self.latest?, None),
            Pos::Stale(n) => (self.previous?, Some(n)),
        };
        Some(match n {
            None => Ok((mark.read, mark.end)),
            Some(n) if mark.start + u64::from(n) > mark.end => Err(PipeError::PositionOutOfRange {
                offset: mark.start + u64::from(n),
                start: mark.start,
                end: mark.end,
            }),
            Some(n) => Ok((mark.read, mark.start + u64::from(n))),
        })
    }

    /// reader.rs `advance_to`.
    fn advance_to(&mut self, consumed: Pos, examined: Pos, woken: &mut Woken) -> Outcome {
        let (consumed, examined) = match (self.resolve(consumed), self.resolve(examined)) {
            (Some(Ok(c)), Some(Ok(e))) => (c, e),
            (Some(Err(error)), _) | (_, Some(Err(error))) => return Outcome::NoPosition(error),
            _ => return Outcome::Skipped,
        };
        Outcome::Done(self.advance_to_checked(consumed, examined, woken))
    }

    fn advance_to_checked(
        &mut self,
        consumed: (u64, u64),
        examined: (u64, u64),
        woken: &mut Woken,
    ) -> Result<(), PipeError> {
        if self.reader_done {
            return Err(PipeError::ReaderCompleted);
        }
        let (start, end) = self.outstanding.ok_or(PipeError::NothingToAdvance)?;
        for (read, offset) in [consumed, examined] {
            if read != self.read_count {
                return Err(PipeError::StalePosition { position_read: read, current_read: self.read_count });
            }
            if offset < start || offset > end {
                return Err(PipeError::PositionOutOfRange { offset, start, end });
            }
        }
        let (consumed, examined) = (consumed.1, examined.1);
        if examined < consumed {
            return Err(PipeError::ExaminedBeforeConsumed { consumed, examined });
        }
        if examined < self.examined {
            return Err(PipeError::ExaminedWentBackwards { previous: self.examined, examined });
        }
        self.outstanding = None;
        self.outstanding_tentative = false;
        self.consumed = consumed;
        self.examined = examined;
        // reader.rs `advance_to`: everything consumed and the writer idle, the reader
        // reclaims the parked head; the writer's next `get_memory` starts a new segment.
        if self.parked && self.writer_completion.is_none() && consumed == self.committed {
            self.parked = false;
            self.head = None;
        }
        // mod.rs `new_pipe`: a resume threshold of 0 acts as 1.
        let resume = self.config.resume_writer_threshold.max(1);
        if self.writer_paused && self.committed - self.examined < resume {
            self.writer_paused = false;
            woken.writer = std::mem::take(&mut self.writer_waiting);
        }
        Ok(())
    }

    /// writer.rs `complete`: commits what is unflushed, always wakes the reader.
    fn complete_writer(&mut self, failed: bool, woken: &mut Woken) {
        if self.writer_done {
            return;
        }
        self.writer_done = true;
        self.parked = false;
        self.memory_handed_out = false;
        self.committed += std::mem::take(&mut self.unflushed);
        self.writer_completion = Some(failed.then(|| Failure::new(failure_message(Side::Writer))));
        woken.reader = std::mem::take(&mut self.reader_waiting);
    }

    /// reader.rs `complete`: releases a paused flush, always wakes the writer.
    fn complete_reader(&mut self, failed: bool, woken: &mut Woken) {
        if self.reader_done {
            return;
        }
        self.reader_done = true;
        self.outstanding = None;
        self.read_minimum = None;
        self.reader_completion = Some(failed.then(|| Failure::new(failure_message(Side::Reader))));
        self.writer_paused = false;
        woken.writer = std::mem::take(&mut self.writer_waiting);
    }
}
