//! Scenario bodies for the seed primitives (async mutex, message channel, completion
//! source, partitioned pool), written once on pipecheck's sync facade and run by both
//! engines: `tests/loom_primitives.rs` (exhaustive, bounded) and
//! `tests/shuttle_primitives.rs` (random and PCT schedules).
//!
//! Every body builds shared state, spawns, acts, joins and checks, and every check
//! raises a typed [`Violation`](pipecheck_properties::Violation) of the invariant it
//! checks ([`ensure`]). A planted bug that loses a wakeup shows up instead as the
//! engine's own deadlock report, which the verdict counts as **no-lost-wakeup**.

use std::pin::pin;
use std::task::{Context, Waker};

use pipecheck_core::primitive::future::block_on;
use pipecheck_core::primitive::sync::Arc;
use pipecheck_core::primitive::sync::atomic::{AtomicUsize, Ordering};
use pipecheck_core::primitive::thread;
use pipecheck_core::{AsyncMutex, CompletionError, CompletionSource, FaultSet, Message, PartitionedPool};
use pipecheck_core::{Fault, InvariantId, PipeOptions, message_channel};
use pipecheck_properties::{CheckConfig, Monitor, ensure};

use crate::scenarios::join;
use crate::{Scale, Scenario};

/// The primitives' scenarios, for the campaign runner and its kill matrix. Their
/// bodies take only the monitor's faults: they check their invariants themselves.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "mutex-mutual-exclusion",
        summary: "three tasks take the async mutex, each checking it is the only holder",
        scale: Scale::Small,
        catches: &[Fault::MutexDoubleAdmit],
        config: CheckConfig::default,
        body: |monitor| mutex_mutual_exclusion(faults_of(monitor)),
    },
    Scenario {
        name: "mutex-exit-races-enter",
        summary: "the async mutex's holder exits while an entrant counts itself in and queues",
        scale: Scale::Small,
        catches: &[Fault::MutexSkipWakeOnExit],
        config: CheckConfig::default,
        body: |monitor| mutex_exit_races_enter(faults_of(monitor)),
    },
    Scenario {
        name: "mutex-cancel-races-exit",
        summary: "a queued async-mutex enter is cancelled while the holder exits",
        scale: Scale::Small,
        catches: &[],
        config: CheckConfig::default,
        body: |monitor| mutex_cancel_races_exit(faults_of(monitor)),
    },
    Scenario {
        name: "channel-close-races-receive",
        summary: "a message-channel receive and close race for one message and the close frame",
        scale: Scale::Small,
        catches: &[Fault::CloseDropsFrame],
        config: CheckConfig::default,
        body: |monitor| channel_close_races_receive(faults_of(monitor)),
    },
    Scenario {
        name: "completion-wakes-waiter",
        summary: "a completion source is completed while its waiter registers",
        scale: Scale::Small,
        catches: &[Fault::LostCompletionWake],
        config: CheckConfig::default,
        body: |monitor| completion_wakes_waiter(faults_of(monitor)),
    },
    Scenario {
        name: "completion-stale-token",
        summary: "a late duplicate completion races the reuse of the completion source",
        scale: Scale::Small,
        catches: &[Fault::StaleTokenAccepted],
        config: CheckConfig::default,
        body: |monitor| completion_stale_token(faults_of(monitor)),
    },
    Scenario {
        name: "pool-rents-and-returns-balance",
        summary: "two workers rent and return on a partitioned pool while one steals from the other",
        scale: Scale::Small,
        catches: &[Fault::PartitionLeak],
        config: CheckConfig::default,
        body: |monitor| pool_rents_and_returns_balance(faults_of(monitor)),
    },
];

/// The invariants the primitives' scenarios check themselves, with their statements
/// (the pipe's are in `pipecheck_properties::registry`).
pub const INVARIANTS: &[(InvariantId, &str)] = &[
    (
        InvariantId::MUTUAL_EXCLUSION,
        "the async mutex admits one holder; exit with waiters hands over without a lost wakeup",
    ),
    (InvariantId::TOKEN_REUSE, "a reusable completion source rejects stale tokens and double results"),
    (InvariantId::BALANCED_POOL, "every buffer rented from a partitioned pool is returned, stolen or not"),
];

fn faults_of(monitor: &std::sync::Arc<Monitor>) -> FaultSet {
    monitor.config().faults
}

/// Three tasks take the async mutex (so an exit can find one waiter queued and another
/// still on its way to the queue); inside, each checks that it is the only holder.
/// Checks **mutual-exclusion**.
///
/// A task that finds another holder inside records it and leaves the value alone (two
/// writers would be a data race, another invariant); the assertion comes after every
/// task has joined. A task that panicked inside would unwind through the mutex's
/// scheduling points while the other holder can panic too, and shuttle cannot attribute
/// two panics unwinding at once.
pub fn mutex_mutual_exclusion(faults: FaultSet) {
    let mutex = Arc::new(AsyncMutex::with_faults(0usize, faults));
    let holders = Arc::new(AtomicUsize::new(0));
    let overlaps = Arc::new(AtomicUsize::new(0));
    let critical = {
        let (mutex, holders, overlaps) = (mutex.clone(), holders.clone(), overlaps.clone());
        move || {
            block_on(async {
                let mut guard = mutex.lock().await;
                if holders.fetch_add(1, Ordering::SeqCst) == 0 {
                    *guard += 1;
                } else {
                    overlaps.fetch_add(1, Ordering::SeqCst);
                }
                holders.fetch_sub(1, Ordering::SeqCst);
            })
        }
    };
    let others = [thread::spawn(critical.clone()), thread::spawn(critical.clone())];
    critical();
    for other in others {
        join(other);
    }
    let overlaps = overlaps.load(Ordering::SeqCst);
    ensure(overlaps == 0, InvariantId::MUTUAL_EXCLUSION, || {
        format!("two tasks held the async mutex at once ({overlaps} overlapping entries)")
    });
    let count = *block_on(mutex.lock());
    ensure(count == 3, InvariantId::MUTUAL_EXCLUSION, || format!("{count} of 3 increments survived"));
}

