//! The soak: per seed, a writer thread and a reader thread move up to `bytes` of the
//! stress pattern through one pipe while each injects events into the other — the
//! writer cancels pending reads, the reader cancels pending flushes — and the stream
//! ends one of three ways: the writer completes cleanly, the writer completes with a
//! failure mid-stream (possibly with advanced-but-unflushed bytes), or the reader
//! completes early (with a failure or not).
//!
//! Per seed it checks that the reader saw an exact prefix of what was written followed
//! by the right end (completion, or the writer's failure with its message); that the
//! writer saw the reader's end with its cause; that no side saw more canceled results
//! than cancels were issued; that every rented buffer came back exactly once (counting
//! pool); and that the buffers rented at once stayed under a bound derived from the
//! pause threshold, the write sizes and what the reader leaves unconsumed.
//!
//! Everything about a run (pipe options, sizes, injection rates, the ending) comes from
//! its seed, so a failing seed replays with `PIPECHECK_SEED=<seed> cargo test -p
//! pipecheck-pipe --test pipe -- soak::` or `cargo run --release -p pipecheck-pipe
//! --example soak -- --seed <seed>`. Used by `tests/pipe/soak.rs` (a few short seeds) and
//! `examples/soak.rs` (many long seeds, with a progress bar).

use pipecheck_pipe::{Failure, FlushCanceller, PipeError, ReadCanceller, Reader, Writer};

use super::CountingPool;
use super::transfer::{Plan, SplitMix64, check_pattern, fill_pattern};
use super::watchdog::{Watch, block_on, phase, phase_at};

/// How a seed's stream ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The writer writes every byte and completes cleanly.
    Clean,
    /// The writer completes with a failure once it has advanced `at` bytes.
    WriterFails { at: u64 },
    /// The reader completes once it has consumed `at` bytes, with a failure if `failed`.
    ReaderQuits { at: u64, failed: bool },
}

/// One seed's run, all drawn from the seed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soak {
    pub(crate) seed: u64,
    pub(crate) bytes: u64,
    pub(crate) ending: Ending,
    /// The pipe's sizes and thresholds (its `bytes` and `seed` are this run's).
    pub(crate) plan: Plan,
    /// The largest single `write`.
    pub(crate) max_chunk: u64,
    /// The most bytes the reader leaves unconsumed after an `advance_to`.
    pub(crate) max_left: u64,
    /// The writer cancels the pending read after one write in this many.
    pub(crate) read_cancel_every: u64,
    /// The reader cancels the pending flush before one read in this many.
    pub(crate) flush_cancel_every: u64,
}

fn pick<T: Copy>(rng: &mut SplitMix64, choices: &[T]) -> T {
    choices[rng.below(choices.len() as u64) as usize]
}

impl Soak {
    /// The run of `seed` over up to `bytes` bytes.
    pub(crate) fn from_seed(seed: u64, bytes: u64) -> Soak {
        let mut rng = SplitMix64::new(seed);
        let minimum_segment_size = pick(&mut rng, &[64, 512, 4096]);
        let maximum_segment_size = minimum_segment_size * pick(&mut rng, &[1, 4, 16]);
        let pause_writer_threshold = pick(&mut rng, &[1024, 16 * 1024, 64 * 1024, 256 * 1024]);
        let resume_writer_threshold = rng.between(1, pause_writer_threshold);
        let ending = match rng.below(4) {
            0 => Ending::Clean,
            1 => Ending::WriterFails { at: rng.below(bytes + 1) },
            2 => Ending::ReaderQuits { at: rng.below(bytes + 1), failed: false },
            _ => Ending::ReaderQuits { at: rng.below(bytes + 1), failed: true },
        };
        Soak {
            seed,
            bytes,
            ending,
            plan: Plan {
                minimum_segment_size,
                maximum_segment_size,
                pause_writer_threshold,
                resume_writer_threshold,
                ..Plan::new(0, seed)
            },
            max_chunk: pick(&mut rng, &[512, 8192, 65536]),
            max_left: pick(&mut rng, &[0, 64, 4096]),
            read_cancel_every: pick(&mut rng, &[8, 64, 1024]),
            flush_cancel_every: pick(&mut rng, &[8, 64, 1024]),
        }
    }

