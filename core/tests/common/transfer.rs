//! The stress transfer: a writer thread and a reader thread move a deterministic byte
//! pattern through one pipe, with random `get_memory` hints, chunk sizes, flush points
//! and `advance_to` points, and the reader checks every byte against the pattern.
//!
//! Shared by `tests/stress.rs` (debug-test profile) and `examples/stress.rs` (release),
//! so both measure the same work. The throughput includes generating and checking the
//! pattern on both sides, so it is a lower bound on the pipe's own speed.

use std::time::{Duration, Instant};

use super::watchdog::{Watch, block_on, phase, phase_at};
use pipecheck_pipe::{PipeOptions, Reader, Writer};

/// The environment variable that overrides the default seed.
pub(crate) const SEED_VAR: &str = "PIPECHECK_SEED";

/// Sebastiano Vigna's SplitMix64: tiny, fast, and good enough to pick sizes.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n`; `n` must not be 0.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift: the bias is far below anything a test can notice.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A value in `lo..=hi`.
    pub(crate) fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

/// The seed from `PIPECHECK_SEED` (decimal or `0x` hex), or `default`.
pub(crate) fn seed_from_env(default: u64) -> u64 {
    match std::env::var(SEED_VAR) {
        Ok(text) => {
            let text = text.trim();
            let parsed = match text.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("{SEED_VAR}={text:?} is not a u64"))
        }
        Err(_) => default,
    }
}

/// The multiplier of the pattern: the byte at offset `o` is the top byte of `o * K`.
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// The byte at stream `offset`: the top byte of a multiplicative hash of the offset, so
/// a lost, duplicated or misplaced byte shows up as a mismatch.
#[inline]
pub(crate) fn pattern_byte(offset: u64) -> u8 {
    (offset.wrapping_mul(K) >> 56) as u8
}

/// Fills `buf` with the pattern of the stream bytes starting at `offset`.
pub(crate) fn fill_pattern(buf: &mut [u8], offset: u64) {
    // `(o + 1) * K == o * K + K`: one add per byte instead of a multiply.
    let mut x = offset.wrapping_mul(K);
    for byte in buf {
        *byte = (x >> 56) as u8;
        x = x.wrapping_add(K);
    }
}

/// Panics with the stream offset of the first byte of `buf` that breaks the pattern.
pub(crate) fn check_pattern(buf: &[u8], offset: u64) {
    let mut x = offset.wrapping_mul(K);
    let mut ok = true;
    for &byte in buf {
        ok &= byte == (x >> 56) as u8;
        x = x.wrapping_add(K);
    }
    if !ok {
        let bad = buf.iter().enumerate().position(|(i, &b)| b != pattern_byte(offset + i as u64)).unwrap();
        panic!(
            "byte-exact violated at stream offset {}: read {:#04x}, expected {:#04x}",
            offset + bad as u64,
            buf[bad],
            pattern_byte(offset + bad as u64)
        );
    }
}

/// What to transfer, and through what pipe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub(crate) bytes: u64,
    pub(crate) seed: u64,
    pub(crate) minimum_segment_size: usize,
    pub(crate) maximum_segment_size: usize,
    pub(crate) pause_writer_threshold: u64,
    pub(crate) resume_writer_threshold: u64,
}

impl Plan {
    /// `mib` MiB with the default pipe settings.
    pub(crate) fn new(mib: u64, seed: u64) -> Plan {
        Plan {
            bytes: mib << 20,
            seed,
            minimum_segment_size: PipeOptions::DEFAULT_MINIMUM_SEGMENT_SIZE,
            maximum_segment_size: PipeOptions::DEFAULT_MAXIMUM_SEGMENT_SIZE,
            pause_writer_threshold: PipeOptions::DEFAULT_PAUSE_WRITER_THRESHOLD,
            resume_writer_threshold: PipeOptions::DEFAULT_RESUME_WRITER_THRESHOLD,
        }
    }

    /// The pipe options of this plan.
    pub(crate) fn options(&self) -> PipeOptions {
        PipeOptions::new()
            .minimum_segment_size(self.minimum_segment_size)
            .maximum_segment_size(self.maximum_segment_size)
            .pause_writer_threshold(self.pause_writer_threshold)
            .resume_writer_threshold(self.resume_writer_threshold)
    }
}

/// What a transfer did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Report {
    pub(crate) bytes: u64,
    pub(crate) elapsed: Duration,
    pub(crate) flushes: u64,
    pub(crate) reads: u64,
    /// Reads whose `advance_to` left bytes unconsumed.
    pub(crate) partial_consumes: u64,
}

