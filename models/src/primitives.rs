//! Scenario bodies for the seed primitives (async mutex, message channel, completion
//! source, partitioned pool), written once on pipecheck's sync facade and run by every
//! engine: `tests/loom/primitives.rs` (exhaustive, bounded), `tests/shuttle/primitives.rs`
//! (random and PCT schedules) and the campaign.
//!
//! Each body builds its primitive observed by the run's [`Monitor`], which checks
//! **mutual-exclusion**, **token-reuse**, **balanced-pool** and the primitives' share of
//! **no-lost-wakeup** and **byte-exact** online, as it does the pipe's invariants. After
//! the join each body checks its *stated outcomes* (what the caller must see, whatever
//! the schedule) with [`ensure`]. A lost wakeup the monitor cannot see (a task never
//! reaching its next operation) still shows as the engine's deadlock report, which the
//! verdict counts as **no-lost-wakeup**.
//!
//! The `*-dropped-*` and `*-abandoned-*` scenarios cover cancellation: a future dropped
//! racing the start of the next operation, in every primitive.

use std::pin::pin;
use std::sync::Arc as StdArc;
use std::task::{Context, Waker};

use pipecheck::InvariantId;
use pipecheck::ensure;
use pipecheck::future::block_on;
use pipecheck::sync::Arc;
use pipecheck::sync::atomic::{AtomicUsize, Ordering};
use pipecheck::thread;
use pipecheck_pipe::message_channel_observed;
use pipecheck_pipe::{AsyncMutex, CompletionError, CompletionSource, Message, PartitionedPool};
use pipecheck_properties::{CheckConfig, Monitor};

use crate::Scenario;
use crate::scenarios::join;
use pipecheck::Scale;

/// The primitives' scenarios, for the campaign runner and its kill matrix.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "mutex-mutual-exclusion",
        summary: "three tasks take the async mutex and increment its value",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: mutex_mutual_exclusion,
    },
    Scenario {
        name: "mutex-exit-races-enter",
        summary: "the async mutex's holder exits while an entrant counts itself in and queues",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: mutex_exit_races_enter,
    },
    Scenario {
        name: "mutex-cancel-races-exit",
        summary: "a queued async-mutex enter is cancelled while the holder exits",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: mutex_cancel_races_exit,
    },
    Scenario {
        name: "channel-close-races-receive",
        summary: "a message-channel receive and close race for one message and the close frame",
        scale: Scale::Small,
        config: channel_config,
        body: channel_close_races_receive,
    },
    Scenario {
        name: "completion-wakes-waiter",
        summary: "a completion source is completed while its waiter registers",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: completion_wakes_waiter,
    },
    Scenario {
        name: "completion-stale-token",
        summary: "a late duplicate completion races the reuse of the completion source",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: completion_stale_token,
    },
    Scenario {
        name: "pool-rents-and-returns-balance",
        summary: "two workers rent and return on a partitioned pool while one steals from the other",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: pool_rents_and_returns_balance,
    },
    Scenario {
        name: "mutex-lock-dropped-at-handoff",
        summary: "a queued async-mutex Lock is dropped around the hand-over to it while a second waiter waits",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: mutex_lock_dropped_at_handoff,
    },
    Scenario {
        name: "completion-abandoned-then-reset",
        summary: "a completion wait is dropped without a result and completed late while the source is reset and awaited",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: completion_abandoned_then_reset,
    },
    Scenario {
        name: "completion-reset-wakes-stale-waiter",
        summary: "a completion source is reset and completed while a waiter of the previous operation waits",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: completion_reset_wakes_stale_waiter,
    },
    Scenario {
        name: "channel-receive-dropped-while-close-drains",
        summary: "a message-channel receive is polled and dropped while close drains two messages",
        scale: Scale::Small,
        config: channel_config,
        body: channel_receive_dropped_while_close_drains,
    },
];

/// Channel runs: 16-byte segments, so a data frame and the close frame share one.
fn channel_config() -> CheckConfig {
    CheckConfig { minimum_segment_size: 16, maximum_segment_size: 16, ..CheckConfig::default() }
}

/// The monitor as the primitives' observer.
fn observer(monitor: &StdArc<Monitor>) -> StdArc<dyn pipecheck_pipe::PrimitiveObserver> {
    monitor.primitive_observer()
}

/// Polls `future` once with a waker that does nothing, and drops it: a task that gave
/// up (cancellation). Returns what the one poll resolved to, if it did.
fn poll_once_then_drop<F: std::future::Future>(future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    }
}

