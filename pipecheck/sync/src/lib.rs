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

/// How the loom backend explores `SeqCst` accesses: with SC fences placed between a
/// thread's `SeqCst` accesses, where C11's total order over them needs one, and nowhere
/// else (`pipecheck/sync/src/loom_seqcst.rs` holds the model and why it is sound).
pub mod seqcst {
    /// What the loom engine reports beside a passing verdict when the run both placed
    /// such a fence and made a weaker atomic access: the fence may have hidden an outcome
    /// C11 allows around the weaker access, so the pass is not exact.
    ///
    /// A failure needs no such note: a placed fence only removes outcomes.
    pub const CAVEAT: &str = "SeqCst store then load: not modelled exactly by loom (see \
        tokio-rs/loom#180); the facade ordered the SeqCst accesses with SeqCst fences, and \
        this run also made Relaxed/Acquire/Release accesses, around which such a fence may \
        hide an outcome C11 allows: a pass here may miss a weak-memory bug";

    /// Whether a loom model run on this thread since the last call placed an SC fence
    /// and also made a non-`SeqCst` atomic access or fence ([`CAVEAT`]); clears the note.
    /// Always `false` outside loom.
    ///
    /// # Examples
    ///
    /// ```
    /// // Nothing ran under loom here.
    /// assert!(!pipecheck_sync::seqcst::take_caveat());
    /// ```
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
