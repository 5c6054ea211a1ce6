//! A few yields before parking, where the other end is about to act.
//!
//! Parking costs the waker a system call and the sleeper a scheduler wake-up: tens of
//! microseconds on a busy 2-core machine, longer than the work a wait at 4 KiB or 64 KiB
//! chunks is for. Two waits are known to be short, because the other end is working
//! towards ending them:
//!
//! * a flush paused by back-pressure: the reader is consuming, and the `advance_to` that
//!   resumes the writer clears `FLUSH_SLOW`;
//! * the first read after the reader's own `advance_to` resumed the paused writer: the
//!   writer is about to write and flush.
//!
//! There the waiting end yields and looks again, up to
//! [`PipeOptions::spins_before_park`](crate::PipeOptions::spins_before_park) times,
//! before it takes the lock to park. The look is a plain load that decides nothing: the
//! locked wait (or the lock-free read's read-modify-write) after it decides, exactly as
//! without the spin, so the event log and every checker's verdict are those of an end
//! that was slow to get there. Every other wait parks at once: a reader waiting for the
//! next small chunk would come back after one chunk instead of many, and each of its
//! reads costs the writer a round trip of the published word's cache line.

use crate::pipe::Shared;
use crate::pipe::observe::{PipeEnd, PipeEvent};
use crate::primitive::thread;

/// Asks `ready` up to the pipe's `spins_before_park` times, yielding between two noes,
/// and reports the spin ([`PipeEvent::Spun`]); returns whether it said yes. With the
/// option at 0 it asks nothing and reports nothing (no atomic access: under loom, no
/// scheduling point).
#[inline]
pub(crate) fn spin_until(shared: &Shared, end: PipeEnd, mut ready: impl FnMut() -> bool) -> bool {
    let limit = shared.config.spins_before_park;
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
        thread::yield_now();
    };
    shared.observer.emit(|| PipeEvent::Spun { end, looks, ended });
    ended
}