/// Three tasks take the async mutex (so an exit can find one waiter queued and another
/// still on its way to the queue) and increment its value. The monitor checks
/// **mutual-exclusion** at every admission; stated outcome: all three increments count.
///
/// The value is an atomic incremented by a relaxed load and store: two holders at once
/// can lose an update, as with a plain integer, but do not trip loom's race detector
/// first, so a double admission is reported as the invariant it breaks. (Only the
/// mutex's own acquire/release ordering makes the load see the last store.)
pub fn mutex_mutual_exclusion(monitor: &StdArc<Monitor>) {
    let mutex = Arc::new(AsyncMutex::new(AtomicUsize::new(0)).observed(observer(monitor)));
    let critical = {
        let mutex = mutex.clone();
        move || {
            block_on(async {
                let value = mutex.lock().await;
                value.store(value.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            })
        }
    };
    let others = [thread::spawn(critical.clone()), thread::spawn(critical.clone())];
    critical();
    for other in others {
        join(other);
    }
    let count = block_on(mutex.lock()).load(Ordering::Relaxed);
    ensure(count == 3, pipecheck_pipe::invariant::MUTUAL_EXCLUSION, || {
        format!("{count} of 3 increments survived")
    });
}

/// The holder exits while another task enters: the entrant may have counted itself in
/// the gate but not queued itself yet, and the exit owes it the lock (the monitor's
/// **no-lost-wakeup** obligation). Stated outcome: the entrant ran.
pub fn mutex_exit_races_enter(monitor: &StdArc<Monitor>) {
    let mutex = Arc::new(AsyncMutex::new(Vec::new()).observed(observer(monitor)));
    let guard = block_on(mutex.lock());
    let entrant = {
        let mutex = mutex.clone();
        thread::spawn(move || block_on(mutex.lock()).push("entrant"))
    };
    drop(guard);
    join(entrant);
    let ran = block_on(mutex.lock()).clone();
    ensure(ran == ["entrant"], InvariantId::NO_LOST_WAKEUP, || format!("the entrant never ran ({ran:?})"));
}

/// A queued enter is dropped (cancelled) while the holder exits. Stated outcomes:
/// afterwards exactly one permit exists: a new holder gets the lock, a second entrant
/// must wait, and gets it when the first exits.
pub fn mutex_cancel_races_exit(monitor: &StdArc<Monitor>) {
    let mutex = Arc::new(AsyncMutex::new(()).observed(observer(monitor)));
    let guard = block_on(mutex.lock());
    let canceller = {
        let mutex = mutex.clone();
        // One poll: queued behind the holder, or already granted; then cancelled.
        thread::spawn(move || poll_once_then_drop(mutex.lock()).is_some())
    };
    drop(guard);
    join(canceller);

    let first = block_on(mutex.lock());
    let mut second = pin!(mutex.lock());
    let mut cx = Context::from_waker(Waker::noop());
    ensure(second.as_mut().poll(&mut cx).is_pending(), pipecheck_pipe::invariant::MUTUAL_EXCLUSION, || {
        "a cancelled enter left a spare permit".to_owned()
    });
    drop(first);
    ensure(second.as_mut().poll(&mut cx).is_ready(), InvariantId::NO_LOST_WAKEUP, || {
        "the exit did not hand the lock to the queued waiter".to_owned()
    });
}

/// The holder exits while waiter A drops its `Lock` future (queued: before the
/// hand-over, or after it and before its next poll) and waiter B waits. The
/// lock must pass on to B either way: A's drop either leaves the queue or passes the
/// lock it was handed (the monitor's **no-lost-wakeup** obligation on the drop).
/// Stated outcomes: B got the lock, and afterwards the mutex is free (no permit leaked,
/// none lost).
pub fn mutex_lock_dropped_at_handoff(monitor: &StdArc<Monitor>) {
    let mutex = Arc::new(AsyncMutex::new(Vec::new()).observed(observer(monitor)));
    let guard = block_on(mutex.lock());
    let a = {
        let mutex = mutex.clone();
        // One poll queues A behind the holder (or admits it, if the holder is gone);
        // then A gives up, before or after the exit hands it the lock.
        thread::spawn(move || poll_once_then_drop(mutex.lock()).is_some())
    };
    let b = {
        let mutex = mutex.clone();
        thread::spawn(move || block_on(mutex.lock()).push("b"))
    };
    drop(guard);
    join(a);
    join(b);
    let free = mutex.try_lock().map(|held| held.clone());
    ensure(free.as_deref() == Some(&["b"][..]), InvariantId::NO_LOST_WAKEUP, || {
        format!(
            "after the dropped waiter, B's turn and the release left the mutex as {free:?}, not free with B's mark"
        )
    });
}

/// A receiver and a closer start together on an empty channel; then the sender sends
/// one message and the close frame. The monitor checks the channel's **byte-exact**
/// (each message read reaches one caller, unchanged; a close returns what it drained)
/// and the pipe's and the mutex's wakes. Stated outcome: the message reached exactly
/// one of them.
pub fn channel_close_races_receive(monitor: &StdArc<Monitor>) {
    let (mut sender, receiver) =
        message_channel_observed(monitor.pipe_options(), observer(monitor)).expect("valid options");
    let receiver = Arc::new(receiver);
    let receiving = {
        let receiver = receiver.clone();
        thread::spawn(move || block_on(receiver.receive()).expect("receive failed"))
    };
    let closing = {
        let receiver = receiver.clone();
        thread::spawn(move || block_on(receiver.close()).expect("close failed"))
    };
    block_on(async {
        sender.send(b"m").await.expect("send failed");
        sender.close().await.expect("sending the close frame failed");
    });
    let received = join(receiving);
    let drained = join(closing);
    let mut seen = drained.clone();
    if let Message::Data(message) = &received {
        seen.push(message.clone());
    }
    ensure(seen == [b"m".to_vec()], pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the receiver got {received:?} and close drained {drained:?}")
    });
}

