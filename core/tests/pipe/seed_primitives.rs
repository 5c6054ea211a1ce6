//! Plain `std` tests of the seed primitives: every typed error, FIFO hand-over and
//! cancellation of the async mutex, and the partitioned pool's home preference.

use crate::common::block_on;
use crate::common::watchdog::{Watch, phase};

use std::pin::pin;
use std::task::{Context, Waker};

use pipecheck_pipe::{
    AsyncMutex, ChannelError, CompletionError, CompletionSource, Message, PartitionedPool, PipeOptions,
    message_channel,
};

#[test]
fn stale_token_is_refused_everywhere() {
    let source = CompletionSource::new();
    let old = source.reset();
    let new = source.reset();
    let stale = Err(CompletionError::StaleToken { token: 1, current: 2 });
    assert_eq!(source.set_result(old, 1), stale.map(|_: i32| ()));
    assert_eq!(source.get_result(old), stale);
    assert_eq!(block_on(source.wait(old)), stale);
    source.set_result(new, 2).unwrap();
    assert_eq!(source.get_result(new), Ok(2));
}

#[test]
fn a_token_before_the_first_reset_is_stale() {
    let source = CompletionSource::<u8>::new();
    let first = source.reset();
    let reused = CompletionSource::<u8>::new();
    assert_eq!(reused.get_result(first), Err(CompletionError::StaleToken { token: 1, current: 0 }));
}

#[test]
fn second_set_result_is_refused() {
    let source = CompletionSource::new();
    let token = source.reset();
    source.set_result(token, "first").unwrap();
    assert_eq!(source.set_result(token, "second"), Err(CompletionError::AlreadyCompleted { version: 1 }));
    assert_eq!(source.get_result(token), Ok("first"));
}

#[test]
fn second_get_result_is_refused() {
    let source = CompletionSource::new();
    let token = source.reset();
    assert_eq!(source.get_result(token), Err(CompletionError::NotCompleted { version: 1 }));
    source.set_result(token, 3).unwrap();
    assert_eq!(source.get_result(token), Ok(3));
    assert_eq!(source.get_result(token), Err(CompletionError::ResultTaken { version: 1 }));
}

#[test]
fn second_waiter_is_refused_until_the_first_is_dropped() {
    let source = CompletionSource::<u8>::new();
    let token = source.reset();
    let mut cx = Context::from_waker(Waker::noop());
    let mut first = Box::pin(source.wait(token));
    assert!(first.as_mut().poll(&mut cx).is_pending());
    let mut second = pin!(source.wait(token));
    assert_eq!(
        second.as_mut().poll(&mut cx),
        std::task::Poll::Ready(Err(CompletionError::SecondWaiter { version: 1 }))
    );
    drop(first); // cancelled: the place is free again
    source.set_result(token, 9).unwrap();
    assert_eq!(block_on(source.wait(token)), Ok(9));
}

#[test]
fn reuse_keeps_one_allocation_across_operations() {
    let source = CompletionSource::new();
    for i in 0..100u32 {
        let token = source.reset();
        assert_eq!(token.version(), u64::from(i) + 1);
        source.set_result(token, i).unwrap();
        assert_eq!(block_on(source.wait(token)), Ok(i));
    }
}

#[test]
fn mutex_serves_waiters_in_fifo_order() {
    let mutex = AsyncMutex::new(Vec::new());
    let mut cx = Context::from_waker(Waker::noop());
    let holder = block_on(mutex.lock());
    let mut waiters: Vec<_> = (0..3).map(|_| Box::pin(mutex.lock())).collect();
    for waiter in &mut waiters {
        assert!(waiter.as_mut().poll(&mut cx).is_pending());
    }
    drop(holder);
    for (i, waiter) in waiters.iter_mut().enumerate() {
        let mut guard = match waiter.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(guard) => guard,
            std::task::Poll::Pending => panic!("waiter {i} was not handed the lock in order"),
        };
        guard.push(i);
    }
    assert_eq!(*block_on(mutex.lock()), [0, 1, 2]);
}

