//! Loom: the waker registration path of the I/O adapters (**no-lost-wakeup**). An
//! adapter stores no future between polls (see `pipecheck_pipe::adapters`): each poll
//! registers the caller's waker in the pipe afresh, and an executor may poll the same
//! pending read or flush with a different waker each time (a task moved between
//! workers, a `select!` arm re-polled). The model polls a pending adapter with one
//! waker, polls it again with a second while the other side acts from another thread,
//! and checks in every interleaving that the side is woken, that the waker woken is the
//! latest one and never the one it replaced, and that the wake is followed by progress.
//!
//! The models go through the adapters' trait methods themselves: tokio's `AsyncRead`,
//! `AsyncBufRead` and `AsyncWrite`, and `futures-io`'s `AsyncRead` and `AsyncWrite` (the
//! `loom` feature of this crate turns on pipecheck-pipe's `tokio` and `futures-io`).
//!
//! Run: `cargo test -p pipecheck-models --features loom --test loom -- adapters:: --nocapture`.
use std::collections::BTreeSet;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use pipecheck::ensure;
use pipecheck::future::block_on;
use pipecheck::loom_harness::{expect_model_caught, explore};
use pipecheck::sync::atomic::{AtomicUsize, Ordering};
use pipecheck::thread;
use pipecheck::{InvariantId, Violation};
use pipecheck_pipe::{PipeOptions, Reader, Writer};

/// Bound 4, as the pipe's own families: a re-poll race needs one preemption in the
/// polling side's step and one to bring the other side in, and the stale-waker twin is
/// caught in its first execution. (Bound 12 once reached every interleaving; since the
/// lock-free flush and read put atomic steps on every flush and read the count no
/// longer levels off — the write model explored 59,455 interleavings in 51 s at bound
/// 12 — so the bound is chosen like the others'. Counts at 4: 84 per read model, 1,263
/// per flush model, 2,416 for the paused write; about 3 s in all, `--release`.)
const BOUND: usize = 4;

/// A waker that counts its wakes, on the facade's atomics (so loom orders them).
struct Counter(AtomicUsize);

impl Counter {
    fn waker() -> (Arc<Counter>, Waker) {
        let counter = Arc::new(Counter(AtomicUsize::new(0)));
        (counter.clone(), Waker::from(counter))
    }

