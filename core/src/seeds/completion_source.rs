//! A reusable completion source: one allocation serves operation after operation,
//! told apart by versioned tokens.
//!
//! Seed 003 (dotnet/runtime, "FileStream rewrite: Caching the ValueTaskSource") caches
//! one `IValueTaskSource` per stream instead of allocating per read or write (6,963,952 B
//! → 1,368 B allocated for 100 MB of reads). Reuse is only safe because every operation
//! carries the source's version, as in .NET's `ManualResetValueTaskSourceCore`: a token
//! from an earlier operation, a second `get_result`, a second `set_result` and a second
//! waiter are all detected and refused with a typed [`CompletionError`].
//!
//! All state sits under one facade mutex. The waker is taken in the same critical
//! section that publishes the result, and a waiter registers its waker in the same
//! critical section that finds no result, so no wakeup is lost between completion and
//! await. Starting the next operation wakes a waiter of the previous one, whose token
//! has just turned stale, so it resolves with [`CompletionError::StaleToken`] instead of
//! sleeping on.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::fault;
use crate::pipe::register_waker;
use crate::seeds::primitive_event::{PrimitiveEvent, PrimitiveObserver, Probe};
use pipecheck_sync::sync::{Arc, Mutex};

/// Names one operation of a [`CompletionSource`]; only the current operation's token
/// is accepted.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// let source = pipecheck_pipe::CompletionSource::<u8>::new();
/// let first = source.reset();
/// let second = source.reset();
/// assert_ne!(first, second);
/// assert_eq!(second.version(), first.version() + 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    version: u64,
}

impl Token {
    /// The operation number this token belongs to.
    pub fn version(self) -> u64 {
        self.version
    }
}

/// Every misuse a [`CompletionSource`] refuses.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::{CompletionError, CompletionSource};
/// let source = CompletionSource::<u8>::new();
/// let token = source.reset();
/// assert_eq!(source.get_result(token), Err(CompletionError::NotCompleted { version: 1 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionError {
    /// The token belongs to an earlier (or never started) operation.
    StaleToken {
        /// The token's version.
        token: u64,
        /// The current operation's version.
        current: u64,
    },
    /// `set_result` for an operation that already has its result.
    AlreadyCompleted {
        /// The operation's version.
        version: u64,
    },
    /// The result was already taken by `get_result` or a waiter.
    ResultTaken {
        /// The operation's version.
        version: u64,
    },
    /// Another waiter is already waiting for this operation.
    SecondWaiter {
        /// The operation's version.
        version: u64,
    },
    /// `get_result` before the operation completed.
    NotCompleted {
        /// The operation's version.
        version: u64,
    },
}

impl fmt::Display for CompletionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompletionError::StaleToken { token, current } => {
                write!(f, "token of operation {token} used during operation {current}")
            }
            CompletionError::AlreadyCompleted { version } => {
                write!(f, "operation {version} already has a result")
            }
            CompletionError::ResultTaken { version } => {
                write!(f, "the result of operation {version} was already taken")
            }
            CompletionError::SecondWaiter { version } => {
                write!(f, "operation {version} already has a waiter")
            }
            CompletionError::NotCompleted { version } => write!(f, "operation {version} has not completed"),
        }
    }
}

impl std::error::Error for CompletionError {}

/// A completion source reused across operations: [`reset`](Self::reset) starts the
/// next operation in the same allocation and returns its [`Token`]; one party
/// completes it with [`set_result`](Self::set_result), another awaits it with
/// [`wait`](Self::wait) or polls it with [`get_result`](Self::get_result).
///
/// Clones share the one allocation.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::CompletionSource;
/// use pipecheck_sync::future::block_on;
///
/// let source = CompletionSource::new();
/// for i in 0..3 {
///     let token = source.reset(); // same allocation, next version
///     let completer = source.clone();
///     std::thread::spawn(move || completer.set_result(token, i).unwrap());
///     assert_eq!(block_on(source.wait(token)), Ok(i));
/// }
/// ```
pub struct CompletionSource<T> {
    inner: Arc<Inner<T>>,
    /// Shared by clones: the same object to an observer.
    probe: Probe,
}

