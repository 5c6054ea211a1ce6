//! [`MessageChannelModel`]: the message channel (`core/src/seeds/message_channel.rs`) as a
//! sequential object — a FIFO queue of messages ended by a close frame — for
//! linearizability checks of concurrent channel histories.
//!
//! The rules follow the channel's code and doc tests:
//!
//! * `send(m)` appends `m` (the sender is one task: sends are sequential); it returns
//!   `Ok` while the receiving end exists. `ReceiverGone` needs a dropped receiver,
//!   which the model has no operation for: a refused send is never linearizable here
//!   (and a send reported both refused and delivered never is).
//! * `close()` of the sender appends the close frame: no send follows it.
//! * `receive()` is *blocking* (the dual-data-structure rule of [`SequentialModel`]):
//!   enabled when a message is queued (it returns the oldest) or once the close frame
//!   is next or was read (it returns `Closed`, and the channel stays closed).
//! * `close()` of the receiver **is not one atomic step**: it is the channel's fix for
//!   seed 004, "receive in a loop until the close frame", each receive taking the
//!   receive lock on its own, so a concurrent `receive` can take a message between two
//!   of the close's. Its specification is that loop: one [`ChannelOp::CloseTake`] per
//!   message it returned and one [`ChannelOp::CloseEnd`] for the close frame, each
//!   linearizing somewhere inside the close's span. [`MessageChannelModel::split_closes`]
//!   rewrites a recorded [`ChannelOp::Close`] that way (each part on a thread of its
//!   own, so their order comes from the queue's, not from the clock); `step` refuses an
//!   unsplit `Close`, so a history cannot be checked against the atomic reading by
//!   mistake (which the real channel does not meet: `receive -> b` racing
//!   `close -> [a]` has no atomic order; see the tests).

use std::collections::VecDeque;

use pipecheck::linearizability::SequentialModel;
use pipecheck::linearizability::{History, OpId, Operation};

/// A message-channel operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChannelOp {
    /// `MessageSender::send(payload)`.
    Send(Vec<u8>),
    /// `MessageSender::close()`: the close frame.
    CloseSender,
    /// `MessageReceiver::receive()`.
    Receive,
    /// `MessageReceiver::close()` as recorded: split it with
    /// [`MessageChannelModel::split_closes`] before checking.
    Close,
    /// One message a receiver's `close` drained (a part of a split `Close`).
    CloseTake,
    /// The receiver's `close` reading the close frame (the last part of a split `Close`).
    CloseEnd,
}

/// What a channel operation returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChannelOutput {
    /// `Ok(())` of a send or of the sender's close.
    Done,
    /// `Err(ReceiverGone)` of a send.
    Refused,
    /// `Ok(Message::Data(payload))` of a receive, or the message a `CloseTake` drained.
    Message(Vec<u8>),
    /// `Ok(Message::Closed)` of a receive, or a `CloseEnd`.
    Closed,
    /// `Ok(drained)` of the receiver's close.
    Drained(Vec<Vec<u8>>),
    /// Any other error (the model accepts none: the checked runs have no truncation).
    Failed(String),
}

/// The channel's abstract state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ChannelState {
    /// Sent data messages not received yet, oldest first.
    queued: VecDeque<Vec<u8>>,
    /// The sender sent the close frame.
    sender_closed: bool,
    /// A receive or close read the close frame.
    closed: bool,
}

/// The message channel's sequential specification (see the module docs).
///
/// # Examples
///
/// ```
/// use pipecheck_properties::linearizability::{ChannelOp, ChannelOutput, MessageChannelModel};
/// use pipecheck::linearizability::SequentialModel;
///
/// let model = MessageChannelModel;
/// let empty = model.init();
/// let got = ChannelOutput::Message(b"m".to_vec());
/// assert!(model.step(&empty, &ChannelOp::Receive, &got).is_none()); // a receive waits on an empty channel
/// let sent = model.step(&empty, &ChannelOp::Send(b"m".to_vec()), &ChannelOutput::Done).unwrap();
/// assert!(model.step(&sent, &ChannelOp::Receive, &got).is_some());
/// assert!(model.step(&sent, &ChannelOp::Receive, &ChannelOutput::Closed).is_none()); // no close frame yet
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MessageChannelModel;

