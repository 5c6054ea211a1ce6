//! The channel's invariants, checked online over [`OneshotEvent`]s by pipecheck's
//! [`EventMonitor`](pipecheck::EventMonitor).

use pipecheck::InvariantId;
use pipecheck::{FnInvariant, Invariant};

use crate::events::OneshotEvent;

/// `oneshot-delivery`: the receiver gets the sent value, once, exactly when `send`
/// returns `Ok`; it is told `Canceled` only when no send succeeded.
pub const DELIVERY: InvariantId = InvariantId::new("oneshot-delivery");

/// `oneshot-wake`: a receiver that parks is woken: the sender never completes without
/// waking a receiver that parked before or after it (a lost wake-up otherwise).
pub const WAKE: InvariantId = InvariantId::new("oneshot-wake");

/// Every invariant of the channel, fresh for one run.
pub fn all() -> Vec<Box<dyn Invariant<OneshotEvent>>> {
    vec![Box::new(Delivery::default()), wake()]
}

/// Checks [`DELIVERY`].
#[derive(Debug, Default)]
pub struct Delivery {
    sending: Option<u64>,
    send_ok: Option<bool>,
    /// What the receiver resolved to: the value, or `None` for `Canceled`.
    received: Option<Option<u64>>,
}

impl Invariant<OneshotEvent> for Delivery {
    fn id(&self) -> InvariantId {
        DELIVERY
    }

    fn statement(&self) -> &'static str {
        "the receiver gets the sent value once, exactly when send returns Ok; Canceled only when no send succeeded"
    }

    fn observe(&mut self, event: &OneshotEvent) -> Result<(), String> {
        match *event {
            OneshotEvent::NewChannel => *self = Delivery::default(),
            OneshotEvent::Sending(value) => self.sending = Some(value),
            OneshotEvent::SendReturned { ok } => self.send_ok = Some(ok),
            OneshotEvent::Received(value) => {
                if self.received.is_some() {
                    return Err(format!("the receiver resolved twice (now to {value})"));
                }
                if self.sending != Some(value) {
                    return Err(format!("received {value}, but the value sent is {:?}", self.sending));
                }
                self.received = Some(Some(value));
            }
            OneshotEvent::Canceled => {
                if self.received.is_some() {
                    return Err("the receiver resolved twice (now to Canceled)".to_owned());
                }
                self.received = Some(None);
            }
            OneshotEvent::Completed { .. } | OneshotEvent::Parked => {}
        }
        match (self.send_ok, self.received) {
            (Some(true), Some(None)) => {
                Err("send returned Ok, but the receiver was told Canceled: the value is lost".to_owned())
            }
            (Some(false), Some(Some(v))) => Err(format!("send handed {v} back, but the receiver got it too")),
            _ => Ok(()),
        }
    }
}

/// Checks [`WAKE`] over one channel at a time; its state: the receiver parked and no
/// completion has woken it since, and the sender completed without finding a waker.
pub fn wake() -> Box<dyn Invariant<OneshotEvent>> {
    let statement =
        "a parked receiver is woken: the sender never completes without waking a receiver that parks";
    let invariant =
        FnInvariant::new(WAKE, statement, (false, false), |(parked, unwoken), event: &OneshotEvent| {
            match *event {
                OneshotEvent::NewChannel => (*parked, *unwoken) = (false, false),
                OneshotEvent::Parked => *parked = true,
                OneshotEvent::Completed { woke: true } => *parked = false,
                OneshotEvent::Completed { woke: false } => *unwoken = true,
                _ => {}
            }
            if *parked && *unwoken {
                return Err("the receiver parked, but the sender completed without finding its waker: \
                        nothing will wake it (a lost wake-up)"
                    .to_owned());
            }
            Ok(())
        });
    invariant.boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(invariant: &mut dyn Invariant<OneshotEvent>, events: &[OneshotEvent]) -> Result<(), String> {
        events.iter().try_for_each(|e| invariant.observe(e))
    }

    #[test]
    fn delivery_rejects_a_lost_value_in_either_order() {
        use OneshotEvent::*;
        let lost = [Sending(1), Canceled, SendReturned { ok: true }];
        assert!(run(&mut Delivery::default(), &lost).is_err());
        let lost = [Sending(1), SendReturned { ok: true }, Canceled];
        assert!(run(&mut Delivery::default(), &lost).is_err());
        let fine = [Sending(1), Received(1), SendReturned { ok: true }];
        assert!(run(&mut Delivery::default(), &fine).is_ok());
        assert!(run(&mut Delivery::default(), &[Sending(1), Received(2)]).is_err());
    }

    #[test]
    fn wake_rejects_a_park_no_completion_will_wake_in_either_order() {
        use OneshotEvent::*;
        assert!(run(&mut *wake(), &[Completed { woke: false }, Parked]).is_err());
        assert!(run(&mut *wake(), &[Parked, Completed { woke: false }]).is_err());
        assert!(run(&mut *wake(), &[Parked, Completed { woke: true }]).is_ok());
        assert!(run(&mut *wake(), &[Completed { woke: true }, Parked]).is_ok());
    }
}
