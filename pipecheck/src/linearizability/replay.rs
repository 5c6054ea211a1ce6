//! [`replay`]: the model's states along a (partial) linearization, described by the
//! model, for the picture's "state before / after" of each operation.

use super::history::{History, OpId};
use super::model::SequentialModel;

/// The states around one operation of a linearization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Around {
    /// The operation.
    pub(super) op: OpId,
    /// The state it was applied to.
    pub(super) before: String,
    /// The state it left, or why it could not be applied.
    pub(super) after: String,
}

/// Replays `order` (partitions one after another; `partition_of` gives each operation's
/// partition, and each partition starts from [`SequentialModel::init`]), then, if
/// given, tries `rejected` after it. A pending operation without an output takes the
/// first state [`SequentialModel::step_pending`] allows.
pub(super) fn replay<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    partition_of: &[Option<usize>],
    order: &[OpId],
    rejected: Option<OpId>,
) -> Vec<Around> {
    let mut around = Vec::with_capacity(order.len() + 1);
    let mut state = model.init();
    let mut partition = None;
    for &op in order {
        if partition_of[op.0] != partition {
            partition = partition_of[op.0];
            state = model.init();
        }
        let before = model.describe_state(&state);
        let Some(next) = apply(model, history, &state, op) else {
            around.push(Around { op, before, after: "not accepted here".to_owned() });
            return around;
        };
        state = next;
        around.push(Around { op, before, after: model.describe_state(&state) });
    }
    if let Some(op) = rejected {
        let input = &history.get(op).input;
        let after = match model.expected(&state, input) {
            Some(expected) => format!("rejected: the model returns {expected:?} here"),
            None => "rejected: the model does not accept this output here".to_owned(),
        };
        around.push(Around { op, before: model.describe_state(&state), after });
    }
    around
}

/// The state `op` leaves when applied to `state`.
fn apply<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    state: &M::State,
    op: OpId,
) -> Option<M::State> {
    let op = history.get(op);
    match &op.output {
        Some(output) => model.step(state, &op.input, output),
        None => model.step_pending(state, &op.input).into_iter().next(),
    }
}
