//! # pipecheck-sync
//!
//! The part of [pipecheck](https://docs.rs/pipecheck) that checked code itself depends
//! on: the swappable sync primitives (`sync`, `cell`, `thread`, `hint`, `future`), the
//! planted-fault switch ([`PlantedFault`]) and the invariant names ([`InvariantId`],
//! [`Violation`]). A structure's library depends on this crate alone, so its users
//! compile none of the checkers; `pipecheck` re-exports all of it for verification code.
//!
//! The primitives are the only module of pipecheck that names concrete `Mutex`,
//! atomics, `Arc`, `UnsafeCell`, threads and `block_on`.
//!
//! Everything else imports from here (`pipecheck_sync::sync::Mutex`, never
//! `std::sync::Mutex`), so the same code runs on:
//!
//! * `std` (default): the real primitives, at full speed;
//! * `loom` (feature `loom`): every interleaving explored exhaustively, and every
//!   [`cell::UnsafeCell`] access checked for data races;
//! * `shuttle` (feature `shuttle`): randomized and PCT schedules, replayable.
//!
//! The layout mirrors `std` and follows tokio's `src/loom/`: one backend file per
//! checker. The `std` side adopts the checkers' API (closure-based `UnsafeCell`
//! access, a `Mutex::lock` that does not poison) so that call sites never need `cfg`.

#[cfg(all(feature = "loom", feature = "shuttle", not(feature = "docs")))]
compile_error!(
    "features `loom` and `shuttle` select two different sync backends; enable at most one \
     (run `cargo test --features loom` and `cargo test --features shuttle` separately)"
);

mod invariant_id;
mod mutex;
mod planted;
pub mod progress;
pub mod record;
mod region;
mod violation;

pub use invariant_id::InvariantId;
pub use planted::PlantedFault;
pub use violation::Violation;

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[path = "std.rs"]
mod backend;

#[cfg(feature = "loom")]
#[path = "loom.rs"]
mod backend;

#[cfg(all(feature = "shuttle", not(feature = "loom")))]
#[path = "shuttle.rs"]
mod backend;

/// Name of the backend compiled in: `"std"`, `"loom"` or `"shuttle"`.
pub const BACKEND: &str = backend::NAME;

/// Shared-state primitives: `Arc`, a non-poisoning `Mutex`, and atomics.
pub mod sync {
    pub use super::backend::sync::Arc;
    pub use super::mutex::{Mutex, MutexGuard};

    /// Atomic types of the selected backend.
    pub mod atomic {
        pub use super::super::backend::atomic::*;
    }
}

/// Whether a `Drop` that would take a lock must skip it: under loom, while the thread
/// unwinds.
///
/// A panic while a loom `Mutex` is held (an invariant fires inside a critical section)
/// poisons the std mutex inside it, and loom unwraps that on the next `lock`. From a
/// destructor that second panic happens during unwinding, and Rust aborts the whole
/// process: a model checker's verdict would be lost with it. The execution has failed
/// already, so the cleanup (waking a peer, handing a lock on) has nobody left to serve.
/// On `std` and shuttle the facade's `Mutex` does not poison, and cleanup always runs.
#[inline]
pub fn skip_locking_cleanup() -> bool {
    cfg!(feature = "loom") && std::thread::panicking()
}

/// How the loom backend explores `SeqCst` accesses: with SC fences placed where C11's
/// order between `SeqCst` accesses needs them (`pipecheck/sync/src/loom_seqcst.rs`).
pub mod seqcst {
    /// What the loom engine prints beside a verdict when a thread mixed `SeqCst`
    /// accesses with weaker ones after the facade placed a fence for them.
    pub const CAVEAT: &str = "SeqCst accesses mixed with weaker ones in one thread: not \
        modelled exactly by loom (see tokio-rs/loom#180); the facade ordered them with SeqCst \
        fences, which may hide an outcome C11 allows around the weaker accesses";

    /// Whether a loom model run on this thread since the last call mixed `SeqCst`
    /// accesses with weaker ones in a way loom cannot model exactly ([`CAVEAT`]);
    /// clears the note. Always `false` outside loom.
    pub fn take_caveat() -> bool {
        #[cfg(feature = "loom")]
        return super::backend::seqcst::take_caveat();
        #[cfg(not(feature = "loom"))]
        false
    }
}

/// Interior mutability with checker-visible access.
pub mod cell {
    pub use super::backend::cell::UnsafeCell;
    pub use super::region::RegionTracker;
}

/// Threads of the selected backend.
pub mod thread {
    pub use super::backend::thread::{JoinHandle, spawn};
    /// The backend's `park`, `current` and `Thread` (whose `unpark` wakes a parked
    /// thread): `std`'s shapes. Under loom a `park` may return only after an `unpark`;
    /// std and shuttle may also wake spuriously, so park in a loop that checks a flag.
    pub use super::backend::thread::{Thread, current, park};

    /// The backend's `yield_now`: lets another thread run. Noted as a wait for another
    /// thread's progress ([`progress`](super::progress)).
    #[track_caller]
    #[inline]
    pub fn yield_now() {
        super::progress::note(std::panic::Location::caller());
        super::backend::thread::yield_now();
    }
}

/// Spin-loop hints of the selected backend.
pub mod hint {
    /// The backend's `spin_loop`. Noted as a wait for another thread's progress
    /// ([`progress`](super::progress)).
    #[track_caller]
    #[inline]
    pub fn spin_loop() {
        super::progress::note(std::panic::Location::caller());
        super::backend::hint::spin_loop();
    }
}

/// The waker plumbing: driving a future to completion on the current thread.
pub mod future {
    pub use super::backend::future::block_on;
}
