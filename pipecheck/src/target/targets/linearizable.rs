//! [`Target::linearizable`]: a user's [`OpsSpec`] as two ordinary scenarios of a
//! target — a small fixed generated scenario for loom and a batch of larger ones for
//! shuttle — each run checked for **linearizable**, so that the campaign, the loom
//! harness and the traces tool (`cargo traces record`/`replay`, naming target and
//! scenario) take them like any other scenario.

use std::sync::Arc;

use pipecheck_sync::{InvariantId, PlantedFault};

use crate::linearizability::{ConcurrentShape, OpsLog, OpsSpec, fixed_scenarios, run_concurrent_logged};

use super::{Target, TargetScenario};
use crate::target::Scale;

/// Name of the loom-sized scenario [`Target::linearizable`] adds.
pub const SMALL_SCENARIO: &str = "linearizable-small";
/// Name of the shuttle-sized scenario [`Target::linearizable`] adds.
pub const LARGE_SCENARIO: &str = "linearizable-large";

/// Which generated scenarios [`Target::linearizable`] registers, and which planted
/// faults they claim to catch (as `linearizable`).
#[derive(Clone, Debug)]
pub struct GeneratedScenarios<I> {
    /// The proptest seed the scenarios are drawn from (fixed: a trace replays the same
    /// scenario).
    pub seed: u64,
    /// The loom scenario, one list of operations per thread; when empty, the first
    /// [`ConcurrentShape::SMALL`] scenario drawn from `seed`. A minimal failing scenario
    /// that shrinking found is a good choice: loom then explores all its schedules.
    pub small: Vec<Vec<I>>,
    /// How many [`ConcurrentShape::LARGE`] scenarios the shuttle scenario runs, one after
    /// the other, in each execution.
    pub large: usize,
    /// Splits (one list of operations per thread) whose histories loom must find not
    /// linearizable: outcomes weak memory allows that no order of the operations
    /// explains, kept as must-fail twins ([`crate::target::verify`] checks them under loom).
    pub non_linearizable: Vec<Vec<Vec<I>>>,
}

impl<I> Default for GeneratedScenarios<I> {
    fn default() -> Self {
        GeneratedScenarios::new()
    }
}

impl<I> GeneratedScenarios<I> {
    /// Scenarios from seed 1: a drawn small scenario and 12 large ones. A planted bug
    /// they are to catch (as `linearizable`) names them in its declaration:
    /// `caught_in(&[SMALL_SCENARIO, LARGE_SCENARIO])`.
    pub fn new() -> GeneratedScenarios<I> {
        GeneratedScenarios { seed: 1, small: Vec::new(), large: 12, non_linearizable: Vec::new() }
    }

    /// With `threads` as the loom scenario.
    pub fn small(mut self, threads: Vec<Vec<I>>) -> GeneratedScenarios<I> {
        self.small = threads;
        self
    }

    /// With `threads` among the splits loom must find not linearizable under C11
    /// ([`non_linearizable`](GeneratedScenarios::non_linearizable)): a behaviour of the
    /// code, not a false verdict, kept as a must-fail twin so that the check keeps seeing it.
    pub fn non_linearizable_under_c11(mut self, threads: Vec<Vec<I>>) -> GeneratedScenarios<I> {
        self.non_linearizable.push(threads);
        self
    }
}