    fn wakes(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Where the other side's action landed, as seen by the polling side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Before the first poll: it was ready.
    BeforeFirstPoll,
    /// Between the polls: the re-poll was ready (the first waker may have been woken).
    BetweenPolls,
    /// After the re-poll: the re-poll's waker was woken, and the next poll was ready.
    AfterRepoll,
}

/// One poll of an adapter's flush (or of a write the paused writer must not accept).
type PollFlush = fn(&mut Writer, &mut Context<'_>) -> Poll<io::Result<()>>;

/// The reader polls a read on an empty pipe with waker A, then again with waker B,
/// while another thread writes one byte and flushes.
fn read_wakes_the_latest_waker(
    mut poll_read: impl FnMut(&mut Reader, &mut Context<'_>) -> Poll<io::Result<Vec<u8>>>,
) -> Outcome {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let writing = thread::spawn(move || {
        writer.write(b"x").unwrap();
        block_on(writer.flush()).unwrap();
        // Returned, not dropped: completing the writer would wake the reader too.
        writer
    });
    let (a, waker_a) = Counter::waker();
    let (b, waker_b) = Counter::waker();
    let first = poll_read(&mut reader, &mut Context::from_waker(&waker_a));
    let (second, mut outcome) = match first {
        Poll::Ready(read) => (Poll::Ready(read), Outcome::BeforeFirstPoll),
        Poll::Pending => (poll_read(&mut reader, &mut Context::from_waker(&waker_b)), Outcome::BetweenPolls),
    };
    let _writer = writing.join().unwrap();
    let read = match second {
        Poll::Ready(read) => read,
        Poll::Pending => {
            // The flush came after the re-poll registered B: B alone may be woken.
            let wakes = (a.wakes(), b.wakes());
            ensure(wakes == (0, 1), InvariantId::NO_LOST_WAKEUP, || {
                format!(
                    "a flush after the re-poll must wake the re-poll's waker, not the replaced one (wakes A, B: {wakes:?})"
                )
            });
            outcome = Outcome::AfterRepoll;
            match poll_read(&mut reader, &mut Context::from_waker(&waker_b)) {
                Poll::Ready(read) => read,
                Poll::Pending => {
                    Violation::new(InvariantId::NO_LOST_WAKEUP, "woken, but the read is pending").raise()
                }
            }
        }
    };
    assert_eq!(read.unwrap(), b"x");
    outcome
}

/// The writer commits two bytes into a pipe that pauses at two, polls the paused
/// adapter with waker A, then with waker B, while another thread reads and consumes.
fn flush_wakes_the_latest_waker(poll_flush: PollFlush) -> Outcome {
    let (mut writer, mut reader) =
        PipeOptions::new().pause_writer_threshold(2).resume_writer_threshold(1).build().unwrap();
    let reading = thread::spawn(move || {
        let result = block_on(reader.read()).unwrap();
        let end = result.buffer().end();
        reader.advance(end).unwrap();
        // Returned, not dropped: completing the reader would wake the writer too.
        reader
    });
    writer.write(b"ab").unwrap();
    let (a, waker_a) = Counter::waker();
    let (b, waker_b) = Counter::waker();
    // The commit: pauses the writer unless the reader has already consumed.
    let committed = block_on(std::future::poll_fn(|cx| match writer.poll_flush_result(cx) {
        Poll::Ready(result) => Poll::Ready(Some(result)),
        Poll::Pending => Poll::Ready(None),
    }));
    assert!(committed.is_none_or(|r| r.is_ok()));
    let first = poll_flush(&mut writer, &mut Context::from_waker(&waker_a));
    let (second, mut outcome) = match first {
        Poll::Ready(done) => (Poll::Ready(done), Outcome::BeforeFirstPoll),
        Poll::Pending => (poll_flush(&mut writer, &mut Context::from_waker(&waker_b)), Outcome::BetweenPolls),
    };
    let _reader = reading.join().unwrap();
    let done = match second {
        Poll::Ready(done) => done,
        Poll::Pending => {
            let wakes = (a.wakes(), b.wakes());
            ensure(wakes == (0, 1), InvariantId::NO_LOST_WAKEUP, || {
                format!(
                    "a consume after the re-poll must wake the re-poll's waker, not the replaced one (wakes A, B: {wakes:?})"
                )
            });
            outcome = Outcome::AfterRepoll;
            match poll_flush(&mut writer, &mut Context::from_waker(&waker_b)) {
                Poll::Ready(done) => done,
                Poll::Pending => {
                    Violation::new(InvariantId::NO_LOST_WAKEUP, "woken, but still paused").raise()
                }
            }
        }
    };
    done.unwrap();
    outcome
}

/// Explores `body` and asserts that every [`Outcome`] was reached: the re-poll's wake
/// is checked only when the other side acts after it, so that interleaving must occur.
fn check(model: &str, body: impl Fn() -> Outcome + Send + Sync + 'static) {
    // Collected with std types, outside loom's view (loom's `tests/litmus.rs` pattern).
    let reached = Arc::new(Mutex::new(BTreeSet::new()));
    let seen = reached.clone();
    explore(model, BOUND, move || {
        let outcome = body();
        seen.lock().unwrap().insert(outcome);
    });
    let reached: Vec<Outcome> = reached.lock().unwrap().iter().copied().collect();
    assert_eq!(reached, [Outcome::BeforeFirstPoll, Outcome::BetweenPolls, Outcome::AfterRepoll]);
}

mod tokio_traits {
    use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

    use super::*;

    pub(super) fn poll_read(reader: &mut Reader, cx: &mut Context<'_>) -> Poll<io::Result<Vec<u8>>> {
        let mut storage = [0u8; 4];
        let mut buf = ReadBuf::new(&mut storage);
        Pin::new(reader).poll_read(cx, &mut buf).map_ok(|()| buf.filled().to_vec())
    }

    fn poll_fill_buf(reader: &mut Reader, cx: &mut Context<'_>) -> Poll<io::Result<Vec<u8>>> {
        let filled = Pin::new(&mut *reader).poll_fill_buf(cx).map_ok(<[u8]>::to_vec);
        if let Poll::Ready(Ok(bytes)) = &filled {
            Pin::new(reader).consume(bytes.len());
        }
        filled
    }

    fn poll_flush(writer: &mut Writer, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(writer).poll_flush(cx)
    }

    /// A paused writer accepts no bytes: `poll_write` waits like a flush.
    fn poll_write(writer: &mut Writer, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(writer).poll_write(cx, b"c").map_ok(|n| assert_eq!(n, 1))
    }

    #[test]
    fn poll_read_wakes_the_latest_waker() {
        check("adapter-read-repolled (tokio AsyncRead)", || read_wakes_the_latest_waker(poll_read));
    }

    #[test]
    fn poll_fill_buf_wakes_the_latest_waker() {
        check("adapter-fill-buf-repolled (tokio AsyncBufRead)", || {
            read_wakes_the_latest_waker(poll_fill_buf)
        });
    }

    #[test]
    fn poll_flush_wakes_the_latest_waker() {
        check("adapter-flush-repolled (tokio AsyncWrite)", || flush_wakes_the_latest_waker(poll_flush));
    }

    #[test]
    fn poll_write_while_paused_wakes_the_latest_waker() {
        check("adapter-write-repolled (tokio AsyncWrite)", || flush_wakes_the_latest_waker(poll_write));
    }
}

/// The models' twin: an adapter that keeps the waker of its first poll and hands that
/// one to the pipe ever after (a stored waker never refreshed) must be caught as a lost
/// wakeup, in the interleaving where the flush comes after the re-poll.
mod stale_waker_twin {
    use super::*;

    #[test]
    fn an_adapter_keeping_its_first_waker_is_caught() {
        let verdict = expect_model_caught(InvariantId::NO_LOST_WAKEUP, BOUND, || {
            let mut first: Option<Waker> = None;
            read_wakes_the_latest_waker(move |reader, cx| {
                let stale = first.get_or_insert_with(|| cx.waker().clone()).clone();
                tokio_traits::poll_read(reader, &mut Context::from_waker(&stale))
            });
        });
        eprintln!("stale waker caught: {verdict:?}");
    }
}

mod futures_io_traits {
    use futures_io::{AsyncRead, AsyncWrite};

    use super::*;

    fn poll_read(reader: &mut Reader, cx: &mut Context<'_>) -> Poll<io::Result<Vec<u8>>> {
        let mut buf = [0u8; 4];
        Pin::new(reader).poll_read(cx, &mut buf).map_ok(|n| buf[..n].to_vec())
    }

    fn poll_flush(writer: &mut Writer, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(writer).poll_flush(cx)
    }

    #[test]
    fn poll_read_wakes_the_latest_waker() {
        check("adapter-read-repolled (futures-io AsyncRead)", || read_wakes_the_latest_waker(poll_read));
    }

    #[test]
    fn poll_flush_wakes_the_latest_waker() {
        check("adapter-flush-repolled (futures-io AsyncWrite)", || flush_wakes_the_latest_waker(poll_flush));
    }
}
