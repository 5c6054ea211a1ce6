//! The shipped bugs under loom and shuttle used directly, without pipecheck's engines:
//! `loom::model` and `shuttle::check_random` over the ports, in the shape of the crates'
//! own tests where they had one (tokio's `loom_oneshot.rs` and `loom_notify.rs`), each
//! run once with the fix and once with the shipped bug switched on. They answer the
//! question of `README.md`'s last column: would the checker alone have caught it?
#![cfg(any(feature = "loom", feature = "shuttle"))]

use std::panic::{AssertUnwindSafe, catch_unwind};

use pipecheck::PlantedFault;
use pipecheck::sync::Arc;
use pipecheck::thread;

/// Runs `model` with `fault` switched on (or none), and returns the checker's panic
/// message, if it failed.
fn failure(fault: Option<&'static PlantedFault>, model: impl FnOnce()) -> Option<String> {
    let result = PlantedFault::activate_opt(fault, || catch_unwind(AssertUnwindSafe(model)));
    let payload = result.err()?;
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    Some(message)
}

/// Runs `model` with `fault` switched on in a child process (a rerun of this test
/// binary, filtered to `test`), and returns the child's stderr if it failed: loom
/// aborts the process when it unwinds the threads of a deadlocked model.
fn failure_in_child(test: &str, fault: &'static PlantedFault, model: impl FnOnce()) -> Option<String> {
    const CHILD: &str = "ZOO_DIRECT_CHILD";
    if std::env::var(CHILD).as_deref() == Ok(test) {
        fault.activate(model);
        std::process::exit(0);
    }
    let exe = std::env::current_exe().expect("the test binary");
    let output = std::process::Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, test)
        .output()
        .expect("the test binary runs");
    (!output.status.success()).then(|| String::from_utf8_lossy(&output.stderr).into_owned())
}

/// tokio's `try_recv_close` loom test (tokio-rs/tokio#4226), on the port.
fn oneshot_try_recv_close() {
    let (tx, mut rx) = zoo::tokio_oneshot::channel::<()>();
    let sender = thread::spawn(move || {
        let _ = tx.send(());
    });
    rx.close();
    let _ = rx.try_recv();
    sender.join().unwrap();
}

/// tokio's `notify_waiters_and_one` loom test (tokio-rs/tokio#3660), on the port.
fn notify_waiters_and_one() {
    use zoo::tokio_notify::Notify;
    let notify = Arc::new(Notify::new());
    let (tx1, tx2) = (notify.clone(), notify.clone());
    let th1 = thread::spawn(move || tx1.notify_waiters());
    let th2 = thread::spawn(move || tx2.notify_one());
    let th3 = thread::spawn(move || pipecheck::future::block_on(notify.notified()));
    th1.join().unwrap();
    th2.join().unwrap();
    th3.join().unwrap();
}

/// Two threads `try_read` a spin 0.5 `RwLock` nobody writes; both must succeed.
fn spin_readers() {
    let lock = Arc::new(zoo::spin_rwlock::RwLock::new(0u64));
    let other = lock.clone();
    let reader = thread::spawn(move || assert!(other.try_read().is_some(), "try_read failed with no writer"));
    assert!(lock.try_read().is_some(), "try_read failed with no writer");
    reader.join().unwrap();
}

/// A `Notified` polled once with a no-op waker, then awaited with `block_on`'s while a
/// thread calls `notify_one` (tokio-rs/tokio#4751).
fn notify_repoll_with_new_waker() {
    use std::future::Future;
    use std::task::{Context, Waker};
    let notify = Arc::new(zoo::tokio_notify::Notify::new());
    let mut notified = Box::pin(notify.notified());
    assert!(notified.as_mut().poll(&mut Context::from_waker(Waker::noop())).is_pending());
    let other = notify.clone();
    let notifier = thread::spawn(move || other.notify_one());
    pipecheck::future::block_on(notified);
    notifier.join().unwrap();
}

#[cfg(feature = "loom")]
mod loom_alone {
    use super::*;
    use zoo::thread_local_iter::ThreadLocal;

