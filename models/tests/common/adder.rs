//! A target both engines' `check_target_all` tests use: two threads record a total that
//! must be even; `AddsOne` makes it odd (every run shows it), `Inert` plants nothing (no
//! run can).

use pipecheck::InvariantId;
use pipecheck::thread;
use pipecheck::{EventMonitor, FnInvariant, Invariant};
use pipecheck::{EventScenario, Target};

const EVEN: InvariantId = InvariantId::new("even-total");

pipecheck::planted_faults! {
    /// `add` adds one more: the total is odd.
    AddsOne breaks EVEN, caught_in(&["two-adds"]);
    /// Plants nothing: no run can see it.
    Inert breaks EVEN, caught_in(&["two-adds"]);
}

fn even() -> Vec<Box<dyn Invariant<u64>>> {
    let invariant = FnInvariant::new(EVEN, "every total recorded is even", (), |_, total: &u64| {
        if total.is_multiple_of(2) { Ok(()) } else { Err(format!("total {total}")) }
    });
    vec![invariant.boxed()]
}

/// The total, recorded by two threads at once (any interleaving; PCT needs the
/// concurrency to schedule).
fn two_adds(monitor: &EventMonitor<u64>) {
    let total = if AddsOne.is_active() { 3 } else { 2 };
    let record = |monitor: EventMonitor<u64>| thread::spawn(move || monitor.record(total));
    let threads = [record(monitor.clone()), record(monitor.clone())];
    threads.into_iter().for_each(|t| t.join().unwrap());
}

pub(crate) fn target(faults: &[&'static pipecheck::PlantedFault]) -> Target {
    Target::new("adder", "an adder")
        .faults(faults)
        .checked(even, &[EventScenario::small("two-adds", "two adds", two_adds)])
}
