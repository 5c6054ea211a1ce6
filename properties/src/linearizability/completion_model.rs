//! [`CompletionModel`]: the reusable completion source as a sequential object — a
//! version and a result slot — for linearizability checks of concurrent histories.
//!
//! The rules mirror core/src/seeds/completion_source.rs: `reset` starts operation
//! `version + 1` with an empty slot; `set_result`, `get_result` and `wait` refuse a
//! token of another operation (`StaleToken`); a second result is `AlreadyCompleted`; a
//! taken result is `ResultTaken`; `get_result` on an empty slot is `NotCompleted`.
//! `wait` is *blocking* (see [`SequentialModel`]'s rule): enabled once the slot is
//! filled or the token is stale. One waiter per operation (`SecondWaiter` is not
//! modelled).

use pipecheck_pipe::CompletionError;

use pipecheck::linearizability::SequentialModel;

/// A completion-source operation; tokens are named by their version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionOp {
    /// `reset()`.
    Reset,
    /// `set_result(token, value)`.
    SetResult {
        /// The token's version.
        token: u64,
        /// The result.
        value: u32,
    },
    /// `get_result(token)`.
    GetResult {
        /// The token's version.
        token: u64,
    },
    /// `wait(token).await`.
    Wait {
        /// The token's version.
        token: u64,
    },
}

/// What a completion-source operation returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionOutput {
    /// `reset` returned the token of this version.
    Token(u64),
    /// `set_result` returned.
    Set(Result<(), CompletionError>),
    /// `get_result` or `wait` returned.
    Value(Result<u32, CompletionError>),
}

/// The result slot of the current operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// No result yet.
    Pending,
    /// A result, not taken.
    Ready(u32),
    /// The result was taken.
    Taken,
}

/// The completion source's sequential specification: the state is the current version
/// and its slot.
///
/// # Examples
///
/// ```
/// use pipecheck_properties::linearizability::{CompletionModel, CompletionOp, CompletionOutput, Slot};
/// use pipecheck::linearizability::SequentialModel;
///
/// let model = CompletionModel;
/// let started = model.step(&model.init(), &CompletionOp::Reset, &CompletionOutput::Token(1)).unwrap();
/// assert_eq!(started, (1, Slot::Pending));
/// let wait = CompletionOp::Wait { token: 1 };
/// assert!(model.step(&started, &wait, &CompletionOutput::Value(Ok(7))).is_none()); // waits
/// let set = model.step(&started, &CompletionOp::SetResult { token: 1, value: 7 }, &CompletionOutput::Set(Ok(()))).unwrap();
/// assert_eq!(model.step(&set, &wait, &CompletionOutput::Value(Ok(7))), Some((1, Slot::Taken)));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct CompletionModel;

impl CompletionModel {
    /// The `StaleToken` refusal of `token` in version `current`, if it is stale.
    fn stale(token: u64, current: u64) -> Option<CompletionError> {
        (token != current || current == 0).then_some(CompletionError::StaleToken { token, current })
    }

    /// What taking the result does: the outcome and the slot after.
    fn take(version: u64, slot: Slot) -> (Option<Result<u32, CompletionError>>, Slot) {
        match slot {
            Slot::Ready(value) => (Some(Ok(value)), Slot::Taken),
            Slot::Taken => (Some(Err(CompletionError::ResultTaken { version })), Slot::Taken),
            Slot::Pending => (None, Slot::Pending),
        }
    }
}

impl SequentialModel for CompletionModel {
    type State = (u64, Slot);
    type Input = CompletionOp;
    type Output = CompletionOutput;

    fn init(&self) -> (u64, Slot) {
        (0, Slot::Pending)
    }

    fn step(
        &self,
        &(version, slot): &(u64, Slot),
        input: &CompletionOp,
        output: &CompletionOutput,
    ) -> Option<(u64, Slot)> {
        let (expected, next) = match *input {
            CompletionOp::Reset => (CompletionOutput::Token(version + 1), (version + 1, Slot::Pending)),
            CompletionOp::SetResult { token, value } => match (Self::stale(token, version), slot) {
                (Some(stale), _) => (CompletionOutput::Set(Err(stale)), (version, slot)),
                (None, Slot::Pending) => (CompletionOutput::Set(Ok(())), (version, Slot::Ready(value))),
                (None, _) => (
                    CompletionOutput::Set(Err(CompletionError::AlreadyCompleted { version })),
                    (version, slot),
                ),
            },
            CompletionOp::GetResult { token } => match Self::stale(token, version) {
                Some(stale) => (CompletionOutput::Value(Err(stale)), (version, slot)),
                None => match Self::take(version, slot) {
                    (Some(taken), after) => (CompletionOutput::Value(taken), (version, after)),
                    (None, after) => (
                        CompletionOutput::Value(Err(CompletionError::NotCompleted { version })),
                        (version, after),
                    ),
                },
            },
            CompletionOp::Wait { token } => match Self::stale(token, version) {
                Some(stale) => (CompletionOutput::Value(Err(stale)), (version, slot)),
                // Blocking: not enabled while the slot is empty.
                None => match Self::take(version, slot) {
                    (Some(taken), after) => (CompletionOutput::Value(taken), (version, after)),
                    (None, _) => return None,
                },
            },
        };
        (*output == expected).then_some(next)
    }
}
