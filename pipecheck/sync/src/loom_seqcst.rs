//! `SeqCst` accesses under loom: the one place that holds how the facade models them.
//!
//! **The gap.** loom 0.7 gives the single total order of C11 only to `SeqCst` fences
//! (tokio-rs/loom#220); a `SeqCst` load is explored as `Acquire` and a `SeqCst` store
//! as `Release` (tokio-rs/loom#180; its one extra rule, that a `SeqCst` load skips a
//! `SeqCst` store with a newer `SeqCst` store, ignores the initial value and every
//! non-`SeqCst` store). Store buffering with `SeqCst` stores and loads (`x = 1; r1 =
//! y || y = 1; r2 = x`) then reads `r1 = r2 = 0`, which C11 forbids: a false red.
//!
//! **The model.** RC11 (the C11 model as repaired by Lahav et al., "Repairing
//! sequential consistency in C/C++11", adopted by C++20) orders `SeqCst` events by
//! `psc`, which must be acyclic. Between two `SeqCst` accesses `a` and `b`, `psc` starts
//! from `a sb b` and `a sb;hb;sb b` (through any synchronization in between), and adds
//! the per-location orders (`mo`, `rb`, `hb|loc`) that loom's coherence already keeps.
//! The facade keeps exactly the first part with loom's exact `SeqCst` fence: a thread
//! whose `SeqCst` accesses are not yet covered by an SC fence (its own or one it
//! synchronized with) is **pending**, and before its next `SeqCst` access the facade
//! places `fence(SeqCst)`. Every access is then performed with its ordering's non-SC
//! part: a load `Acquire`, a store `Release` (as a swap, `loom_atomic.rs`, which also
//! keeps tokio-rs/loom#254 away from `SeqCst` stores), a read-modify-write `AcqRel`
//! (a compare-exchange's failure `Acquire`).
//!
//! A thread becomes pending by a `SeqCst` access, and by receiving synchronization
//! from a pending thread: a `Release`-or-stronger store or RMW of a pending thread marks
//! its atomic, and an `Acquire`-or-stronger load or RMW of a marked atomic makes the
//! reader pending; likewise a facade `Mutex` released by a pending thread, a thread
//! spawned by one, `join`, `park` (an `unpark` is synchronization) and an `Acquire` or
//! `AcqRel` fence. An explicit `fence(SeqCst)` clears it.
//!
//! **Why no false red.** A fence between two `SeqCst` accesses of a thread (or of two
//! threads joined by happens-before) orders them in loom's fence order exactly where
//! `psc` orders them, so store buffering, IRIW, R, 2+2W and their RMW forms lose the
//! outcomes C11 forbids (the litmus suite in `examples/seqcst` checks every shape).
//! Placing a fence only adds order: every outcome loom shows with it is an outcome of the
//! original program, unless loom's own fence model adds one (it does not for these
//! shapes).
//!
//! **Why no hidden bug, and where one could hide.** A `SeqCst` access with no pending
//! access before it gets no fence: a `SeqCst` store followed by a `Relaxed` or `Acquire`
//! load still reorders, and so does a `Relaxed` store followed by a thread's first
//! `SeqCst` load. A fence orders more than the two `SeqCst` accesses around it: it is
//! also an acquire fence for the thread's earlier relaxed loads, a release fence for its
//! later relaxed stores, and it orders the thread's non-SC accesses before it against
//! every other SC fence. So an inserted fence in a thread that also makes non-SC atomic
//! accesses (`Relaxed`, `Acquire`, `Release`, `AcqRel`) may hide an outcome C11 allows.
//! That mix is noted while the execution runs, and the loom engine says so beside
//! its verdict (`pipecheck_sync::seqcst::CAVEAT`). A thread whose atomic accesses are all
//! `SeqCst` is modelled exactly.
//!
//! Load buffering (a load reading a store that comes later in the interleaving) is not
//! explored by loom at any ordering: outcomes that need it are never shown.

use std::cell::Cell;
use std::sync::atomic::AtomicBool as StdBool;
use std::sync::atomic::Ordering as Std;

use loom::sync::atomic::Ordering;

/// The facade's state of one loom thread.
#[derive(Clone, Copy, Default)]
struct ThreadSc {
    /// A `SeqCst` access (its own or synchronized from another thread) not yet followed
    /// by an SC fence.
    pending: bool,
    /// The facade placed an SC fence in this thread.
    fenced: bool,
    /// The thread made a non-SC atomic access.
    weak: bool,
}

loom::thread_local! {
    static THREAD: Cell<ThreadSc> = Cell::new(ThreadSc::default());
}

