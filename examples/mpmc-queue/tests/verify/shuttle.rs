//! Under shuttle: the strict model refuses the queue, naming the relaxed answer, under
//! each scheduler; the pending-aware one accepts the same schedules.

use mpmc_queue::queue_check::{EMPTY_WHILE_PUSH_IN_FLIGHT, QueueModel};
use pipecheck::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind, Shuttle};
use pipecheck::linearizability::{PendingAware, concurrent_execution};
use pipecheck::{Engine, FailureKind, InvariantId, Verdict};

const SEED: u64 = 1;

fn engines() -> [Shuttle; 2] {
    [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }].map(|kind| Shuttle {
        kind,
        seed: SEED,
        iterations: 2000,
        max_steps: DEFAULT_MAX_STEPS,
    })
}

#[test]
fn the_strict_model_refuses_an_empty_answer_while_a_push_is_in_flight_by_name() {
    for engine in engines() {
        let checked = engine.check(concurrent_execution(QueueModel(2), super::push_then_pop()));
        eprintln!(
            "{} (seed {SEED}): {} after {} executions",
            engine.name(),
            checked.verdict,
            checked.executions
        );
        let Verdict::Fail(FailureKind::InvariantViolated(violation)) = &checked.verdict else {
            panic!("{}: expected `linearizable` to break, got {}", engine.name(), checked.verdict);
        };
        assert_eq!(violation.invariant, InvariantId::LINEARIZABLE);
        assert!(violation.detail.contains(EMPTY_WHILE_PUSH_IN_FLIGHT), "{}", violation.detail);
        let relaxed = engine.check(concurrent_execution(PendingAware(QueueModel(2)), super::push_then_pop()));
        assert_eq!(relaxed.verdict, Verdict::Pass, "{}", engine.name());
    }
}

#[test]
fn a_livelock_is_progress_and_its_trace_minimizes_below_the_step_bound() {
    use mpmc_queue::queue_check::{StalePosition, target};
    use pipecheck::record::Detail;
    use pipecheck::trace::explore::{Exploration, Settings, explore_in};
    use pipecheck::trace::minimize::{DEFAULT_RUNS, minimized_trace};
    use pipecheck::trace::replay::replay_recording;

    let target = target();
    let scenario = target.scenario("pops-race").expect("scenario");
    let settings = Settings { iterations: 200, ..Settings::default() };
    let Exploration::Failed(found) =
        explore_in(&target, scenario, Some(&StalePosition), SchedulerKind::Random, &settings)
    else {
        panic!("StalePosition escaped {} random schedules (seed {})", settings.iterations, settings.seed);
    };
    assert_eq!(found.failure.invariant, InvariantId::PROGRESS.name(), "{}", found.failure.message());
    let trace = minimized_trace(&found, settings.max_steps, DEFAULT_RUNS);
    eprintln!("livelock: {} minimized to {}", found.size, trace.minimized);
    assert!(trace.minimized.steps * 10 < settings.max_steps, "{} steps", trace.minimized.steps);
    let path = std::path::Path::new("(in memory)");
    let replayed = replay_recording(&trace, path, std::slice::from_ref(&target), Detail::None)
        .unwrap_or_else(|e| panic!("{e}"));
    let failure = replayed.failure.expect("the minimized trace fails");
    assert_eq!(failure.invariant, InvariantId::PROGRESS.name(), "{}", failure.message());
}

#[test]
fn a_time_limit_stops_shuttle_before_its_iterations_as_it_stops_loom() {
    use mpmc_queue::queue_check::target;
    use pipecheck::trace::explore::{Exploration, Settings, explore_in};

    let target = target();
    let scenario = target.scenario("pushes-race-pop").expect("scenario");
    let settings =
        Settings { iterations: 100_000, time: Some(std::time::Duration::ZERO), ..Settings::default() };
    let Exploration::Passed { iterations, .. } =
        explore_in(&target, scenario, None, SchedulerKind::Random, &settings)
    else {
        panic!("the clean scenario failed");
    };
    assert_eq!(iterations, 0, "no execution starts after the deadline");
}
