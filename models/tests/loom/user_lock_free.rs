//! A user's lock-free code on `pipecheck_core::primitive`, checked from outside the
//! crate as a user would: the bugs each engine must see, and the false verdicts each
//! must not give.
//!
//! * shuttle (`--features shuttle`): a one-slot ring whose consumer frees the slot
//!   before reading it. The overwrite happens between the consumer's two accesses, so
//!   shuttle sees it only because every `UnsafeCell` access is a scheduling point.
//! * loom (`--features loom`): a correct one-permit notify, which raw loom 0.7.3
//!   reports as a deadlock (tokio-rs/loom#254: a swap loses a concurrent store) and the
//!   facade's store-as-swap keeps green; its lost-wakeup and weak-memory twins are still
//!   caught, and so is a message passed with a `Relaxed` store. A data race stays a data
//!   race with `LOOM_LOCATION=1` and `LOOM_LOG` set, as the reproduce advice says.
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test user_lock_free`, and
//! the same with `--features loom`.
#![cfg(any(feature = "loom", feature = "shuttle"))]

#[cfg(feature = "loom")]
mod loom_notify {
    use std::future::poll_fn;
    use std::task::{Poll, Waker};

    use pipecheck_core::InvariantId;
    use pipecheck_core::primitive::cell::UnsafeCell;
    use pipecheck_core::primitive::future::block_on;
    use pipecheck_core::primitive::sync::atomic::{self, Ordering};
    use pipecheck_core::primitive::sync::{Arc, Mutex};
    use pipecheck_core::primitive::thread;
    use pipecheck_models::engine::loom::Loom;
    use pipecheck_models::loom_harness::expect_model_caught;
    use pipecheck_models::must_fail::must_fail_in_child;
    use pipecheck_properties::{Engine, Verdict};

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
            if self.variant == Variant::Relaxed { Ordering::Relaxed } else { Ordering::Release }
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

    #[test]
    fn notify_without_recheck_loses_the_wakeup() {
        expect_model_caught(
            InvariantId::NO_LOST_WAKEUP,
            BOUND,
            notify::<atomic::AtomicBool>(Variant::NoRecheck),
        );
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
        let test = "loom_notify::a_data_race_is_classified_with_loom_location_and_loom_log_set";
        let verdict = must_fail_in_child(
            test,
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
}

#[cfg(feature = "shuttle")]
mod shuttle_slot {
    use pipecheck_core::primitive::cell::UnsafeCell;
    use pipecheck_core::primitive::sync::Arc;
    use pipecheck_core::primitive::sync::atomic::{AtomicBool, Ordering};
    use pipecheck_core::primitive::thread;
    use pipecheck_models::engine::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind, Shuttle};
    use pipecheck_properties::{Engine, FailureKind, Verdict};

    /// Values sent through the ring per execution.
    const VALUES: u64 = 3;
    /// Schedules per scheduler.
    const ITERATIONS: usize = 1_000;

    fn engines() -> [Shuttle; 2] {
        let engine =
            |kind| Shuttle { kind, seed: 0x5107, iterations: ITERATIONS, max_steps: DEFAULT_MAX_STEPS };
        [engine(SchedulerKind::Random), engine(SchedulerKind::Pct { depth: PCT_DEPTHS[0] })]
    }

    /// A one-slot ring: `full` says the slot holds a value the consumer has not taken.
    struct OneSlot {
        slot: UnsafeCell<u64>,
        full: AtomicBool,
    }

    // SAFETY: `full` hands the slot from one thread to the other: the producer writes it
    // only while it is free, the consumer reads it only while it is full (the planted
    // bug breaks exactly that).
    unsafe impl Sync for OneSlot {}

    /// One execution: a producer sends 1..=VALUES, the consumer checks each. With
    /// `frees_before_reading`, the consumer marks the slot free before reading it, and
    /// the producer can overwrite the value in between.
    fn ring(frees_before_reading: bool) -> pipecheck_properties::Execution {
        std::sync::Arc::new(move || {
            let ring = Arc::new(OneSlot { slot: UnsafeCell::new(0), full: AtomicBool::new(false) });
            let producer = ring.clone();
            let producer = thread::spawn(move || {
                for value in 1..=VALUES {
                    while producer.full.load(Ordering::Acquire) {
                        thread::yield_now();
                    }
                    // SAFETY: the slot is free (`full` is false), and only this thread fills it.
                    producer.slot.with_mut(|p| unsafe { *p = value });
                    producer.full.store(true, Ordering::Release);
                }
            });
            for expected in 1..=VALUES {
                while !ring.full.load(Ordering::Acquire) {
                    thread::yield_now();
                }
                let value = if frees_before_reading {
                    ring.full.store(false, Ordering::Release);
                    // The planted bug: the slot is free, the producer may be writing it.
                    // SAFETY: none; shuttle runs one task at a time, so the read is not torn.
                    ring.slot.with(|p| unsafe { *p })
                } else {
                    // SAFETY: the slot is full, and the producer writes it only once it is free.
                    let value = ring.slot.with(|p| unsafe { *p });
                    ring.full.store(false, Ordering::Release);
                    value
                };
                assert_eq!(
                    value, expected,
                    "slot reuse: the consumer read a value that overwrote the one it freed"
                );
            }
            producer.join().unwrap();
        })
    }

    /// A failing run prints no advice that does not reproduce it: shuttle's "set the
    /// environment variable SHUTTLE_RANDOM_SEED" is suppressed (pipecheck refuses that
    /// variable; its own failure report says how to reproduce).
    #[test]
    fn a_failing_run_does_not_advise_shuttle_random_seed() {
        const CHILD: &str = "PIPECHECK_CHILD_SHUTTLE_ADVICE";
        if std::env::var_os(CHILD).is_some() {
            let kind = match engines()[0].check(ring(true)).verdict {
                Verdict::Fail(failure) => failure.kind(),
                Verdict::Pass => "pass",
            };
            eprintln!("child verdict: {kind}");
            return;
        }
        let test = "shuttle_slot::a_failing_run_does_not_advise_shuttle_random_seed";
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([test, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .output()
            .expect("the child test runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("child verdict: panic"), "the child run failed as planted:\n{stderr}");
        assert!(!stderr.contains("SHUTTLE_RANDOM_SEED"), "shuttle's seed advice was printed:\n{stderr}");
    }

    #[test]
    fn a_one_slot_ring_is_green_under_random_and_pct() {
        for engine in engines() {
            let checked = engine.check(ring(false));
            assert_eq!(checked.verdict, Verdict::Pass, "{}: {}", engine.name(), checked.verdict);
        }
    }

    /// Needs a scheduling point between the consumer's store and its read of the slot:
    /// the facade's `UnsafeCell::with` (under the `std` cell, every schedule passed).
    #[test]
    fn a_slot_freed_before_it_is_read_is_caught_under_random_and_pct() {
        for engine in engines() {
            let checked = engine.check(ring(true));
            match &checked.verdict {
                Verdict::Fail(FailureKind::Panic { message, .. }) if message.contains("slot reuse") => {
                    eprintln!("{}: slot reuse caught at execution {}", engine.name(), checked.executions);
                }
                other => panic!("{}: the slot reuse was not caught: {other}", engine.name()),
            }
        }
    }
}