std::thread_local! {
    /// Set when an execution mixed SC fences placed by the facade with weak accesses in
    /// one thread (loom runs every model thread on the OS thread that runs the model).
    static MIXED: Cell<bool> = const { Cell::new(false) };
}

/// Whether a model run since the last call mixed `SeqCst` accesses with weaker ones in a
/// way loom cannot model exactly; clears the note.
pub(crate) fn take_caveat() -> bool {
    MIXED.with(|mixed| mixed.replace(false))
}

fn update(f: impl FnOnce(&mut ThreadSc)) {
    // Outside a model thread's lifetime (a destructor after its locals are gone) there
    // is nothing to order.
    let _ = THREAD.try_with(|cell| {
        let mut state = cell.get();
        f(&mut state);
        if state.fenced && state.weak {
            MIXED.with(|mixed| mixed.set(true));
        }
        cell.set(state);
    });
}

fn pending() -> bool {
    THREAD.try_with(|cell| cell.get().pending).unwrap_or(false)
}

/// The kind of access, for the ordering loom performs it with.
#[derive(Clone, Copy)]
pub(crate) enum Access {
    Load,
    Store,
    Rmw,
}

/// Per atomic: some `Release`-or-stronger write of it was made by a pending thread.
#[derive(Default)]
pub(crate) struct Mark(StdBool);

impl Mark {
    /// Unmarked.
    pub(crate) const fn new() -> Mark {
        Mark(StdBool::new(false))
    }

    /// Before an access with `order`: places the SC fence a pending thread needs before
    /// a `SeqCst` access, and returns the ordering loom performs the access with.
    pub(crate) fn before(&self, order: Ordering, access: Access) -> Ordering {
        if order != Ordering::SeqCst {
            update(|state| state.weak = true);
            return order;
        }
        if pending() {
            loom::sync::atomic::fence(Ordering::SeqCst);
            update(|state| {
                state.pending = false;
                state.fenced = true;
            });
        }
        match access {
            Access::Load => Ordering::Acquire,
            Access::Store => Ordering::Release,
            Access::Rmw => Ordering::AcqRel,
        }
    }

    /// After an access with `order` (the caller's, not [`before`](Mark::before)'s):
    /// what it wrote and read carries pending `SeqCst` accesses between threads.
    pub(crate) fn after(&self, order: Ordering, access: Access) {
        let acquires =
            !matches!(access, Access::Store) && !matches!(order, Ordering::Relaxed | Ordering::Release);
        let releases =
            !matches!(access, Access::Load) && !matches!(order, Ordering::Relaxed | Ordering::Acquire);
        let received = acquires && self.0.load(Std::Relaxed);
        update(|state| {
            state.pending |= order == Ordering::SeqCst || received;
            if releases && state.pending {
                self.0.store(true, Std::Relaxed);
            }
        });
    }

    /// After a compare-exchange with `success` and `failure`: as [`after`](Mark::after)
    /// with the ordering that applied.
    pub(crate) fn after_cas<T>(&self, result: &Result<T, T>, success: Ordering, failure: Ordering) {
        match result {
            Ok(_) => self.after(success, Access::Rmw),
            Err(_) => self.after(failure, Access::Load),
        }
    }

    /// Before a compare-exchange: the orderings loom performs it with.
    pub(crate) fn before_cas(&self, success: Ordering, failure: Ordering) -> (Ordering, Ordering) {
        let success_sc = success == Ordering::SeqCst;
        if failure != Ordering::SeqCst && success_sc {
            // The failure path is a weaker load than the fence placed for the success.
            update(|state| state.weak = true);
        }
        let loom_success = self.before(success, Access::Rmw);
        let loom_failure = match failure {
            Ordering::SeqCst => {
                if !success_sc {
                    let _ = self.before(failure, Access::Load);
                }
                Ordering::Acquire
            }
            other => other,
        };
        (loom_success, loom_failure)
    }
}

/// A facade `fence(order)`: loom's, and an SC fence covers the thread's `SeqCst`
/// accesses; an acquire fence may receive another thread's pending ones.
pub(crate) fn fence(order: Ordering) {
    loom::sync::atomic::fence(order);
    update(|state| match order {
        Ordering::SeqCst => state.pending = false,
        Ordering::Acquire | Ordering::AcqRel => {
            state.pending = true;
            state.weak = true;
        }
        _ => state.weak = true,
    });
}

/// The calling thread's pending state, to hand to a thread it synchronizes with.
pub(crate) fn handoff() -> bool {
    pending()
}

/// The calling thread received synchronization from a thread whose pending state was
/// `pending` (a spawn, join, lock, unpark).
pub(crate) fn receive(pending: bool) {
    if pending {
        update(|state| state.pending = true);
    }
}
