//! Waits for another thread's progress, noted so that a livelock can name its spinner.
//!
//! A thread that cannot go on until another does something yields or spins
//! ([`thread::yield_now`](super::thread::yield_now), [`hint::spin_loop`](super::hint::spin_loop)).
//! When the something never comes, the loop runs until the checker's bound (shuttle's
//! `max_steps`, loom's branch limit) stops the execution, and the engine's report says
//! only that the bound was reached. The facade notes each such wait, per thread, with
//! its caller's line; the checking layer reads [`waits`] when an execution ends at the
//! bound and reports which threads kept running (the **progress** verdict).
//!
//! The notes are a `std` thread-local of the thread that runs the model (loom and
//! shuttle run every task on it), outside the checkers' view: no scheduling point is
//! added. The engines call [`reset`] when an execution starts. A production build (none
//! of the features `faults`, `loom`, `shuttle`) notes nothing.
//!
//! # Examples
//!
//! ```
//! # #[cfg(all(feature = "faults", not(any(feature = "loom", feature = "shuttle"))))] {
//! use pipecheck_sync::{hint, progress};
//!
//! progress::reset();
//! for _ in 0..3 {
//!     hint::spin_loop();
//! }
//! let waits = progress::waits();
//! assert_eq!(waits.len(), 1);
//! assert_eq!(waits[0].waits, 3);
//! assert!(waits[0].to_string().contains("waited 3 times"), "{}", waits[0]);
//! # }
//! ```

use std::cell::RefCell;
use std::fmt;
use std::panic::Location;

/// How often one thread waited at one place in the current execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// The thread, in the backend's numbering (shuttle's task id, loom's thread id).
    pub thread: usize,
    /// How many times it waited there.
    pub waits: u64,
    /// Where: the caller of `yield_now` or `spin_loop`.
    pub location: &'static Location<'static>,
}

impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.location.file().rsplit('/').next().unwrap_or(self.location.file());
        write!(f, "thread {} waited {} times at {file}:{}", self.thread, self.waits, self.location.line())
    }
}

thread_local! {
    static WAITS: RefCell<Vec<Wait>> = const { RefCell::new(Vec::new()) };
}

/// Notes that the current thread waits for another at `location`.
#[inline]
pub(super) fn note(location: &'static Location<'static>) {
    if cfg!(any(feature = "faults", feature = "loom", feature = "shuttle")) {
        note_slow(location);
    }
}

#[cold]
#[inline(never)]
fn note_slow(location: &'static Location<'static>) {
    let Some(thread) = super::backend::thread_number() else { return };
    WAITS.with(|waits| {
        let Ok(mut waits) = waits.try_borrow_mut() else { return };
        match waits.iter_mut().find(|w| w.thread == thread && w.location == location) {
            Some(wait) => wait.waits += 1,
            None => waits.push(Wait { thread, waits: 1, location }),
        }
    });
}

/// Forgets the waits noted on this thread: an engine calls it as an execution starts.
pub fn reset() {
    WAITS.with(|waits| {
        if let Ok(mut waits) = waits.try_borrow_mut() {
            waits.clear();
        }
    });
}

/// The waits noted on this thread since the last [`reset`], most frequent first.
pub fn waits() -> Vec<Wait> {
    // `try_borrow`: a panic hook reads them, possibly while a note is being taken.
    let mut waits = WAITS.with(|waits| waits.try_borrow().map(|w| w.clone()).unwrap_or_default());
    waits.sort_by_key(|w| std::cmp::Reverse(w.waits));
    waits
}