struct Inner<T> {
    state: Mutex<State<T>>,
}

struct State<T> {
    /// The current operation; 0 before the first `reset`.
    version: u64,
    result: Slot<T>,
    /// A `wait` future has claimed this operation.
    waiter_claimed: bool,
    waker: Option<Waker>,
}

enum Slot<T> {
    Pending,
    Ready(T),
    Taken,
}

impl<T> CompletionSource<T> {
    /// A source with no operation started (call [`reset`](Self::reset) first).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let source = pipecheck_pipe::CompletionSource::<()>::new();
    /// assert_eq!(source.reset().version(), 1);
    /// ```
    pub fn new() -> CompletionSource<T> {
        CompletionSource::build()
    }

    fn build() -> CompletionSource<T> {
        CompletionSource {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    version: 0,
                    result: Slot::Pending,
                    waiter_claimed: false,
                    waker: None,
                }),
            }),
            probe: Probe::default(),
        }
    }

    /// This source, reporting its [`PrimitiveEvent`]s to `observer` (for invariant
    /// checkers: versions, results and the wakes they owe). Call it before cloning:
    /// clones made earlier report nothing.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use std::sync::{Arc, Mutex};
    /// use pipecheck_pipe::{CompletionSource, PrimitiveEvent, PrimitiveObserver};
    ///
    /// #[derive(Default)]
    /// struct Log(Mutex<Vec<PrimitiveEvent>>);
    /// impl PrimitiveObserver for Log {
    ///     fn on_primitive_event(&self, event: PrimitiveEvent) {
    ///         self.0.lock().unwrap().push(event);
    ///     }
    /// }
    ///
    /// let log = Arc::new(Log::default());
    /// let source = CompletionSource::new().observed(log.clone());
    /// let token = source.reset();
    /// source.set_result(token, 1).unwrap();
    /// assert!(log.0.lock().unwrap().iter().any(|e| matches!(e, PrimitiveEvent::CompletionResultSet { token: 1, .. })));
    /// ```
    pub fn observed(mut self, observer: std::sync::Arc<dyn PrimitiveObserver>) -> CompletionSource<T> {
        self.probe = Probe::new(observer);
        self
    }

    /// Starts the next operation in the same allocation and returns its token. Any
    /// result of the previous operation that nobody took is dropped, and its tokens
    /// turn stale.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::{CompletionError, CompletionSource};
    /// let source = CompletionSource::new();
    /// let old = source.reset();
    /// let new = source.reset();
    /// assert_eq!(source.set_result(old, 1), Err(CompletionError::StaleToken { token: 1, current: 2 }));
    /// assert_eq!(source.set_result(new, 2), Ok(()));
    /// ```
    pub fn reset(&self) -> Token {
        let mut state = self.inner.state.lock();
        let old = state.version;
        state.version += 1;
        state.result = Slot::Pending;
        state.waiter_claimed = false;
        let version = state.version;
        self.probe.emit(|source| PrimitiveEvent::CompletionReset { source, version });
        // A waiter of the operation ending here waits for a result that will never come:
        // wake it, so its next poll finds its token stale.
        let mut stranded = state.waker.take();
        if fault::ResetStrandsWaiter.is_active() {
            stranded = None;
        }
        if stranded.is_some() {
            self.probe.emit(|source| PrimitiveEvent::CompletionWoke { source, version: old });
        }
        drop(state);
        if let Some(waker) = stranded {
            waker.wake();
        }
        self.probe.emit(|source| PrimitiveEvent::CompletionResetReturned { source });
        Token { version }
    }

    /// Completes the operation `token` names with `value` and wakes its waiter.
    ///
    /// # Errors
    ///
    /// [`CompletionError::StaleToken`] for a token of another operation;
    /// [`CompletionError::AlreadyCompleted`] for a second result.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::{CompletionError, CompletionSource};
    /// let source = CompletionSource::new();
    /// let token = source.reset();
    /// source.set_result(token, 'a').unwrap();
    /// assert_eq!(source.set_result(token, 'b'), Err(CompletionError::AlreadyCompleted { version: 1 }));
    /// ```
    pub fn set_result(&self, token: Token, value: T) -> Result<(), CompletionError> {
        let mut state = self.inner.state.lock();
        if !fault::StaleTokenAccepted.is_active() {
            state.check(token)?;
        }
        if !matches!(state.result, Slot::Pending) {
            return Err(CompletionError::AlreadyCompleted { version: state.version });
        }
        if fault::LostCompletionWake.is_active() {
            // The planted bug: the waker is taken in one critical section and the
            // result published in another; a waiter registering in between sleeps on.
            let waker = self.take_waker(&mut state);
            drop(state);
            let mut state = self.inner.state.lock();
            state.result = Slot::Ready(value);
            self.probe.emit(|source| PrimitiveEvent::CompletionResultSet { source, token: token.version });
            drop(state);
            if let Some(waker) = waker {
                waker.wake();
            }
            self.probe.emit(|source| PrimitiveEvent::CompletionSetReturned { source });
            return Ok(());
        }
        state.result = Slot::Ready(value);
        self.probe.emit(|source| PrimitiveEvent::CompletionResultSet { source, token: token.version });
        let waker = self.take_waker(&mut state);
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
        self.probe.emit(|source| PrimitiveEvent::CompletionSetReturned { source });
        Ok(())
    }

    /// Takes the waiter's waker to wake it, reporting the wake it is about to issue.
    fn take_waker(&self, state: &mut State<T>) -> Option<Waker> {
        let waker = state.waker.take();
        if waker.is_some() {
            let version = state.version;
            self.probe.emit(|source| PrimitiveEvent::CompletionWoke { source, version });
        }
        waker
    }

    /// Takes the result of the operation `token` names, without waiting.
    ///
    /// # Errors
    ///
    /// [`CompletionError::StaleToken`] for a token of another operation;
    /// [`CompletionError::NotCompleted`] before `set_result`;
    /// [`CompletionError::ResultTaken`] for a second `get_result` (or after a waiter took it).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::{CompletionError, CompletionSource};
    /// let source = CompletionSource::new();
    /// let token = source.reset();
    /// source.set_result(token, 5).unwrap();
    /// assert_eq!(source.get_result(token), Ok(5));
    /// assert_eq!(source.get_result(token), Err(CompletionError::ResultTaken { version: 1 }));
    /// ```
    pub fn get_result(&self, token: Token) -> Result<T, CompletionError> {
        let mut state = self.inner.state.lock();
        state.check(token)?;
        let version = state.version;
        let result = state.take_result().unwrap_or(Err(CompletionError::NotCompleted { version }));
        if result.is_ok() {
            self.probe.emit(|source| PrimitiveEvent::CompletionResultTaken { source, version });
        }
        result
    }

    /// Waits for the result of the operation `token` names. One waiter per operation;
    /// dropping the future before it resolves frees the place for another.
    ///
    /// # Errors
    ///
    /// [`CompletionError::StaleToken`] for a token of another operation (also when
    /// the source is reset while waiting); [`CompletionError::SecondWaiter`] while
    /// another waiter waits; [`CompletionError::ResultTaken`] when the result was
    /// already taken.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::CompletionSource;
    /// use pipecheck_sync::future::block_on;
    /// let source = CompletionSource::new();
    /// let token = source.reset();
    /// source.set_result(token, "done").unwrap();
    /// assert_eq!(block_on(source.wait(token)), Ok("done"));
    /// ```
    pub fn wait(&self, token: Token) -> Wait<'_, T> {
        Wait { source: self, token, claimed: false }
    }
}

