//! A watchdog for plain-thread tests: every blocking wait of a test goes through
//! [`block_on`], which fails the test when the future is still pending
//! [`DEADLINE`] after it was last woken, naming the operation that waited
//! ("`ReadFuture` at core/tests/backpressure.rs:189 was never woken"). A lost wakeup
//! or a deadlock then fails the test within seconds, with a reason, instead of hanging
//! the suite.
//!
//! The executor polls the future on the calling thread; its waker sends on a channel
//! and the thread waits for that with `recv_timeout`. The deadline only decides
//! failure: a test that passes never waits for it.

use std::cell::RefCell;
use std::future::Future;
use std::panic::Location;
use std::pin::pin;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

/// How long a blocking wait may go without a wakeup before the test fails. Within the
/// 10 s a deadlocked test may take, with room for the test's own work.
pub(crate) const DEADLINE: Duration = Duration::from_secs(5);

/// Wakes the waiting thread by sending on its channel.
struct ChannelWaker(Mutex<Sender<()>>);

impl Wake for ChannelWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // The receiver lives as long as the thread; a send after it is gone is moot.
        let _ = self.0.lock().unwrap_or_else(|e| e.into_inner()).send(());
    }
}

thread_local! {
    /// One waker and its channel per thread, reused by every wait (as the facade's
    /// `block_on` reuses one waker), so a pipe end that keeps the waker sees the same one.
    static CHANNEL: RefCell<Option<(Waker, Receiver<()>)>> = const { RefCell::new(None) };
}

/// Drives `future` to completion on this thread; fails the test, naming the future's
/// type and the caller's line, if it stays pending [`DEADLINE`] after its last wakeup.
///
/// # Panics
///
/// When the deadline passes: "watchdog: `<future>` at <file:line> was never woken ...".
#[track_caller]
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    block_on_within(DEADLINE, future)
}

/// [`block_on`] with another deadline (the watchdog's own tests use a short one).
///
/// # Panics
///
/// When the future stays pending `deadline` after its last wakeup.
#[track_caller]
pub(crate) fn block_on_within<F: Future>(deadline: Duration, future: F) -> F::Output {
    let what = format!("`{}` at {}", short_type_name::<F>(), Location::caller());
    let (waker, receiver) = CHANNEL.with(|c| {
        c.borrow_mut().take().unwrap_or_else(|| {
            let (sender, receiver) = mpsc::channel();
            (Waker::from(Arc::new(ChannelWaker(Mutex::new(sender)))), receiver)
        })
    });
    // Give the channel back however this ends, panics included.
    struct Return(Option<(Waker, Receiver<()>)>);
    impl Drop for Return {
        fn drop(&mut self) {
            let channel = self.0.take();
            let _ = CHANNEL.try_with(|c| *c.borrow_mut() = channel);
        }
    }
    let channel = Return(Some((waker, receiver)));
    let (waker, receiver) = channel.0.as_ref().expect("set above");
    let mut future = pin!(future);
    let mut cx = Context::from_waker(waker);
    loop {
        // Wakes from earlier waits are stale: poll, then wait only for new ones.
        while receiver.try_recv().is_ok() {}
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        let waited = Instant::now();
        match receiver.recv_timeout(deadline) {
            Ok(()) => {}
            Err(RecvTimeoutError::Timeout) => panic!(
                "watchdog: {what} was never woken: still pending {:.1?} after its last poll (a lost \
                 wakeup or a deadlock)",
                waited.elapsed()
            ),
            Err(RecvTimeoutError::Disconnected) => unreachable!("the waker holds the sender"),
        }
    }
}

/// `pipecheck_core::pipe::reader::ReadFuture<'_>` → `ReadFuture`.
fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    let path = full.split('<').next().unwrap_or(full);
    path.rsplit("::").next().unwrap_or(path)
}
