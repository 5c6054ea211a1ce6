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
//! sequential consistency in C/C++11", PLDI 2017, adopted by C++20) asks that the
//! relation `psc` over `SeqCst` events be acyclic. Between two `SeqCst` accesses `a`
//! and `b` it has `a sb b`, `a sb;hb;sb b` (through synchronization in between) and the
//! per-location orders (`mo`, `rb`, `hb` on one location), which loom's coherence keeps
//! at every ordering. The facade supplies the first two with loom's `SeqCst` fence,
//! placed between the two accesses and nowhere else:
//!
//! * a thread is **pending** once it made a `SeqCst` access that no SC fence of its
//!   own follows yet, or once it received synchronization from a pending thread;
//! * before a `SeqCst` access of a pending thread the facade places `fence(SeqCst)`, and
//!   the thread is no longer pending; a thread's explicit `fence(SeqCst)` does the same;
//! * every access is then performed with its ordering's non-SC part: a load `Acquire`,
//!   a store `Release` (as a swap, `loom_atomic.rs`, which also keeps
//!   tokio-rs/loom#254 away from `SeqCst` stores), a read-modify-write `AcqRel` (a
//!   compare-exchange's failure `Acquire`).
//!
//! So a `SeqCst` access followed by a `Relaxed`, `Acquire` or `Release` access of
//! another location gets no fence between them: that pair may still reorder, as C11
//! allows. Only the next `SeqCst` access of the thread (or of a thread it synchronizes
//! with) waits behind a fence.
//!
//! Synchronization carries "pending" as far as the facade sees it, conservatively: a
//! store or RMW of any ordering made by a pending thread marks its atomic (a release
//! fence before a relaxed store also synchronizes), and an `Acquire`-or-stronger load or
//! RMW of a marked atomic makes the reader pending; so do an `Acquire` or `AcqRel`
//! fence (the facade does not track which relaxed load it completes), a facade `Mutex`
//! last released by a pending thread, a thread spawned by a pending one, `join` of a
//! pending thread, every return from `park` (the unparker is not known) and every poll
//! of the facade's `block_on` (a wakeup goes through loom's waker, which the facade does
//! not see). Synchronization through loom's own primitives used directly (not through
//! the facade) is not seen.
//!
//! **Why no false red** (every outcome loom shows is one C11 allows). A fence only
//! forbids outcomes, and the accesses keep the acquire and release effects they have in
//! C11. What they lose is `psc`: take a cycle of `psc` edges between `SeqCst` accesses.
//! A cycle on one location is a coherence cycle, which loom never shows. Otherwise it
//! crosses from one location to another at accesses `a → b` with `a sb b` or `a
//! sb;hb;sb b`, and at each crossing the facade has placed a fence `F` with `a sb F sb
//! b` (the thread of `b` was pending). Between two crossings the cycle stays on one
//! location, where a chain of `mo`, `rb` and `hb` steps collapses by coherence into
//! `eco` or `hb`; so consecutive fences are related by `hb;eco;hb`, which is RC11's
//! order between SC fences (`psc_F`), and the fences form a cycle loom's fence order
//! forbids. This is a proof sketch; the litmus suite (`pipecheck/tests/litmus/`) checks
//! store buffering, IRIW, R, 2+2W, S, WRC, message passing, coherence and their RMW
//! forms against C11's verdicts, and loom's `SeqCst` fence is exact for programs whose
//! only SC events are fences (loom's own note in `rt/thread.rs`).
//!
//! **Why no hidden bug, and where one could hide.** An inserted fence does more than
//! order the two `SeqCst` accesses around it: [1] it is an acquire fence for the
//! thread's earlier `Relaxed` loads and a release fence for its later `Relaxed`
//! stores; [2] it orders the thread's non-SC accesses before it against every other SC
//! fence (`hb;eco;hb` reaches non-SC events); [3] loom's SC fence joins the views of
//! the fenced threads in the order the fences ran (as in the promising semantics), so
//! it also makes happens-before between them, which C11's does not. [1] and [2] act
//! only on non-SC atomic accesses: in a run whose atomic accesses are all `SeqCst`
//! (mutexes, spawn, join and park aside), C11 allows only sequentially consistent
//! outcomes, loom explores every interleaving, and the model is exact. A run that
//! placed a fence and also made a non-SC atomic access or fence, in any thread, may have
//! lost an outcome C11 allows: the loom engine says so beside its verdict
//! ([`CAVEAT`](crate::seqcst::CAVEAT), through [`take_caveat`]). [3] can hide an
//! `UnsafeCell` race between two threads in the interleavings where their fences run in
//! one order; loom still reports it in an interleaving where they run in the other,
//! within the preemption bound.
//!
//! Load buffering (a load reading a store that comes later in the interleaving) is not
//! explored by loom at any ordering: outcomes that need it are never shown
//! (`docs/engines.md`, the litmus table).

