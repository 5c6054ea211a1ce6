//! What the benchmarks share: the workload (how many bytes, which chunk sizes, what
//! the two ends do with them), the contenders that move it, and the summary report.
//!
//! Every contender moves [`total_bytes`] from a writer thread to the calling thread in
//! chunks of one size. The writer copies each chunk from the same source buffer; the
//! reader touches every byte it receives (sums it) and the sum is checked at the end,
//! so nothing can be optimized away and nothing can go missing. Every contender bounds
//! the bytes in flight to [`IN_FLIGHT`], the pipe's default pause threshold.

#![allow(dead_code, unreachable_pub)] // each bench binary uses its own part of this module

pub mod conditions;
pub mod contenders;
pub mod judge;
pub mod report;
pub mod transfer;

/// Bytes in flight between writer and reader: the pipe's default pause threshold
/// (64 KiB), also the duplex's buffer size and the channels' capacity in bytes.
pub const IN_FLIGHT: usize = 64 * 1024;

/// The chunk sizes of the issue: 64 B, 4 KiB and 64 KiB.
pub const CHUNKS: [usize; 3] = [64, 4096, 64 * 1024];

/// The environment variable that overrides the transfer size, in MiB (default 256).
pub const MIB_VAR: &str = "PIPECHECK_BENCH_MIB";

const MIB: u64 = 1024 * 1024;

/// Bytes moved per transfer: 256 MiB unless `PIPECHECK_BENCH_MIB` says otherwise.
pub fn total_bytes() -> u64 {
    let mib = match std::env::var(MIB_VAR) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("{MIB_VAR}={text:?} is not a number")),
        Err(_) => 256,
    };
    mib * MIB
}

/// `bytes` in MiB.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

/// A short label for a chunk size: `64 B`, `4 KiB`, `64 KiB`.
pub fn chunk_label(chunk: usize) -> String {
    if chunk >= 1024 && chunk.is_multiple_of(1024) {
        format!("{} KiB", chunk / 1024)
    } else {
        format!("{chunk} B")
    }
}

/// The bytes the writer sends, chunk after chunk, placed half a page away from where
/// large heap buffers start.
///
/// A `memcpy` whose source and destination sit at (nearly) the same offset within a
/// 4 KiB page runs ~3× slower on x86 ("4K aliasing": loads wait on stores that only
/// look like the same address). glibc starts large blocks 16 bytes into a page, so a
/// source at a chance address can hit or miss that for one contender and not another;
/// pinning it at offset 2064 keeps every contender clear of it.
#[derive(Debug)]
pub struct Source {
    storage: Vec<u8>,
    start: usize,
    chunk: usize,
}

impl Source {
    /// The chunk to send.
    pub fn bytes(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.chunk]
    }
}

/// The source chunk of `chunk` bytes (see [`Source`]).
pub fn source(chunk: usize) -> Source {
    const PAGE: usize = 4096;
    const OFFSET: usize = PAGE / 2 + 16;
    let mut storage = vec![0u8; chunk + PAGE];
    let start = (OFFSET + PAGE - storage.as_ptr() as usize % PAGE) % PAGE;
    for (i, byte) in storage[start..start + chunk].iter_mut().enumerate() {
        *byte = (i as u8).wrapping_mul(31).wrapping_add(7);
    }
    Source { storage, start, chunk }
}

/// The reader's work on every byte it receives: their sum, which the compiler cannot
/// drop and which does not depend on how the bytes were split into reads.
///
/// Kept cheap (SSE2's `psadbw` sums 16 bytes per instruction, ~20 GB/s on one core)
/// so the transports, not the reader's arithmetic, decide the numbers; a plain
/// `iter().sum()` widens every byte to `u64` and runs at ~1.5 GB/s on this machine.
#[inline]
pub fn touch(bytes: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_add_epi64, _mm_loadu_si128, _mm_sad_epu8, _mm_setzero_si128};
        let mut blocks = bytes.chunks_exact(16);
        // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics are available;
        // each load reads the 16 in-bounds bytes of `block`, unaligned; and `__m128i` is
        // 16 plain bytes, as is `[u64; 2]`.
        let lanes: [u64; 2] = unsafe {
            let mut sums = _mm_setzero_si128();
            for block in &mut blocks {
                let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
                sums = _mm_add_epi64(sums, _mm_sad_epu8(v, _mm_setzero_si128()));
            }
            std::mem::transmute::<__m128i, [u64; 2]>(sums)
        };
        lanes[0] + lanes[1] + blocks.remainder().iter().map(|&b| u64::from(b)).sum::<u64>()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        bytes.iter().map(|&b| u64::from(b)).sum()
    }
}

/// The sum a reader must arrive at after receiving `total` bytes in `chunk`-byte chunks.
pub fn expected_sum(chunk: usize, total: u64) -> u64 {
    touch(source(chunk).bytes()) * (total / chunk as u64)
}
