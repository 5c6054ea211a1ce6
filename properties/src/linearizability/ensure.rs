//! [`ensure_linearizable`]: a history check as a `linearizable` [`Violation`], so that
//! engines, the verdict layer and the kill matrix see it like any invariant.

use pipecheck_core::{InvariantId, Violation};

use super::check::check;
use super::history::History;
use super::model::SequentialModel;
use super::outcome::{Budget, Linearization};
use super::timeline::explain;

/// Checks `history` against `model` and raises a [`InvariantId::LINEARIZABLE`]
/// violation, with the per-thread timeline, the longest linearizable prefix and the
/// unplaced operation, if it is not linearizable. An exhausted budget is returned as
/// [`Linearization::Unknown`], never raised: not knowing is not a violation.
///
/// # Examples
///
/// ```
/// use pipecheck_core::{InvariantId, Violation};
/// use pipecheck_properties::linearizability::{Budget, History, SequentialModel, ensure_linearizable};
///
/// #[derive(Debug)]
/// struct Constant;
/// impl SequentialModel for Constant {
///     type State = ();
///     type Input = ();
///     type Output = u32;
///     fn init(&self) {}
///     fn step(&self, _: &(), _: &(), seen: &u32) -> Option<()> { (*seen == 7).then_some(()) }
/// }
///
/// let mut history = History::new();
/// history.complete(0, (), 8, 0, 1);
/// let caught = std::panic::catch_unwind(|| ensure_linearizable(&Constant, &history, Budget::default()));
/// let violation = caught.unwrap_err().downcast::<Violation>().unwrap();
/// assert_eq!(violation.invariant, InvariantId::LINEARIZABLE);
/// ```
///
/// # Panics
///
/// With the violation, as its payload; with a plain message if the history is
/// malformed (a recording bug, not a finding).
#[track_caller]
pub fn ensure_linearizable<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    budget: Budget,
) -> Linearization {
    match check(model, history, budget) {
        Ok(Linearization::NonLinearizable(failure)) => {
            let unplaced = history.get(failure.unplaced);
            // The first line stands alone in one-line reports; the timeline follows.
            let headline = format!(
                "no sequential order explains this history: {} {} (thread {}) fits after none of the orders of {} operations found",
                failure.unplaced,
                model.describe(&unplaced.input, unplaced.output.as_ref()),
                unplaced.thread,
                failure.longest_prefix.len()
            );
            Violation::new(
                InvariantId::LINEARIZABLE,
                format!("{headline}\n{}", explain(model, history, &failure)),
            )
            .raise()
        }
        Ok(verdict) => verdict,
        Err(malformed) => panic!("malformed history: {malformed}"),
    }
}
