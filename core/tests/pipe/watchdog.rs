//! The watchdog that every blocking wait of these tests goes through: a wait that is
//! never woken fails the test within seconds and names the operation, instead of
//! hanging the suite.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::mpsc::{self, Sender};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::common::watchdog::{DEADLINE, Watch, block_on_within, phase_at};

/// Short, so the tests that expect the watchdog to fire finish quickly; the deadline
/// only decides when a wait counts as never woken.
const SHORT: Duration = Duration::from_millis(300);

/// The message of a caught panic.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

#[test]
fn a_read_that_nothing_wakes_fails_naming_the_read() {
    let (writer, mut reader) = pipecheck_pipe::pipe();
    // The writer stays alive and silent: the read can only wait.
    let failure = catch_unwind(AssertUnwindSafe(|| block_on_within(SHORT, reader.read()).map(|_| ())))
        .expect_err("the watchdog fails a read that is never woken");
    let message = message(failure.as_ref());
    assert!(message.contains("`ReadFuture` at core/tests/pipe/watchdog.rs:"), "{message}");
    assert!(message.contains("was never woken"), "{message}");
    drop(writer);
}

/// Sends once on `pending` when the wrapped future first returns `Pending`.
struct SignalPending<F> {
    future: Pin<Box<F>>,
    pending: Option<Sender<()>>,
}

impl<F: Future> Future for SignalPending<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let poll = self.future.as_mut().poll(cx);
        if poll.is_pending()
            && let Some(pending) = self.pending.take()
        {
            let _ = pending.send(());
        }
        poll
    }
}

/// A reader thread waits in `read`; once its read is pending, the writer completes.
/// Returns what the reader thread ended with.
fn complete_while_read_pending(options: pipecheck_pipe::PipeOptions) -> std::thread::Result<bool> {
    let (mut writer, mut reader) = options.build().expect("valid options");
    let (pending, is_pending) = mpsc::channel();
    let reading = std::thread::spawn(move || {
        let read = SignalPending { future: Box::pin(reader.read()), pending: Some(pending) };
        block_on_within(SHORT, read).expect("read").is_completed()
    });
    is_pending.recv_timeout(DEADLINE).expect("the read went pending");
    writer.complete(None);
    reading.join()
}

#[test]
fn a_completion_wakes_the_pending_read() {
    let completed = complete_while_read_pending(pipecheck_pipe::PipeOptions::new());
    assert_eq!(completed.ok(), Some(true));
}

#[test]
fn a_lost_wakeup_fails_within_the_deadline_naming_the_read() {
    use pipecheck_pipe::fault;
    // The writer completes on this thread, where the planted bug is switched on.
    let completed = fault::LostWakeOnComplete
        .activate(|| complete_while_read_pending(pipecheck_pipe::PipeOptions::new()));
    let failure = completed.expect_err("the reader is never woken");
    let message = message(failure.as_ref());
    assert!(message.contains("watchdog: `SignalPending` at core/tests/pipe/watchdog.rs:"), "{message}");
    assert!(message.contains("was never woken"), "{message}");
}

/// A thread stuck outside any future (here on a channel, as it would be on a deadlocked
/// lock): no future's watchdog sees it, the watch's stall check does, and names the
/// phase the thread labelled.
#[test]
fn a_thread_stuck_outside_a_future_fails_the_join_naming_its_phase() {
    let watch = Watch::within(SHORT);
    let (release, stuck) = mpsc::channel::<()>();
    let sleeper = watch.spawn("sleeper", move || {
        phase_at("recv()", 42);
        stuck.recv().expect("released");
    });
    let failure = catch_unwind(AssertUnwindSafe(|| watch.join(sleeper))).expect_err("no progress");
    let message = message(failure.as_ref());
    assert!(message.contains("no thread made progress"), "{message}");
    assert!(message.contains("sleeper blocked in recv() at offset 42"), "{message}");
    release.send(()).expect("the sleeper waits");
}

/// A read that is never woken on a watched thread: its watchdog fires there, and the
/// join reports it with what the other threads were doing.
#[test]
fn a_lost_wake_on_a_watched_thread_names_every_threads_operation() {
    let (writer, mut reader) = pipecheck_pipe::pipe();
    let watch = Watch::new();
    let reading = watch.spawn("reader", move || {
        phase_at("read()", 0);
        block_on_within(SHORT, reader.read()).map(|_| ())
    });
    let failure = catch_unwind(AssertUnwindSafe(|| watch.join(reading))).expect_err("never woken");
    let message = message(failure.as_ref());
    assert!(message.contains("watchdog: reader panicked"), "{message}");
    assert!(
        message.contains("reader panicked: watchdog: `ReadFuture` at core/tests/pipe/watchdog.rs:"),
        "{message}"
    );
    assert!(message.contains("test blocked in join()"), "{message}");
    drop(writer);
}

/// Threads that finish are joined with their results, however long the run: progress,
/// not the total time, decides.
#[test]
fn watched_threads_that_finish_return_their_results() {
    let watch = Watch::within(SHORT);
    let threads: Vec<_> = (0..3u64).map(|i| watch.spawn(format!("worker {i}"), move || i * 2)).collect();
    assert_eq!(watch.join_all(threads), [0, 2, 4]);
}

/// The runtime-driven form: a read awaited on a tokio runtime that nothing wakes fails
/// the test, naming the future and the line that awaited it.
#[test]
fn an_awaited_read_that_nothing_wakes_fails_naming_the_read() {
    use crate::common::watched::WatchFuture;
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let (writer, mut reader) = pipecheck_pipe::pipe();
    let failure = catch_unwind(AssertUnwindSafe(|| {
        runtime.block_on(async { reader.read().watched_within(SHORT).await.map(|_| ()) })
    }))
    .expect_err("the watchdog fails an awaited read that is never woken");
    let message = message(failure.as_ref());
    assert!(message.contains("`ReadFuture` awaited at core/tests/pipe/watchdog.rs:"), "{message}");
    assert!(message.contains("was never woken"), "{message}");
    drop(writer);
}

/// A watched future that is woken keeps going, however long the whole takes: only a
/// deadline without a wake fails.
#[test]
fn an_awaited_read_that_is_woken_completes() {
    use crate::common::watched::WatchFuture;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).build().unwrap();
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let writing = std::thread::spawn(move || {
        writer.write(b"x").unwrap();
        crate::common::block_on(writer.flush()).unwrap();
        writer
    });
    let len = runtime.block_on(async { reader.read().watched_within(SHORT).await.map(|r| r.buffer().len()) });
    assert_eq!(len.unwrap(), 1);
    drop(writing.join().unwrap());
}
