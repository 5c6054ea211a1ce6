//! The campaign's own test target (tests only): a counter, declared through the public
//! API alone, as a user's crate declares its targets, so that the campaign's unit tests
//! plan, run and report without any other crate's target.
//!
//! It has three planted bugs: a lost update between two racing adds ([`LostUpdate`]), a
//! lost add that needs no race ([`StuckAtZero`], which the counter's operation sequences,
//! the campaign's proptest engine, reach), and a total published by a `Relaxed` flag
//! ([`RelaxedPublish`], weak memory: loom only); and a sequential model of the counter
//! ([`CounterSpec`]), whose generated scenarios fill the summary's `linearizable` column.
//! [`register`] makes it the campaign the tests' registry serves.

use std::time::{Duration, Instant};

use crate::prelude::*;
use crate::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use crate::{Campaign, FailureKind, SequencesFailure, SequencesRun, Violation, first_violation};

/// `counts-every-add`: a total read back is the number of adds before it.
pub(crate) const COUNTS: InvariantId = InvariantId::new("counts-every-add");

planted_faults! {
    /// `add` is a load then a store: two racing adds count once.
    LostUpdate breaks COUNTS, caught_in(&["two-adds"]);
    /// An add to a counter at zero is lost, in every schedule: the count never leaves
    /// zero. The operation sequences reach it.
    StuckAtZero breaks COUNTS, caught_in(&["two-adds"]), in_sequences;
    /// The total is published by a `Relaxed` flag: a reader that sees the flag may read
    /// the total from before the add (weak memory: only loom sees it).
    RelaxedPublish breaks COUNTS, caught_in(&["publish"]), weak_memory;
}

/// The fixture campaign: [`targets`].
pub(crate) const CAMPAIGN: Campaign = Campaign { package: "pipecheck", bin: "fixture", targets };

/// Registers [`CAMPAIGN`], unless a campaign is registered already (the first one stays).
pub(crate) fn register() {
    crate::campaign::registry::register(CAMPAIGN);
}

/// The fixture campaign's targets: [`counter`].
pub(crate) fn targets() -> Vec<Target> {
    vec![counter()]
}

/// The counter as a target: its scenarios, its planted bugs, its operation sequences
/// and its sequential model.
pub(crate) fn counter() -> Target {
    Target::new("counter", "a counter (the campaign's test fixture)")
        .faults(ALL)
        .checked(invariants, SCENARIOS)
        .sequences(sequences)
        .linearizable(CounterSpec, GeneratedScenarios::new())
}

/// What a run of the counter reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    /// One add returned.
    Added,
    /// The total read back.
    Total(u64),
}

/// The counter's invariants: [`COUNTS`].
fn invariants() -> Vec<Box<dyn Invariant<Ev>>> {
    let statement = "a total read back is the number of adds before it";
    let counts = FnInvariant::new(COUNTS, statement, 0u64, |adds, event: &Ev| match *event {
        Ev::Added => {
            *adds += 1;
            Ok(())
        }
        Ev::Total(total) if total == *adds => Ok(()),
        Ev::Total(total) => Err(format!("total {total} after {adds} adds")),
    });
    vec![counts.boxed()]
}

/// The checked code: a counter on the sync facade, with its planted bugs.
#[derive(Debug)]
pub(crate) struct Counter {
    total: AtomicU64,
}

impl Counter {
    fn new() -> Counter {
        Counter { total: AtomicU64::new(0) }
    }

