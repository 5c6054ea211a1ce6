//! **byte-exact**, the message channel's share: every data message read off the pipe
//! reaches exactly one caller (a `receive` or the list a `close` returns), unchanged,
//! and messages are read in the order they were sent.
//!
//! Reads are reported under the receiving side's async mutex, deliveries as they are
//! handed over; a message a `close` read is owed to its list by the time that `close`
//! returns, and every message read is owed to some caller by the end of the run.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use pipecheck::InvariantId;
use pipecheck_pipe::{PrimitiveEvent, PrimitiveId};

use pipecheck::Invariant;
use crate::Observation;

/// One channel's messages.
#[derive(Debug, Default)]
struct Channel {
    sent: BTreeMap<u64, Vec<u8>>,
    next_read: u64,
    /// Read and not yet delivered: whether a `close` read it.
    undelivered: BTreeMap<u64, bool>,
    delivered: BTreeSet<u64>,
}

/// Tracks each channel's messages from send to delivery.
#[derive(Debug, Default)]
pub struct MessageDelivery {
    channels: HashMap<PrimitiveId, Channel>,
}

impl Invariant<Observation> for MessageDelivery {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::BYTE_EXACT
    }

    fn statement(&self) -> &'static str {
        "every message sent on a channel reaches exactly one receive or close, unchanged and in order"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Primitive(event) = observation else { return Ok(()) };
        match event {
            PrimitiveEvent::MessageSent { channel, seq, payload } => {
                self.channels.entry(*channel).or_default().sent.insert(*seq, payload.clone());
            }
            PrimitiveEvent::MessageRead { channel, seq, by_close } => {
                let state = self.channels.entry(*channel).or_default();
                if *seq != state.next_read {
                    return Err(format!(
                        "channel {channel} read message {seq} where message {} was next",
                        state.next_read
                    ));
                }
                state.next_read += 1;
                state.undelivered.insert(*seq, *by_close);
            }
            PrimitiveEvent::MessageDelivered { channel, seq, payload } => {
                let state = self.channels.entry(*channel).or_default();
                if state.undelivered.remove(seq).is_none() {
                    let why =
                        if state.delivered.contains(seq) { "a second time" } else { "before it was read" };
                    return Err(format!("channel {channel} delivered message {seq} {why}"));
                }
                state.delivered.insert(*seq);
                if state.sent.get(seq) != Some(payload) {
                    return Err(format!(
                        "channel {channel} delivered message {seq} as {payload:?}, but {:?} was sent",
                        state.sent.get(seq)
                    ));
                }
            }
            PrimitiveEvent::ChannelCloseReturned { channel } => {
                let state = self.channels.entry(*channel).or_default();
                if let Some((seq, _)) = state.undelivered.iter().find(|(_, by_close)| **by_close) {
                    return Err(format!(
                        "a close of channel {channel} read message {seq} while draining and returned without it"
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        for (channel, state) in &self.channels {
            if let Some(seq) = state.undelivered.keys().next() {
                return Err(format!(
                    "channel {channel} read message {seq} but never delivered it to a caller"
                ));
            }
        }
        Ok(())
    }
}