#[test]
fn mutex_cancelled_waiter_leaks_no_permit() {
    let mutex = AsyncMutex::new(());
    let mut cx = Context::from_waker(Waker::noop());
    let holder = block_on(mutex.lock());
    let mut cancelled = Box::pin(mutex.lock());
    let mut next = Box::pin(mutex.lock());
    assert!(cancelled.as_mut().poll(&mut cx).is_pending());
    assert!(next.as_mut().poll(&mut cx).is_pending());
    drop(cancelled);
    drop(holder);
    let guard = match next.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(guard) => guard,
        std::task::Poll::Pending => panic!("the lock skipped over the cancelled waiter to nobody"),
    };
    assert!(mutex.try_lock().is_none(), "two holders after a cancellation");
    drop(guard);
    drop(next);
    assert!(mutex.try_lock().is_some(), "a permit leaked");
}

#[test]
fn mutex_waiter_dropped_after_hand_over_passes_the_lock_on() {
    let mutex = AsyncMutex::new(());
    let mut cx = Context::from_waker(Waker::noop());
    let holder = block_on(mutex.lock());
    let mut handed = Box::pin(mutex.lock());
    assert!(handed.as_mut().poll(&mut cx).is_pending());
    drop(holder); // hands the lock to `handed`, which never polls again
    drop(handed);
    assert!(mutex.try_lock().is_some(), "the handed-over lock was lost with its future");
}

#[test]
fn mutex_excludes_across_threads() {
    let mutex = std::sync::Arc::new(AsyncMutex::new(0u64));
    let watch = Watch::new();
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let mutex = mutex.clone();
            watch.spawn(format!("locker {i}"), move || {
                phase("lock()");
                for _ in 0..10_000 {
                    *block_on(mutex.lock()) += 1;
                }
            })
        })
        .collect();
    watch.join_all(threads);
    assert_eq!(*block_on(mutex.lock()), 40_000);
}

#[test]
fn channel_errors_are_typed() {
    let (tx, rx) = message_channel(PipeOptions::new()).unwrap();
    drop(tx);
    assert_eq!(block_on(rx.receive()), Err(ChannelError::Truncated));

    let (mut tx, rx) = message_channel(PipeOptions::new()).unwrap();
    drop(rx);
    assert_eq!(block_on(tx.send(b"x")), Err(ChannelError::ReceiverGone));
}

#[test]
fn channel_delivers_in_order_and_close_is_idempotent() {
    let (mut tx, rx) =
        message_channel(PipeOptions::new().minimum_segment_size(4).maximum_segment_size(8)).unwrap();
    block_on(async {
        for m in [&b"one"[..], b"two", b"three"] {
            tx.send(m).await.unwrap();
        }
        tx.close().await.unwrap();
    });
    assert_eq!(block_on(rx.receive()), Ok(Message::Data(b"one".to_vec())));
    assert_eq!(block_on(rx.close()), Ok(vec![b"two".to_vec(), b"three".to_vec()]));
    assert_eq!(block_on(rx.close()), Ok(vec![]));
    assert_eq!(block_on(rx.receive()), Ok(Message::Closed));
}

#[test]
fn pool_prefers_the_home_partition() {
    let pool = PartitionedPool::new(2, 16);
    let (a, b) = (pool.handle(0), pool.handle(1));
    a.give_back(vec![0xa; 16].into_boxed_slice());
    b.give_back(vec![0xb; 16].into_boxed_slice());
    assert_eq!(b.rent()[0], 0xb);
    assert_eq!(a.rent()[0], 0xa);
}

#[test]
fn pool_rents_and_returns_balance_across_threads() {
    let pool = std::sync::Arc::new(PartitionedPool::new(2, 64));
    let watch = Watch::new();
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let pool = pool.clone();
            watch.spawn(format!("pool user {i}"), move || {
                let home = pool.handle(i);
                for _ in 0..1_000 {
                    phase("rent()");
                    let (x, y) = (home.rent(), home.rent());
                    phase("give_back()");
                    home.give_back(x);
                    home.give_back(y);
                }
            })
        })
        .collect();
    watch.join_all(threads);
    assert_eq!(pool.stats().outstanding(), Some(0));
}

/// Counts the wakes it receives.
struct CountingWaker(std::sync::atomic::AtomicUsize);

impl std::task::Wake for CountingWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

// A `reset` that dropped this waker without waking it would leave the waiter asleep
// although its token is stale (the planted `ResetStrandsWaiter`).
#[test]
fn reset_wakes_a_waiter_of_the_operation_it_ends() {
    let source = CompletionSource::<u8>::new();
    let first = source.reset();
    let wakes = std::sync::Arc::new(CountingWaker(std::sync::atomic::AtomicUsize::new(0)));
    let waker = Waker::from(wakes.clone());
    let mut cx = Context::from_waker(&waker);
    let mut wait = pin!(source.wait(first));
    assert!(wait.as_mut().poll(&mut cx).is_pending());
    source.reset();
    assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 1, "reset must wake the stale waiter");
    assert_eq!(
        wait.as_mut().poll(&mut cx),
        std::task::Poll::Ready(Err(CompletionError::StaleToken { token: 1, current: 2 }))
    );
}

