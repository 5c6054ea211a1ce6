//! [`FnInvariant`]: an [`Invariant`] written as a state and a function, with no type of
//! its own.

use std::fmt;

use pipecheck_sync::InvariantId;

use crate::check::invariant::Invariant;

/// An invariant from its id, its statement, the state it starts from, and the function
/// that checks each event against that state (and, optionally, one that checks the end
/// of the run): the three-method [`Invariant`] impl, as one expression.
///
/// # Examples
///
/// ```
/// use pipecheck::InvariantId;
/// use pipecheck::{FnInvariant, Invariant};
///
/// // Events: `None` is an add, `Some(total)` a total read back.
/// let mut counts = FnInvariant::new(
///     InvariantId::new("counts-every-add"),
///     "a total read back is the number of adds before it",
///     0u32,
///     |adds, event: &Option<u32>| match *event {
///         None => {
///             *adds += 1;
///             Ok(())
///         }
///         Some(total) if total == *adds => Ok(()),
///         Some(total) => Err(format!("total {total} after {adds} adds")),
///     },
/// )
/// .with_finish(|adds| if *adds > 0 { Ok(()) } else { Err("no add".to_owned()) });
/// assert_eq!(counts.observe(&None), Ok(()));
/// assert_eq!(counts.observe(&Some(2)), Err("total 2 after 1 adds".to_owned()));
/// assert_eq!(counts.finish(), Ok(()));
/// assert_eq!(counts.statement(), "a total read back is the number of adds before it");
/// ```
pub struct FnInvariant<S, E> {
    id: InvariantId,
    statement: &'static str,
    state: S,
    observe: fn(&mut S, &E) -> Result<(), String>,
    finish: fn(&mut S) -> Result<(), String>,
}

impl<S: Send, E> FnInvariant<S, E> {
    /// The invariant `id`, stated as `statement`, that starts in `state` and checks each
    /// event with `observe` (`Err(detail)` reports a violation), and nothing at the end.
    pub fn new(
        id: InvariantId,
        statement: &'static str,
        state: S,
        observe: fn(&mut S, &E) -> Result<(), String>,
    ) -> FnInvariant<S, E> {
        FnInvariant { id, statement, state, observe, finish: |_| Ok(()) }
    }

    /// This invariant, checking the end of a run that finished without a panic with
    /// `finish` ([`Invariant::finish`]).
    pub fn with_finish(self, finish: fn(&mut S) -> Result<(), String>) -> FnInvariant<S, E> {
        FnInvariant { finish, ..self }
    }

    /// This invariant as a trait object, as [`EventMonitor::new`](crate::check::EventMonitor::new)
    /// and a target's invariant list take it.
    pub fn boxed(self) -> Box<dyn Invariant<E>>
    where
        S: 'static,
        E: 'static,
    {
        Box::new(self)
    }
}

impl<S: Clone, E> Clone for FnInvariant<S, E> {
    fn clone(&self) -> Self {
        FnInvariant { state: self.state.clone(), ..*self }
    }
}

/// The invariants that check one run of a target's event scenarios, made fresh for each
/// run: a function returning them (`fn() -> Vec<Box<dyn Invariant<E>>>`, or a closure
/// without captures), or one [`FnInvariant`], cloned from its initial state for each run.
///
/// # Examples
///
/// ```
/// use pipecheck::InvariantId;
/// use pipecheck::{FnInvariant, Invariants};
///
/// let id = InvariantId::new("never-zero");
/// let never_zero = FnInvariant::new(id, "no event is 0", (), |_, event: &u32| {
///     if *event == 0 { Err("0".to_owned()) } else { Ok(()) }
/// });
/// let mut run = never_zero.fresh();
/// assert_eq!(run[0].observe(&0), Err("0".to_owned()));
/// assert_eq!(never_zero.fresh().len(), 1);
/// ```
pub trait Invariants<E>: Send + Sync + 'static {
    /// The invariants one run starts with.
    fn fresh(&self) -> Vec<Box<dyn Invariant<E>>>;
}

impl<E, F: Fn() -> Vec<Box<dyn Invariant<E>>> + Send + Sync + 'static> Invariants<E> for F {
    fn fresh(&self) -> Vec<Box<dyn Invariant<E>>> {
        self()
    }
}

/// Two sets of invariants checked together (`(conserved, order)`; nest for more).
impl<E, A: Invariants<E>, B: Invariants<E>> Invariants<E> for (A, B) {
    fn fresh(&self) -> Vec<Box<dyn Invariant<E>>> {
        let mut fresh = self.0.fresh();
        fresh.extend(self.1.fresh());
        fresh
    }
}

impl<S: Clone + Send + Sync + 'static, E: 'static> Invariants<E> for FnInvariant<S, E> {
    fn fresh(&self) -> Vec<Box<dyn Invariant<E>>> {
        vec![self.clone().boxed()]
    }
}

impl<S: Send, E> Invariant<E> for FnInvariant<S, E> {
    fn id(&self) -> InvariantId {
        self.id
    }

    fn statement(&self) -> &'static str {
        self.statement
    }

    fn observe(&mut self, event: &E) -> Result<(), String> {
        (self.observe)(&mut self.state, event)
    }

    fn finish(&mut self) -> Result<(), String> {
        (self.finish)(&mut self.state)
    }
}

impl<S: fmt::Debug, E> fmt::Debug for FnInvariant<S, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnInvariant")
            .field("id", &self.id)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}