/// A receive is polled once and dropped (cancelled: it may be queued on the channel's
/// async mutex, waiting on the pipe for a frame, or already done) while a close drains
/// the channel and the sender sends two messages and the close frame. Stated outcomes:
/// the close returns, in order, every message the dropped receive did not return (that
/// receive, if its one poll resolved, got one message, or the closed channel when the
/// close had already drained everything), and a later receive sees the channel closed.
pub fn channel_receive_dropped_while_close_drains(monitor: &StdArc<Monitor>) {
    let (mut sender, receiver) =
        message_channel_observed(monitor.pipe_options(), observer(monitor)).expect("valid options");
    let receiver = Arc::new(receiver);
    let dropped = {
        let receiver = receiver.clone();
        thread::spawn(move || poll_once_then_drop(receiver.receive()).map(|r| r.expect("receive failed")))
    };
    let closing = {
        let receiver = receiver.clone();
        thread::spawn(move || block_on(receiver.close()).expect("close failed"))
    };
    block_on(async {
        sender.send(b"1").await.expect("send failed");
        sender.send(b"2").await.expect("send failed");
        sender.close().await.expect("sending the close frame failed");
    });
    let received = join(dropped);
    let drained = join(closing);
    // The close drains in send order what the dropped receive did not take (which may
    // be either message: the close can drain the first and release the lock before the
    // receive's one poll).
    let mut expected = vec![b"1".to_vec(), b"2".to_vec()];
    if let Some(Message::Data(message)) = &received {
        expected.retain(|m| m != message);
    }
    ensure(
        drained == expected && expected.len() + usize::from(matches!(received, Some(Message::Data(_)))) == 2,
        pipecheck_pipe::invariant::BYTE_EXACT,
        || format!("the dropped receive returned {received:?} and close drained {drained:?}"),
    );
    let after = block_on(receiver.receive());
    ensure(after == Ok(Message::Closed), pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("a receive after the close got {after:?}, not the closed channel")
    });
}

/// One task completes an operation while another awaits it. The monitor checks the
/// wake `set_result` owes the waiter (**no-lost-wakeup**); stated outcome: the waiter
/// gets the result.
pub fn completion_wakes_waiter(monitor: &StdArc<Monitor>) {
    let source = CompletionSource::new().observed(observer(monitor));
    let token = source.reset();
    let completer = {
        let source = source.clone();
        thread::spawn(move || source.set_result(token, 7).expect("set_result failed"))
    };
    let result = block_on(source.wait(token));
    ensure(result == Ok(7), InvariantId::NO_LOST_WAKEUP, || format!("the waiter got {result:?}, not Ok(7)"));
    join(completer);
}

/// A completer completes operation 1 and then, late, tries to complete it again (a
/// duplicate completion); meanwhile the owner awaits operation 1, reuses the source
/// for operation 2 and completes that. The monitor checks **token-reuse** at every
/// accepted result. Stated outcomes: the late completion is refused (as a double
/// result or a stale token, by when it lands), and operation 2 has its own result.
pub fn completion_stale_token(monitor: &StdArc<Monitor>) {
    let source = CompletionSource::new().observed(observer(monitor));
    let first = source.reset();
    let completer = {
        let source = source.clone();
        thread::spawn(move || {
            source.set_result(first, 1).expect("the first completion was refused");
            source.set_result(first, 99)
        })
    };
    let result = block_on(source.wait(first));
    ensure(result == Ok(1), pipecheck_pipe::invariant::TOKEN_REUSE, || {
        format!("operation 1 got {result:?}, not Ok(1)")
    });
    let second = source.reset();
    let own = source.set_result(second, 2);
    let late = join(completer);
    ensure(
        matches!(late, Err(CompletionError::AlreadyCompleted { .. } | CompletionError::StaleToken { .. })),
        pipecheck_pipe::invariant::TOKEN_REUSE,
        || format!("a late completion of operation 1 was accepted ({late:?})"),
    );
    ensure(own == Ok(()), pipecheck_pipe::invariant::TOKEN_REUSE, || {
        format!("operation 2 was already completed by a stale token ({own:?})")
    });
    let result = source.get_result(second);
    ensure(result == Ok(2), pipecheck_pipe::invariant::TOKEN_REUSE, || {
        format!("operation 2 has a stale result ({result:?})")
    });
}

