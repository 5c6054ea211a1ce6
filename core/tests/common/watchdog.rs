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
//!
//! Tests with threads start them with [`Watch::spawn`] and join them with
//! [`Watch::join`]: a thread that panics, or all threads stalling for [`DEADLINE`] (a
//! deadlock on a lock, which no future's watchdog sees), fails the test with what each
//! thread is blocked in: "reader blocked in read() at offset 4096 (waiting on
//! `ReadFuture` at core/tests/common/transfer.rs:199); writer blocked in flush()". The
//! labels come from [`phase`]/[`phase_at`] (one uncontended lock each, cheap enough for
//! every operation of a stress run) and from `block_on`, which records the future it
//! waits on.

use std::cell::RefCell;
use std::future::Future;
use std::panic::{AssertUnwindSafe, Location, catch_unwind, resume_unwind};
use std::pin::pin;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::JoinHandle;
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
    let name = short_type_name::<F>();
    let caller = Location::caller();
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
    let track = current_track();
    loop {
        // Wakes from earlier waits are stale: poll, then wait only for new ones.
        while receiver.try_recv().is_ok() {}
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            if let Some(track) = &track {
                track.update(|s| s.waiting = None);
            }
            return output;
        }
        if let Some(track) = &track {
            track.update(|s| s.waiting = Some((name, caller)));
        }
        let waited = Instant::now();
        match receiver.recv_timeout(deadline) {
            Ok(()) => {}
            Err(RecvTimeoutError::Timeout) => panic!(
                "watchdog: `{name}` at {caller} was never woken: still pending {:.1?} after its last poll \
                 (a lost wakeup or a deadlock){}",
                waited.elapsed(),
                current_report()
            ),
            Err(RecvTimeoutError::Disconnected) => unreachable!("the waker holds the sender"),
        }
    }
}

/// `pipecheck_pipe::pipe::reader::ReadFuture<'_>` → `ReadFuture`.
pub(crate) fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    // A pinned future is named by what is pinned: `Pin<&mut FlushFuture>` → `FlushFuture`.
    let full = full.strip_prefix("core::pin::Pin<&mut ").unwrap_or(full);
    let path = full.split('<').next().unwrap_or(full);
    path.rsplit("::").next().unwrap_or(path)
}

/// What one watched thread is doing, as far as its labels and waits tell.
#[derive(Debug)]
struct TrackState {
    /// The operation the thread last said it was entering ([`phase`]).
    op: &'static str,
    /// Where in the stream, when the test said ([`phase_at`]).
    at: Option<u64>,
    /// The future [`block_on`] is waiting on, and the line that called it.
    waiting: Option<(&'static str, &'static Location<'static>)>,
    /// Labels entered and polls made: the stall check compares these.
    steps: u64,
    /// `None` while running; `Some(None)` returned, `Some(Some(message))` panicked.
    ended: Option<Option<String>>,
}

/// One watched thread: its name and what it is doing. Updated under an uncontended
/// lock (the watch reads it only when it reports), cheap enough for a label per
/// operation in a multi-GiB transfer.
#[derive(Debug)]
struct Track {
    name: String,
    state: Mutex<TrackState>,
}

impl Track {
    fn new(name: String, op: &'static str) -> Arc<Track> {
        let state = TrackState { op, at: None, waiting: None, steps: 0, ended: None };
        Arc::new(Track { name, state: Mutex::new(state) })
    }

    fn update(&self, change: impl FnOnce(&mut TrackState)) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.steps += 1;
        change(&mut state);
    }

    /// "reader blocked in read() at offset 4096 (waiting on `ReadFuture` at x.rs:9)".
    fn describe(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let name = &self.name;
        match &state.ended {
            Some(None) => format!("{name} finished"),
            Some(Some(message)) => format!("{name} panicked: {message}"),
            None => {
                let mut line = format!("{name} blocked in {}", state.op);
                if let Some(at) = state.at {
                    line += &format!(" at offset {at}");
                }
                if let Some((future, caller)) = state.waiting {
                    line += &format!(" (waiting on `{future}` at {caller})");
                }
                line
            }
        }
    }
}

/// The threads of one [`Watch`], shared with the threads themselves so that a
/// watchdog firing in any of them reports all of them.
#[derive(Debug, Default)]
struct Group {
    tracks: Mutex<Vec<Arc<Track>>>,
}

