//! [`OneshotModel`]: the channel as a sequential object, for pipecheck's
//! linearizability checks.
//!
//! The state is which halves are still unused and the value in the slot. Each half is
//! used once: `send` and dropping the sender use the sender, `recv` and dropping the
//! receiver use the receiver; an operation on a half already used returns
//! [`OneshotOutput::AlreadyUsed`] and changes nothing.
//!
//! `AlreadyUsed` is accepted in *every* state: the half may be claimed by an operation
//! still running (a `recv` takes the receiver when it starts, and takes effect only when
//! the channel completes), which the model cannot see. It is the spec's bookkeeping,
//! not the channel's behaviour, so accepting it loses no check of the channel.
//!
//! `recv` is a *blocking* operation
//! (pipecheck's dual-data-structure rule): it is enabled only once the sender is used,
//! so a waiting `recv` takes effect at the send (or the drop) that completes the channel.

use pipecheck::linearizability::SequentialModel;

/// A channel operation (on a `u64` channel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OneshotOp {
    /// `sender.send(value)`.
    Send(u64),
    /// Dropping the sender without sending.
    DropSender,
    /// Awaiting the receiver (blocking until the sender is used).
    Recv,
    /// Dropping the receiver without awaiting it.
    DropReceiver,
}

/// What an operation returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OneshotOutput {
    /// `send` returned `Ok`.
    Sent,
    /// `send` handed the value back: the receiver is gone.
    Refused(u64),
    /// The receiver resolved to the value.
    Received(u64),
    /// The receiver resolved to `Canceled`.
    Canceled,
    /// A half was dropped.
    Dropped,
    /// The half this operation needs was used by an earlier operation.
    AlreadyUsed,
}

/// The sequential state of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OneshotState {
    /// The sender is unused (no send, not dropped).
    pub sender: bool,
    /// The receiver is unused (not received from, not dropped).
    pub receiver: bool,
    /// The value sent and not yet received.
    pub value: Option<u64>,
}

/// The channel's sequential specification.
///
/// # Examples
///
/// ```
/// use oneshot::model::{OneshotModel, OneshotOp, OneshotOutput};
/// use pipecheck::linearizability::SequentialModel;
///
/// let fresh = OneshotModel.init();
/// assert_eq!(OneshotModel.step(&fresh, &OneshotOp::Recv, &OneshotOutput::Canceled), None); // waits
/// let sent = OneshotModel.step(&fresh, &OneshotOp::Send(7), &OneshotOutput::Sent).unwrap();
/// assert!(OneshotModel.step(&sent, &OneshotOp::Recv, &OneshotOutput::Received(7)).is_some());
/// assert_eq!(OneshotModel.outcome(&sent, &OneshotOp::Send(8)).unwrap().0, OneshotOutput::AlreadyUsed);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct OneshotModel;

impl OneshotModel {
    /// What `input` returns in `state` when it runs alone, and the state it leaves, or
    /// `None` when it waits (a `recv` while the sender is unused).
    pub fn outcome(&self, state: &OneshotState, input: &OneshotOp) -> Option<(OneshotOutput, OneshotState)> {
        let s = *state;
        let used = Some((OneshotOutput::AlreadyUsed, s));
        match *input {
            OneshotOp::Send(_) | OneshotOp::DropSender if !s.sender => used,
            OneshotOp::Recv | OneshotOp::DropReceiver if !s.receiver => used,
            OneshotOp::Send(value) if !s.receiver => {
                Some((OneshotOutput::Refused(value), OneshotState { sender: false, ..s }))
            }
            OneshotOp::Send(value) => {
                Some((OneshotOutput::Sent, OneshotState { sender: false, value: Some(value), ..s }))
            }
            OneshotOp::DropSender => Some((OneshotOutput::Dropped, OneshotState { sender: false, ..s })),
            OneshotOp::Recv if s.sender => None,
            OneshotOp::Recv => {
                let output = s.value.map_or(OneshotOutput::Canceled, OneshotOutput::Received);
                Some((output, OneshotState { receiver: false, value: None, ..s }))
            }
            OneshotOp::DropReceiver => {
                Some((OneshotOutput::Dropped, OneshotState { receiver: false, value: None, ..s }))
            }
        }
    }
}

impl SequentialModel for OneshotModel {
    type State = OneshotState;
    type Input = OneshotOp;
    type Output = OneshotOutput;

    fn init(&self) -> OneshotState {
        OneshotState { sender: true, receiver: true, value: None }
    }

    fn step(&self, state: &OneshotState, input: &OneshotOp, output: &OneshotOutput) -> Option<OneshotState> {
        if *output == OneshotOutput::AlreadyUsed {
            return Some(*state);
        }
        self.outcome(state, input).and_then(|(expected, next)| (expected == *output).then_some(next))
    }

    fn expected(&self, state: &OneshotState, input: &OneshotOp) -> Option<OneshotOutput> {
        self.outcome(state, input).map(|(output, _)| output)
    }
}
