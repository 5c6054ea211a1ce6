//! A minimal `block_on` for `std`: poll, park until woken, repeat.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

thread_local! {
    /// This thread's waker, made once: a `block_on` per pipe operation would otherwise
    /// allocate one (and look up the current thread) on every call, and a pipe end that
    /// stores it sees the same waker again (`will_wake`) and need not replace it.
    static WAKER: Waker = thread_waker();
}

fn thread_waker() -> Waker {
    Waker::from(Arc::new(ThreadWaker(thread::current())))
}

/// Runs `future` to completion on the current thread, parking while it is pending.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// assert_eq!(pipecheck_sync::future::block_on(async { 7 }), 7);
/// ```
// Always inlined: a call to it per pipe operation pushed and popped six registers and
// moved the future into its frame, 7 of the ~285 instructions of a 64 B chunk's
// `get_memory`/copy/`advance`/`flush` (callgrind, core/benches/PERFORMANCE.md). (A
// `const` thread-local caching the waker's address, to skip `WAKER`'s state check, cost
// 4 more: the check is cheaper than the branch and the cold call around it.)
#[inline(always)]
pub fn block_on<F: Future>(mut future: F) -> F::Output {
    // Pinned where it is: `pin!` moves its argument into a block first, a copy of the
    // whole future (11 instructions per 64 B chunk for a flush future).
    // SAFETY: `future` is shadowed by the pinned reference and never moved again; it is
    // dropped in place at the end of this function.
    let mut future = unsafe { Pin::new_unchecked(&mut future) };
    // The output comes back through `try_with`'s `Result`, not an `Option` filled in the
    // closure: one move of it less on every call (a pipe operation's output is 40 bytes).
    match WAKER.try_with(|waker| run(future.as_mut(), waker)) {
        Ok(output) => output,
        // Called while this thread's locals are being destroyed: a waker of its own.
        Err(_) => run(future.as_mut(), &thread_waker()),
    }
}

#[inline(always)]
fn run<F: Future>(mut future: Pin<&mut F>, waker: &Waker) -> F::Output {
    let mut cx = Context::from_waker(waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // A wake between the poll and this park leaves the unpark token set, so the
        // park returns at once: no lost wakeup. A token left over from an earlier
        // call's wake costs one extra poll.
        thread::park();
    }
}