use std::cell::Cell;
use std::sync::atomic::AtomicBool as StdBool;
use std::sync::atomic::Ordering as Std;

use loom::sync::atomic::Ordering;

loom::thread_local! {
    /// A `SeqCst` access (its own or synchronized from another thread) not yet followed
    /// by an SC fence.
    static PENDING: Cell<bool> = Cell::new(false);
}

std::thread_local! {
    /// The facade placed an SC fence during the model run on this OS thread (loom runs
    /// every model thread on the thread that calls `model`).
    static PLACED: Cell<bool> = const { Cell::new(false) };
    /// A non-SC atomic access or fence happened during that run.
    static WEAK: Cell<bool> = const { Cell::new(false) };
}

/// Whether a model run since the last call placed an SC fence and also made a non-SC
/// atomic access or fence (module docs, [2]); clears the note.
pub(crate) fn take_caveat() -> bool {
    let placed = PLACED.with(|placed| placed.replace(false));
    let weak = WEAK.with(|weak| weak.replace(false));
    placed && weak
}

fn note_weak() {
    WEAK.with(|weak| weak.set(true));
}

fn pending() -> bool {
    // Outside a model thread's lifetime (a destructor after its locals are gone) there
    // is nothing to order.
    PENDING.try_with(Cell::get).unwrap_or(false)
}

fn set_pending(value: bool) {
    let _ = PENDING.try_with(|cell| cell.set(value));
}

/// Places the SC fence a pending thread needs before a `SeqCst` access.
fn fence_if_pending() {
    if pending() {
        loom::sync::atomic::fence(Ordering::SeqCst);
        set_pending(false);
        PLACED.with(|placed| placed.set(true));
    }
}

/// The kind of access, for the ordering loom performs it with.
#[derive(Clone, Copy)]
pub(crate) enum Access {
    Load,
    Store,
    Rmw,
}

/// Per atomic: some write of it was made by a pending thread.
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
            note_weak();
            return order;
        }
        fence_if_pending();
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
        // A loom model thread runs alone until it yields: a std atomic is only storage.
        let received = acquires && self.0.load(Std::Relaxed);
        let pending = pending() || order == Ordering::SeqCst || received;
        set_pending(pending);
        if pending && !matches!(access, Access::Load) {
            self.0.store(true, Std::Relaxed);
        }
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
        if success != Ordering::SeqCst || failure != Ordering::SeqCst {
            note_weak();
        }
        if success == Ordering::SeqCst || failure == Ordering::SeqCst {
            fence_if_pending();
        }
        let part = |order, sc| if order == Ordering::SeqCst { sc } else { order };
        (part(success, Ordering::AcqRel), part(failure, Ordering::Acquire))
    }
}

/// A facade `fence(order)`: loom's; an SC fence covers the thread's `SeqCst` accesses,
/// and an acquire fence may complete a synchronization from a pending thread.
pub(crate) fn fence(order: Ordering) {
    loom::sync::atomic::fence(order);
    match order {
        Ordering::SeqCst => set_pending(false),
        Ordering::Acquire | Ordering::AcqRel => {
            note_weak();
            set_pending(true);
        }
        _ => note_weak(),
    }
}

/// The calling thread's pending state, to hand to a thread it synchronizes with.
pub(crate) fn handoff() -> bool {
    pending()
}

/// The calling thread received synchronization from a thread whose pending state was
/// `pending` (a spawn, join, lock, unpark).
pub(crate) fn receive(pending: bool) {
    if pending {
        set_pending(true);
    }
}
