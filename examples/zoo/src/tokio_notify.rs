//! tokio's `sync::Notify`, with two lost wake-ups that shipped in it:
//!
//! * tokio 1.5 (through 1.5.x; fixed in 1.6.0 by tokio-rs/tokio#3660):
//!   `notify_waiters` with no waiter *stored* the state word back with its call
//!   counter bumped, so a `notify_one` that set `NOTIFIED` in between was overwritten:
//!   its permit is lost and the task that should consume it waits forever;
//! * tokio 1.19.1 (introduced by tokio-rs/tokio#4747, fixed in 1.19.2 by
//!   tokio-rs/tokio#4751): a waiting `Notified` polled with a new waker kept the old
//!   one (`will_wake` without its `!`), so the notification wakes a waker nobody waits on.
//!
//! Reduced to the state word (`EMPTY`/`WAITING`/`NOTIFIED` and the `notify_waiters`
//! call counter) and the waiter list under its mutex. tokio's intrusive linked list of
//! waiter nodes is a `VecDeque` of `Arc`'d nodes here (each node's fields are still
//! touched only under the list's lock, through a checker-visible `UnsafeCell`), and
//! `notify_waiters` wakes everyone in one batch instead of batches of 32.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use pipecheck::cell::UnsafeCell;
use pipecheck::prelude::*;
use pipecheck::sync::Mutex;
use pipecheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// `notify-wakes-after-notify`: a `notified().await` completes only after some
/// `notify_one` or `notify_waiters` call began. (Every waiting task being woken,
/// `no-lost-wakeup`, is checked by the engines: a lost one is a deadlock.)
pub const AFTER_NOTIFY: InvariantId = InvariantId::new("notify-wakes-after-notify");

planted_faults! {
    /// tokio 1.5's `notify_waiters` with no waiter:
    /// `self.state.store(inc_num_notify_waiters_calls(curr), SeqCst)`, a store of the
    /// state it loaded, which overwrites a `NOTIFIED` that a concurrent `notify_one` set
    /// in between (tokio-rs/tokio#3660): the permit is lost, and the task awaiting
    /// `notified()` is never woken.
    NotifyWaitersStoresState breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["waiters-and-one"]);
    /// tokio 1.19.1's `Notified::poll` while waiting:
    /// `Some(current_waker) => current_waker.will_wake(waker)` decides whether to
    /// *replace* the stored waker, so a poll with a new waker keeps the old one
    /// (tokio-rs/tokio#4751): `notify_one` wakes the stale waker and the task now
    /// awaiting is never woken.
    WillWakeInverted breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["repoll-with-new-waker"]);
}

const EMPTY: usize = 0;
const WAITING: usize = 1;
const NOTIFIED: usize = 2;
const STATE_MASK: usize = 0b11;
const CALLS_SHIFT: usize = 2;

fn get_state(data: usize) -> usize {
    data & STATE_MASK
}

fn set_state(data: usize, state: usize) -> usize {
    (data & !STATE_MASK) | state
}

fn get_calls(data: usize) -> usize {
    data >> CALLS_SHIFT
}

fn inc_calls(data: usize) -> usize {
    data + (1 << CALLS_SHIFT)
}

/// How a waiter was notified (tokio's `NotificationType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Notification {
    /// By `notify_waiters`.
    AllWaiters,
    /// By `notify_one`: a drop before consuming it hands it on.
    OneWaiter,
}

/// A waiter's node: tokio's `Waiter`, touched only under the notify's list lock.
#[derive(Debug, Default)]
struct Waiter {
    waker: Option<Waker>,
    notified: Option<Notification>,
}

#[derive(Debug)]
struct Node(UnsafeCell<Waiter>);

// SAFETY: a node's `Waiter` is read and written only while the owning `Notify`'s list
// lock is held (every `with`/`with_mut` below is under `waiters.lock()`).
unsafe impl Sync for Node {}

impl Node {
    /// Runs `f` on the waiter.
    ///
    /// # Safety
    ///
    /// The caller holds the list lock of the `Notify` this node waits on.
    unsafe fn with<R>(&self, f: impl FnOnce(&mut Waiter) -> R) -> R {
        // SAFETY: the lock is held (this function's contract), so no other access runs.
        self.0.with_mut(|ptr| f(unsafe { &mut *ptr }))
    }
}

type WaitList = VecDeque<Arc<Node>>;

/// Notifies one task, or all waiting tasks (tokio's `Notify`).
#[derive(Debug)]
pub struct Notify {
    state: AtomicUsize,
    waiters: Mutex<WaitList>,
}

#[derive(Debug)]
enum State {
    Init(usize),
    Waiting,
    Done,
}