/// Operation 1 is abandoned: its waiter is polled once and dropped without a result,
/// and a late result for it arrives, while the owner resets the source for operation 2,
/// a completer completes that and the owner awaits it. The monitor checks
/// **token-reuse** and the wakes owed. Stated outcomes: the late result is accepted
/// only if it landed before the reset (which then discards it), else refused as stale;
/// operation 2's waiter gets operation 2's result.
pub fn completion_abandoned_then_reset(monitor: &StdArc<Monitor>) {
    let source = CompletionSource::new().observed(observer(monitor));
    let first = source.reset();
    let abandoner = {
        let source = source.clone();
        thread::spawn(move || {
            let polled = poll_once_then_drop(source.wait(first));
            (polled, source.set_result(first, 1))
        })
    };
    let second = source.reset();
    let completer = {
        let source = source.clone();
        thread::spawn(move || source.set_result(second, 2))
    };
    let result = block_on(source.wait(second));
    let (polled, late) = join(abandoner);
    let own = join(completer);
    ensure(
        matches!(late, Ok(()) | Err(CompletionError::StaleToken { token: 1, current: 2 })),
        pipecheck_pipe::invariant::TOKEN_REUSE,
        || format!("the late result of the abandoned operation 1 got {late:?}"),
    );
    ensure(own == Ok(()) && result == Ok(2), pipecheck_pipe::invariant::TOKEN_REUSE, || {
        format!("operation 2's completion got {own:?} and its waiter {result:?}, not Ok(()) and Ok(2)")
    });
    // Nobody completed operation 1 before its waiter's one poll: it waited (and was
    // dropped), or found its token already stale.
    ensure(
        matches!(polled, None | Some(Err(CompletionError::StaleToken { token: 1, current: 2 }))),
        pipecheck_pipe::invariant::TOKEN_REUSE,
        || format!("the abandoned waiter of operation 1 got {polled:?}"),
    );
}

/// A waiter of operation 1 waits (no one will complete operation 1) while the owner
/// resets the source for operation 2, completes it and takes its result. The reset
/// owes the old waiter a wake (the monitor's **no-lost-wakeup** obligation on reset).
/// Stated outcomes: the old waiter resolves with its token stale; operation 2's result
/// is 2.
pub fn completion_reset_wakes_stale_waiter(monitor: &StdArc<Monitor>) {
    let source = CompletionSource::new().observed(observer(monitor));
    let first = source.reset();
    let waiter = {
        let source = source.clone();
        thread::spawn(move || block_on(source.wait(first)))
    };
    let second = source.reset();
    let own = source.set_result(second, 2);
    let result = source.get_result(second);
    let stale = join(waiter);
    ensure(
        stale == Err(CompletionError::StaleToken { token: 1, current: 2 }),
        InvariantId::NO_LOST_WAKEUP,
        || format!("the waiter of the reset operation 1 got {stale:?}, not a stale token"),
    );
    ensure(own == Ok(()) && result == Ok(2), pipecheck_pipe::invariant::TOKEN_REUSE, || {
        format!("operation 2's completion got {own:?} and its result {result:?}")
    });
}

/// Two workers with different home partitions rent and return while one of them,
/// finding its home empty, steals from the other's. The monitor checks
/// **balanced-pool** at every rent and return (each partition's count against the
/// log's) and at the end (every rent returned). Stated outcome: the pool's own
/// counters balance.
pub fn pool_rents_and_returns_balance(monitor: &StdArc<Monitor>) {
    let pool = Arc::new(PartitionedPool::new(2, 8).observed(observer(monitor)));
    // Two buffers wait in partition 0: the worker rents one from its home while the
    // other worker, finding its own home empty, steals the other one.
    let seed = pool.handle(0);
    let (first, second) = (seed.rent(), seed.rent());
    seed.give_back(first);
    seed.give_back(second);
    let worker = {
        let pool = pool.clone();
        thread::spawn(move || {
            let home = pool.handle(0);
            home.give_back(home.rent());
        })
    };
    let home = pool.handle(1);
    home.give_back(home.rent());
    join(worker);
    let stats = pool.stats();
    ensure(stats.outstanding() == Some(0), pipecheck_pipe::invariant::BALANCED_POOL, || {
        format!("rents and returns differ ({stats:?})")
    });
}
