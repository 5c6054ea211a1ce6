//! [`Recorder`]: records a [`History`] under loom, shuttle or plain threads, adding no
//! synchronization to the code under test.
//!
//! Each thread keeps its operations in its own [`ThreadLog`] (no shared log, no lock)
//! and hands it back when it is joined. What orders the operations of different threads
//! depends on the engine, because it depends on what the execution guarantees:
//!
//! * **shuttle and plain threads** (sequentially consistent executions): one atomic
//!   counter from pipecheck's sync facade, bumped with `Relaxed` read-modify-writes,
//!   stamps every invocation and response. A relaxed RMW creates no happens-before edge
//!   between threads, so recording cannot hide a missing synchronization; coherence puts
//!   a response that happens before an invocation first. In these executions the stamps'
//!   order is a real total order, and the history is checked in **real time**
//!   ([`Precedence::RealTime`](super::Precedence::RealTime)).
//! * **loom** (C11's weak memory): there is no clock. An operation that starts "later"
//!   than another's response by a relaxed counter may still read values older than that
//!   operation's writes, since no happens-before edge orders them; checking such a
//!   history in real time reports correct code as not linearizable. So under loom each
//!   log stamps its own operations only, and precedence is what the execution
//!   establishes: program order within a thread, plus the spawn and join edges the logs
//!   record ([`ThreadLog::fork`], [`ThreadLog::join`]) —
//!   [`Precedence::Causal`](super::Precedence::Causal). The check then means: linearizable with respect to
//!   program order and spawn/join (operations of threads running side by side may take
//!   effect in any order consistent with each thread's program order).

#[cfg(not(feature = "loom"))]
use pipecheck_sync::sync::Arc;
#[cfg(not(feature = "loom"))]
use pipecheck_sync::sync::atomic::{AtomicU64, Ordering};

use std::collections::HashMap;

use super::history::{History, OpId, Operation};

/// The shared clock of one recorded run (under loom: no clock, see the module docs).
///
/// # Examples
///
// Under loom and shuttle the clock's atomic only works inside a model.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck::linearizability::{History, Recorder};
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
    #[cfg(not(feature = "loom"))]
    clock: Arc<AtomicU64>,
}

impl Recorder {
    /// A clock at 0. Under shuttle, make it inside the model's execution.
    pub fn new() -> Recorder {
        Recorder {
            #[cfg(not(feature = "loom"))]
            clock: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The log of thread `thread`, to move into that thread.
    pub fn thread<I, O>(&self, thread: usize) -> ThreadLog<I, O> {
        ThreadLog {
            #[cfg(not(feature = "loom"))]
            clock: self.clock.clone(),
            #[cfg(feature = "loom")]
            stamp: 0,
            thread,
            ops: Vec::new(),
            known: Vec::new(),
            frontiers: Vec::new(),
        }
    }

    /// The history made of the threads' logs (each handed back by its joined thread, or
    /// already [joined](ThreadLog::join) into another log). Under loom its precedence is
    /// [`Precedence::Causal`](super::Precedence::Causal): program order plus the recorded spawn/join edges.
    pub fn history<I, O>(logs: impl IntoIterator<Item = ThreadLog<I, O>>) -> History<I, O> {
        let mut history = if cfg!(feature = "loom") { History::causal() } else { History::new() };
        let mut counts: HashMap<usize, usize> = HashMap::new();
        let mut ids: HashMap<(usize, usize), OpId> = HashMap::new();
        let mut frontiers = Vec::new();
        for log in logs {
            for (op, frontier) in log.ops.into_iter().zip(log.frontiers) {
                let nth = counts.entry(op.thread).or_insert(0);
                ids.insert((op.thread, *nth), OpId(history.len()));
                *nth += 1;
                frontiers.push((history.push(op), frontier));
            }
        }
        // `(thread, n)` in a frontier: the first `n` operations of `thread` happen before
        // this one; the edge from the n-th implies the others (program order).
        let ids = &ids;
        let edges: Vec<(OpId, OpId)> = frontiers
            .into_iter()
            .flat_map(|(id, frontier)| {
                frontier.into_iter().filter_map(move |(thread, n)| Some((*ids.get(&(thread, n - 1))?, id)))
            })
            .collect();
        // Elsewhere the stamps' real-time order already contains these edges.
        if cfg!(feature = "loom") {
            edges.into_iter().for_each(|(before, after)| history.order(before, after));
        }
        history
    }
}

/// An invoked operation waiting for its [`ThreadLog::respond`].
#[derive(Debug)]
#[must_use = "an invoked operation is pending until its response is recorded"]
pub struct Invoked(usize);

/// One thread's operations, recorded without sharing anything but the clock (and
/// under loom, nothing at all).
#[derive(Debug)]
pub struct ThreadLog<I, O> {
    #[cfg(not(feature = "loom"))]
    clock: Arc<AtomicU64>,
    /// This log's own stamps (loom: no shared clock).
    #[cfg(feature = "loom")]
    stamp: u64,
    thread: usize,
    ops: Vec<Operation<I, O>>,
    /// Per other thread, how many of its operations happen before this point (through
    /// spawns and joins): a vector clock over operation counts.
    known: Vec<(usize, usize)>,
    /// Each recorded operation's `known` at its invocation (zero counts left out).
    frontiers: Vec<Vec<(usize, usize)>>,
}

impl<I, O> ThreadLog<I, O> {
    fn tick(&mut self) -> u64 {
        #[cfg(not(feature = "loom"))]
        {
            self.clock.fetch_add(1, Ordering::Relaxed)
        }
        #[cfg(feature = "loom")]
        {
            self.stamp += 1;
            self.stamp - 1
        }
    }

    /// How many operations of this log's own thread it recorded.
    fn own(&self) -> usize {
        self.ops.iter().filter(|op| op.thread == self.thread).count()
    }

    /// Raises the count known for `thread` to `n`.
    fn learn(&mut self, thread: usize, n: usize) {
        match self.known.iter_mut().find(|(t, _)| *t == thread) {
            Some((_, known)) => *known = (*known).max(n),
            None if n > 0 => self.known.push((thread, n)),
            None => {}
        }
    }

    /// The log of thread `thread`, spawned now by this log's thread: everything this
    /// thread did so far (and everything that happened before it) happens before the
    /// new thread's operations.
    pub fn fork(&self, thread: usize) -> ThreadLog<I, O> {
        let mut log = ThreadLog {
            #[cfg(not(feature = "loom"))]
            clock: self.clock.clone(),
            #[cfg(feature = "loom")]
            stamp: 0,
            thread,
            ops: Vec::new(),
            known: self.known.clone(),
            frontiers: Vec::new(),
        };
        log.learn(self.thread, self.own());
        log
    }

    /// Takes back the log of a joined thread: its operations join this log's (for
    /// [`Recorder::history`]), and happen before this thread's later ones.
    pub fn join(&mut self, child: ThreadLog<I, O>) {
        let own = child.own();
        for &(thread, n) in &child.known {
            self.learn(thread, n);
        }
        self.learn(child.thread, own);
        self.ops.extend(child.ops);
        self.frontiers.extend(child.frontiers);
    }

    /// Records the invocation of `input`, just before the call.
    pub fn invoke(&mut self, input: I) -> Invoked {
        let invoked = self.tick();
        self.ops.push(Operation { thread: self.thread, input, output: None, invoked, responded: None });
        self.frontiers.push(self.known.clone());
        Invoked(self.ops.len() - 1)
    }

    /// Records the response of `op`, just after the call returned `output`.
    pub fn respond(&mut self, op: Invoked, output: O) {
        let responded = self.tick();
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
