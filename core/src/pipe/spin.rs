//! Looks before parking, where the other end is about to act or is streaming.
//!
//! Parking costs the waker a system call and the sleeper a scheduler wake-up: tens of
//! microseconds on a busy 2-core machine, longer than the work a wait at 4 KiB or 64 KiB
//! chunks is for. Two waits are known to be short, because the other end is working
//! towards ending them ([`Wait::Short`]):
//!
//! * a flush paused by back-pressure: the reader is consuming, and the `advance_to` that
//!   resumes the writer clears `FLUSH_SLOW`;
//! * the first read after the reader's own `advance_to` resumed the paused writer: the
//!   writer is about to write and flush.
//!
//! There the waiting end yields and looks again, up to
//! [`PipeOptions::spins_before_park`](crate::PipeOptions::spins_before_park) times,
//! before it takes the lock to park.
//!
//! The third wait is a read that finds nothing while the writer is streaming on another
//! thread ([`Wait::Batching`]): an `advance_to` saw bytes published after the read it
//! ended had returned. At small chunks such a reader catches up with the writer after
//! every read; parking there costs both ends a park and a wake-up per few chunks, and
//! looking again at once brings the reader back after one chunk, each of its reads
//! costing the writer a round trip of the published word's cache line. So the read
//! waits a few microseconds between looks (a burst of spin-loop hints, then a yield),
//! up to [`PipeOptions::batching_looks`](crate::PipeOptions::batching_looks) times, and
//! reads what the writer published meanwhile in one batch. A wait that runs out ends
//! the batching until an advance sees the writer streaming again
//! ([`Batching`]).
//!
//! A look is a plain load that decides nothing: the locked wait (or the lock-free
//! read's read-modify-write) after it decides, exactly as without the spin, so the event
//! log and every checker's verdict are those of an end that was slow to get there.
//! Every other wait parks at once.

use crate::pipe::Shared;
use crate::pipe::observe::{PipeEnd, PipeEvent};
use pipecheck_sync::thread;

/// Which wait spins, and so how many looks it takes and what it does between two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// The other end is about to end the wait: `spins_before_park` looks, a yield apart.
    Short,
    /// A read that found nothing while the writer streams: `batching_looks` looks, a
    /// busy-wait and a yield apart.
    Batching,
}

/// Spin-loop hints between two looks of a batching wait: about 6 µs on the machine of
/// `core/benches/PERFORMANCE.md` (24 ns each), long enough for a writer of 64 B chunks to
/// publish dozens. Shorter gaps brought the reader back after a chunk or two (256 was the
/// shortest of the gaps measured there that did not).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const BATCHING_HINTS: u32 = 256;

/// Asks `ready` up to the number of looks `wait` takes, waiting between two noes as
/// `wait` does, and reports the spin ([`PipeEvent::Spun`]); returns whether it said yes.
/// With no looks it asks nothing and reports nothing (no atomic access: under loom, no
/// scheduling point).
#[inline]
pub(crate) fn spin_until(shared: &Shared, end: PipeEnd, wait: Wait, mut ready: impl FnMut() -> bool) -> bool {
    let limit = match wait {
        Wait::Short => shared.config.spins_before_park,
        Wait::Batching => shared.config.batching_looks,
    };
    if limit == 0 {
        return false;
    }
    let mut looks = 0;
    let ended = loop {
        looks += 1;
        if ready() {
            break true;
        }
        if looks == limit {
            break false;
        }
        if wait == Wait::Batching {
            busy_wait();
        }
        thread::yield_now();
    };
    shared.observer.emit(|| PipeEvent::Spun { end, looks, ended });
    ended
}

/// The batching wait's gap before its yield. Under the checkers the yield alone: a
/// spin-loop hint is no scheduling point there, and the facade's would each be one.
#[inline]
fn busy_wait() {
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    for _ in 0..BATCHING_HINTS {
        std::hint::spin_loop();
    }
}

/// Whether the reader's next empty read waits to batch ([`Wait::Batching`]): only while
/// the writer streams on another thread, which an `advance_to` that finds bytes
/// published after its read's end shows (a writer on the reader's own thread cannot
/// publish between the two). A wait that runs out ends it: an idle writer costs one
/// wait, not one per read.
#[derive(Debug, Default)]
pub(crate) struct Batching {
    writer_streaming: bool,
}

impl Batching {
    /// An `advance_to` ended the read that returned bytes up to `read_end`, and found
    /// `committed` bytes published.
    #[inline]
    pub(crate) fn advanced(&mut self, read_end: u64, committed: u64) {
        if committed > read_end {
            self.writer_streaming = true;
        }
    }

    /// Whether a read that found nothing should wait to batch.
    #[inline]
    pub(crate) fn should_wait(&self) -> bool {
        self.writer_streaming
    }

    /// The batching wait ended: `found` bytes, or ran out (the writer stopped).
    #[inline]
    pub(crate) fn waited(&mut self, found: bool) {
        self.writer_streaming = found;
    }
}