    /// Adds one; returns the total after the add.
    fn add(&self) -> u64 {
        if StuckAtZero.is_active() && self.total.load(Ordering::SeqCst) == 0 {
            return 0;
        }
        if LostUpdate.is_active() {
            let seen = self.total.load(Ordering::SeqCst);
            self.total.store(seen + 1, Ordering::SeqCst);
            return seen + 1;
        }
        self.total.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn total(&self) -> u64 {
        self.total.load(Ordering::SeqCst)
    }
}

const SCENARIOS: &[EventScenario<Ev>] = &[
    EventScenario::small("two-adds", "two threads add once each, then the total is read back", two_adds),
    EventScenario::small(
        "publish",
        "a thread adds and publishes the total by a flag; the main thread reads it if the flag is set",
        publish,
    ),
];

fn two_adds(monitor: &EventMonitor<Ev>) {
    let counter = Arc::new(Counter::new());
    let adders: Vec<_> = (0..2)
        .map(|_| {
            let (counter, monitor) = (counter.clone(), monitor.clone());
            thread::spawn(move || {
                counter.add();
                monitor.record(Ev::Added);
            })
        })
        .collect();
    for adder in adders {
        adder.join().expect("an adder panicked");
    }
    monitor.record(Ev::Total(counter.total()));
}

/// A total, and the flag that says it is written.
struct Published {
    total: AtomicU64,
    ready: AtomicBool,
}

fn publish(monitor: &EventMonitor<Ev>) {
    let shared = Arc::new(Published { total: AtomicU64::new(0), ready: AtomicBool::new(false) });
    let writer = shared.clone();
    let handle = thread::spawn(move || {
        writer.total.store(1, Ordering::Relaxed);
        let order = if RelaxedPublish.is_active() { Ordering::Relaxed } else { Ordering::Release };
        writer.ready.store(true, order);
    });
    if shared.ready.load(Ordering::Acquire) {
        // The flag says the writer's add is done: its total must be seen.
        monitor.record(Ev::Added);
        monitor.record(Ev::Total(shared.total.load(Ordering::Relaxed)));
    }
    handle.join().expect("the writer panicked");
}

/// The violation a sequence of `adds` adds on one thread, then a read of the total,
/// breaks with `fault` switched on, if any.
fn run_sequence(fault: Option<&'static PlantedFault>, adds: usize) -> Option<Violation> {
    let counter = Counter::new();
    let mut events: Vec<Ev> = PlantedFault::activate_opt(fault, || {
        (0..adds)
            .map(|_| {
                counter.add();
                Ev::Added
            })
            .collect()
    });
    events.push(Ev::Total(counter.total()));
    let mut invariants = invariants();
    events.iter().find_map(|event| first_violation(&mut invariants, |i| i.observe(event)))
}

/// The counter's operation sequences (the campaign's proptest engine): case `n` makes
/// 1 to 4 adds (from `seed` and `n`) on one thread, then reads the total back, checked
/// by the counter's invariants; a failing case shrinks to the fewest adds that fail.
fn sequences(
    fault: Option<&'static PlantedFault>,
    cases: u32,
    seed: u64,
    time: Option<Duration>,
) -> SequencesRun {
    let start = Instant::now();
    let mut cases_run = 0;
    for case in 1..=cases as usize {
        if time.is_some_and(|limit| start.elapsed() > limit) {
            break;
        }
        cases_run += 1;
        let adds = 1 + (seed as usize).wrapping_add(case) % 4;
        if run_sequence(fault, adds).is_some() {
            let (fewest, violation) = (1..=adds)
                .find_map(|n| run_sequence(fault, n).map(|violation| (n, violation)))
                .expect("the failing case fails again");
            return SequencesRun {
                cases_run: cases_run + fewest,
                failure: Some(SequencesFailure {
                    first_failing_case: case,
                    failure: FailureKind::InvariantViolated(violation),
                    shrunk: format!("{fewest} adds, then the total"),
                }),
            };
        }
    }
    SequencesRun { cases_run, failure: None }
}

/// A counter operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CounterOp {
    /// Adds one; returns the total after it.
    Add,
    /// Returns the total.
    Read,
}

/// The counter's sequential model: its total.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CounterSpec;

impl DeterministicModel for CounterSpec {
    type State = u64;
    type Input = CounterOp;
    type Output = u64;

    fn initial(&self) -> u64 {
        0
    }

    fn run(&self, total: &mut u64, op: &CounterOp) -> u64 {
        if *op == CounterOp::Add {
            *total += 1;
        }
        *total
    }
}

impl OpsSpec for CounterSpec {
    type Handle = std::sync::Arc<Counter>;

    fn handles(&self, threads: usize) -> Vec<std::sync::Arc<Counter>> {
        shared(Counter::new(), threads)
    }

    fn apply(&self, counter: &mut std::sync::Arc<Counter>, op: &CounterOp) -> u64 {
        match op {
            CounterOp::Add => counter.add(),
            CounterOp::Read => counter.total(),
        }
    }

    fn inputs(&self) -> BoxedStrategy<CounterOp> {
        prop_oneof![Just(CounterOp::Add), Just(CounterOp::Read)].boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under the engine the features select: on threads a valid target whose scenarios
    /// pass and whose model agrees with the counter; under loom and shuttle, every
    /// scenario clean and every bug the engine can see caught as `counts-every-add`.
    #[test]
    fn the_fixture_passes_clean_and_its_bugs_are_caught() {
        crate::verify(&counter());
    }

    // The operation sequences run on std primitives: not in the loom or shuttle builds.
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    #[test]
    fn its_operation_sequences_catch_stuck_at_zero_as_its_invariant_and_pass_clean() {
        let caught = sequences(Some(&StuckAtZero), 100, 1, None);
        let failure = caught.failure.expect("caught");
        assert!(failure.failure.invariant() == Some(COUNTS), "{}", failure.failure);
        assert_eq!(failure.shrunk, "1 adds, then the total");
        let clean = sequences(None, 100, 1, None);
        assert!(clean.failure.is_none() && clean.cases_run == 100, "{clean:?}");
        assert!(sequences(Some(&LostUpdate), 100, 1, None).failure.is_none());
    }
}