#[test]
fn a_result_wakes_the_pending_waiter() {
    let source = CompletionSource::<u8>::new();
    let token = source.reset();
    let (counter, waker) = crate::common::WakeCounter::new();
    let mut cx = Context::from_waker(&waker);
    let mut wait = Box::pin(source.wait(token));
    assert!(wait.as_mut().poll(&mut cx).is_pending());
    source.set_result(token, 5).unwrap();
    assert_eq!(counter.wakes(), 1, "set_result wakes the registered waiter");
    assert_eq!(wait.as_mut().poll(&mut cx), std::task::Poll::Ready(Ok(5)));
}

#[test]
fn a_clone_of_a_completion_source_is_the_same_operation() {
    let source = CompletionSource::<u8>::new();
    let completer = source.clone();
    let token = source.reset();
    completer.set_result(token, 3).expect("the clone sees the operation the original started");
    assert_eq!(block_on(source.wait(token)), Ok(3));
}

#[test]
fn completion_errors_say_what_went_wrong() {
    let message = CompletionError::StaleToken { token: 1, current: 2 }.to_string();
    assert!(message.contains("operation 1") && message.contains("operation 2"), "{message}");
}

/// Counts the events a primitive reports.
#[derive(Default)]
struct CountingObserver(std::sync::atomic::AtomicUsize);