/// The holder exits while another task enters: the entrant may have counted itself in
/// the gate but not queued itself yet. It must still get the lock. Checks
/// **no-lost-wakeup** (a lost hand-over is a deadlock).
pub fn mutex_exit_races_enter(faults: FaultSet) {
    let mutex = Arc::new(AsyncMutex::with_faults(Vec::new(), faults));
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

/// A queued enter is dropped (cancelled) while the holder exits. Afterwards exactly one
/// permit exists: a new holder gets the lock, a second entrant must wait, and gets it
/// when the first exits. Checks **mutual-exclusion** and **no-lost-wakeup**.
pub fn mutex_cancel_races_exit(faults: FaultSet) {
    let mutex = Arc::new(AsyncMutex::with_faults((), faults));
    let guard = block_on(mutex.lock());
    let canceller = {
        let mutex = mutex.clone();
        thread::spawn(move || {
            let mut lock = pin!(mutex.lock());
            // One poll: queued behind the holder, or already granted; then cancelled.
            let polled = lock.as_mut().poll(&mut Context::from_waker(Waker::noop()));
            drop(polled);
        })
    };
    drop(guard);
    join(canceller);

    let first = block_on(mutex.lock());
    let mut second = pin!(mutex.lock());
    let mut cx = Context::from_waker(Waker::noop());
    ensure(second.as_mut().poll(&mut cx).is_pending(), InvariantId::MUTUAL_EXCLUSION, || {
        "a cancelled enter left a spare permit".to_owned()
    });
    drop(first);
    ensure(second.as_mut().poll(&mut cx).is_ready(), InvariantId::NO_LOST_WAKEUP, || {
        "the exit did not hand the lock to the queued waiter".to_owned()
    });
}

/// A receiver and a closer start together on an empty channel; then the sender sends
/// one message and the close frame. Both finish, and the message reaches exactly one
/// of them. Checks **byte-exact** and **no-lost-wakeup**.
pub fn channel_close_races_receive(faults: FaultSet) {
    let options = PipeOptions::new().minimum_segment_size(16).maximum_segment_size(16).faults(faults);
    let (mut sender, receiver) = message_channel(options).expect("valid options");
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
    ensure(seen == [b"m".to_vec()], InvariantId::BYTE_EXACT, || {
        format!("the receiver got {received:?} and close drained {drained:?}")
    });
}

/// One task completes an operation while another awaits it. Checks **no-lost-wakeup**
/// between completion and await.
pub fn completion_wakes_waiter(faults: FaultSet) {
    let source = CompletionSource::with_faults(faults);
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
/// for operation 2 and completes that. The late completion must be refused, whenever
/// it lands. Checks **token-reuse**.
pub fn completion_stale_token(faults: FaultSet) {
    let source = CompletionSource::with_faults(faults);
    let first = source.reset();
    let completer = {
        let source = source.clone();
        thread::spawn(move || {
            source.set_result(first, 1).expect("the first completion was refused");
            source.set_result(first, 99)
        })
    };
    let result = block_on(source.wait(first));
    ensure(result == Ok(1), InvariantId::TOKEN_REUSE, || format!("operation 1 got {result:?}, not Ok(1)"));
    let second = source.reset();
    let own = source.set_result(second, 2);
    let late = join(completer);
    ensure(
        matches!(late, Err(CompletionError::AlreadyCompleted { .. } | CompletionError::StaleToken { .. })),
        InvariantId::TOKEN_REUSE,
        || format!("a late completion of operation 1 was accepted ({late:?})"),
    );
    ensure(own == Ok(()), InvariantId::TOKEN_REUSE, || {
        format!("operation 2 was already completed by a stale token ({own:?})")
    });
    let result = source.get_result(second);
    ensure(result == Ok(2), InvariantId::TOKEN_REUSE, || {
        format!("operation 2 has a stale result ({result:?})")
    });
}

/// Two workers with different home partitions rent and return while one of them,
/// finding its home empty, steals from the other's (and holds its lock to do so). Afterwards every buffer is back.
/// Checks **balanced-pool**.
pub fn pool_rents_and_returns_balance(faults: FaultSet) {
    let pool = Arc::new(PartitionedPool::with_faults(2, 8, faults));
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
    ensure(stats.outstanding() == Some(0), InvariantId::BALANCED_POOL, || {
        format!("rents and returns differ ({stats:?})")
    });
}