/// The future `notified()` returns.
#[derive(Debug)]
pub struct Notified<'a> {
    notify: &'a Notify,
    state: State,
    node: Arc<Node>,
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl Notify {
    /// A notify without a permit.
    pub fn new() -> Notify {
        Notify { state: AtomicUsize::new(0), waiters: Mutex::new(VecDeque::new()) }
    }

    /// A future that completes on the next `notify_one` (or a stored permit), or on a
    /// `notify_waiters` after its creation.
    pub fn notified(&self) -> Notified<'_> {
        let state = self.state.load(SeqCst);
        Notified {
            notify: self,
            state: State::Init(get_calls(state)),
            node: Arc::new(Node(UnsafeCell::new(Waiter::default()))),
        }
    }

    /// Wakes one waiting task, or stores a permit for the next `notified()`.
    pub fn notify_one(&self) {
        let mut curr = self.state.load(SeqCst);
        while let EMPTY | NOTIFIED = get_state(curr) {
            let new = set_state(curr, NOTIFIED);
            match self.state.compare_exchange(curr, new, SeqCst, SeqCst) {
                Ok(_) => return,
                Err(actual) => curr = actual,
            }
        }
        let mut waiters = self.waiters.lock();
        let curr = self.state.load(SeqCst);
        if let Some(waker) = notify_locked(&mut waiters, &self.state, curr) {
            drop(waiters);
            waker.wake();
        }
    }

    /// Wakes every task waiting now; stores no permit.
    pub fn notify_waiters(&self) {
        let mut waiters = self.waiters.lock();
        let curr = self.state.load(SeqCst);
        if let EMPTY | NOTIFIED = get_state(curr) {
            if NotifyWaitersStoresState.is_active() {
                self.state.store(inc_calls(curr), SeqCst);
            } else {
                self.state.fetch_add(1 << CALLS_SHIFT, SeqCst);
            }
            return;
        }
        let mut wakers = Vec::new();
        while let Some(node) = waiters.pop_back() {
            // SAFETY: the list lock is held.
            if let Some(waker) = unsafe {
                node.with(|w| {
                    w.notified = Some(Notification::AllWaiters);
                    w.waker.take()
                })
            } {
                wakers.push(waker);
            }
        }
        self.state.store(set_state(inc_calls(curr), EMPTY), SeqCst);
        drop(waiters);
        wakers.into_iter().for_each(Waker::wake);
    }
}

/// tokio's `notify_locked`: under the list lock, stores a permit or pops one waiter
/// and returns its waker.
fn notify_locked(waiters: &mut WaitList, state: &AtomicUsize, curr: usize) -> Option<Waker> {
    match get_state(curr) {
        EMPTY | NOTIFIED => {
            if let Err(actual) = state.compare_exchange(curr, set_state(curr, NOTIFIED), SeqCst, SeqCst) {
                state.store(set_state(actual, NOTIFIED), SeqCst);
            }
            None
        }
        _ => {
            let node = waiters.pop_back().expect("WAITING with an empty list");
            // SAFETY: the list lock is held.
            let waker = unsafe {
                node.with(|w| {
                    w.notified = Some(Notification::OneWaiter);
                    w.waker.take()
                })
            };
            if waiters.is_empty() {
                state.store(set_state(curr, EMPTY), SeqCst);
            }
            waker
        }
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let me = self.get_mut();
        let notify = me.notify;
        loop {
            match me.state {
                State::Init(initial_calls) => {
                    let curr = notify.state.load(SeqCst);
                    let taken = notify.state.compare_exchange(
                        set_state(curr, NOTIFIED),
                        set_state(curr, EMPTY),
                        SeqCst,
                        SeqCst,
                    );
                    if taken.is_ok() {
                        me.state = State::Done;
                        return Poll::Ready(());
                    }
                    let mut waiters = notify.waiters.lock();
                    let mut curr = notify.state.load(SeqCst);
                    if get_calls(curr) != initial_calls {
                        me.state = State::Done;
                        return Poll::Ready(());
                    }
                    loop {
                        match get_state(curr) {
                            EMPTY => match notify.state.compare_exchange(
                                set_state(curr, EMPTY),
                                set_state(curr, WAITING),
                                SeqCst,
                                SeqCst,
                            ) {
                                Ok(_) => break,
                                Err(actual) => curr = actual,
                            },
                            WAITING => break,
                            _ => match notify.state.compare_exchange(
                                set_state(curr, NOTIFIED),
                                set_state(curr, EMPTY),
                                SeqCst,
                                SeqCst,
                            ) {
                                Ok(_) => {
                                    me.state = State::Done;
                                    return Poll::Ready(());
                                }
                                Err(actual) => curr = actual,
                            },
                        }
                    }
                    // SAFETY: the list lock is held.
                    unsafe { me.node.with(|w| w.waker = Some(cx.waker().clone())) };
                    waiters.push_front(me.node.clone());
                    me.state = State::Waiting;
                    return Poll::Pending;
                }
                State::Waiting => {
                    let _waiters = notify.waiters.lock();
                    // SAFETY: the list lock is held.
                    let done = unsafe {
                        me.node.with(|w| {
                            if w.notified.take().is_some() {
                                w.waker = None;
                                return true;
                            }
                            let should_update = match w.waker.as_ref() {
                                Some(current) if WillWakeInverted.is_active() => {
                                    current.will_wake(cx.waker())
                                }
                                Some(current) => !current.will_wake(cx.waker()),
                                None => true,
                            };
                            if should_update {
                                w.waker = Some(cx.waker().clone());
                            }
                            false
                        })
                    };
                    if !done {
                        return Poll::Pending;
                    }
                    me.state = State::Done;
                }
                State::Done => return Poll::Ready(()),
            }
        }
    }
}