    /// The most buffers that may be rented at once. Unexamined bytes stay under the
    /// pause threshold plus what one flush commits (at most two chunks: the writer
    /// flushes once a chunk's worth is unflushed, and re-flushes after a canceled flush
    /// instead of writing on); the reader keeps at most `max_left` examined bytes; and
    /// `write` fills every segment before it starts the next, so all segments but the
    /// first and the head hold at least the minimum segment size. That much twice: the
    /// reader wakes the writer before it gives the consumed buffers back (outside the
    /// lock, by design), so a resumed writer may rent a full window's worth before the
    /// previous window is returned. Six more for the reader's first segment, the
    /// writer's head and the last linked segment (returned only once a successor is
    /// linked), in each window.
    pub(crate) fn buffer_bound(&self) -> usize {
        let bytes = self.plan.pause_writer_threshold + 2 * self.max_chunk + self.max_left;
        2 * (bytes / self.plan.minimum_segment_size as u64) as usize + 6
    }

    /// The failure the writer completes with, or the reader when it quits failed.
    fn failure(&self, side: &str, at: u64) -> Failure {
        Failure::new(format!("soak seed {:#x}: {side} failed at {at}", self.seed))
    }
}

/// What the writer thread saw.
#[derive(Debug)]
struct WriterEnd {
    /// Bytes advanced before the writer completed or saw the reader gone.
    written: u64,
    /// The reader's end as a flush reported it: `Ok` for completion, `Err` for failure.
    saw_reader: Option<Result<(), Failure>>,
    canceled_flushes: u64,
    read_cancels: u64,
}

/// How the reader's loop ended.
#[derive(Debug, PartialEq)]
enum ReaderOutcome {
    /// Read every byte and the writer's completion.
    Completed,
    /// The writer's failure, as the read returned it.
    WriterFailed(Failure),
    /// Completed early, as the ending asked.
    Quit,
}

/// What the reader thread saw.
#[derive(Debug)]
struct ReaderEnd {
    /// Bytes checked against the pattern: a prefix of the stream.
    verified: u64,
    consumed: u64,
    outcome: ReaderOutcome,
    canceled_reads: u64,
    flush_cancels: u64,
}

/// What one seed did, for the caller to print.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SoakReport {
    pub(crate) soak: Soak,
    pub(crate) written: u64,
    pub(crate) read: u64,
    pub(crate) canceled_reads: u64,
    pub(crate) read_cancels: u64,
    pub(crate) canceled_flushes: u64,
    pub(crate) flush_cancels: u64,
    pub(crate) peak_buffers: usize,
}

impl std::fmt::Display for SoakReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.soak;
        write!(
            f,
            "seed {:#018x}: {:?}, wrote {} read {} bytes; canceled reads {}/{} issued, flushes {}/{}; \
             peak {} buffers (bound {})",
            s.seed,
            s.ending,
            self.written,
            self.read,
            self.canceled_reads,
            self.read_cancels,
            self.canceled_flushes,
            self.flush_cancels,
            self.peak_buffers,
            s.buffer_bound()
        )
    }
}

/// Runs `seed` over up to `bytes` bytes on two threads under the watchdog and checks
/// everything the module promises.
///
/// # Panics
///
/// On any violation, naming the seed.
pub(crate) fn run(seed: u64, bytes: u64) -> SoakReport {
    let soak = Soak::from_seed(seed, bytes);
    let pool = CountingPool::new();
    let (writer, reader) = soak.plan.options().buffer_pool(pool.clone()).build().expect("valid soak options");
    let (read_canceller, flush_canceller) = (reader.read_canceller(), writer.flush_canceller());
    let watch = Watch::new();
    let writing =
        watch.spawn(format!("writer (seed {seed:#x})"), move || write_side(writer, read_canceller, soak));
    let reading =
        watch.spawn(format!("reader (seed {seed:#x})"), move || read_side(reader, flush_canceller, soak));
    let w = watch.join(writing);
    let r = watch.join(reading);
    check(&soak, &w, &r);
    pool.assert_all_returned();
    let report = SoakReport {
        soak,
        written: w.written,
        read: r.verified,
        canceled_reads: r.canceled_reads,
        read_cancels: w.read_cancels,
        canceled_flushes: w.canceled_flushes,
        flush_cancels: r.flush_cancels,
        peak_buffers: pool.peak(),
    };
    assert!(
        report.peak_buffers <= soak.buffer_bound(),
        "soak seed {seed:#x}: memory not bounded: {report}; {soak:?}"
    );
    report
}

