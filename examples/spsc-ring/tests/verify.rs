//! Both targets under every engine: `cargo test -p spsc-ring` (std threads and the
//! sequential model), `--features loom` (every interleaving within the bound, each
//! planted bug caught as its invariant in a child process), `--features shuttle`
//! (random and PCT schedules).

/// loom: `$name` explores `$scenario` of `$target` clean (`-`), or with a planted fault
/// that must be reported as the invariant it breaks.
#[cfg(feature = "loom")]
macro_rules! loom_cases {
    ($($name:ident: $target:path, $scenario:expr, $fault:tt;)*) => {$(
        #[test]
        fn $name() {
            loom_case(&$target(), $scenario, loom_cases!(@fault $fault));
        }
    )*};
    (@fault -) => { None };
    (@fault $fault:literal) => { Some($fault) };
}

#[cfg(feature = "loom")]
fn loom_case(target: &pipecheck_models::Target, scenario: &str, fault: Option<&str>) {
    use pipecheck_models::loom_harness::{check_target, expect_target_caught};
    const BOUND: usize = 3;
    match fault {
        None => drop(check_target(target, scenario, None, BOUND).unwrap()),
        Some(fault) => drop(expect_target_caught(target, scenario, fault, BOUND).unwrap()),
    }
}

#[cfg(feature = "loom")]
mod ring_loom {
    use pipecheck_models::SMALL_SCENARIO;
    use spsc_ring::ring_check::target;

    use super::loom_case;

    loom_cases! {
        push_close_races_pops_keeps_ring_fifo: target, "push-close-races-pops", -;
        wrap_around_keeps_ring_fifo: target, "wrap-around", -;
        generated_scenario_is_linearizable: target, SMALL_SCENARIO, -;
        close_relaxed_is_caught_as_ring_fifo: target, "push-close-races-pops", "CloseRelaxed";
        closed_without_recheck_is_caught_as_ring_fifo: target, "push-close-races-pops", "ClosedWithoutRecheck";
        head_before_read_is_caught_as_a_data_race: target, "wrap-around", "HeadBeforeRead";
    }

    /// The lost value is a history no order explains (by program order only, under
    /// loom): each bug that loses it, the weak-memory one included, breaks
    /// `linearizable` too, with no data race.
    fn caught_as_linearizable(fault: &'static pipecheck_core::PlantedFault) {
        let scenario = target().scenario(SMALL_SCENARIO).unwrap().clone();
        let linearizable = pipecheck_core::InvariantId::LINEARIZABLE;
        pipecheck_models::loom_harness::expect_model_caught(linearizable, 3, move || {
            scenario.run_once(Some(fault), &|_| {})
        });
    }

    #[test]
    fn closed_without_recheck_is_caught_as_linearizable() {
        caught_as_linearizable(&spsc_ring::ring_check::CLOSED_WITHOUT_RECHECK);
    }

    #[test]
    fn close_relaxed_is_caught_as_linearizable() {
        caught_as_linearizable(&spsc_ring::ring_check::CLOSE_RELAXED);
    }
}

/// loom: `count` generated scenarios of `spec` (seed 1, 2 threads of at most 2
/// operations), each explored within the bound and checked for `linearizable`.
#[cfg(feature = "loom")]
fn loom_generated<S: pipecheck_properties::linearizability::OpsSpec>(spec: S, count: usize) {
    use pipecheck_properties::linearizability::{ConcurrentShape, fixed_scenarios, run_concurrent};
    for (index, threads) in fixed_scenarios(&spec, ConcurrentShape::SMALL, 1, count).into_iter().enumerate() {
        let (name, spec) = (format!("{spec:?}-generated-{index}: {threads:?}"), spec.clone());
        pipecheck_models::loom_harness::explore(&name, 3, move || drop(run_concurrent(&spec, &threads)));
    }
}

#[cfg(feature = "loom")]
#[test]
fn ring_generated_scenarios_are_linearizable_by_program_order() {
    loom_generated(spsc_ring::ring_check::RingModel(2), 12);
}

#[cfg(feature = "loom")]
#[test]
fn stack_generated_scenarios_are_linearizable_by_program_order() {
    loom_generated(spsc_ring::stack_check::StackModel(12), 12);
}

#[cfg(feature = "loom")]
mod stack_loom {
    use pipecheck_models::SMALL_SCENARIO;
    use spsc_ring::stack_check::target;

    use super::loom_case;

    loom_cases! {
        pushes_race_pop_keeps_stack_conserved: target, "pushes-race-pop", -;
        generated_scenario_is_linearizable: target, SMALL_SCENARIO, -;
        push_relaxed_is_caught_as_a_data_race: target, "pushes-race-pop", "PushRelaxed";
        retry_without_relink_is_caught_as_stack_conserved: target, "pushes-race-pop", "RetryWithoutRelink";
        stale_pop_is_caught_as_linearizable: target, SMALL_SCENARIO, "StalePop";
    }
}