impl Drop for Notified<'_> {
    fn drop(&mut self) {
        if !matches!(self.state, State::Waiting) || pipecheck::skip_locking_cleanup() {
            return;
        }
        let notify = self.notify;
        let mut waiters = notify.waiters.lock();
        waiters.retain(|node| !Arc::ptr_eq(node, &self.node));
        if waiters.is_empty() {
            let curr = notify.state.load(SeqCst);
            if get_state(curr) == WAITING {
                notify.state.store(set_state(curr, EMPTY), SeqCst);
            }
        }
        // A `notify_one` this waiter took but never consumed goes to the next waiter.
        // SAFETY: the list lock is held.
        let notified = unsafe { self.node.with(|w| w.notified.take()) };
        if notified == Some(Notification::OneWaiter) {
            let curr = notify.state.load(SeqCst);
            if let Some(waker) = notify_locked(&mut waiters, &notify.state, curr) {
                drop(waiters);
                waker.wake();
            }
        }
    }
}

/// What a run records.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A `notify_one` or `notify_waiters` call is about to begin.
    Notifying,
    /// A `notified().await` completed.
    Woken,
}

fn after_notify() -> FnInvariant<bool, Event> {
    let statement = "a notified().await completes only after some notify call began";
    FnInvariant::new(AFTER_NOTIFY, statement, false, |notified, event: &Event| match event {
        Event::Notifying => {
            *notified = true;
            Ok(())
        }
        Event::Woken if *notified => Ok(()),
        Event::Woken => Err("notified().await completed before any notify call".to_owned()),
    })
}

/// tokio's `notify_waiters_and_one` loom test: `notify_waiters`, `notify_one` and a task
/// awaiting `notified()`, each on a thread of its own: the permit of `notify_one` must
/// reach the waiter.
fn waiters_and_one(monitor: &EventMonitor<Event>) {
    let notify = Arc::new(Notify::new());
    let spawn = |name: &'static str, f: fn(&Notify)| {
        let (notify, m) = (notify.clone(), monitor.clone());
        thread::spawn(move || {
            m.record_by(name, Event::Notifying);
            f(&notify);
        })
    };
    let all = spawn("notify_waiters", Notify::notify_waiters);
    let one = spawn("notify_one", Notify::notify_one);
    let (other, m) = (notify.clone(), monitor.clone());
    let waiter = thread::spawn(move || {
        pipecheck::future::block_on(other.notified());
        m.record_by("waiter", Event::Woken);
    });
    all.join().expect("notify_waiters panicked");
    one.join().expect("notify_one panicked");
    waiter.join().expect("the waiter panicked");
}

/// A `Notified` polled once with one waker (as by a `select!` in another task), then
/// awaited with another while a thread calls `notify_one`.
fn repoll_with_new_waker(monitor: &EventMonitor<Event>) {
    let notify = Arc::new(Notify::new());
    let mut notified = Box::pin(notify.notified());
    let first = notified.as_mut().poll(&mut Context::from_waker(Waker::noop()));
    let (other, m) = (notify.clone(), monitor.clone());
    let notifier = thread::spawn(move || {
        m.record_by("notifier", Event::Notifying);
        other.notify_one();
    });
    if first.is_pending() {
        pipecheck::future::block_on(notified);
    }
    monitor.record_by("waiter", Event::Woken);
    notifier.join().expect("the notifier panicked");
}

/// `Notify` as a pipecheck target.
pub fn target() -> Target {
    Target::new(
        "tokio-notify",
        "tokio's Notify: a permit lost to notify_waiters (1.5), a stale waker (1.19.1)",
    )
    .faults(ALL)
    .checked(
        after_notify(),
        &[
            EventScenario::small(
                "waiters-and-one",
                "notify_waiters and notify_one on two threads while a third awaits notified()",
                waiters_and_one,
            ),
            EventScenario::small(
                "repoll-with-new-waker",
                "notified() polled with one waker, then awaited with another while a thread notifies",
                repoll_with_new_waker,
            ),
        ],
    )
}
