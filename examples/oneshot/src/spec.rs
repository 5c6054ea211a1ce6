//! The channel as a pipecheck [`OpsSpec`]: generated operations on a real channel
//! ([`Halves`]), checked against [`OneshotModel`] — in sequences on one thread
//! (`check_sequences`) and in generated 2–3-thread scenarios under loom and shuttle
//! (the target's `linearizable-small` and `linearizable-large` scenarios).
//!
//! Each half is taken out of its slot by the operation that uses it (a send consumes
//! the sender); an operation that finds its slot empty returns
//! [`OneshotOutput::AlreadyUsed`]. The slots' locks are held only to take a half out,
//! never while the channel runs.
//!
//! **No deadlock on a correct channel**: only `recv` blocks, until the sender is used.
//! A generated split is accepted when some thread reaches a sender operation (send or
//! drop) before any `recv` of its own: that thread runs to it unblocked, and once it
//! ran, the sender is used, so every `recv` completes.

use std::fmt;
use std::sync::Arc;

use pipecheck::future::block_on;
use pipecheck::linearizability::{OpsSpec, shared};
use pipecheck::sync::Mutex;
use proptest::prelude::{Just, prop_oneof};
use proptest::strategy::{BoxedStrategy, Strategy};

use crate::model::{OneshotModel, OneshotOp, OneshotOutput, OneshotState};
use crate::{Receiver, Sender, channel};

/// The real object of the spec, shared by every thread: a `u64` channel's two halves,
/// each in a slot until an operation uses it (any thread may send, receive or drop).
pub struct Halves {
    sender: Mutex<Option<Sender<u64>>>,
    receiver: Mutex<Option<Receiver<u64>>>,
}

impl fmt::Debug for Halves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Halves").finish_non_exhaustive()
    }
}

impl OneshotOp {
    /// Whether it uses the sender (and so completes the channel).
    fn uses_sender(self) -> bool {
        matches!(self, OneshotOp::Send(_) | OneshotOp::DropSender)
    }
}

impl OpsSpec for OneshotModel {
    type Handle = Arc<Halves>;

    fn handles(&self, threads: usize) -> Vec<Arc<Halves>> {
        let (sender, receiver) = channel();
        shared(Halves { sender: Mutex::new(Some(sender)), receiver: Mutex::new(Some(receiver)) }, threads)
    }

    fn apply(&self, real: &mut Arc<Halves>, input: &OneshotOp) -> OneshotOutput {
        match *input {
            OneshotOp::Send(value) => {
                let sender = real.sender.lock().take();
                match sender.map(|tx| tx.send(value)) {
                    None => OneshotOutput::AlreadyUsed,
                    Some(Ok(())) => OneshotOutput::Sent,
                    Some(Err(value)) => OneshotOutput::Refused(value),
                }
            }
            OneshotOp::DropSender => {
                let sender = real.sender.lock().take();
                sender.map_or(OneshotOutput::AlreadyUsed, |_| OneshotOutput::Dropped)
            }
            OneshotOp::Recv => {
                let receiver = real.receiver.lock().take();
                match receiver.map(block_on) {
                    None => OneshotOutput::AlreadyUsed,
                    Some(Ok(value)) => OneshotOutput::Received(value),
                    Some(Err(_)) => OneshotOutput::Canceled,
                }
            }
            OneshotOp::DropReceiver => {
                let receiver = real.receiver.lock().take();
                receiver.map_or(OneshotOutput::AlreadyUsed, |_| OneshotOutput::Dropped)
            }
        }
    }

    fn inputs(&self) -> BoxedStrategy<OneshotOp> {
        prop_oneof![
            (1..4u64).prop_map(OneshotOp::Send),
            Just(OneshotOp::Recv),
            Just(OneshotOp::DropSender),
            Just(OneshotOp::DropReceiver),
        ]
        .boxed()
    }

    fn enabled(&self, state: &OneshotState, input: &OneshotOp) -> bool {
        self.outcome(state, input).is_some()
    }

    fn deadlock_free(&self, threads: &[Vec<OneshotOp>]) -> bool {
        let receives = threads.iter().flatten().any(|op| *op == OneshotOp::Recv);
        let completes_unblocked = threads
            .iter()
            .any(|ops| ops.iter().take_while(|op| **op != OneshotOp::Recv).any(|op| op.uses_sender()));
        !receives || completes_unblocked
    }
}
