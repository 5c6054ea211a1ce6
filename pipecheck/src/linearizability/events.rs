//! [`Event`]: a history as a stream of calls and returns, the shape foreign logs have
//! (porcupine's `CheckEvents`, Jepsen's `:invoke`/`:ok` lines), turned into a
//! [`History`] whose stamps are the events' positions.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

use super::history::{History, OpId, Operation, PendingPolicy};

/// One event of a history: a client calls an operation, or an operation returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<Id, I, O> {
    /// `client` invokes `input`; `id` names the operation until it returns.
    Call {
        /// The operation's name in the stream (unique among operations in flight).
        id: Id,
        /// The client (thread, process) that called it.
        client: usize,
        /// The operation and its arguments.
        input: I,
    },
    /// The operation `id` returns `output`.
    Return {
        /// The name its call gave it.
        id: Id,
        /// What it returned.
        output: O,
    },
}

/// A stream that is not a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventError {
    /// A return (at this position in the stream) for no operation in flight.
    UnmatchedReturn(usize),
    /// A call (at this position) reuses the id of an operation still in flight.
    DuplicateCall(usize),
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::UnmatchedReturn(at) => {
                write!(f, "event {at} returns an operation that is not in flight")
            }
            EventError::DuplicateCall(at) => {
                write!(f, "event {at} calls with the id of an operation in flight")
            }
        }
    }
}

impl std::error::Error for EventError {}

impl<I, O> History<I, O> {
    /// The history of an event stream, with real-time precedence: each event's stamp
    /// is its position, so an operation precedes another when its return comes before
    /// the other's call. Operations are numbered in call order.
    ///
    /// A call that never returns (a client that timed out, Jepsen's `:info`) may have
    /// taken effect at any time after its call, or not at all: it is a pending
    /// operation with [`PendingPolicy::MayHaveTakenEffect`](super::PendingPolicy) and no
    /// recorded output, whose effect the model gives
    /// ([`SequentialModel::step_pending`](super::SequentialModel::step_pending), by
    /// default the effect of its [`expected`](super::SequentialModel::expected) output).
    /// This is porcupine's semantics for such a call as its harness encodes it (a
    /// return appended after the last event, with an output the model accepts whatever
    /// the operation did): an operation linearized after every other one changes
    /// nothing any other operation observed. A model that can say neither makes a
    /// failing check answer [`Exhausted::PendingEffectUnknown`](super::Exhausted), never
    /// a false "not linearizable". [`History::set_pending_policy`] changes it, e.g. to
    /// [`PendingPolicy::NeverTookEffect`](super::PendingPolicy) for a blocking call still
    /// waiting.
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck::linearizability::{Event, History, OpId, PendingPolicy};
    ///
    /// let events = vec![
    ///     Event::Call { id: 'a', client: 0, input: "write 1" },
    ///     Event::Call { id: 'b', client: 1, input: "read" },
    ///     Event::Return { id: 'a', output: 0 },
    ///     Event::Return { id: 'b', output: 1 },
    ///     Event::Call { id: 'a', client: 0, input: "read" },
    /// ];
    /// let history = History::from_events(events).unwrap();
    /// assert_eq!(history.len(), 3);
    /// assert_eq!((history.get(OpId(1)).invoked, history.get(OpId(1)).responded), (1, Some(3)));
    /// assert!(!history.get(OpId(2)).is_complete());
    /// assert_eq!(history.pending_policy(OpId(2)), PendingPolicy::MayHaveTakenEffect);
    /// ```
    ///
    /// # Errors
    ///
    /// An [`EventError`] for a return without its call, or a call reusing an id in
    /// flight.
    pub fn from_events<Id: Hash + Eq>(
        events: impl IntoIterator<Item = Event<Id, I, O>>,
    ) -> Result<History<I, O>, EventError> {
        let mut history = History::new();
        let mut in_flight: HashMap<Id, OpId> = HashMap::new();
        for (at, event) in events.into_iter().enumerate() {
            let stamp = at as u64;
            match event {
                Event::Call { id, client, input } => {
                    let op = history.push(Operation {
                        thread: client,
                        input,
                        output: None,
                        invoked: stamp,
                        responded: None,
                    });
                    if in_flight.insert(id, op).is_some() {
                        return Err(EventError::DuplicateCall(at));
                    }
                }
                Event::Return { id, output } => {
                    let op = in_flight.remove(&id).ok_or(EventError::UnmatchedReturn(at))?;
                    history.respond(op, output, stamp);
                }
            }
        }
        for op in in_flight.into_values() {
            history.set_pending_policy(op, PendingPolicy::MayHaveTakenEffect);
        }
        Ok(history)
    }

    /// Records the response of the pending operation `id`.
    fn respond(&mut self, id: OpId, output: O, responded: u64) {
        let op = self.op_mut(id);
        op.output = Some(output);
        op.responded = Some(responded);
    }
}