impl pipecheck_pipe::PrimitiveObserver for CountingObserver {
    fn on_primitive_event(&self, _: pipecheck_pipe::PrimitiveEvent) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn an_observed_completion_source_reports_its_operations() {
    let observer = std::sync::Arc::new(CountingObserver::default());
    let source = CompletionSource::<u8>::new().observed(observer.clone());
    let token = source.reset();
    source.set_result(token, 1).unwrap();
    assert_eq!(block_on(source.wait(token)), Ok(1));
    assert!(observer.0.load(std::sync::atomic::Ordering::SeqCst) > 0, "no event reached the observer");
}

#[test]
fn a_queued_lock_polled_again_with_another_waker_wakes_the_new_one() {
    let mutex = AsyncMutex::new(());
    let holder = mutex.try_lock().expect("uncontended");
    let (first, first_waker) = crate::common::WakeCounter::new();
    let (second, second_waker) = crate::common::WakeCounter::new();
    let mut waiter = Box::pin(mutex.lock());
    assert!(waiter.as_mut().poll(&mut Context::from_waker(&first_waker)).is_pending());
    // The task moved: only the new waker can reach it now.
    assert!(waiter.as_mut().poll(&mut Context::from_waker(&second_waker)).is_pending());
    drop(holder);
    assert_eq!((first.wakes(), second.wakes()), (0, 1), "the hand-over wakes the latest waker");
    assert!(waiter.as_mut().poll(&mut Context::from_waker(&second_waker)).is_ready());
}

#[test]
fn dropping_a_queued_lock_leaves_the_waiters_behind_it_queued() {
    let mutex = AsyncMutex::new(());
    let holder = mutex.try_lock().expect("uncontended");
    let mut cx = Context::from_waker(Waker::noop());
    let mut first = Box::pin(mutex.lock());
    assert!(first.as_mut().poll(&mut cx).is_pending());
    let (counter, waker) = crate::common::WakeCounter::new();
    let mut second = Box::pin(mutex.lock());
    assert!(second.as_mut().poll(&mut Context::from_waker(&waker)).is_pending());
    drop(first); // abandoned: it leaves the queue, the second waiter stays
    drop(holder);
    assert_eq!(counter.wakes(), 1, "the lock goes to the waiter still queued");
    assert!(second.as_mut().poll(&mut Context::from_waker(&waker)).is_ready());
}

#[test]
fn an_abandoned_waiter_leaves_no_spare_permit_behind() {
    let mutex = AsyncMutex::new(());
    let holder = mutex.try_lock().expect("uncontended");
    let mut cx = Context::from_waker(Waker::noop());
    let mut abandoned = Box::pin(mutex.lock());
    assert!(abandoned.as_mut().poll(&mut cx).is_pending());
    drop(abandoned);
    drop(holder); // hands the lock to the abandoned waiter, which exits at once
    let again = mutex.try_lock().expect("the lock is free again");
    let mut next = Box::pin(mutex.lock());
    assert!(next.as_mut().poll(&mut cx).is_pending(), "one holder at a time: the lock is held");
    drop(again);
    assert!(next.as_mut().poll(&mut cx).is_ready());
}

/// Keeps every event a primitive reports, in order.
#[derive(Default)]
struct EventLog(std::sync::Mutex<Vec<pipecheck_pipe::PrimitiveEvent>>);

impl pipecheck_pipe::PrimitiveObserver for EventLog {
    fn on_primitive_event(&self, event: pipecheck_pipe::PrimitiveEvent) {
        self.0.lock().unwrap().push(event);
    }
}

/// The checkers match each data message's send, read and delivery by its number: the
/// numbers count from 0 on both sides, and every message read is delivered once.
#[test]
fn an_observed_channel_numbers_each_message_sent_read_and_delivered() {
    use pipecheck_pipe::PrimitiveEvent as E;
    let log = std::sync::Arc::new(EventLog::default());
    let (mut tx, rx) = pipecheck_pipe::message_channel_observed(PipeOptions::new(), log.clone()).unwrap();
    // The last one longer than a frame header, so its length is not mistaken for less.
    let messages = [b"one".to_vec(), b"two".to_vec(), b"a message longer than its header".to_vec()];
    block_on(async {
        for m in &messages {
            tx.send(m).await.unwrap();
        }
        tx.close().await.unwrap();
    });
    assert_eq!(block_on(rx.receive()), Ok(Message::Data(messages[0].clone())));
    assert_eq!(block_on(rx.close()), Ok(messages[1..].to_vec()));
    let events = std::mem::take(&mut *log.0.lock().unwrap());
    let sent: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            E::MessageSent { seq, payload, .. } => Some((*seq, payload.clone())),
            _ => None,
        })
        .collect();
    let read: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            E::MessageRead { seq, by_close, .. } => Some((*seq, *by_close)),
            _ => None,
        })
        .collect();
    let delivered: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            E::MessageDelivered { seq, payload, .. } => Some((*seq, payload.clone())),
            _ => None,
        })
        .collect();
    let numbered: Vec<_> = messages.iter().cloned().enumerate().map(|(i, m)| (i as u64, m)).collect();
    assert_eq!(sent, numbered, "MessageSent events");
    assert_eq!(read, [(0, false), (1, true), (2, true)], "MessageRead events (seq, by_close)");
    assert_eq!(delivered, numbered, "MessageDelivered events");
    let closes = events.iter().filter(|e| matches!(e, E::ChannelCloseReturned { .. })).count();
    assert_eq!(closes, 1, "ChannelCloseReturned events");
}

#[test]
fn channel_errors_say_what_went_wrong() {
    let pipe = pipecheck_pipe::PipeError::SizeHintTooLarge { size_hint: 9, max: 4 };
    assert_eq!(ChannelError::from(pipe.clone()), ChannelError::Pipe(pipe.clone()));
    let cases = [
        (ChannelError::Pipe(pipe.clone()), pipe.to_string()),
        (ChannelError::Truncated, "close frame".to_owned()),
        (ChannelError::ReceiverGone, "receiving end".to_owned()),
        (ChannelError::BadFrame { kind: 7 }, "kind 7".to_owned()),
        (ChannelError::TooLong { len: 5 }, "5 bytes".to_owned()),
    ];
    for (error, expected) in cases {
        let message = error.to_string();
        assert!(message.contains(&expected), "{error:?} says {message:?}, not {expected:?}");
    }
}

#[test]
fn a_pool_handle_wraps_its_index_around_the_partitions() {
    let pool = PartitionedPool::new(4, 8);
    assert_eq!(pool.partitions(), 4);
    let homes: Vec<_> = [0, 1, 3, 6].iter().map(|&i| pool.handle(i).home()).collect();
    assert_eq!(homes, [0, 1, 3, 2], "homes of handles 0, 1, 3 and 6 of 4 partitions");
    assert_eq!(PartitionedPool::new(0, 8).partitions(), 1, "at least one partition");
}