impl Report {
    pub(crate) fn mib_per_s(&self) -> f64 {
        (self.bytes as f64 / (1u64 << 20) as f64) / self.elapsed.as_secs_f64()
    }
}

/// Runs `plan` through a pipe built from `customize(plan.options())`.
pub(crate) fn transfer(plan: Plan, customize: impl FnOnce(PipeOptions) -> PipeOptions) -> Report {
    let (writer, reader) = customize(plan.options()).build().expect("valid plan");
    let started = Instant::now();
    let watch = Watch::new();
    let writing = watch.spawn("writer", move || write_side(writer, plan));
    let reading = watch.spawn("reader", move || read_side(reader, plan));
    let flushes = watch.join(writing);
    let (reads, partial_consumes) = watch.join(reading);
    Report { bytes: plan.bytes, elapsed: started.elapsed(), flushes, reads, partial_consumes }
}

fn write_side(mut writer: Writer, plan: Plan) -> u64 {
    let mut rng = SplitMix64::new(plan.seed);
    let max = plan.maximum_segment_size as u64;
    let mut written = 0u64;
    let mut flushes = 0u64;
    while written < plan.bytes {
        let hint = match rng.below(4) {
            0 => 0,
            1 => rng.between(1, 64),
            _ => rng.between(1, max),
        } as usize;
        let memory = writer.get_memory(hint).expect("get_memory");
        assert!(memory.len() >= hint.max(1), "get_memory returned less than the hint");
        let room = memory.len().min((plan.bytes - written) as usize) as u64;
        let n = if rng.below(2) == 0 { room } else { rng.between(1, room) } as usize;
        fill_pattern(&mut memory[..n], written);
        writer.advance(n).expect("advance");
        written += n as u64;
        if rng.below(3) == 0 || written == plan.bytes {
            phase_at("flush()", written);
            let result = block_on(writer.flush()).expect("flush");
            assert!(!result.is_completed && !result.is_canceled, "unexpected flush result {result:?}");
            flushes += 1;
        }
    }
    phase("complete()");
    writer.complete(None);
    flushes
}

fn read_side(mut reader: Reader, plan: Plan) -> (u64, u64) {
    let mut rng = SplitMix64::new(plan.seed ^ 0xA5A5_5A5A_C3C3_3C3C);
    let mut consumed = 0u64;
    let mut verified = 0u64;
    let mut examined = 0u64;
    let mut reads = 0u64;
    let mut partial = 0u64;
    loop {
        phase_at("read()", verified);
        let result = block_on(reader.read()).expect("read");
        reads += 1;
        let completed = result.is_completed();
        assert!(!result.is_canceled());
        let buffer = result.buffer();
        let (start, end) = (buffer.start().offset(), buffer.end().offset());
        assert_eq!(start, consumed, "the buffer must start at the consumed offset");
        assert!(end >= verified, "bytes seen before disappeared");
        let mut offset = verified;
        for chunk in buffer.slice((verified - start) as usize..buffer.len()).expect("slice").chunks() {
            check_pattern(chunk, offset);
            offset += chunk.len() as u64;
        }
        assert_eq!(offset, end, "chunks do not cover the buffer");
        verified = end;

        let len = end - start;
        let consume = if completed {
            len
        } else {
            match rng.below(4) {
                0 => 0,
                1 => len,
                _ => rng.below(len + 1),
            }
        };
        let lowest = consume.max(examined - start);
        let mut examine = if rng.below(2) == 0 { len } else { rng.between(lowest, len) };
        // A reader that examined everything waits for new bytes; if it also left the
        // writer paused (resume threshold not reached) nothing new comes: the documented
        // way to deadlock a pipe. Such a reader must leave something unexamined.
        let resume = plan.resume_writer_threshold;
        if examine == len && !completed && resume > 0 && len - consume >= resume {
            examine = len - 1;
        }
        if consume < len {
            partial += 1;
        }
        let consumed_at = buffer.position(consume as usize).expect("position");
        let examined_at = buffer.position(examine as usize).expect("position");
        // `result` borrows the reader; its last use is above, so the borrow ends here.
        reader.advance_to(consumed_at, examined_at).expect("advance_to");
        consumed = start + consume;
        examined = start + examine;
        if completed && consume == len {
            break;
        }
    }
    assert_eq!(verified, plan.bytes, "the reader saw a different number of bytes");
    phase("complete()");
    reader.complete(None);
    (reads, partial)
}
