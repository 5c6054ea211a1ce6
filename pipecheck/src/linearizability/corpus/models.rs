//! The sequential objects the corpus's histories are written against: a register
//! (porcupine's `registerModel`), a key-value store partitioned by key (porcupine's
//! `kvModel`, with integer values) and a FIFO queue whose dequeue waits while it is
//! empty (a blocking operation, specified by the dual-data-structure rule).

use std::collections::VecDeque;

use super::super::model::SequentialModel;

/// An operation of a corpus history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorpusOp {
    /// Register: store the value.
    Write(i64),
    /// Register: load the value.
    Read,
    /// Key-value store: store the value under the key.
    Put(String, i64),
    /// Key-value store: load the key's value (0 if never put).
    Get(String),
    /// Queue: append the value.
    Enqueue(i64),
    /// Queue: remove the oldest value, waiting while the queue is empty.
    Dequeue,
}

impl CorpusOp {
    /// Whether the operation returns a value (`-> 3`) rather than `ok`.
    pub(super) fn returns_value(&self) -> bool {
        matches!(self, CorpusOp::Read | CorpusOp::Get(_) | CorpusOp::Dequeue)
    }
}

/// What an operation of a corpus history returned: `ok`, or a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorpusOutput {
    /// An acknowledgement (writes, puts, enqueues).
    Ok,
    /// A value (reads, gets, dequeues).
    Value(i64),
}

/// A register holding 0 at first.
#[derive(Debug)]
pub(super) struct Register;

impl SequentialModel for Register {
    type State = i64;
    type Input = CorpusOp;
    type Output = CorpusOutput;

    fn init(&self) -> i64 {
        0
    }

    fn step(&self, state: &i64, input: &CorpusOp, output: &CorpusOutput) -> Option<i64> {
        match (input, output) {
            (CorpusOp::Write(value), CorpusOutput::Ok) => Some(*value),
            (CorpusOp::Read, CorpusOutput::Value(seen)) => (seen == state).then_some(*state),
            _ => None,
        }
    }

    fn step_pending(&self, _: &i64, input: &CorpusOp) -> Vec<i64> {
        // A write may have landed before its caller stopped; a read changes nothing.
        match input {
            CorpusOp::Write(value) => vec![*value],
            _ => Vec::new(),
        }
    }
}

/// A key-value store, each key a register holding 0 at first, partitioned by key.
#[derive(Debug)]
pub(super) struct KeyValue;

impl SequentialModel for KeyValue {
    type State = i64;
    type Input = CorpusOp;
    type Output = CorpusOutput;

    fn init(&self) -> i64 {
        0
    }

    // Each key's partition is a register: its puts are writes, its gets reads.
    fn step(&self, state: &i64, input: &CorpusOp, output: &CorpusOutput) -> Option<i64> {
        Register.step(state, &as_register(input)?, output)
    }

    fn step_pending(&self, state: &i64, input: &CorpusOp) -> Vec<i64> {
        as_register(input).map_or_else(Vec::new, |op| Register.step_pending(state, &op))
    }

    fn partition(&self, input: &CorpusOp) -> impl std::hash::Hash + Eq + std::fmt::Debug {
        match input {
            CorpusOp::Put(key, _) | CorpusOp::Get(key) => key.clone(),
            _ => String::new(),
        }
    }
}

/// A key-value operation as its key's register sees it (`None` for other operations).
fn as_register(input: &CorpusOp) -> Option<CorpusOp> {
    match input {
        CorpusOp::Put(_, value) => Some(CorpusOp::Write(*value)),
        CorpusOp::Get(_) => Some(CorpusOp::Read),
        _ => None,
    }
}

/// A FIFO queue, empty at first, whose dequeue waits while it is empty.
#[derive(Debug)]
pub(super) struct Queue;

impl SequentialModel for Queue {
    type State = VecDeque<i64>;
    type Input = CorpusOp;
    type Output = CorpusOutput;

    fn init(&self) -> VecDeque<i64> {
        VecDeque::new()
    }

    fn step(&self, state: &VecDeque<i64>, input: &CorpusOp, output: &CorpusOutput) -> Option<VecDeque<i64>> {
        let mut next = state.clone();
        match (input, output) {
            (CorpusOp::Enqueue(value), CorpusOutput::Ok) => next.push_back(*value),
            // Not enabled on an empty queue: the dequeue takes effect after an enqueue.
            (CorpusOp::Dequeue, CorpusOutput::Value(seen)) => (next.pop_front()? == *seen).then_some(())?,
            _ => return None,
        }
        Some(next)
    }

    fn step_pending(&self, state: &VecDeque<i64>, input: &CorpusOp) -> Vec<VecDeque<i64>> {
        // A pending enqueue may have appended; a pending dequeue may have taken the
        // oldest value, returning it to nobody.
        let mut next = state.clone();
        match input {
            CorpusOp::Enqueue(value) => next.push_back(*value),
            CorpusOp::Dequeue if next.pop_front().is_some() => {}
            _ => return Vec::new(),
        }
        vec![next]
    }

    fn state_heap_bytes(&self, state: &VecDeque<i64>) -> usize {
        state.capacity() * size_of::<i64>()
    }
}
