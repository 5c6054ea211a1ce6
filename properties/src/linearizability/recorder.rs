//! [`Recorder`]: records a [`History`] under loom, shuttle or plain threads, adding as
//! little synchronization as possible.
//!
//! The clock is one atomic counter from pipecheck's sync facade, bumped with `Relaxed`
//! read-modify-writes: every engine orders it itself (loom and shuttle explore its
//! modification order like any atomic's), and a relaxed RMW creates no happens-before
//! edge between threads, so recording cannot hide a missing synchronization in the code
//! under test. Coherence is what real-time order needs: if one operation's response
//! happens before another's invocation, the counter's modification order puts the
//! response's stamp first. Each thread keeps its operations in its own [`ThreadLog`]
//! (no shared log, no lock) and hands it back when it is joined.

use pipecheck_core::primitive::sync::Arc;
use pipecheck_core::primitive::sync::atomic::{AtomicU64, Ordering};

use super::history::{History, Operation};

/// The shared clock of one recorded run.
///
/// # Examples
///
// Under loom and shuttle the clock's atomic only works inside a model.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_properties::linearizability::{History, Recorder};
///
/// let recorder = Recorder::new();
/// let mut log = recorder.thread(0);
/// let write = log.invoke("write");
/// log.respond(write, 1u32);
/// let _waiting = log.invoke("read"); // never returns
/// let history: History<&str, u32> = Recorder::history(vec![log]);
/// assert_eq!(history.len(), 2);
/// assert!(history.ops()[1].output.is_none());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    clock: Arc<AtomicU64>,
}

impl Recorder {
    /// A clock at 0. Under loom or shuttle, make it inside the model's execution.
    pub fn new() -> Recorder {
        Recorder { clock: Arc::new(AtomicU64::new(0)) }
    }

    /// The log of thread `thread`, to move into that thread.
    pub fn thread<I, O>(&self, thread: usize) -> ThreadLog<I, O> {
        ThreadLog { clock: self.clock.clone(), thread, ops: Vec::new() }
    }

    /// The history made of the threads' logs (each handed back by its joined thread).
    pub fn history<I, O>(logs: impl IntoIterator<Item = ThreadLog<I, O>>) -> History<I, O> {
        let mut history = History::new();
        for log in logs {
            for op in log.ops {
                history.push(op);
            }
        }
        history
    }

    fn tick(clock: &AtomicU64) -> u64 {
        clock.fetch_add(1, Ordering::Relaxed)
    }
}

/// An invoked operation waiting for its [`ThreadLog::respond`].
#[derive(Debug)]
#[must_use = "an invoked operation is pending until its response is recorded"]
pub struct Invoked(usize);

/// One thread's operations, recorded without sharing anything but the clock.
#[derive(Debug)]
pub struct ThreadLog<I, O> {
    clock: Arc<AtomicU64>,
    thread: usize,
    ops: Vec<Operation<I, O>>,
}

impl<I, O> ThreadLog<I, O> {
    /// Records the invocation of `input`, just before the call.
    pub fn invoke(&mut self, input: I) -> Invoked {
        let invoked = Recorder::tick(&self.clock);
        self.ops.push(Operation { thread: self.thread, input, output: None, invoked, responded: None });
        Invoked(self.ops.len() - 1)
    }

    /// Records the response of `op`, just after the call returned `output`.
    pub fn respond(&mut self, op: Invoked, output: O) {
        let responded = Recorder::tick(&self.clock);
        let op = &mut self.ops[op.0];
        op.output = Some(output);
        op.responded = Some(responded);
    }

    /// Runs `call` as one recorded operation and returns its output.
    pub fn record(&mut self, input: I, call: impl FnOnce() -> O) -> O
    where
        O: Clone,
    {
        let invoked = self.invoke(input);
        let output = call();
        self.respond(invoked, output.clone());
        output
    }
}
