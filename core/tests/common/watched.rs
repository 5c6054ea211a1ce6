//! The watchdog for futures a runtime drives (the `#[tokio::test]` adapter tests): an
//! `.await` on [`Watched`] fails the test, naming the future and the line that awaited
//! it, when the future stays pending [`DEADLINE`] after it was last woken — a lost
//! wakeup or a deadlock fails in seconds instead of hanging the suite. As with
//! [`block_on`](super::block_on), the deadline only decides failure: a future that is
//! woken keeps going however long it takes, and a test that passes never waits for it.
//!
//! It needs no runtime timer: the first `Pending` starts a small timer thread, which
//! wakes the task once the future has gone [`DEADLINE`] without a wake; the next poll,
//! still pending and still not woken, panics. The thread ends when the future does.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use super::watchdog::{DEADLINE, short_type_name};

/// Wraps a future in the watchdog: `.watched().await` instead of `.await`.
pub(crate) trait WatchFuture: Future + Sized {
    /// This future, failing the test when it is never woken (see the module docs).
    #[track_caller]
    fn watched(self) -> Watched<Self> {
        self.watched_within(DEADLINE)
    }

    /// [`watched`](WatchFuture::watched) with another deadline (the watchdog's own tests use a
    /// short one).
    #[track_caller]
    fn watched_within(self, deadline: Duration) -> Watched<Self> {
        Watched {
            inner: Box::pin(self),
            name: future_name::<Self>(),
            caller: Location::caller(),
            deadline,
            progress: Arc::new(Progress::default()),
            timer: None,
        }
    }
}

impl<F: Future> WatchFuture for F {}

/// The future's type, short: `ReadToEnd`, `JoinHandle`, or for an `async fn` its name
/// (`tokio_echo::echo::{{closure}}` → `echo`).
fn future_name<F>() -> &'static str {
    let full = std::any::type_name::<F>();
    match full.strip_suffix("::{{closure}}") {
        Some(function) => function.rsplit("::").next().unwrap_or(function),
        None => short_type_name::<F>(),
    }
}

/// What the future's own waker and the timer thread share.
struct Progress {
    /// Wakes of the future so far.
    wakes: AtomicU64,
    /// The wake count at which the timer found no wake in a whole [`DEADLINE`]
    /// ([`NOT_EXPIRED`] until then).
    expired_at: AtomicU64,
    /// The task's current waker, woken by the future's wakes and by the timer.
    task: Mutex<Option<Waker>>,
}

/// [`Progress::expired_at`] before the timer expires.
const NOT_EXPIRED: u64 = u64::MAX;

impl Default for Progress {
    fn default() -> Progress {
        Progress { wakes: AtomicU64::new(0), expired_at: AtomicU64::new(NOT_EXPIRED), task: Mutex::new(None) }
    }
}

impl Progress {
    fn wake_task(&self) {
        if let Some(waker) = self.task.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            waker.wake_by_ref();
        }
    }
}

/// The waker the watched future gets: counts the wake, then wakes the task.
struct Counting(Arc<Progress>);

impl Wake for Counting {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.wakes.fetch_add(1, Ordering::SeqCst);
        self.0.wake_task();
    }
}

/// A future under the watchdog; see [`WatchFuture::watched`].
pub(crate) struct Watched<F> {
    inner: Pin<Box<F>>,
    name: &'static str,
    caller: &'static Location<'static>,
    deadline: Duration,
    progress: Arc<Progress>,
    /// Dropping it ends the timer thread.
    timer: Option<Sender<()>>,
}

impl<F: Future> Future for Watched<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        *this.progress.task.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
        let waker = Waker::from(Arc::new(Counting(this.progress.clone())));
        if let Poll::Ready(output) = this.inner.as_mut().poll(&mut Context::from_waker(&waker)) {
            return Poll::Ready(output);
        }
        // Expired, and no wake since the timer looked: nothing will wake it.
        let expired_at = this.progress.expired_at.swap(NOT_EXPIRED, Ordering::SeqCst);
        if expired_at != NOT_EXPIRED && this.progress.wakes.load(Ordering::SeqCst) == expired_at {
            panic!(
                "watchdog: `{}` awaited at {} was never woken: still pending {:?} after its last wake \
                 (a lost wakeup or a deadlock)",
                this.name, this.caller, this.deadline
            );
        }
        if this.timer.is_none() {
            this.timer = Some(start_timer(this.progress.clone(), this.deadline));
        }
        Poll::Pending
    }
}

/// The timer thread: every `deadline` without a wake of the future, it marks the
/// future expired and wakes the task to look. Ends when the sender is dropped.
fn start_timer(progress: Arc<Progress>, deadline: Duration) -> Sender<()> {
    let (sender, receiver) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut seen = progress.wakes.load(Ordering::SeqCst);
        loop {
            match receiver.recv_timeout(deadline) {
                Err(RecvTimeoutError::Timeout) => {
                    let wakes = progress.wakes.load(Ordering::SeqCst);
                    if wakes == seen {
                        progress.expired_at.store(wakes, Ordering::SeqCst);
                        progress.wake_task();
                    }
                    seen = wakes;
                }
                Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    });
    sender
}