#[cfg(feature = "shuttle")]
mod ring_shuttle {
    use pipecheck_models::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind, Shuttle};
    use pipecheck_properties::{Engine, Verdict};
    use spsc_ring::ring_check::{CLOSED_WITHOUT_RECHECK, target};

    fn engines() -> [Shuttle; 2] {
        [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }].map(|kind| Shuttle {
            kind,
            seed: 1,
            iterations: 300,
            max_steps: DEFAULT_MAX_STEPS,
        })
    }

    #[test]
    fn every_scenario_passes_and_the_lost_close_is_caught() {
        let target = target();
        for engine in engines() {
            for scenario in target.all_scenarios() {
                assert_eq!(
                    engine.check(scenario.execution(None)).verdict,
                    Verdict::Pass,
                    "{}",
                    scenario.name
                );
            }
            for scenario in target.scenarios_catching(&CLOSED_WITHOUT_RECHECK) {
                let checked = engine.check(scenario.execution(Some(&CLOSED_WITHOUT_RECHECK)));
                eprintln!(
                    "{} {}: {} after {}",
                    engine.name(),
                    scenario.name,
                    checked.verdict,
                    checked.executions
                );
                assert!(checked.verdict.names(CLOSED_WITHOUT_RECHECK.breaks()), "{}", checked.verdict);
            }
        }
    }
}

#[cfg(feature = "shuttle")]
mod stack_shuttle {
    use pipecheck_models::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind, Shuttle};
    use pipecheck_properties::{Engine, Verdict};
    use spsc_ring::stack_check::{RETRY_WITHOUT_RELINK, STALE_POP, target};

    #[test]
    fn every_scenario_passes_and_the_non_weak_memory_bugs_are_caught() {
        let target = target();
        for kind in [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }] {
            let engine = Shuttle { kind, seed: 1, iterations: 300, max_steps: DEFAULT_MAX_STEPS };
            for scenario in target.all_scenarios() {
                assert_eq!(
                    engine.check(scenario.execution(None)).verdict,
                    Verdict::Pass,
                    "{}",
                    scenario.name
                );
            }
            for fault in [&RETRY_WITHOUT_RELINK, &STALE_POP] {
                for scenario in target.scenarios_catching(fault) {
                    let checked = engine.check(scenario.execution(Some(fault)));
                    eprintln!(
                        "{fault} in {} under {}: {} executions",
                        scenario.name,
                        engine.name(),
                        checked.executions
                    );
                    assert!(checked.verdict.names(fault.breaks()), "{fault}: {}", checked.verdict);
                }
            }
        }
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod stack_std {
    use pipecheck_properties::linearizability::{SequenceConfig, check_sequences};
    use spsc_ring::stack_check::{StackModel, target};

    #[test]
    fn every_scenario_runs_clean_on_threads_and_sequences_match_the_model() {
        target().validate().unwrap();
        for scenario in target().all_scenarios() {
            (0..20).for_each(|_| scenario.run_once(None, &|_| {}));
        }
        check_sequences(&StackModel(3), &SequenceConfig::default()).unwrap();
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod ring_std {
    use pipecheck_properties::linearizability::{SequenceConfig, check_sequences};
    use spsc_ring::ring_check::{RingModel, target};

    #[test]
    fn every_scenario_runs_clean_on_threads_and_sequences_match_the_model() {
        target().validate().unwrap();
        for scenario in target().all_scenarios() {
            (0..20).for_each(|_| scenario.run_once(None, &|_| {}));
        }
        check_sequences(&RingModel(2), &SequenceConfig::default()).unwrap();
    }
}

/// Not a false verdict: with Acquire/Release indices (no SeqCst fence), `Push(3)` may load
/// a stale `head` (Full) while the consumer's second pop loads a stale `tail` (Empty):
/// store buffering. No order of `Push 1, Push 2, Push 3 -> Full || Pop -> 1, Pop -> Empty`
/// respects program order, so the ring is linearizable only for the answers the small
/// scenarios (2 operations per thread) can see; a SeqCst fence before each side loads
/// the other's index would forbid it.
#[cfg(feature = "loom")]
#[test]
fn store_buffering_makes_full_and_empty_non_linearizable_under_c11() {
    use pipecheck_properties::linearizability::run_concurrent;
    use spsc_ring::ring_check::{Op, RingModel};
    let threads = vec![vec![Op::Push(1), Op::Push(2), Op::Push(3)], vec![Op::Pop, Op::Pop]];
    let linearizable = pipecheck_core::InvariantId::LINEARIZABLE;
    pipecheck_models::loom_harness::expect_model_caught(linearizable, 3, move || {
        drop(run_concurrent(&RingModel(2), &threads))
    });
}