/// The ends of both sides against the seed's ending.
fn check(soak: &Soak, w: &WriterEnd, r: &ReaderEnd) {
    let seed = soak.seed;
    let context = || format!("soak seed {seed:#x} ({:?}): writer {w:?}, reader {r:?}", soak.ending);
    assert!(r.verified <= w.written, "{}: the reader saw bytes never written", context());
    assert!(r.canceled_reads <= w.read_cancels, "{}: more canceled reads than cancels", context());
    assert!(r.consumed <= r.verified, "{}", context());
    assert!(w.canceled_flushes <= r.flush_cancels, "{}: more canceled flushes than cancels", context());
    match soak.ending {
        Ending::Clean => {
            assert_eq!(r.outcome, ReaderOutcome::Completed, "{}", context());
            assert_eq!((w.written, r.verified), (soak.bytes, soak.bytes), "{}", context());
            assert_eq!(w.saw_reader, None, "{}: the reader never completed early", context());
        }
        Ending::WriterFails { at } => {
            assert_eq!(w.written, at, "{}", context());
            assert_eq!(r.outcome, ReaderOutcome::WriterFailed(soak.failure("writer", at)), "{}", context());
        }
        Ending::ReaderQuits { at, failed } => {
            match r.outcome {
                ReaderOutcome::Quit => assert!(r.consumed >= at, "{}", context()),
                // The whole stream arrived, with its completion, before `at` was reached.
                ReaderOutcome::Completed => assert_eq!(r.verified, soak.bytes, "{}", context()),
                ReaderOutcome::WriterFailed(_) => panic!("{}: the writer never fails here", context()),
            }
            let expected = if failed { Err(soak.failure("reader", r.consumed)) } else { Ok(()) };
            match &w.saw_reader {
                None => assert_eq!(w.written, soak.bytes, "{}: the writer stopped early", context()),
                Some(seen) => {
                    assert_eq!(r.outcome, ReaderOutcome::Quit, "{}", context());
                    assert_eq!(seen, &expected, "{}: the writer saw the wrong end", context());
                }
            }
        }
    }
}

fn write_side(mut writer: Writer, canceller: ReadCanceller, soak: Soak) -> WriterEnd {
    let seed = soak.seed;
    let mut rng = SplitMix64::new(seed ^ 0x5772_6974_6572_0001);
    let stop = match soak.ending {
        Ending::WriterFails { at } => at,
        _ => soak.bytes,
    };
    let mut chunk = vec![0u8; soak.max_chunk as usize];
    let mut end = WriterEnd { written: 0, saw_reader: None, canceled_flushes: 0, read_cancels: 0 };
    while end.written < stop && end.saw_reader.is_none() {
        let n = rng.between(1, soak.max_chunk).min(stop - end.written) as usize;
        fill_pattern(&mut chunk[..n], end.written);
        phase_at("write()", end.written);
        writer.write(&chunk[..n]).unwrap_or_else(|e| panic!("soak seed {seed:#x}: write: {e:?}"));
        end.written += n as u64;
        if rng.below(soak.read_cancel_every) == 0 {
            phase("cancel_pending_read()");
            canceller.cancel_pending_read();
            end.read_cancels += 1;
        }
        // A failing writer may leave its last bytes unflushed: completion commits them.
        let last = end.written == stop && !matches!(soak.ending, Ending::WriterFails { .. });
        if rng.below(2) == 0 || writer.unflushed_bytes() >= soak.max_chunk || last {
            end.saw_reader = flush(&mut writer, &mut end.canceled_flushes, seed, end.written);
        }
    }
    phase("complete()");
    match soak.ending {
        Ending::WriterFails { at } => writer.complete(Some(soak.failure("writer", at))),
        _ => writer.complete(None),
    }
    end
}