impl MessageChannelModel {
    /// `history` with each completed [`ChannelOp::Close`] replaced by its receive loop:
    /// a [`ChannelOp::CloseTake`] per drained message and a [`ChannelOp::CloseEnd`],
    /// each with the close's span, on threads numbered from `first_thread` (one each:
    /// pick numbers no recorded thread uses). A close that failed or is pending stays
    /// as it is (the model refuses it).
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck_properties::linearizability::{ChannelOp, ChannelOutput, MessageChannelModel};
    /// use pipecheck::linearizability::History;
    ///
    /// let mut history = History::new();
    /// history.complete(0, ChannelOp::Close, ChannelOutput::Drained(vec![b"a".to_vec()]), 0, 5);
    /// let split = MessageChannelModel::split_closes(&history, 100);
    /// let parts: Vec<_> = split.ops().iter().map(|op| (op.thread, op.input.clone())).collect();
    /// assert_eq!(parts, [(100, ChannelOp::CloseTake), (101, ChannelOp::CloseEnd)]);
    /// ```
    pub fn split_closes(
        history: &History<ChannelOp, ChannelOutput>,
        first_thread: usize,
    ) -> History<ChannelOp, ChannelOutput> {
        let mut next_thread = first_thread;
        let mut part = |input: ChannelOp, output: ChannelOutput, op: &Operation<ChannelOp, ChannelOutput>| {
            split_part(&mut next_thread, input, output, op)
        };
        let mut parts = Vec::new();
        for (index, op) in history.ops().iter().enumerate() {
            let origin = OpId(index);
            match (&op.input, &op.output) {
                (ChannelOp::Close, Some(ChannelOutput::Drained(drained))) => {
                    for message in drained {
                        let take = part(ChannelOp::CloseTake, ChannelOutput::Message(message.clone()), op);
                        parts.push((origin, take));
                    }
                    parts.push((origin, part(ChannelOp::CloseEnd, ChannelOutput::Closed, op)));
                }
                _ => parts.push((origin, op.clone())),
            }
        }
        history.derive(parts)
    }
}

fn split_part(
    next_thread: &mut usize,
    input: ChannelOp,
    output: ChannelOutput,
    whole: &Operation<ChannelOp, ChannelOutput>,
) -> Operation<ChannelOp, ChannelOutput> {
    let thread = *next_thread;
    *next_thread += 1;
    Operation { thread, input, output: Some(output), invoked: whole.invoked, responded: whole.responded }
}

impl ChannelState {
    /// Whether the next read finds the close frame (now or before).
    fn at_end(&self) -> bool {
        self.closed || (self.sender_closed && self.queued.is_empty())
    }
}

impl SequentialModel for MessageChannelModel {
    type State = ChannelState;
    type Input = ChannelOp;
    type Output = ChannelOutput;

    fn init(&self) -> ChannelState {
        ChannelState::default()
    }

    fn step(&self, state: &ChannelState, input: &ChannelOp, output: &ChannelOutput) -> Option<ChannelState> {
        let mut next = state.clone();
        match (input, output) {
            (ChannelOp::Send(payload), ChannelOutput::Done) if !state.sender_closed => {
                next.queued.push_back(payload.clone());
            }
            (ChannelOp::CloseSender, ChannelOutput::Done) if !state.sender_closed => {
                next.sender_closed = true
            }
            (ChannelOp::Receive | ChannelOp::CloseTake, ChannelOutput::Message(payload)) => {
                if state.closed || state.queued.front() != Some(payload) {
                    return None;
                }
                next.queued.pop_front();
            }
            (ChannelOp::Receive | ChannelOp::CloseEnd, ChannelOutput::Closed) if state.at_end() => {
                next.closed = true;
            }
            _ => return None,
        }
        Some(next)
    }