    /// `loom::model` at tokio CI's bound (`LOOM_MAX_PREEMPTIONS=2`).
    fn model(f: fn()) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(2);
        builder.check(f);
    }

    #[test]
    fn tokio_oneshot_close_race_is_caught_by_tokios_own_loom_test() {
        use zoo::tokio_oneshot::SetCompleteOnClosed;
        assert_eq!(failure(None, || model(oneshot_try_recv_close)), None);
        let caught = failure(Some(&SetCompleteOnClosed), || model(oneshot_try_recv_close));
        assert!(caught.as_deref().is_some_and(|m| m.contains("Causality violation")), "{caught:?}");
    }

    #[test]
    fn tokio_notify_lost_permit_is_caught_by_tokios_own_loom_test() {
        use zoo::tokio_notify::NotifyWaitersStoresState;
        const TEST: &str = "loom_alone::tokio_notify_lost_permit_is_caught_by_tokios_own_loom_test";
        let caught = failure_in_child(TEST, &NotifyWaitersStoresState, || model(notify_waiters_and_one));
        assert!(caught.as_deref().is_some_and(|m| m.contains("deadlock")), "{caught:?}");
        assert_eq!(failure(None, || model(notify_waiters_and_one)), None);
    }

    #[test]
    fn spin_try_read_is_caught_by_a_plain_loom_model() {
        use zoo::spin_rwlock::TryReadLoadThenSwap;
        assert_eq!(failure(None, || model(spin_readers)), None);
        let caught = failure(Some(&TryReadLoadThenSwap), || model(spin_readers));
        assert!(caught.as_deref().is_some_and(|m| m.contains("try_read failed")), "{caught:?}");
    }

    #[test]
    fn tokio_notify_stale_waker_is_caught_by_a_plain_loom_model() {
        use zoo::tokio_notify::WillWakeInverted;
        const TEST: &str = "loom_alone::tokio_notify_stale_waker_is_caught_by_a_plain_loom_model";
        let caught = failure_in_child(TEST, &WillWakeInverted, || model(notify_repoll_with_new_waker));
        assert!(caught.as_deref().is_some_and(|m| m.contains("deadlock")), "{caught:?}");
        assert_eq!(failure(None, || model(notify_repoll_with_new_waker)), None);
    }

    /// Two threads increment under a spin 0.5 write lock.
    fn spin_writers() {
        let lock = Arc::new(zoo::spin_rwlock::RwLock::new(0u64));
        let other = lock.clone();
        let writer = thread::spawn(move || other.write().update(|v| *v += 1));
        lock.write().update(|v| *v += 1);
        writer.join().unwrap();
    }

    /// Two threads call thread_local 1.0's `get_or`, one growing the table.
    fn thread_local_get_or() {
        let tls = Arc::new(zoo::thread_local_table::ThreadLocal::<u64>::new());
        let other = tls.clone();
        let thread = thread::spawn(move || assert_eq!(*other.get_or(1, || 10), 10));
        assert_eq!(*tls.get_or(2, || 20), 20);
        thread.join().unwrap();
    }

    /// A reader of parking_lot 0.12's `RawRwLock` leaves while a writer takes the lock.
    fn parking_lot_reader_and_writer() {
        let lock = Arc::new(zoo::parking_lot_rwlock::RawRwLock::new(0));
        assert!(lock.try_lock_shared());
        let other = lock.clone();
        let reader = thread::spawn(move || {
            assert_eq!(other.read(), 0);
            other.unlock_shared();
        });
        lock.lock_exclusive();
        lock.write(1);
        lock.unlock_exclusive();
        reader.join().unwrap();
    }

    /// The weak-memory bugs, each as the smallest program that runs into it.
    #[test]
    fn weak_memory_bugs_are_caught_by_plain_loom_models() {
        use zoo::parking_lot_rwlock::ParkedBitCasRelaxed;
        use zoo::spin_rwlock::WriteUnlockRelaxed;
        use zoo::thread_local_table::GetFastRelaxedTableLoad;
        let programs: [(&'static PlantedFault, fn()); 3] = [
            (&WriteUnlockRelaxed, spin_writers),
            (&GetFastRelaxedTableLoad, thread_local_get_or),
            (&ParkedBitCasRelaxed, parking_lot_reader_and_writer),
        ];
        for (fault, program) in programs {
            assert_eq!(failure(None, || model(program)), None, "{fault} fixed");
            let caught = failure(Some(fault), || model(program));
            assert!(
                caught.as_deref().is_some_and(|m| m.contains("Causality violation")),
                "{fault}: {caught:?}"
            );
        }
    }

    /// The program of Amanieu/thread_local-rs#33 (found with Miri): this thread iterates
    /// while a spawned one inserts.
    fn iterate_while_spawned_inserts() {
        let tls = Arc::new(ThreadLocal::<u64>::new());
        let other = tls.clone();
        let inserter = thread::spawn(move || other.insert(1, 2));
        let _ = tls.iter_cloned();
        inserter.join().unwrap();
    }

    /// The same with the iteration on a thread spawned after the inserter.
    fn iterate_on_a_second_thread() {
        let tls = Arc::new(ThreadLocal::<u64>::new());
        let (a, b) = (tls.clone(), tls.clone());
        let inserter = thread::spawn(move || a.insert(1, 2));
        let iterator = thread::spawn(move || drop(b.iter_cloned()));
        inserter.join().unwrap();
        iterator.join().unwrap();
    }

    /// What loom 0.7.3 does with the thread_local bug, written as #33's program: it
    /// explores one interleaving and passes (at bound 2, and unbounded). Its
    /// partial-order reduction keeps one last access per atomic, and `insert` loads the bucket pointer right
    /// before storing it, so the store never meets the iterator's earlier load and no
    /// schedule with the store first is tried. With the iteration on a second thread,
    /// loom's first schedule already runs the insert first, and the race is reported.
    #[test]
    fn thread_local_iter_race_depends_on_the_test_shape_under_loom() {
        use zoo::thread_local_iter::IterRelaxedBucketLoad;
        let bug = Some(&IterRelaxedBucketLoad);
        assert_eq!(
            failure(bug, || model(iterate_while_spawned_inserts)),
            None,
            "loom caught it now: update the README"
        );
        let caught = failure(bug, || model(iterate_on_a_second_thread));
        assert!(caught.as_deref().is_some_and(|m| m.contains("Causality violation")), "{caught:?}");
        assert_eq!(failure(None, || model(iterate_on_a_second_thread)), None);
    }
}