/// Flushes until a flush is not canceled (a canceled flush is re-flushed, as a real
/// writer would wait again, so cancels do not lift back-pressure). Returns the reader's
/// end if the flush reported one.
fn flush(writer: &mut Writer, canceled: &mut u64, seed: u64, written: u64) -> Option<Result<(), Failure>> {
    loop {
        phase_at("flush()", written);
        match block_on(writer.flush()) {
            Ok(result) if result.is_completed => return Some(Ok(())),
            Ok(result) if result.is_canceled => *canceled += 1,
            Ok(_) => return None,
            Err(PipeError::ReaderFailed(failure)) => return Some(Err(failure)),
            Err(e) => panic!("soak seed {seed:#x}: flush at {written}: {e:?}"),
        }
    }
}

fn read_side(mut reader: Reader, canceller: FlushCanceller, soak: Soak) -> ReaderEnd {
    let seed = soak.seed;
    let mut rng = SplitMix64::new(seed ^ 0x5265_6164_6572_0002);
    let mut end = ReaderEnd {
        verified: 0,
        consumed: 0,
        outcome: ReaderOutcome::Completed,
        canceled_reads: 0,
        flush_cancels: 0,
    };
    loop {
        if rng.below(soak.flush_cancel_every) == 0 {
            phase("cancel_pending_flush()");
            canceller.cancel_pending_flush();
            end.flush_cancels += 1;
        }
        if let Ending::ReaderQuits { at, failed } = soak.ending
            && end.consumed >= at
        {
            phase("complete()");
            reader.complete(failed.then(|| soak.failure("reader", end.consumed)));
            end.outcome = ReaderOutcome::Quit;
            return end;
        }
        phase_at("read()", end.consumed);
        let result = match block_on(reader.read()) {
            Ok(result) => result,
            Err(PipeError::WriterFailed(failure)) => {
                end.outcome = ReaderOutcome::WriterFailed(failure);
                break;
            }
            Err(e) => panic!("soak seed {seed:#x}: read at {}: {e:?}", end.consumed),
        };
        let buffer = result.buffer();
        let (start, stop) = (buffer.start().offset(), buffer.end().offset());
        assert_eq!(
            start, end.consumed,
            "soak seed {seed:#x}: the buffer must start where consumption stopped"
        );
        assert!(stop >= end.verified, "soak seed {seed:#x}: bytes seen before disappeared");
        let mut offset = end.verified;
        let fresh = buffer.slice((end.verified - start) as usize..buffer.len()).expect("slice");
        for piece in fresh.chunks() {
            check_pattern(piece, offset);
            offset += piece.len() as u64;
        }
        assert_eq!(offset, stop, "soak seed {seed:#x}: chunks do not cover the buffer");
        end.verified = stop;
        let completed = result.is_completed();
        let canceled = result.is_canceled();
        if canceled {
            end.canceled_reads += 1;
            // A canceled read is tentative: the next read needs no advance.
            if rng.below(2) == 0 {
                continue;
            }
        }
        let len = stop - start;
        let consume = if completed { len } else { len - rng.below(soak.max_left.min(len) + 1) };
        // Examining everything keeps back-pressure moving: a paused writer resumes.
        let (consumed_at, examined_at) = (buffer.position(consume as usize).expect("position"), buffer.end());
        // `result` borrows the reader; its last use is above, so the borrow ends here.
        reader.advance_to(consumed_at, examined_at).expect("advance_to");
        end.consumed = start + consume;
        // A canceled read never ends the stream here: after a clean completion it
        // reports `is_completed` with `is_canceled` (a writer's failure comes first, as
        // in .NET), so read again to see the end as a plain read does.
        if completed && consume == len && !canceled {
            break;
        }
    }
    phase("complete()");
    reader.complete(None);
    end
}