impl<T> State<T> {
    fn check(&self, token: Token) -> Result<(), CompletionError> {
        if token.version == self.version && self.version != 0 {
            Ok(())
        } else {
            Err(CompletionError::StaleToken { token: token.version, current: self.version })
        }
    }

    /// The result if it is ready (and not yet taken); `Err` if it was taken.
    fn take_result(&mut self) -> Option<Result<T, CompletionError>> {
        match std::mem::replace(&mut self.result, Slot::Taken) {
            Slot::Ready(value) => Some(Ok(value)),
            Slot::Taken => Some(Err(CompletionError::ResultTaken { version: self.version })),
            Slot::Pending => {
                self.result = Slot::Pending;
                None
            }
        }
    }
}

impl<T> Clone for CompletionSource<T> {
    fn clone(&self) -> Self {
        CompletionSource { inner: self.inner.clone(), probe: self.probe.clone() }
    }
}

impl<T> Default for CompletionSource<T> {
    fn default() -> Self {
        CompletionSource::new()
    }
}

impl<T> fmt::Debug for CompletionSource<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.state.lock();
        let result = match state.result {
            Slot::Pending => "pending",
            Slot::Ready(_) => "ready",
            Slot::Taken => "taken",
        };
        f.debug_struct("CompletionSource")
            .field("version", &state.version)
            .field("result", &result)
            .field("waiter_claimed", &state.waiter_claimed)
            .finish()
    }
}

