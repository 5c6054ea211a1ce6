//! The one-shot channel: one value from a [`Sender`] to a [`Receiver`] that is a
//! future.
//!
//! The protocol is futures-channel's `oneshot`: a `complete` flag, the value slot and
//! the receiver's waker slot, each slot under its own lock. The sender stores the value,
//! then completes (when it is dropped: sending consumes it): it sets `complete` and
//! wakes the waker it finds. The receiver checks `complete`; if unset, it registers its
//! waker and **checks `complete` again** before returning `Pending`: a sender that
//! completed in between found no waker to wake, and the second check is the only
//! thing that sees its completion.
//!
//! Everything comes from pipecheck's sync facade (`pipecheck`), so the
//! same code runs on std, under loom and under shuttle.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Waker};

use pipecheck::sync::atomic::{AtomicBool, Ordering};
use pipecheck::sync::{Arc, Mutex};

use crate::events::{OneshotEvent, OneshotObserver};
use crate::faults::{CompleteBeforeValue, SendIgnoresClosedReceiver, SkipRecheck};

/// The sender has gone (dropped without sending, or its value was already taken).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canceled;

impl std::fmt::Display for Canceled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the sender was dropped without sending")
    }
}

impl std::error::Error for Canceled {}

struct Inner<T> {
    /// Set once the sender is done (sent or dropped): the value slot is final.
    complete: AtomicBool,
    /// Set when the receiver is dropped: a send hands its value back.
    receiver_gone: AtomicBool,
    value: Mutex<Option<T>>,
    waker: Mutex<Option<Waker>>,
    observer: Option<StdArc<dyn OneshotObserver>>,
}

impl<T> Inner<T> {
    fn report(&self, event: OneshotEvent) {
        if let Some(observer) = &self.observer {
            observer.on_event(event);
        }
    }

    /// Marks the sender done and wakes a registered receiver (once).
    fn complete(&self) {
        if self.complete.swap(true, Ordering::SeqCst) {
            return;
        }
        let waker = self.waker.lock().take();
        self.report(OneshotEvent::Completed { woke: waker.is_some() });
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The sending half: sends one value, or cancels the channel when dropped.
pub struct Sender<T> {
    inner: Arc<Inner<T>>,
}

/// The receiving half: a future of the value, or [`Canceled`].
pub struct Receiver<T> {
    inner: Arc<Inner<T>>,
}

/// A new channel.
///
/// # Examples
///
/// ```
/// # #[cfg(not(any(feature = "loom", feature = "shuttle")))] {
/// let (tx, rx) = oneshot::channel();
/// tx.send(7).unwrap();
/// assert_eq!(pipecheck::future::block_on(rx), Ok(7));
/// # }
/// ```
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    build(None)
}

/// A new channel that reports its internal events to `observer` (a checker's monitor).
pub fn channel_observed<T>(observer: StdArc<dyn OneshotObserver>) -> (Sender<T>, Receiver<T>) {
    build(Some(observer))
}

fn build<T>(observer: Option<StdArc<dyn OneshotObserver>>) -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Inner {
        complete: AtomicBool::new(false),
        receiver_gone: AtomicBool::new(false),
        value: Mutex::new(None),
        waker: Mutex::new(None),
        observer,
    });
    (Sender { inner: inner.clone() }, Receiver { inner })
}

impl<T> Sender<T> {
    /// Sends `value`, completing the channel.
    ///
    /// # Errors
    ///
    /// The value back, when the receiver is already gone.
    pub fn send(self, value: T) -> Result<(), T> {
        let inner = &self.inner;
        if CompleteBeforeValue.is_active() {
            // Planted: completes (and wakes) before the value is in its slot.
            inner.complete();
        }
        // Planted: a dropped receiver is not noticed, and the value is lost.
        let check_receiver = !SendIgnoresClosedReceiver.is_active();
        if check_receiver && inner.receiver_gone.load(Ordering::SeqCst) {
            return Err(value);
        }
        *inner.value.lock() = Some(value);
        // The receiver may have gone meanwhile: it will never take the value.
        if check_receiver
            && inner.receiver_gone.load(Ordering::SeqCst)
            && let Some(value) = inner.value.lock().take()
        {
            return Err(value);
        }
        Ok(())
        // Dropping `self` completes the channel.
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.inner.complete();
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, Canceled>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T, Canceled>> {
        let inner = &self.inner;
        if !inner.complete.load(Ordering::SeqCst) {
            *inner.waker.lock() = Some(cx.waker().clone());
            // The second check: a sender that completed since the first found no waker.
            if SkipRecheck.is_active() || !inner.complete.load(Ordering::SeqCst) {
                inner.report(OneshotEvent::Parked);
                return Poll::Pending;
            }
        }
        Poll::Ready(inner.value.lock().take().ok_or(Canceled))
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inner.receiver_gone.store(true, Ordering::SeqCst);
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