#[test]
fn a_full_partition_discards_what_comes_back() {
    let pool = PartitionedPool::new(1, 8).keep_per_partition(1);
    let home = pool.handle(0);
    let (a, b) = (home.rent(), home.rent());
    home.give_back(a);
    assert_eq!(pool.stats(), pipecheck_pipe::PoolStats { allocated: 2, pooled: 1, discarded: 0 });
    assert_eq!(pool.stats().outstanding(), Some(1), "b is still out");
    home.give_back(b);
    assert_eq!(pool.stats(), pipecheck_pipe::PoolStats { allocated: 2, pooled: 1, discarded: 1 });
    assert_eq!(pool.stats().outstanding(), Some(0));
}

/// The balanced-pool checker follows each buffer through these events, with the
/// partition it left or joined and the count left there.
#[test]
fn an_observed_pool_reports_rents_returns_and_discards_with_their_partition() {
    use pipecheck_pipe::PrimitiveEvent as E;
    let log = std::sync::Arc::new(EventLog::default());
    let pool = PartitionedPool::new(2, 8).keep_per_partition(1).observed(log.clone());
    let (home, other) = (pool.handle(1), pool.handle(0));
    let (a, b) = (home.rent(), home.rent());
    home.give_back(a);
    home.give_back(b);
    let stolen = other.rent();
    other.give_back(stolen);
    let events: Vec<_> = std::mem::take(&mut *log.0.lock().unwrap())
        .into_iter()
        .map(|e| match e {
            E::PoolRented { partition, pooled, .. } => format!("rented from {partition:?}, {pooled} left"),
            E::PoolReturned { partition, pooled, .. } => format!("returned to {partition}, {pooled} there"),
            E::PoolDiscarded { partition, .. } => format!("discarded by {partition}"),
            E::PoolMissed { partition, .. } => format!("missed in {partition}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        events,
        [
            "rented from None, 0 left",
            "rented from None, 0 left",
            "returned to 1, 1 there",
            "discarded by 1",
            "rented from Some(1), 0 left",
            "returned to 0, 1 there",
        ]
    );
}

/// The checkers tell the async mutex's hand-overs apart by the exit that made them:
/// each contended exit carries a number of its own, and its hand-over the same one.
#[test]
fn an_observed_mutex_numbers_each_contended_exit() {
    use pipecheck_pipe::PrimitiveEvent as E;
    let log = std::sync::Arc::new(EventLog::default());
    let mutex = AsyncMutex::new(()).observed(log.clone());
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut held = mutex.try_lock().expect("free");
    for _ in 0..2 {
        let mut waiter = Box::pin(mutex.lock());
        assert!(waiter.as_mut().poll(&mut cx).is_pending());
        drop(held);
        held = match waiter.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(guard) => guard,
            std::task::Poll::Pending => panic!("the exit handed the lock over"),
        };
    }
    drop(held);
    let events = std::mem::take(&mut *log.0.lock().unwrap());
    let (mut exits, mut handed) = (Vec::new(), Vec::new());
    for event in &events {
        match event {
            E::MutexExitContended { exit, .. } => exits.push(*exit),
            E::MutexHandedOver { exit, .. } => handed.push(*exit),
            _ => {}
        }
    }
    assert_eq!(exits.len(), 2, "two exits found a waiter: {events:?}");
    assert_ne!(exits[0], exits[1], "each contended exit has its own number");
    assert_eq!(handed, exits, "each hand-over names the exit that made it");
}

/// Only the wait that became the operation's waiter gives the place up when dropped:
/// one that was never polled, or was refused as a second waiter, leaves the waiter's
/// waker where it is, and the result still wakes it.
#[test]
fn dropping_a_wait_that_never_became_the_waiter_leaves_the_waiter_alone() {
    use crate::common::{WakeCounter, poll_with};
    let source = CompletionSource::<u8>::new();
    let token = source.reset();
    let (counter, waker) = WakeCounter::new();
    let mut waiting = Box::pin(source.wait(token));
    assert!(poll_with(waiting.as_mut(), &waker).is_pending());
    drop(source.wait(token));
    let mut second = Box::pin(source.wait(token));
    assert_eq!(
        poll_with(second.as_mut(), &waker),
        std::task::Poll::Ready(Err(CompletionError::SecondWaiter { version: token.version() }))
    );
    drop(second);
    source.set_result(token, 7).unwrap();
    assert_eq!(counter.wakes(), 1, "the waiter kept its place and was woken");
    assert_eq!(poll_with(waiting.as_mut(), &waker), std::task::Poll::Ready(Ok(7)));
}