impl Group {
    fn report(&self) -> String {
        let tracks = self.tracks.lock().unwrap_or_else(|e| e.into_inner());
        tracks.iter().map(|t| t.describe()).collect::<Vec<_>>().join("; ")
    }

    fn steps(&self) -> u64 {
        let tracks = self.tracks.lock().unwrap_or_else(|e| e.into_inner());
        tracks.iter().map(|t| t.state.lock().unwrap_or_else(|e| e.into_inner()).steps).sum()
    }
}

thread_local! {
    /// The track of this thread and its group, while the thread is watched.
    static CURRENT: RefCell<Option<(Arc<Track>, Arc<Group>)>> = const { RefCell::new(None) };
}

fn current_track() -> Option<Arc<Track>> {
    CURRENT.try_with(|c| c.borrow().as_ref().map(|(t, _)| t.clone())).ok().flatten()
}

/// "; threads: ..." for a watched thread, "" otherwise.
fn current_report() -> String {
    let group = CURRENT.try_with(|c| c.borrow().as_ref().map(|(_, g)| g.clone())).ok().flatten();
    group.map(|g| format!("; threads: {}", g.report())).unwrap_or_default()
}

/// Labels what this thread does next ("flush()", "complete()"), so that a watchdog
/// that fires names it. A no-op on threads that no [`Watch`] watches.
pub(crate) fn phase(op: &'static str) {
    if let Some(track) = current_track() {
        track.update(|s| {
            s.op = op;
            s.at = None;
        });
    }
}

/// [`phase`] with the stream offset the operation works at.
pub(crate) fn phase_at(op: &'static str, at: u64) {
    if let Some(track) = current_track() {
        track.update(|s| {
            s.op = op;
            s.at = Some(at);
        });
    }
}

/// Runs a test's `body` on a watched thread named after the test and returns what it
/// returned. On the test's own thread, a loop in the code under test that never ends
/// and never blocks (an iterator that always yields, an index that stops moving) hangs
/// the suite, since no wait is there for [`block_on`] to time; on a watched thread it
/// stops making progress, and [`Watch::join`] notices within [`DEADLINE`], naming what
/// the body last entered ([`phase`]). For bodies that start no [`Watch`] of their own
/// (one thread, one group).
///
/// A thread that spins cannot be stopped, and one left spinning per failed test would
/// starve the tests after it (every test of a file may reach the same loop), so a
/// stalled body ends the whole test process, exit status 101 as a failed test's, after
/// writing the watchdog's report straight to stderr (libtest's capture would drop it).
///
/// # Panics
///
/// When the body panics, with its message.
pub(crate) fn watched<T, F>(body: F) -> T
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let name = std::thread::current().name().unwrap_or("body").to_owned();
    let watch = Watch::new();
    let thread = watch.spawn(name.clone(), body);
    let track = thread.track.clone();
    match catch_unwind(AssertUnwindSafe(|| watch.join(thread))) {
        Ok(output) => output,
        Err(payload) => {
            let still_running = track.state.lock().unwrap_or_else(|e| e.into_inner()).ended.is_none();
            if still_running {
                use std::io::Write;
                let report =
                    format!("\ntest {name}: {}; ending the test process\n", panic_message(payload.as_ref()));
                let _ = std::io::stderr().write_all(report.as_bytes());
                std::process::exit(101);
            }
            resume_unwind(payload)
        }
    }
}

/// The message of a caught panic.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(a non-string panic)".to_owned())
}

/// A handle to a thread started by [`Watch::spawn`]; join it with [`Watch::join`].
#[derive(Debug)]
pub(crate) struct Watched<T> {
    track: Arc<Track>,
    handle: JoinHandle<T>,
}

/// The watchdog of a test's threads. The test thread (named "test") and every thread
/// started with [`Watch::spawn`] are tracked: [`Watch::join`] fails the test, naming
/// what each thread is blocked in, when a watched thread panics or when no thread made
/// progress (a label or a poll) for [`DEADLINE`] — a deadlock on a lock, which no
/// future's watchdog sees, fails too. A [`block_on`] that fires on a watched thread
/// reports the other threads as well.
#[derive(Debug)]
pub(crate) struct Watch {
    group: Arc<Group>,
    ended: Receiver<()>,
    sender: Sender<()>,
    deadline: Duration,
}