#[cfg(feature = "shuttle")]
mod shuttle_alone {
    use super::*;

    const ITERATIONS: usize = 1000;

    fn random(f: fn()) {
        shuttle::check_random(f, ITERATIONS);
    }

    #[test]
    fn tokio_notify_lost_permit_is_caught_by_shuttle() {
        use zoo::tokio_notify::NotifyWaitersStoresState;
        const TEST: &str = "shuttle_alone::tokio_notify_lost_permit_is_caught_by_shuttle";
        let caught = failure_in_child(TEST, &NotifyWaitersStoresState, || random(notify_waiters_and_one));
        assert!(caught.as_deref().is_some_and(|m| m.contains("deadlock")), "{caught:?}");
        assert_eq!(failure(None, || random(notify_waiters_and_one)), None);
    }

    /// Shuttle has no race detector: what it sees of the oneshot bug is its consequence
    /// in the schedules where the receiver takes the value first, the sender's `unwrap`
    /// of a value that is gone.
    #[test]
    fn tokio_oneshot_close_race_shows_under_shuttle_only_as_its_consequence() {
        use zoo::tokio_oneshot::SetCompleteOnClosed;
        assert_eq!(failure(None, || random(oneshot_try_recv_close)), None);
        let caught = failure(Some(&SetCompleteOnClosed), || random(oneshot_try_recv_close));
        assert!(caught.as_deref().is_some_and(|m| m.contains("still in the cell")), "{caught:?}");
    }

    #[test]
    fn tokio_notify_stale_waker_is_caught_by_shuttle() {
        use zoo::tokio_notify::WillWakeInverted;
        const TEST: &str = "shuttle_alone::tokio_notify_stale_waker_is_caught_by_shuttle";
        let caught = failure_in_child(TEST, &WillWakeInverted, || random(notify_repoll_with_new_waker));
        assert!(caught.as_deref().is_some_and(|m| m.contains("deadlock")), "{caught:?}");
        assert_eq!(failure(None, || random(notify_repoll_with_new_waker)), None);
    }

    #[test]
    fn spin_try_read_is_caught_by_shuttle() {
        use zoo::spin_rwlock::TryReadLoadThenSwap;
        assert_eq!(failure(None, || random(spin_readers)), None);
        let caught = failure(Some(&TryReadLoadThenSwap), || random(spin_readers));
        assert!(caught.as_deref().is_some_and(|m| m.contains("try_read failed")), "{caught:?}");
    }
}
