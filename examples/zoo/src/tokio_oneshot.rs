//! tokio 1.13.0's `sync::oneshot`: a `send` on a channel the receiver has `close`d
//! sets `VALUE_SENT` anyway, so a `try_recv` takes the value out of the cell while the
//! sender takes it back (RUSTSEC-2021-0124, tokio-rs/tokio#4225, fixed by
//! tokio-rs/tokio#4226 in 1.13.1 and 1.8.4).
//!
//! Reduced to the state word's `VALUE_SENT` and `CLOSED` bits and the value cell: the
//! receiver's task slot (`RX_TASK_SET`) and the sender's (`TX_TASK_SET`) are left out,
//! as the bug and tokio's own reproduction (`try_recv_close` in
//! `tokio/src/sync/tests/loom_oneshot.rs`) need neither.

use pipecheck::cell::UnsafeCell;
use pipecheck::prelude::*;
use pipecheck::sync::atomic::{AtomicUsize, Ordering};

/// `oneshot-value-owned-once`: after the receiver closed the channel, the sent value
/// ends in exactly one place: the receiver got it, or `send` handed it back.
pub const OWNED_ONCE: InvariantId = InvariantId::new("oneshot-value-owned-once");

planted_faults! {
    /// tokio 1.13.0's `State::set_complete`: `cell.fetch_or(VALUE_SENT, AcqRel)` even
    /// when the receiver has closed the channel. The receiver's `try_recv` then sees
    /// `VALUE_SENT` and takes the value out of the cell while `send`, told the channel
    /// was closed, takes it back: two unsynchronized accesses to one `UnsafeCell`.
    /// Loom reports the race; a sequentially consistent engine sees both halves claim
    /// the value (the port reports when each decides to take it) before the sender's
    /// `unwrap` of the value the receiver took panics.
    SetCompleteOnClosed breaks InvariantId::NO_DATA_RACE, also_breaks(OWNED_ONCE), caught_in(&["send-races-close-try-recv"]);
}

const VALUE_SENT: usize = 0b010;
const CLOSED: usize = 0b100;

/// Where the channel reports the moments each half decides the value is its own (a
/// `std` `Arc`: a callback of the checking code, not state of the channel's).
pub type Observer = std::sync::Arc<dyn Fn(Event) + Send + Sync>;

struct Inner<T> {
    state: AtomicUsize,
    value: UnsafeCell<Option<T>>,
    observer: Option<Observer>,
}

// SAFETY: the sender writes the cell before it sets VALUE_SENT (AcqRel) and the
// receiver reads it only after an Acquire load saw VALUE_SENT; the sender takes the value
// back only when the channel was closed, and then VALUE_SENT is never set (exactly what
// SetCompleteOnClosed breaks, and loom reports the race).
unsafe impl<T: Send> Sync for Inner<T> {}

impl<T> Inner<T> {
    /// tokio's `State::set_complete`: sets `VALUE_SENT` unless the channel is closed;
    /// returns the state before.
    fn set_complete(&self) -> usize {
        if SetCompleteOnClosed.is_active() {
            return self.state.fetch_or(VALUE_SENT, Ordering::AcqRel);
        }
        let mut state = self.state.load(Ordering::Relaxed);
        loop {
            if state & CLOSED != 0 {
                break;
            }
            match self.state.compare_exchange_weak(
                state,
                state | VALUE_SENT,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(actual) => state = actual,
            }
        }
        state
    }

    /// tokio's `Inner::complete`: false when the channel was closed.
    fn complete(&self) -> bool {
        self.set_complete() & CLOSED == 0
    }

    fn report(&self, event: Event) {
        if let Some(observer) = &self.observer {
            observer(event);
        }
    }

    /// Takes the value out of the cell.
    ///
    /// # Safety
    ///
    /// Only the side that owns the value may call it: the receiver after it saw
    /// `VALUE_SENT`, the sender after `complete` returned false.
    unsafe fn consume_value(&self) -> Option<T> {
        // SAFETY: the caller owns the value (this function's contract).
        self.value.with_mut(|ptr| unsafe { (*ptr).take() })
    }
}

/// The sending half.
#[derive(Debug)]
pub struct Sender<T> {
    inner: Option<Arc<Inner<T>>>,
}

/// The receiving half.
#[derive(Debug)]
pub struct Receiver<T> {
    inner: Option<Arc<Inner<T>>>,
}

impl<T> std::fmt::Debug for Inner<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner").field("state", &self.state).finish_non_exhaustive()
    }
}

/// Why `try_recv` returned no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TryRecvError {
    /// No value yet, and the channel is open.
    Empty,
    /// The channel is closed, or the sender was dropped.
    Closed,
}

/// A new channel.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    new_channel(None)
}

