//! The channel as a pipecheck [`Target`]: its scenarios (small ones for loom, a large
//! one for shuttle), checked by its invariants, its sequential model's generated
//! scenarios, checked for linearizability, and its planted faults.

use std::sync::Arc;

use pipecheck::EventMonitor;
use pipecheck::future::block_on;
use pipecheck::thread;
use pipecheck::{EventScenario, GeneratedScenarios, Target};

use crate::events::{OneshotEvent, OneshotObserver};
use crate::faults::ALL;
use crate::model::{OneshotModel, OneshotOp};
use crate::{channel_observed, invariants};

/// The monitor is the channel's observer: its internal events join the run's log.
impl OneshotObserver for EventMonitor<OneshotEvent> {
    fn on_event(&self, event: OneshotEvent) {
        self.record(event);
    }
}

type Monitor = EventMonitor<OneshotEvent>;

/// The channel's scenarios.
pub const SCENARIOS: &[EventScenario<OneshotEvent>] = &[
    EventScenario::small(
        "send-races-recv",
        "a thread sends one value while the receiver awaits it",
        send_races_recv,
    ),
    EventScenario::small(
        "drop-races-recv",
        "a thread drops the sender while the receiver awaits it",
        drop_races_recv,
    ),
    EventScenario::large(
        "many-rounds",
        "24 channels in turn, each raced by a sending (or dropping) thread and a receiving thread",
        many_rounds,
    ),
];

/// The channel as a target: what the engines, the traces tool and the campaign take.
pub fn target() -> Target {
    Target::new("oneshot", "a one-shot channel with a waker (pipecheck's worked example)")
        .faults(ALL)
        .checked(invariants::all, SCENARIOS)
        .linearizable(OneshotModel, generated())
}

/// The generated scenarios of [`OneshotModel`]: for loom, one thread drops the
/// receiver and then sends while another receives (shrinking finds
/// `[DropReceiver]` ‖ `[Send(1)]` for [`SendIgnoresClosedReceiver`](crate::faults::SendIgnoresClosedReceiver); the same thread doing both
/// exposes it in every schedule, and the `recv` races for the receiver); for shuttle,
/// 12 splits drawn from seed 1.
pub fn generated() -> GeneratedScenarios<OneshotOp> {
    GeneratedScenarios::new()
        .small(vec![vec![OneshotOp::DropReceiver, OneshotOp::Send(1)], vec![OneshotOp::Recv]])
}

/// One round: a fresh channel, a thread that sends `value` (or drops the sender when
/// `None`), and the receiver awaiting on `receive` (this thread when `None`).
fn round(monitor: &Monitor, value: Option<u64>, spawn_receiver: bool) {
    monitor.record(OneshotEvent::NewChannel);
    let (tx, rx) = channel_observed::<u64>(Arc::new(monitor.clone()));
    let m = monitor.clone();
    let sender = thread::spawn(move || match value {
        Some(value) => {
            m.record_by("sender", OneshotEvent::Sending(value));
            let ok = tx.send(value).is_ok();
            m.record_by("sender", OneshotEvent::SendReturned { ok });
        }
        None => drop(tx),
    });
    let m = monitor.clone();
    let receive = move || {
        let event = match block_on(rx) {
            Ok(value) => OneshotEvent::Received(value),
            Err(_) => OneshotEvent::Canceled,
        };
        m.record_by("receiver", event);
    };
    if spawn_receiver {
        let receiver = thread::spawn(receive);
        receiver.join().expect("the receiver thread panicked");
    } else {
        receive();
    }
    sender.join().expect("the sender thread panicked");
}

fn send_races_recv(monitor: &Monitor) {
    round(monitor, Some(42), false);
}

fn drop_races_recv(monitor: &Monitor) {
    round(monitor, None, false);
}

fn many_rounds(monitor: &Monitor) {
    for i in 0..24 {
        let value = (i % 3 != 2).then_some(i);
        round(monitor, value, true);
    }
}