impl Target {
    /// Adds `spec`'s generated concurrent scenarios, [`SMALL_SCENARIO`] (loom and
    /// shuttle) and [`LARGE_SCENARIO`] (shuttle), each execution running them on facade
    /// threads, recording the history and checking it against `spec`'s model, and
    /// publishing its operations as an [`OpsLog`] (the traces tool's table); the
    /// planted fault of a run is switched on around it
    /// ([`PlantedFault::activate_opt`]). Adds `linearizable` to the target's invariants,
    /// and names `S` as its [`sequential_model`](Target::sequential_model) (the
    /// campaign's `linearizable` column).
    /// The scenario names are fixed: one spec per target (a second one fails
    /// [`Target::validate`] as a duplicate). The target keeps `spec` for
    /// [`verify`](crate::target::verify): its generated scenarios under loom, its operation
    /// sequences on threads, and the splits of `generated.non_linearizable`.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn demo<S: pipecheck::linearizability::OpsSpec>(spec: S) {
    /// use pipecheck::{GeneratedScenarios, Target};
    ///
    /// let target = Target::new("my-type", "my concurrent type").linearizable(spec, GeneratedScenarios::new());
    /// target.validate().unwrap();
    /// assert!(target.scenario("linearizable-small").is_ok());
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// When `generated.small` is a split the spec calls not
    /// [`deadlock_free`](OpsSpec::deadlock_free).
    pub fn linearizable<S: OpsSpec>(self, spec: S, generated: GeneratedScenarios<S::Input>) -> Target {
        let GeneratedScenarios { seed, small, large, non_linearizable } = generated;
        let small = if small.is_empty() {
            fixed_scenarios(&spec, ConcurrentShape::SMALL, seed, 1).remove(0)
        } else {
            assert!(
                spec.deadlock_free(&small),
                "the small scenario {small:?} may deadlock (OpsSpec::deadlock_free)"
            );
            small
        };
        let large = fixed_scenarios(&spec, ConcurrentShape::LARGE, seed, large);
        let (small_spec, checked_spec) = (spec.clone(), spec.clone());
        let scenarios = vec![
            TargetScenario::new(
                SMALL_SCENARIO,
                "a fixed generated scenario of 2 threads, checked against the sequential model",
                Scale::Small,
                move |fault, publish| {
                    let log = Arc::new(OpsLog::new());
                    publish(log.clone());
                    PlantedFault::activate_opt(fault, || run_concurrent_logged(&small_spec, &small, &log));
                },
            ),
            TargetScenario::new(
                LARGE_SCENARIO,
                "fixed generated scenarios of 2-3 threads in turn, each checked against the sequential model",
                Scale::Large,
                move |fault, publish| {
                    let log = Arc::new(OpsLog::new());
                    publish(log.clone());
                    PlantedFault::activate_opt(fault, || {
                        for (index, threads) in large.iter().enumerate() {
                            log.note(None, format!("split {} of {}", index + 1, large.len()));
                            run_concurrent_logged(&spec, threads, &log);
                        }
                    });
                },
            ),
        ];
        let model = short_type_name::<S>();
        let scenarios = scenarios.into_iter().map(|s| s.checking_model(model)).collect();
        let statement: (InvariantId, &'static str) =
            (InvariantId::LINEARIZABLE, crate::linearizability::STATEMENT);
        let mut target = self.scenarios(vec![statement], scenarios);
        target.model = Some(model);
        let name = target.name;
        target.model_check = Some(Arc::new(move |loom_bound| {
            crate::target::verify::check_model(name, &checked_spec, &non_linearizable, loom_bound)
        }));
        target
    }
}

/// `S`'s name without module paths, its parameters' included
/// (`oneshot::model::OneshotModel` → `OneshotModel`, `a::PendingAware<b::QueueModel>` →
/// `PendingAware<QueueModel>`).
fn short_type_name<S>() -> &'static str {
    let full = std::any::type_name::<S>();
    if !full.contains('<') {
        return full.rfind("::").map_or(full, |i| &full[i + 2..]);
    }
    let mut short = String::new();
    let mut path = String::new();
    for c in full.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            path.push(c);
        } else {
            short.push_str(path.rsplit("::").next().unwrap_or_default());
            path.clear();
            short.push(c);
        }
    }
    short.pop();
    // Once per target built with a generic model: a few bytes, kept for the
    // target's `&'static` model name.
    Box::leak(short.into_boxed_str())
}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use crate::linearizability::{OpsSpec, SequentialModel, shared};
    use crate::sync::atomic::{AtomicBool, Ordering};
    use proptest::prelude::{BoxedStrategy, Just, Strategy, prop_oneof};

    use super::*;

    /// A latch operation.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum LatchOp {
        /// Opens the latch for good; returns whether it was open already.
        Open,
        /// Waits until the latch is open (blocking); returns `true`.
        Wait,
    }

    /// A latch on the sync facade, specified by its state: open or not. `Wait` blocks
    /// while it is closed, so a split in which every thread waits before it opens may
    /// deadlock.
    #[derive(Clone, Copy, Debug)]
    struct LatchSpec;

    impl SequentialModel for LatchSpec {
        type State = bool;
        type Input = LatchOp;
        type Output = bool;

        fn init(&self) -> bool {
            false
        }

        fn step(&self, open: &bool, op: &LatchOp, output: &bool) -> Option<bool> {
            match op {
                LatchOp::Open => (*output == *open).then_some(true),
                LatchOp::Wait => (*open && *output).then_some(true),
            }
        }
    }

    impl OpsSpec for LatchSpec {
        type Handle = std::sync::Arc<AtomicBool>;

        fn handles(&self, threads: usize) -> Vec<std::sync::Arc<AtomicBool>> {
            shared(AtomicBool::new(false), threads)
        }

        fn apply(&self, latch: &mut std::sync::Arc<AtomicBool>, op: &LatchOp) -> bool {
            match op {
                LatchOp::Open => latch.swap(true, Ordering::SeqCst),
                LatchOp::Wait => {
                    while !latch.load(Ordering::SeqCst) {
                        crate::thread::yield_now();
                    }
                    true
                }
            }
        }

        fn inputs(&self) -> BoxedStrategy<LatchOp> {
            prop_oneof![Just(LatchOp::Open), Just(LatchOp::Wait)].boxed()
        }

        fn enabled(&self, open: &bool, op: &LatchOp) -> bool {
            *open || *op == LatchOp::Open
        }

        /// No thread waits forever when some thread opens before it waits itself.
        fn deadlock_free(&self, threads: &[Vec<LatchOp>]) -> bool {
            let waits = threads.iter().flatten().any(|op| *op == LatchOp::Wait);
            !waits || threads.iter().any(|ops| ops.first() == Some(&LatchOp::Open))
        }
    }

    #[test]
    fn a_spec_adds_a_small_and_a_large_scenario_and_the_linearizable_invariant() {
        let target = Target::new("latch-spec", "a latch from its spec")
            .linearizable(LatchSpec, GeneratedScenarios::new());
        target.validate().unwrap();
        let scales: Vec<_> = target.all_scenarios().iter().map(|s| (s.name, s.scale)).collect();
        assert_eq!(scales, [(SMALL_SCENARIO, Scale::Small), (LARGE_SCENARIO, Scale::Large)]);
        assert!(target.invariants().iter().any(|(id, _)| *id == InvariantId::LINEARIZABLE));
        assert_eq!(target.sequential_model(), Some("LatchSpec"));
        let checked: Vec<_> = target.linearizability_scenarios().map(|s| s.name).collect();
        assert_eq!(checked, [SMALL_SCENARIO, LARGE_SCENARIO]);
        assert_eq!(Target::new("t", "t").sequential_model(), None);
        // On std threads: the generated runs finish and are linearizable.
        for scenario in target.all_scenarios() {
            scenario.run_once(None, &|_| {});
        }
    }

    #[test]
    fn a_generic_models_name_drops_every_module_path() {
        use crate::linearizability::PendingAware;
        assert_eq!(short_type_name::<PendingAware<LatchSpec>>(), "PendingAware<LatchSpec>");
        assert_eq!(short_type_name::<LatchSpec>(), "LatchSpec");
    }

    #[test]
    fn a_small_scenario_that_may_deadlock_is_refused() {
        let deadlocks = vec![vec![LatchOp::Wait, LatchOp::Open], vec![LatchOp::Wait]];
        let refused = std::panic::catch_unwind(|| {
            Target::new("t", "t").linearizable(LatchSpec, GeneratedScenarios::new().small(deadlocks))
        });
        let message = crate::check::panic_message(refused.unwrap_err().as_ref());
        assert!(message.contains("may deadlock"), "{message}");
    }
}
