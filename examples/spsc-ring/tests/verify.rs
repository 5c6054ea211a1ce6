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

/// A failing shuttle schedule of the ring, replayed with the sync facade's operations
/// recorded: the table explains the failure without the ring's own events.
#[cfg(feature = "shuttle")]
mod ring_replay {
    use pipecheck_core::PlantedFault;
    use pipecheck_core::primitive::record::{Detail, FacadeOp, OpKind, Value};
    use pipecheck_models::{LARGE_SCENARIO, Target};
    use pipecheck_traces::explore::{Exploration, SchedulerKind, Settings, explore_in};
    use pipecheck_traces::minimize::{DEFAULT_RUNS, minimize};
    use pipecheck_traces::replay::{Replayed, replay_recording};
    use pipecheck_traces::table::{DEFAULT_WIDTH, TableOptions, render, render_with};
    use spsc_ring::ring_check::{CLOSED_WITHOUT_RECHECK, target};

    /// The line of `src/ring.rs` that holds `code` (once).
    fn ring_line(code: &str) -> u32 {
        let source = include_str!("../src/ring.rs");
        let lines: Vec<usize> =
            source.lines().enumerate().filter(|(_, l)| l.contains(code)).map(|(i, _)| i).collect();
        assert_eq!(lines.len(), 1, "`{code}` once in ring.rs");
        u32::try_from(lines[0] + 1).expect("small file")
    }

    /// `fault`'s failure in `scenario`, found by shuttle, minimized, and replayed with
    /// the facade's operations of `detail` recorded.
    fn replayed(target: &Target, scenario: &str, fault: &'static PlantedFault, detail: Detail) -> Replayed {
        let settings = Settings { iterations: 1000, ..Settings::default() };
        let scenario = target.scenario(scenario).expect("scenario");
        let found = [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }]
            .into_iter()
            .find_map(|kind| match explore_in(target, scenario, Some(fault), kind, &settings) {
                Exploration::Failed(found) => Some(found),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{} is caught in {}", fault.name(), scenario.name));
        let minimized = minimize(&found, settings.max_steps, DEFAULT_RUNS);
        let trace = found.trace_with(minimized.size, minimized.schedule);
        let path = std::path::Path::new("(in memory)");
        replay_recording(&trace, path, std::slice::from_ref(target), detail).unwrap_or_else(|e| panic!("{e}"))
    }

    fn is_at(op: &FacadeOp, line: u32) -> bool {
        op.location.file().ends_with("ring.rs") && op.location.line() == line
    }

    #[test]
    fn the_lost_close_replays_with_the_stale_tail_load_and_no_target_event() {
        let target = target();
        let replayed = replayed(&target, "push-close-races-pops", &CLOSED_WITHOUT_RECHECK, Detail::Sync);
        assert_eq!(replayed.failure.as_ref().expect("fails").invariant, "ring-fifo");
        let (tail_load, tail_store, closed_load) = (
            ring_line("let mut tail = shared.tail.load(Ordering::Acquire);"),
            ring_line("shared.tail.store(tail.wrapping_add(1), Ordering::Release);"),
            ring_line("if !shared.closed.load(Ordering::Acquire) {"),
        );
        // The consumer's last look at `closed` found it set, and it returned Closed...
        let ops = &replayed.facade;
        let closed = ops
            .iter()
            .rposition(|op| is_at(op, closed_load) && op.kind == OpKind::Load { value: Value::Bool(true) })
            .expect("the consumer saw `closed` set");
        let consumer = ops[closed].thread;
        // ... on the strength of its tail load before it, which a push had made stale.
        let stale = ops[..closed]
            .iter()
            .rposition(|op| op.thread == consumer && is_at(op, tail_load))
            .expect("the consumer loaded tail before");
        let OpKind::Load { value: Value::Int(read) } = ops[stale].kind else { panic!("{:?}", ops[stale]) };
        let pushed = ops[stale..closed]
            .iter()
            .filter(|op| op.thread != consumer && is_at(op, tail_store))
            .filter_map(|op| match op.kind {
                OpKind::Store { value: Value::Int(v) } => Some(v),
                _ => None,
            })
            .max()
            .expect("a push stored tail between the consumer's two loads");
        assert!(pushed > read, "tail {read} was stale: {pushed} was stored before `closed` was read");

        let options = TableOptions { target_events: false, ..TableOptions::default() };
        let table = render_with(&replayed, &options);
        eprintln!("{table}");
        let row = format!("load Acq → {read} @ring.rs:{tail_load}");
        let header = table.lines().next().expect("header");
        let column = header.split('|').position(|h| h.contains("(consumer)")).expect("a consumer column");
        assert!(
            table.lines().any(|l| l.split('|').nth(column).is_some_and(|cell| cell.trim() == row)),
            "`{row}` in the consumer's column:\n{table}"
        );
        let events =
            table.lines().filter(|l| l.split('|').next().is_some_and(|c| c.trim().parse::<usize>().is_ok()));
        assert_eq!(events.count(), 0, "no event of the ring's own:\n{table}");
        assert!(table.contains("✗ `ring-fifo` broke"), "{table}");
    }

    #[test]
    fn the_default_table_of_a_many_thread_failure_fits_120_columns() {
        let target = target();
        let replayed = replayed(&target, LARGE_SCENARIO, &CLOSED_WITHOUT_RECHECK, Detail::All);
        let threads: std::collections::BTreeSet<usize> = replayed.facade.iter().map(|op| op.thread).collect();
        assert!(threads.len() > 6, "{} threads: too few to need sharing columns", threads.len());
        let table = render(&replayed, None);
        eprintln!("{}", table.lines().take(12).collect::<Vec<_>>().join("\n"));
        let widest = table.lines().filter(|l| l.contains('|')).map(|l| l.chars().count()).max();
        assert!(widest.is_some_and(|w| w <= DEFAULT_WIDTH), "{widest:?} wide:\n{table}");
        let full = render_with(&replayed, &TableOptions { width: None, ..TableOptions::default() });
        let columns = full.lines().next().expect("header").matches(" task ").count();
        assert_eq!(columns, threads.len(), "full width: one column per thread");
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
