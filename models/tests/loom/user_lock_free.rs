//! A user's lock-free code on `pipecheck`, checked from outside the
//! crate as a user would, under loom: a correct one-permit notify, which raw loom 0.7.3
//! reports as a deadlock (tokio-rs/loom#254: a swap loses a concurrent store) and the
//! facade's store-as-swap keeps green; its lost-wakeup and weak-memory twins are still
//! caught, and so is a message passed with a `Relaxed` store. A data race stays a data
//! race with `LOOM_LOCATION=1` and `LOOM_LOG` set, as the reproduce advice says.
//! (Shuttle's half, a one-slot ring, is `tests/shuttle/user_lock_free.rs`.)
//!
//! Run: `cargo test -p pipecheck-models --features loom --test loom -- user_lock_free::`.

use std::future::poll_fn;
use std::task::{Poll, Waker};

use pipecheck::InvariantId;
use pipecheck::cell::UnsafeCell;
use pipecheck::engine::loom::Loom;
use pipecheck::future::block_on;
use pipecheck::loom_harness::{check_target, expect_model_caught};
use pipecheck::must_fail::{in_child, must_fail_in_child};
use pipecheck::sync::atomic;
use pipecheck::sync::atomic::Ordering;
use pipecheck::sync::{Arc, Mutex};
use pipecheck::thread;
use pipecheck::{Engine, Verdict};

/// The preemption bound of the green model (`LOOM_MAX_PREEMPTIONS` wins).
const BOUND: usize = 3;

/// The permit's atomic: raw loom's, or the facade's.
trait Permit: Send + Sync + 'static {
    fn new(value: bool) -> Self;
    fn store(&self, value: bool, order: Ordering);
    fn swap(&self, value: bool, order: Ordering) -> bool;
}

impl Permit for loom::sync::atomic::AtomicBool {
    fn new(value: bool) -> Self {
        loom::sync::atomic::AtomicBool::new(value)
    }
    fn store(&self, value: bool, order: Ordering) {
        loom::sync::atomic::AtomicBool::store(self, value, order);
    }
    fn swap(&self, value: bool, order: Ordering) -> bool {
        loom::sync::atomic::AtomicBool::swap(self, value, order)
    }
}

impl Permit for atomic::AtomicBool {
    fn new(value: bool) -> Self {
        atomic::AtomicBool::new(value)
    }
    fn store(&self, value: bool, order: Ordering) {
        atomic::AtomicBool::store(self, value, order);
    }
    fn swap(&self, value: bool, order: Ordering) -> bool {
        // loom's own swap, through the facade's `Deref`.
        loom::sync::atomic::AtomicBool::swap(self, value, order)
    }
}

/// Which notify runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    /// The correct one.
    Correct,
    /// Planted lost wakeup: the waiter does not take the permit again after
    /// registering its waker.
    NoRecheck,
    /// Planted weak-memory bug: the permit is stored and taken `Relaxed`, so the
    /// data it announces is not published.
    Relaxed,
    /// The correct one, with `notify_one` storing the permit `SeqCst`.
    SeqCstStore,
}

/// A one-permit notify with a payload: `notify_one` stores the permit, then takes
/// and wakes the registered waker; `notified` takes the permit, registers its
/// waker, and takes the permit again.
struct Notify<P> {
    permit: P,
    waker: Mutex<Option<Waker>>,
    data: UnsafeCell<u64>,
    variant: Variant,
}

// SAFETY: `data` is written by the sender before it stores the permit and read by
// the waiter after it took the permit (the weak-memory twin breaks that on purpose).
unsafe impl<P: Send> Sync for Notify<P> {}

impl<P: Permit> Notify<P> {
    fn release(&self) -> Ordering {
        match self.variant {
            Variant::Relaxed => Ordering::Relaxed,
            Variant::SeqCstStore => Ordering::SeqCst,
            Variant::Correct | Variant::NoRecheck => Ordering::Release,
        }
    }

    fn acquire(&self) -> Ordering {
        if self.variant == Variant::Relaxed { Ordering::Relaxed } else { Ordering::Acquire }
    }

    fn send(&self, value: u64) {
        // SAFETY: the waiter reads `data` only after it took the permit, which the
        // store below publishes; nobody else writes it.
        self.data.with_mut(|p| unsafe { *p = value });
        self.permit.store(true, self.release());
        let waker = self.waker.lock().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn receive(&self) -> u64 {
        block_on(poll_fn(|cx| {
            if self.permit.swap(false, self.acquire()) {
                return Poll::Ready(());
            }
            *self.waker.lock() = Some(cx.waker().clone());
            if self.variant != Variant::NoRecheck && self.permit.swap(false, self.acquire()) {
                return Poll::Ready(());
            }
            Poll::Pending
        }));
        // SAFETY: the permit was taken with acquire, after `send` wrote `data`.
        self.data.with(|p| unsafe { *p })
    }
}

/// One execution: a thread sends 42, the test's thread waits for it.
fn notify<P: Permit>(variant: Variant) -> impl Fn() + Send + Sync + 'static {
    move || {
        let notify = Arc::new(Notify {
            permit: P::new(false),
            waker: Mutex::new(None),
            data: UnsafeCell::new(0),
            variant,
        });
        let sender = notify.clone();
        let sender = thread::spawn(move || sender.send(42));
        assert_eq!(notify.receive(), 42, "the waiter read another value than the one sent");
        sender.join().unwrap();
    }
}

/// loom 0.7.3 (tokio-rs/loom#254, #389; fix in #391): raw loom reports the correct
/// notify as a deadlock. When this test fails, loom has fixed it: remove the
/// store-as-swap (`core/src/primitive/loom_atomic.rs`) and this test.
#[test]
fn raw_loom_loses_a_store_to_a_concurrent_swap() {
    expect_model_caught(
        InvariantId::NO_LOST_WAKEUP,
        BOUND,
        notify::<loom::sync::atomic::AtomicBool>(Variant::Correct),
    );
}

