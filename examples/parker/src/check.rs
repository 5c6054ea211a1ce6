//! The event as a pipecheck [`Target`]: what a run records, the invariant over it, the
//! planted bugs and the scenarios that catch them.

use pipecheck::prelude::*;

use crate::event;

/// `parker-delivers`: the waiter returns the value the setter set.
pub const DELIVERS: InvariantId = InvariantId::new("parker-delivers");

planted_faults! {
    /// Both sides store with `Release` and load with `Acquire` instead of `SeqCst`.
    /// Store buffering then lets both loads miss the other's store: the waiter parks,
    /// the setter does not unpark it, and nothing ever will (a lost wakeup). Only
    /// weak memory shows it.
    ReleaseAcquire breaks InvariantId::NO_LOST_WAKEUP, weak_memory, caught_in(&["set-races-wait"]);
    /// The setter loads the waiter's announcement with `Relaxed`: a `SeqCst` store does
    /// not order a later `Relaxed` load, so the setter may miss an announcement made
    /// before the waiter's load missed the flag (a lost wakeup). Only weak memory shows it.
    SetterLoadRelaxed breaks InvariantId::NO_LOST_WAKEUP, weak_memory, caught_in(&["set-races-wait"]);
    /// The waiter checks the flag before it announces itself, and parks once without
    /// checking again: a setter that sets in between sees no announcement, and the
    /// waiter parks for ever (a lost wakeup, in a sequentially consistent schedule). A
    /// `park` may also return spuriously (std's and shuttle's do), and then the waiter
    /// returns a value that was never set: it also breaks **parker-delivers**.
    CheckBeforeAnnounce breaks InvariantId::NO_LOST_WAKEUP, also_breaks(DELIVERS), caught_in(&["set-races-wait", "many-events"]);
}

/// What a run records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A new event: what follows is about it.
    New,
    /// The setter is about to set this value.
    Setting(u64),
    /// The waiter returned this value.
    Woke(u64),
}

fn invariants() -> Vec<Box<dyn Invariant<Event>>> {
    let delivers = FnInvariant::new(
        DELIVERS,
        "the waiter returns the value the setter set",
        None,
        |setting: &mut Option<u64>, event: &Event| match *event {
            Event::New => {
                *setting = None;
                Ok(())
            }
            Event::Setting(value) => {
                *setting = Some(value);
                Ok(())
            }
            Event::Woke(value) if *setting != Some(value) => {
                Err(format!("the waiter returned {value}, the setter set {setting:?}"))
            }
            Event::Woke(_) => Ok(()),
        },
    );
    vec![delivers.boxed()]
}

/// One event: a thread sets `value`, this thread waits for it.
fn round(monitor: &EventMonitor<Event>, value: u64) {
    monitor.record(Event::New);
    let (setter, waiter) = event();
    let m = monitor.clone();
    let thread = thread::spawn(move || {
        m.record_by("setter", Event::Setting(value));
        setter.set(value);
    });
    let woke = waiter.wait();
    monitor.record_by("waiter", Event::Woke(woke));
    thread.join().expect("the setter panicked");
}

fn set_races_wait(monitor: &EventMonitor<Event>) {
    round(monitor, 7);
}

fn many_events(monitor: &EventMonitor<Event>) {
    for value in 0..16 {
        round(monitor, value);
    }
}

/// The event as a pipecheck target.
pub fn target() -> Target {
    Target::new("parker", "a one-shot event on a SeqCst store-then-load handshake with park/unpark")
        .faults(ALL)
        .checked(
            invariants,
            &[
                EventScenario::small(
                    "set-races-wait",
                    "a thread sets the event while the thread that made it waits",
                    set_races_wait,
                ),
                EventScenario::large(
                    "many-events",
                    "16 events in turn, each set by a new thread",
                    many_events,
                ),
            ],
        )
}