/// The future of [`CompletionSource::wait`].
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::{CompletionError, CompletionSource};
/// use pipecheck_sync::future::block_on;
/// let source = CompletionSource::<u8>::new();
/// let token = source.reset();
/// source.set_result(token, 1).unwrap();
/// let first = source.wait(token);
/// assert_eq!(block_on(first), Ok(1));
/// assert_eq!(block_on(source.wait(token)), Err(CompletionError::ResultTaken { version: 1 }));
/// ```
#[must_use = "a wait does nothing unless polled"]
pub struct Wait<'a, T> {
    source: &'a CompletionSource<T>,
    token: Token,
    /// This future is the operation's waiter.
    claimed: bool,
}

impl<T> Future for Wait<'_, T> {
    type Output = Result<T, CompletionError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let probe = &this.source.probe;
        let version = this.token.version;
        let mut state = this.source.inner.state.lock();
        if let Err(e) = state.check(this.token) {
            if std::mem::take(&mut this.claimed) {
                probe.emit(|source| PrimitiveEvent::CompletionWaiterLeft { source, version });
            }
            return Poll::Ready(Err(e));
        }
        if !this.claimed {
            if matches!(state.result, Slot::Taken) {
                return Poll::Ready(Err(CompletionError::ResultTaken { version: state.version }));
            }
            if state.waiter_claimed {
                return Poll::Ready(Err(CompletionError::SecondWaiter { version: state.version }));
            }
            state.waiter_claimed = true;
            this.claimed = true;
        }
        match state.take_result() {
            Some(result) => {
                state.waker = None;
                this.claimed = false;
                probe.emit(|source| PrimitiveEvent::CompletionWaiterLeft { source, version });
                if result.is_ok() {
                    probe.emit(|source| PrimitiveEvent::CompletionResultTaken { source, version });
                }
                Poll::Ready(result)
            }
            None => {
                register_waker(&mut state.waker, cx);
                probe.emit(|source| PrimitiveEvent::CompletionWaiting { source, version });
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for Wait<'_, T> {
    fn drop(&mut self) {
        if !self.claimed || pipecheck_sync::skip_locking_cleanup() {
            return;
        }
        // Cancelled while waiting: give up the waiter's place.
        let mut state = self.source.inner.state.lock();
        if state.version == self.token.version {
            state.waiter_claimed = false;
            state.waker = None;
        }
        let version = self.token.version;
        self.source.probe.emit(|source| PrimitiveEvent::CompletionWaiterLeft { source, version });
    }
}

impl<T> fmt::Debug for Wait<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wait").field("token", &self.token).field("claimed", &self.claimed).finish()
    }
}
