//! [`FifoInvariant`]: the invariant of a queue-like object (a queue, a ring, a channel),
//! over a user's own events mapped to [`Queued`] values.

use std::fmt;

use pipecheck_sync::InvariantId;

use crate::check::fn_invariant::Invariants;
use crate::check::invariant::Invariant;

/// What one event of a queue-like object says about its values, for [`FifoInvariant`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued<T> {
    /// The value went in (a push or send that succeeded).
    In(T),
    /// The value came out (a pop or receive).
    Out(T),
    /// The object reported its end (closed, and nothing left): every value that went in
    /// must have come out.
    End,
}

/// The invariant of a queue-like object: values come out in the order they went in, and
/// its end is reported only once every value that went in came out ([`FIFO_STATEMENT`],
/// or the object's own words: [`stated`](FifoInvariant::stated)). Each event is mapped by
/// `classify` (`None`: not about the values). An `Out` recorded before its `In` (two
/// threads' events racing to the monitor) is checked once the `In` is recorded.
///
/// One order of all values suits a queue with one producer and one consumer (or whose
/// pushes and pops are otherwise ordered). With several producers or consumers that
/// order is racy (two overlapping pushes may land either way, and the monitor records
/// them in the order they *returned*): use [`ProducerOrder`](crate::ProducerOrder),
/// the per-producer, per-consumer order, instead.
///
/// # Examples
///
/// ```
/// use pipecheck::InvariantId;
/// use pipecheck::{FifoInvariant, Invariant, Queued};
///
/// // Events: `Ok(v)` a push of v, `Err(Some(v))` a pop returning v, `Err(None)` "closed".
/// let mut fifo = FifoInvariant::new(InvariantId::new("fifo"), |e: &Result<u8, Option<u8>>| {
///     Some(match *e {
///         Ok(v) => Queued::In(v),
///         Err(Some(v)) => Queued::Out(v),
///         Err(None) => Queued::End,
///     })
/// });
/// assert_eq!(fifo.statement(), pipecheck::FIFO_STATEMENT);
/// assert_eq!(fifo.observe(&Ok(1)), Ok(()));
/// assert_eq!(fifo.observe(&Ok(2)), Ok(()));
/// assert_eq!(fifo.observe(&Err(Some(2))), Err("out #0 is 2, in #0 was 1".to_owned()));
/// assert_eq!(fifo.observe(&Err(None)), Err("the end reported with [2] still in: lost".to_owned()));
/// ```
pub struct FifoInvariant<T, E> {
    id: InvariantId,
    statement: &'static str,
    classify: fn(&E) -> Option<Queued<T>>,
    went_in: Vec<T>,
    came_out: Vec<T>,
}

/// What a [`FifoInvariant`] states unless [`stated`](FifoInvariant::stated) otherwise.
pub const FIFO_STATEMENT: &str =
    "values come out in the order they went in; the end is reported only once every value came out";

impl<T, E> FifoInvariant<T, E> {
    /// The invariant `id` over the events `classify` maps, stated as [`FIFO_STATEMENT`].
    pub fn new(id: InvariantId, classify: fn(&E) -> Option<Queued<T>>) -> FifoInvariant<T, E> {
        FifoInvariant { id, statement: FIFO_STATEMENT, classify, went_in: Vec::new(), came_out: Vec::new() }
    }

    /// This invariant, stated as `statement` (in the object's own words).
    pub fn stated(self, statement: &'static str) -> FifoInvariant<T, E> {
        FifoInvariant { statement, ..self }
    }
}

impl<T: Clone, E> Clone for FifoInvariant<T, E> {
    fn clone(&self) -> Self {
        FifoInvariant { went_in: self.went_in.clone(), came_out: self.came_out.clone(), ..*self }
    }
}

impl<T: PartialEq + fmt::Debug + Send, E> Invariant<E> for FifoInvariant<T, E> {
    fn id(&self) -> InvariantId {
        self.id
    }

    fn statement(&self) -> &'static str {
        self.statement
    }

    fn observe(&mut self, event: &E) -> Result<(), String> {
        let (went_in, came_out) = (&mut self.went_in, &mut self.came_out);
        match (self.classify)(event) {
            Some(Queued::In(value)) => went_in.push(value),
            Some(Queued::Out(value)) => came_out.push(value),
            Some(Queued::End) if came_out.len() < went_in.len() => {
                return Err(format!("the end reported with {:?} still in: lost", &went_in[came_out.len()..]));
            }
            Some(Queued::End) | None => {}
        }
        match went_in.iter().zip(&*came_out).position(|(a, b)| a != b) {
            Some(i) => Err(format!("out #{i} is {:?}, in #{i} was {:?}", came_out[i], went_in[i])),
            None => Ok(()),
        }
    }
}

impl<T: fmt::Debug, E> fmt::Debug for FifoInvariant<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FifoInvariant")
            .field("id", &self.id)
            .field("went_in", &self.went_in)
            .field("came_out", &self.came_out)
            .finish_non_exhaustive()
    }
}

impl<T: Clone + PartialEq + fmt::Debug + Send + Sync + 'static, E: 'static> Invariants<E>
    for FifoInvariant<T, E>
{
    fn fresh(&self) -> Vec<Box<dyn Invariant<E>>> {
        vec![Box::new(self.clone())]
    }
}