/// A new channel that reports to `observer` when each half decides the value is its own
/// ([`Event::HandingBack`], [`Event::SawValueSent`]).
pub fn channel_observed<T>(observer: Observer) -> (Sender<T>, Receiver<T>) {
    new_channel(Some(observer))
}

fn new_channel<T>(observer: Option<Observer>) -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Inner { state: AtomicUsize::new(0), value: UnsafeCell::new(None), observer });
    (Sender { inner: Some(inner.clone()) }, Receiver { inner: Some(inner) })
}

impl<T> Sender<T> {
    /// Sends `t`, or hands it back if the receiver closed the channel.
    pub fn send(mut self, t: T) -> Result<(), T> {
        let inner = self.inner.take().expect("send consumes the sender");
        // SAFETY: the receiver reads the cell only after VALUE_SENT, set below.
        inner.value.with_mut(|ptr| unsafe { *ptr = Some(t) });
        if !inner.complete() {
            inner.report(Event::HandingBack);
            // SAFETY: the channel was closed, so VALUE_SENT was not set: the value is ours.
            return Err(unsafe { inner.consume_value() }.expect("the value sent is still in the cell"));
        }
        Ok(())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.as_ref() {
            inner.complete();
        }
    }
}

impl<T> Receiver<T> {
    /// Closes the channel: a later `send` hands its value back.
    pub fn close(&mut self) {
        if let Some(inner) = self.inner.as_ref() {
            inner.state.fetch_or(CLOSED, Ordering::Acquire);
        }
    }

    /// The value, if it was sent; `Empty` while the channel is open without one.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let result = match self.inner.as_ref() {
            Some(inner) => {
                let state = inner.state.load(Ordering::Acquire);
                if state & VALUE_SENT != 0 {
                    inner.report(Event::SawValueSent);
                    // SAFETY: VALUE_SENT was seen (Acquire): the value is the receiver's.
                    unsafe { inner.consume_value() }.ok_or(TryRecvError::Closed)
                } else if state & CLOSED != 0 {
                    Err(TryRecvError::Closed)
                } else {
                    return Err(TryRecvError::Empty);
                }
            }
            None => Err(TryRecvError::Closed),
        };
        self.inner = None;
        result
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.close();
    }
}

/// What a run records.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Inside `send`: the channel was closed, so the sender takes its value back.
    HandingBack,
    /// Inside `try_recv`: `VALUE_SENT` was seen, so the receiver takes the value.
    SawValueSent,
    /// `send` returned: `Ok` (`false`) or with the value handed back (`true`).
    SendReturned {
        /// Whether `send` handed the value back.
        handed_back: bool,
    },
    /// `try_recv` after `close` returned: the value, or `None` for `Closed`.
    Received(Option<u64>),
}

/// What [`owned_once`] tracks: whether each half claimed the value, and what each
/// half's call returned.
type Owners = (bool, bool, Option<bool>, Option<Option<u64>>);

fn owned_once() -> FnInvariant<Owners, Event> {
    let statement = "after close, the sent value ends in one place: received, or handed back by send";
    let state = (false, false, None, None);
    FnInvariant::new(OWNED_ONCE, statement, state, |(back, seen, sent, received), event: &Event| {
        match *event {
            Event::HandingBack => *back = true,
            Event::SawValueSent => *seen = true,
            Event::SendReturned { handed_back } => *sent = Some(handed_back),
            Event::Received(value) => *received = Some(value),
        }
        if *back && *seen {
            return Err(
                "the sender takes the value back while the receiver, told it was sent, takes it".to_owned()
            );
        }
        match (*sent, *received) {
            (Some(true), Some(Some(v))) => Err(format!("send handed {v} back, and the receiver got it too")),
            (Some(false), Some(None)) => Err("send returned Ok, but the receiver was told Closed".to_owned()),
            _ => Ok(()),
        }
    })
}

/// tokio's `try_recv_close` loom test: a thread sends while the receiver closes the
/// channel, then calls `try_recv`.
fn send_races_close_try_recv(monitor: &EventMonitor<Event>) {
    let m = monitor.clone();
    let (tx, mut rx) = channel_observed::<u64>(std::sync::Arc::new(move |event| m.record(event)));
    let m = monitor.clone();
    let sender = thread::spawn(move || {
        let handed_back = tx.send(7).is_err();
        m.record_by("sender", Event::SendReturned { handed_back });
    });
    rx.close();
    let received = rx.try_recv().ok();
    monitor.record_by("receiver", Event::Received(received));
    sender.join().expect("the sender panicked");
}

/// The channel as a pipecheck target.
pub fn target() -> Target {
    Target::new("tokio-oneshot", "tokio 1.13's oneshot: send racing close and try_recv (RUSTSEC-2021-0124)")
        .faults(ALL)
        .checked(
            owned_once(),
            &[EventScenario::small(
                "send-races-close-try-recv",
                "a thread sends while the receiver closes the channel, then tries to receive",
                send_races_close_try_recv,
            )],
        )
}