impl Watch {
    /// Watches the calling thread as "test"; threads come with [`Watch::spawn`].
    pub(crate) fn new() -> Watch {
        Watch::within(DEADLINE)
    }

    /// [`Watch::new`] with another stall deadline (the watchdog's own tests).
    pub(crate) fn within(deadline: Duration) -> Watch {
        let group = Arc::new(Group::default());
        let track = Track::new("test".to_owned(), "its body");
        group.tracks.lock().unwrap().push(track.clone());
        CURRENT.with(|c| *c.borrow_mut() = Some((track, group.clone())));
        let (sender, ended) = mpsc::channel();
        Watch { group, ended, sender, deadline }
    }

    /// Starts `body` on a thread called `name`, watched.
    pub(crate) fn spawn<T, F>(&self, name: impl Into<String>, body: F) -> Watched<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let name = name.into();
        let track = Track::new(name.clone(), "its body");
        self.group.tracks.lock().unwrap().push(track.clone());
        let (group, mine, ended) = (self.group.clone(), track.clone(), self.sender.clone());
        let handle = std::thread::Builder::new()
            .name(name)
            .spawn(move || {
                CURRENT.with(|c| *c.borrow_mut() = Some((mine.clone(), group)));
                let outcome = catch_unwind(AssertUnwindSafe(body));
                let message = outcome.as_ref().err().map(|payload| panic_message(payload.as_ref()));
                mine.update(|s| s.ended = Some(message));
                let _ = ended.send(());
                outcome.unwrap_or_else(|payload| resume_unwind(payload))
            })
            .expect("spawn a watched thread");
        Watched { track, handle }
    }

    /// Waits for `thread` and returns what it returned.
    ///
    /// # Panics
    ///
    /// When any watched thread panicked, or when no watched thread made progress for
    /// [`DEADLINE`]; the message says what each thread is blocked in.
    pub(crate) fn join<T>(&self, thread: Watched<T>) -> T {
        phase("join()");
        let mut last = self.group.steps();
        loop {
            let ended = thread.track.state.lock().unwrap().ended.clone();
            match ended {
                Some(None) => return thread.handle.join().expect("returned without panicking"),
                Some(Some(_)) => {
                    panic!("watchdog: {} panicked; threads: {}", thread.track.name, self.group.report())
                }
                None => {}
            }
            if let Some(other) = self.panicked() {
                panic!("watchdog: {other} panicked; threads: {}", self.group.report());
            }
            match self.ended.recv_timeout(self.deadline) {
                Ok(()) => {}
                Err(RecvTimeoutError::Timeout) => {
                    let now = self.group.steps();
                    if now == last {
                        panic!(
                            "watchdog: no thread made progress for {:?} (a deadlock, or a loop that never \
                             returns); threads: {}",
                            self.deadline,
                            self.group.report()
                        );
                    }
                    last = now;
                }
                Err(RecvTimeoutError::Disconnected) => unreachable!("the watch holds a sender"),
            }
        }
    }

    /// [`Watch::join`] for each thread, in order.
    pub(crate) fn join_all<T>(&self, threads: Vec<Watched<T>>) -> Vec<T> {
        threads.into_iter().map(|t| self.join(t)).collect()
    }

    /// Fails the test, with the report, if a watched thread has panicked: for a test
    /// thread that waits by spinning rather than in [`Watch::join`].
    ///
    /// # Panics
    ///
    /// When a watched thread panicked.
    pub(crate) fn check(&self) {
        if let Some(other) = self.panicked() {
            panic!("watchdog: {other} panicked; threads: {}", self.group.report());
        }
    }

    /// The name of a watched thread that panicked, if any.
    fn panicked(&self) -> Option<String> {
        let tracks = self.group.tracks.lock().unwrap();
        tracks.iter().find(|t| matches!(t.state.lock().unwrap().ended, Some(Some(_)))).map(|t| t.name.clone())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // The test thread is no longer watched by this group.
        let _ = CURRENT.try_with(|c| {
            let mut current = c.borrow_mut();
            if current.as_ref().is_some_and(|(_, g)| Arc::ptr_eq(g, &self.group)) {
                *current = None;
            }
        });
    }
}
