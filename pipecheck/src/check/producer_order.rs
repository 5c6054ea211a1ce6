//! [`ProducerOrder`]: the order invariant of a queue with several producers and
//! consumers, over a user's own events mapped to [`Routed`] values.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

use pipecheck_sync::InvariantId;

use crate::check::fn_invariant::Invariants;
use crate::check::invariant::Invariant;

/// What one event of a multi-producer multi-consumer queue says about its values, for
/// [`ProducerOrder`]: which producer put a value in, which consumer took it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routed<T> {
    /// `producer` put `value` in (a push that succeeded).
    In {
        /// The producer (any number naming it: a thread index).
        producer: usize,
        /// The value.
        value: T,
    },
    /// `consumer` took `value` out (a pop that returned it).
    Out {
        /// The consumer (any number naming it).
        consumer: usize,
        /// The value.
        value: T,
    },
}

/// What a [`ProducerOrder`] states.
pub const PRODUCER_ORDER_STATEMENT: &str = "each consumer takes each producer's values in the order that producer put them in; \
     every value taken out was put in, and is taken once";

/// The order a FIFO queue keeps when several producers and consumers race: with no
/// clock, the global order of values is itself racy (two pushes that overlap may land
/// either way), so [`FifoInvariant`](crate::FifoInvariant)'s one order does not apply.
/// What does: **per producer and per consumer**, a consumer takes one producer's
/// values in the order that producer pushed them (its pushes are ordered by its program
/// order, its values leave in that order, and one consumer's pops are ordered by its
/// own), and no value is taken out twice or without being put in.
///
/// Values must be distinct within a run (a producer's index in the value, say). Each
/// event is mapped by `classify` (`None`: not about the values); the order is checked
/// when the run ends, so that events racing to the monitor in either order are judged
/// alike. Whether every value came out is a separate property (drain the queue and
/// count, with an [`FnInvariant`](crate::FnInvariant)); for the strongest check,
/// a sequential model ([`Target::linearizable`](crate::Target::linearizable)).
///
/// # Examples
///
/// ```
/// use pipecheck::{Invariant, InvariantId, ProducerOrder, Routed};
///
/// // Events: (thread, Ok(v)) a push of v, (thread, Err(v)) a pop returning v.
/// let order = ProducerOrder::new(InvariantId::new("producer-order"), |e: &(usize, Result<u8, u8>)| {
///     Some(match *e {
///         (producer, Ok(value)) => Routed::In { producer, value },
///         (consumer, Err(value)) => Routed::Out { consumer, value },
///     })
/// });
/// let mut ok = order.clone();
/// for event in [(0, Ok(1)), (1, Ok(10)), (0, Ok(2)), (2, Err(10)), (2, Err(1)), (3, Err(2))] {
///     ok.observe(&event).unwrap();
/// }
/// assert_eq!(ok.finish(), Ok(()));
/// let mut reordered = order.clone();
/// for event in [(0, Ok(1)), (0, Ok(2)), (2, Err(2)), (2, Err(1))] {
///     reordered.observe(&event).unwrap();
/// }
/// assert_eq!(reordered.finish(), Err("consumer 2 took 1 after 2, both from producer 0, which put 1 in first".into()));
/// ```
pub struct ProducerOrder<T, E> {
    id: InvariantId,
    classify: fn(&E) -> Option<Routed<T>>,
    went_in: Vec<(usize, T)>,
    came_out: Vec<(usize, T)>,
}

impl<T, E> ProducerOrder<T, E> {
    /// The invariant `id` over the events `classify` maps.
    pub fn new(id: InvariantId, classify: fn(&E) -> Option<Routed<T>>) -> ProducerOrder<T, E> {
        ProducerOrder { id, classify, went_in: Vec::new(), came_out: Vec::new() }
    }
}

impl<T: Clone, E> Clone for ProducerOrder<T, E> {
    fn clone(&self) -> Self {
        ProducerOrder { went_in: self.went_in.clone(), came_out: self.came_out.clone(), ..*self }
    }
}

impl<T: Eq + Hash + fmt::Debug + Send, E> Invariant<E> for ProducerOrder<T, E> {
    fn id(&self) -> InvariantId {
        self.id
    }

    fn statement(&self) -> &'static str {
        PRODUCER_ORDER_STATEMENT
    }

    fn observe(&mut self, event: &E) -> Result<(), String> {
        match (self.classify)(event) {
            Some(Routed::In { producer, value }) => self.went_in.push((producer, value)),
            Some(Routed::Out { consumer, value }) => self.came_out.push((consumer, value)),
            None => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        // Each value's producer and its rank among that producer's values.
        let mut origin: HashMap<&T, (usize, usize)> = HashMap::new();
        let mut ranks: HashMap<usize, usize> = HashMap::new();
        for (producer, value) in &self.went_in {
            let rank = ranks.entry(*producer).or_default();
            origin.insert(value, (*producer, *rank));
            *rank += 1;
        }
        let mut taken: HashMap<&T, usize> = HashMap::new();
        // Per (consumer, producer): the last value taken, and its rank.
        let mut last: HashMap<(usize, usize), (&T, usize)> = HashMap::new();
        for (consumer, value) in &self.came_out {
            if let Some(first) = taken.insert(value, *consumer) {
                return Err(format!("{value:?} taken twice: by consumer {first} and consumer {consumer}"));
            }
            let Some(&(producer, rank)) = origin.get(value) else {
                return Err(format!("consumer {consumer} took {value:?}, which no producer put in"));
            };
            if let Some((before, earlier)) = last.insert((*consumer, producer), (value, rank))
                && earlier > rank
            {
                return Err(format!(
                    "consumer {consumer} took {value:?} after {before:?}, both from producer {producer}, which put {value:?} in first"
                ));
            }
        }
        Ok(())
    }
}

impl<T: fmt::Debug, E> fmt::Debug for ProducerOrder<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProducerOrder")
            .field("id", &self.id)
            .field("went_in", &self.went_in)
            .field("came_out", &self.came_out)
            .finish_non_exhaustive()
    }
}

impl<T: Clone + Eq + Hash + fmt::Debug + Send + Sync + 'static, E: 'static> Invariants<E>
    for ProducerOrder<T, E>
{
    fn fresh(&self) -> Vec<Box<dyn Invariant<E>>> {
        vec![Box::new(self.clone())]
    }
}