    fn step_pending(&self, state: &ChannelState, input: &ChannelOp) -> Vec<ChannelState> {
        // A send or the close frame may have landed before its caller stopped; a receive
        // may have taken the oldest message (or read the close frame) unseen.
        match input {
            ChannelOp::Send(_) | ChannelOp::CloseSender => {
                self.step(state, input, &ChannelOutput::Done).into_iter().collect()
            }
            ChannelOp::Receive | ChannelOp::CloseTake | ChannelOp::CloseEnd => {
                let mut states = Vec::new();
                if let Some(front) = state.queued.front() {
                    states.extend(self.step(state, input, &ChannelOutput::Message(front.clone())));
                }
                states.extend(self.step(state, input, &ChannelOutput::Closed));
                states
            }
            ChannelOp::Close => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pipecheck::linearizability::{Budget, Linearization, check};

    fn message(m: &[u8]) -> ChannelOutput {
        ChannelOutput::Message(m.to_vec())
    }

    fn verdict(history: &History<ChannelOp, ChannelOutput>) -> Linearization {
        let split = MessageChannelModel::split_closes(history, 100);
        check(&MessageChannelModel, &split, Budget::default()).expect("well-formed")
    }

    fn linearizable(history: &History<ChannelOp, ChannelOutput>) -> bool {
        match verdict(history) {
            Linearization::Linearizable(_) => true,
            Linearization::NonLinearizable(_) => false,
            Linearization::Unknown { .. } => panic!("budget exhausted on a tiny history"),
        }
    }

    /// The sender's thread 0: `a` and `b` sent, then the close frame, stamps 0..6.
    fn sent_a_b_closed() -> History<ChannelOp, ChannelOutput> {
        let mut history = History::new();
        history.complete(0, ChannelOp::Send(b"a".to_vec()), ChannelOutput::Done, 0, 1);
        history.complete(0, ChannelOp::Send(b"b".to_vec()), ChannelOutput::Done, 2, 3);
        history.complete(0, ChannelOp::CloseSender, ChannelOutput::Done, 4, 5);
        history
    }

    #[test]
    fn receive_and_close_share_the_messages_in_order() {
        // The receive took `b` while the close, spanning it, drained `a` before and
        // read the close frame after: the close's receive loop explains it.
        let mut history = sent_a_b_closed();
        history.complete(1, ChannelOp::Receive, message(b"b"), 7, 9);
        history.complete(2, ChannelOp::Close, ChannelOutput::Drained(vec![b"a".to_vec()]), 6, 10);
        assert!(linearizable(&history));
    }

    #[test]
    fn an_atomic_close_cannot_explain_a_receive_between_its_takes() {
        // The same history, unsplit and with `Close` read as one atomic drain: no order
        // exists, which is why the model refuses an unsplit close.
        let mut history = sent_a_b_closed();
        history.complete(1, ChannelOp::Receive, message(b"b"), 7, 9);
        history.complete(2, ChannelOp::Close, ChannelOutput::Drained(vec![b"a".to_vec()]), 6, 10);
        let unsplit = check(&MessageChannelModel, &history, Budget::default()).expect("well-formed");
        assert!(matches!(unsplit, Linearization::NonLinearizable(_)));
    }

    #[test]
    fn blocking_receive_linearizes_after_the_send_it_waited_for() {
        let mut history = History::new();
        history.complete(1, ChannelOp::Receive, message(b"a"), 0, 9);
        history.complete(0, ChannelOp::Send(b"a".to_vec()), ChannelOutput::Done, 3, 4);
        assert!(linearizable(&history));
    }

    #[test]
    fn receive_out_of_send_order_is_not_linearizable() {
        // Both messages were sent before either receive began; the first receive got `b`.
        let mut history = sent_a_b_closed();
        history.complete(1, ChannelOp::Receive, message(b"b"), 6, 7);
        history.complete(1, ChannelOp::Receive, message(b"a"), 8, 9);
        assert!(!linearizable(&history));
    }

    #[test]
    fn close_returning_before_the_close_frame_was_sent_is_not_linearizable() {
        // The close returned (with nothing drained) before the sender even began: every
        // message still reaches the receive, but no sequential close ends that early.
        let mut history = History::new();
        history.complete(2, ChannelOp::Close, ChannelOutput::Drained(vec![]), 0, 1);
        history.complete(0, ChannelOp::Send(b"a".to_vec()), ChannelOutput::Done, 2, 3);
        history.complete(0, ChannelOp::CloseSender, ChannelOutput::Done, 4, 5);
        history.complete(1, ChannelOp::Receive, message(b"a"), 0, 6);
        assert!(!linearizable(&history));
    }

    #[test]
    fn a_message_after_the_close_returned_is_not_linearizable() {
        let mut history = sent_a_b_closed();
        history.complete(
            2,
            ChannelOp::Close,
            ChannelOutput::Drained(vec![b"a".to_vec(), b"b".to_vec()]),
            6,
            7,
        );
        history.complete(1, ChannelOp::Receive, ChannelOutput::Closed, 8, 9);
        assert!(linearizable(&history));
        let mut late = sent_a_b_closed();
        late.complete(2, ChannelOp::Close, ChannelOutput::Drained(vec![b"a".to_vec()]), 6, 7);
        late.complete(1, ChannelOp::Receive, message(b"b"), 8, 9);
        assert!(!linearizable(&late));
    }

    #[test]
    fn a_send_refused_while_its_message_is_delivered_is_not_linearizable() {
        let mut history = History::new();
        history.complete(0, ChannelOp::Send(b"a".to_vec()), ChannelOutput::Refused, 0, 3);
        history.complete(1, ChannelOp::Receive, message(b"a"), 1, 4);
        assert!(!linearizable(&history));
    }

    #[test]
    fn a_pending_receive_may_have_taken_a_message() {
        // The receive never returned, yet the close drained only `b`: the pending
        // receive took `a` unseen.
        let mut history = sent_a_b_closed();
        history.pending(1, ChannelOp::Receive, 6);
        history.complete(2, ChannelOp::Close, ChannelOutput::Drained(vec![b"b".to_vec()]), 7, 8);
        assert!(linearizable(&history));
    }
}
