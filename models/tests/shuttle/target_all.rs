//! `engine::shuttle::check_target_all` means what it says: a target whose planted bugs
//! its scenario catches passes, and the same target with a planted bug no run can see
//! fails, naming it.
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test shuttle -- target_all::`.

use pipecheck::engine::shuttle::check_target_all;
use pipecheck::{EventMonitor, EventScenario, FnInvariant, InvariantId, Target, thread};

const EVEN_TOTAL: InvariantId = InvariantId::new("even-total");

#[path = "../common/adder.rs"]
mod adder;
use adder::{ALL, AddsOne, target};

#[test]
fn a_target_whose_bugs_are_caught_passes() {
    check_target_all(&target(&[&AddsOne]), 1, 20);
}

#[test]
#[should_panic(expected = "adder/two-adds with `Inert` planted: no scheduler reported it")]
fn a_planted_bug_no_scheduler_sees_fails_the_check() {
    check_target_all(&target(ALL), 1, 20);
}

/// A clean run that fails is saved as a trace file in the campaign's format, and the
/// command printed is the campaign binary's `replay <file>`; the saved trace replays the
/// same failure in one execution.
#[test]
fn a_failing_clean_run_is_saved_as_a_trace_the_campaign_replays() {
    use pipecheck::trace::replay::replay;
    use pipecheck::trace::trace_file::Trace;
    let odd = || {
        let even = FnInvariant::new(EVEN_TOTAL, "every total recorded is even", (), |_, total: &u64| {
            if total.is_multiple_of(2) { Ok(()) } else { Err(format!("total {total}")) }
        });
        let odd_adds = |monitor: &EventMonitor<u64>| {
            let other = monitor.clone();
            thread::spawn(move || other.record(3)).join().unwrap();
        };
        Target::new("odd-adder", "an adder whose total is odd")
            .checked(even, &[EventScenario::small("two-adds", "an odd total", odd_adds)])
    };
    let panicked = std::panic::catch_unwind(|| check_target_all(&odd(), 1, 20)).unwrap_err();
    let message = pipecheck::panic_message(&*panicked);
    assert!(message.contains("odd-adder/two-adds under shuttle-random"), "{message}");
    let path = message
        .lines()
        .find_map(|l| l.strip_prefix("failing schedule saved to "))
        .unwrap_or_else(|| panic!("no saved trace named:\n{message}"));
    let command = message.lines().last().unwrap().trim();
    assert!(command.starts_with("cargo run -p pipecheck-models --features shuttle -- replay "), "{command}");
    let targets = [odd()];
    let trace = Trace::load(path.as_ref(), &targets).unwrap();
    assert_eq!(
        (trace.target.as_str(), trace.scenario.as_str(), trace.fault.as_deref()),
        ("odd-adder", "two-adds", None)
    );
    let replayed = replay(&trace, path.as_ref(), &targets).unwrap();
    assert_eq!(replayed.failure.map(|f| f.invariant), Some("even-total".to_owned()));
}