#[test]
fn one_permit_notify_is_green_through_the_facade() {
    let engine = Loom::with_bound(BOUND);
    assert!(engine.bound >= 3, "the notify is checked at preemption bound 3 or more");
    let checked = engine.check(std::sync::Arc::new(notify::<atomic::AtomicBool>(Variant::Correct)));
    assert_eq!(checked.verdict, Verdict::Pass, "{}", checked.verdict);
    eprintln!("one-permit notify: {} interleavings at bound {}", checked.executions, engine.bound);
}

/// A `SeqCst` store of the permit is a swap too (after the fence the model of `SeqCst`
/// accesses places when one is due, `pipecheck/sync/src/loom_seqcst.rs`): green, where a
/// plain `SeqCst` store would keep loom's lost store.
#[test]
fn one_permit_notify_with_a_seqcst_store_is_green_through_the_facade() {
    let engine = Loom::with_bound(BOUND);
    let checked = engine.check(std::sync::Arc::new(notify::<atomic::AtomicBool>(Variant::SeqCstStore)));
    assert_eq!(checked.verdict, Verdict::Pass, "{}", checked.verdict);
}

#[test]
fn notify_without_recheck_loses_the_wakeup() {
    expect_model_caught(InvariantId::NO_LOST_WAKEUP, BOUND, notify::<atomic::AtomicBool>(Variant::NoRecheck));
}

#[test]
fn relaxed_permit_races_on_the_payload() {
    expect_model_caught(InvariantId::NO_DATA_RACE, BOUND, notify::<atomic::AtomicBool>(Variant::Relaxed));
}

/// Message passing: data in a cell, then a flag stored with `release`; the reader
/// reads the data once it sees the flag with `Acquire`.
fn message_passing(release: Ordering) -> impl Fn() + Send + Sync + 'static {
    move || {
        let shared = Arc::new((UnsafeCell::new(0u64), atomic::AtomicBool::new(false)));
        let writer = shared.clone();
        let writer = thread::spawn(move || {
            // SAFETY: the reader reads the cell only once it has seen the flag.
            writer.0.with_mut(|p| unsafe { *p = 7 });
            writer.1.store(true, release);
        });
        if shared.1.load(Ordering::Acquire) {
            // SAFETY: the flag was seen with acquire (the planted bug breaks that).
            let value = shared.0.with(|p| unsafe { *p });
            assert_eq!(value, 7);
        }
        writer.join().unwrap();
    }
}

#[test]
fn message_passing_with_release_is_green() {
    let checked = Loom::with_bound(BOUND).check(std::sync::Arc::new(message_passing(Ordering::Release)));
    assert_eq!(checked.verdict, Verdict::Pass, "{}", checked.verdict);
}

/// The store-as-swap adds no synchronization: a `Relaxed` store is still a race.
#[test]
fn relaxed_store_is_still_caught_with_the_store_as_swap() {
    expect_model_caught(InvariantId::NO_DATA_RACE, BOUND, message_passing(Ordering::Relaxed));
}

/// Every reproduce block suggests `LOOM_LOCATION=1` and `LOOM_LOG`: a data race
/// must still be reported as one with both set (loom then starts its message with a
/// newline and appends the access locations).
#[test]
fn a_data_race_is_classified_with_loom_location_and_loom_log_set() {
    let test = std::thread::current().name().expect("a test thread's name").to_owned();
    let verdict = must_fail_in_child(
        &test,
        InvariantId::NO_DATA_RACE,
        &[("LOOM_LOCATION", "1"), ("LOOM_LOG", "info")],
        || Loom::with_bound(BOUND).check(std::sync::Arc::new(message_passing(Ordering::Relaxed))),
    );
    assert_eq!(verdict.kind, "data-race");
    assert!(
        verdict.report.contains("user_lock_free.rs"),
        "loom's locations are in the report:\n{}",
        verdict.report
    );
}

/// The reproduce line a failing model prints selects this very test (package, test
/// target, test path), and run with the bound it prints, the failure comes back.
#[test]
fn the_printed_reproduce_line_selects_this_test_and_replays_the_failure() {
    let test = std::thread::current().name().expect("a test thread's name").to_owned();
    let run_child = |env: &[(&str, &str)]| {
        in_child(&test, env, || {
            let pipe = pipecheck_models::builtin::pipe();
            let _ = check_target(&pipe, "consume-to-segment-boundary", Some("KeepsConsumedSegment"), 1);
        })
    };
    let first = run_child(&[]);
    assert!(
        !first.success && first.stderr.contains("segments-in-use"),
        "the planted bug was not caught:\n{}",
        first.stderr
    );
    let line = first
        .stderr
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("LOOM_MAX_PREEMPTIONS="))
        .unwrap_or_else(|| panic!("no reproduce line printed:\n{}", first.stderr));
    let (assignment, cargo) = line.split_once(' ').expect("VAR=value cargo ...");
    let bound = assignment.strip_prefix("LOOM_MAX_PREEMPTIONS=").expect("the bound");
    assert_eq!(bound, "1", "the bound the model ran at");
    let package = std::env::var("CARGO_PKG_NAME").unwrap();
    assert_eq!(
        cargo,
        format!("cargo test -p {package} --features loom --test loom -- {test} --exact"),
        "the command does not select this test"
    );
    let again = run_child(&[("LOOM_MAX_PREEMPTIONS", bound)]);
    assert!(
        !again.success && again.stderr.contains("segments-in-use"),
        "the printed command did not fail the same way:\n{}",
        again.stderr
    );
}
