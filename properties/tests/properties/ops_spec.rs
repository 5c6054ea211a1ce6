//! The [`OpsSpec`] runners themselves: [`check_sequences`] passes a correct spec and
//! fails a wrong one (a wrong model, a planted fault) with a shrunk sequence naming the
//! refused operation; the concurrent runners check on `std` threads, raise
//! `linearizable`, and shrink a failing split.
//!
//! Run: `cargo test -p pipecheck-properties --test properties -- ops_spec:: --nocapture` (the
//! shuttle and loom runs are in pipecheck-models' `shuttle`/`loom` test binaries, module `generated`).
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use pipecheck::linearizability::{
    ConcurrentConfig, ConcurrentShape, DeterministicModel, Ends, OpsSpec, SequenceConfig, check_sequences,
    fixed_scenarios, run_concurrent, run_monitored, shared, shrink_concurrent,
};
use pipecheck::sync::atomic::{AtomicU64, Ordering};
use pipecheck::{InvariantId, Violation};
use pipecheck_pipe::fault;
use pipecheck_properties::linearizability::{MutexOp, MutexSpec};
use proptest::prelude::*;

/// A counter whose `add` returns the new total; `returns_old` plants a real object that
/// returns the total *before* the add (what `fetch_add` returns), which the model refuses.
#[derive(Clone, Debug)]
struct Counter {
    returns_old: bool,
}

impl DeterministicModel for Counter {
    type State = u64;
    type Input = u64;
    type Output = u64;

    fn initial(&self) -> u64 {
        0
    }

    fn run(&self, total: &mut u64, add: &u64) -> u64 {
        *total += add;
        *total
    }
}

impl OpsSpec for Counter {
    type Handle = Arc<AtomicU64>;

    fn handles(&self, threads: usize) -> Vec<Arc<AtomicU64>> {
        shared(AtomicU64::new(0), threads)
    }

    fn apply(&self, real: &mut Arc<AtomicU64>, add: &u64) -> u64 {
        let old = real.fetch_add(*add, Ordering::SeqCst);
        if self.returns_old { old } else { old + add }
    }

    fn inputs(&self) -> BoxedStrategy<u64> {
        (0..100u64).boxed()
    }
}

#[test]
fn a_correct_spec_passes_every_sequence() {
    let passed = check_sequences(&Counter { returns_old: false }, &SequenceConfig::default()).unwrap();
    assert_eq!(passed.sequences, SequenceConfig::default().cases);
    assert!(passed.applied > 0);
}

#[test]
fn a_wrong_result_fails_with_a_shrunk_sequence_and_both_outputs() {
    let mismatch = check_sequences(&Counter { returns_old: true }, &SequenceConfig::default()).unwrap_err();
    eprintln!("{mismatch}");
    // One add of 1 is the smallest failure: an add of 0 returns 0 either way.
    assert_eq!(mismatch.sequence, vec![1]);
    assert_eq!((mismatch.index, mismatch.input, mismatch.observed, mismatch.expected), (0, 1, 0, Some(1)));
    let text = mismatch.to_string();
    assert!(text.contains("operation #0 1 returned 0, but the model expected 1"), "{text}");
    assert!(text.contains("proptest seed 0x5eed"), "{text}");
}

#[test]
fn the_mutex_spec_passes_and_its_planted_fault_fails_on_the_third_operation() {
    let passed = check_sequences(&MutexSpec, &SequenceConfig::default()).unwrap();
    assert!(passed.skipped > 0, "no lock was skipped while held: {passed:?}");
    let planted = || check_sequences(&MutexSpec, &SequenceConfig::default());
    let mismatch = fault::TryLockFailsAfterRelease.activate(planted).unwrap_err();
    eprintln!("{mismatch}");
    // Take, release, then a try_lock refused on a free mutex.
    assert_eq!(mismatch.sequence.len(), 3, "{mismatch}");
    assert_eq!(mismatch.sequence[1], MutexOp::Unlock);
    assert_eq!((mismatch.index, mismatch.input, mismatch.observed), (2, MutexOp::TryLock, false));
    assert_eq!(mismatch.expected, Some(true));
}

#[test]
fn a_concurrent_run_of_a_wrong_result_raises_linearizable() {
    let caught = catch_unwind(|| run_concurrent(&Counter { returns_old: true }, &[vec![1], vec![2]]));
    let violation = caught.unwrap_err().downcast::<Violation>().unwrap();
    assert_eq!(violation.invariant, InvariantId::LINEARIZABLE);
    // A correct counter on std threads: any schedule is linearizable.
    run_concurrent(&Counter { returns_old: false }, &[vec![1, 2], vec![3], vec![4]]);
}

#[test]
fn shrink_concurrent_finds_a_minimal_failing_split() {
    let spec = Counter { returns_old: true };
    let check = |threads: &[Vec<u64>]| {
        catch_unwind(AssertUnwindSafe(|| run_concurrent(&spec, threads))).map(drop).map_err(|panic| {
            let violation = panic.downcast::<Violation>().expect("a violation");
            violation.invariant.to_string()
        })
    };
    let failure = shrink_concurrent(&spec, &ConcurrentConfig::default(), check).unwrap_err();
    eprintln!("{failure}");
    // Two threads (the fewest), one add of 1 and one of 0.
    assert_eq!(failure.operations(), 2, "{failure}");
    assert_eq!(failure.threads.iter().flatten().sum::<u64>(), 1, "{failure}");
    assert_eq!(failure.reason, "linearizable");
    let correct = Counter { returns_old: false };
    shrink_concurrent(&correct, &ConcurrentConfig { cases: 16, ..ConcurrentConfig::default() }, |threads| {
        run_concurrent(&correct, threads);
        Ok(())
    })
    .unwrap();
}

#[test]
fn fixed_scenarios_are_reproducible_and_keep_the_spec_rule() {
    let spec = MutexSpec;
    let drawn = fixed_scenarios(&spec, ConcurrentShape::LARGE, 7, 32);
    assert_eq!(drawn, fixed_scenarios(&spec, ConcurrentShape::LARGE, 7, 32));
    assert_ne!(drawn, fixed_scenarios(&spec, ConcurrentShape::LARGE, 8, 32));
    for threads in &drawn {
        assert!((2..=3).contains(&threads.len()), "{threads:?}");
        assert!(threads.iter().all(|ops| (1..=4).contains(&ops.len())), "{threads:?}");
        assert!(spec.deadlock_free(threads), "{threads:?}");
    }
    // The rule rejects a thread that locks twice without unlocking.
    assert!(!spec.deadlock_free(&[vec![MutexOp::Lock, MutexOp::Lock], vec![MutexOp::TryLock]]));
}

/// A total with two roles: role 0 adds through its own end, role 1 reads through its own.
/// `apply` panics when an operation reaches the other role's end.
#[derive(Clone, Debug)]
struct Roles;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoleOp {
    Add(u64),
    Read,
}

impl DeterministicModel for Roles {
    type State = u64;
    type Input = RoleOp;
    type Output = u64;

    fn initial(&self) -> u64 {
        0
    }

    fn run(&self, total: &mut u64, op: &RoleOp) -> u64 {
        if let RoleOp::Add(n) = op {
            *total += n;
        }
        *total
    }
}

impl OpsSpec for Roles {
    type Handle = Ends<Arc<AtomicU64>, Arc<AtomicU64>>;

    fn handles(&self, _threads: usize) -> Vec<Self::Handle> {
        let total = Arc::new(AtomicU64::new(0));
        Ends::pair((total.clone(), total))
    }

    fn apply(&self, end: &mut Self::Handle, op: &RoleOp) -> u64 {
        match (end, op) {
            (Ends::First(total), RoleOp::Add(n)) => total.fetch_add(*n, Ordering::SeqCst) + n,
            (Ends::Second(total), RoleOp::Read) => total.load(Ordering::SeqCst),
            (_, op) => panic!("{op:?} reached the other role's end"),
        }
    }

    fn inputs(&self) -> BoxedStrategy<RoleOp> {
        prop_oneof![(0..5u64).prop_map(RoleOp::Add), Just(RoleOp::Read)].boxed()
    }

    fn role(&self, op: &RoleOp) -> Option<usize> {
        Some(usize::from(*op == RoleOp::Read))
    }
}

#[test]
fn each_role_runs_on_its_own_end_in_sequences_and_in_every_generated_split() {
    check_sequences(&Roles, &SequenceConfig::default()).unwrap();
    for threads in fixed_scenarios(&Roles, ConcurrentShape::LARGE, 1, 32) {
        assert!(threads[2..].iter().all(Vec::is_empty), "every operation has a role: {threads:?}");
        run_concurrent(&Roles, &threads);
    }
}

#[test]
fn a_split_that_breaks_the_roles_is_refused() {
    let refused = catch_unwind(|| run_concurrent(&Roles, &[vec![RoleOp::Read], vec![RoleOp::Add(1)]]));
    let message = pipecheck::panic_message(refused.unwrap_err().as_ref());
    assert!(message.contains("off its role's thread"), "{message}");
}

#[test]
fn run_monitored_records_each_operation_for_the_event_invariants() {
    use pipecheck::{EventMonitor, FnInvariant};
    let statement = "a read sees the total after some prefix of the adds (0, 2 or 5)";
    let id = InvariantId::new("reads-a-prefix");
    let invariant = FnInvariant::new(id, statement, 0usize, |events, event: &(RoleOp, u64)| {
        *events += 1;
        match *event {
            (RoleOp::Read, seen) if ![0, 2, 5].contains(&seen) => Err(format!("read {seen}")),
            _ => Ok(()),
        }
    });
    let counted =
        invariant.with_finish(|events| (*events == 3).then_some(()).ok_or(format!("{events} events")));
    let monitor = EventMonitor::new(vec![counted.boxed()]);
    run_monitored(&Roles, &[vec![RoleOp::Add(2), RoleOp::Add(3)], vec![RoleOp::Read]], &monitor);
    monitor.finish().unwrap();
}

/// A register: `Get` reads, `Set` writes (a seqlock's or a cell's operations).
#[derive(Clone, Debug)]
struct Register;

#[derive(Clone, Debug, PartialEq)]
enum RegisterOp {
    Get,
    Set(u8),
}

impl DeterministicModel for Register {
    type State = u8;
    type Input = RegisterOp;
    type Output = u8;

    fn initial(&self) -> u8 {
        0
    }

    fn run(&self, value: &mut u8, op: &RegisterOp) -> u8 {
        if let RegisterOp::Set(new) = op {
            *value = *new;
        }
        *value
    }
}

impl OpsSpec for Register {
    type Handle = Arc<AtomicU64>;

    fn handles(&self, threads: usize) -> Vec<Arc<AtomicU64>> {
        shared(AtomicU64::new(0), threads)
    }

    fn apply(&self, real: &mut Arc<AtomicU64>, op: &RegisterOp) -> u8 {
        if let RegisterOp::Set(new) = op {
            real.store(u64::from(*new), Ordering::SeqCst);
        }
        real.load(Ordering::SeqCst) as u8
    }

    fn inputs(&self) -> BoxedStrategy<RegisterOp> {
        prop_oneof![Just(RegisterOp::Get), (1..4u8).prop_map(RegisterOp::Set)].boxed()
    }
}

#[test]
fn fixed_scenarios_are_splits_whose_operations_can_race() {
    for threads in fixed_scenarios(&Register, ConcurrentShape::SMALL, 1, 48) {
        let acting = threads.iter().filter(|ops| !ops.is_empty()).count();
        assert!(acting >= 2, "a split with one acting thread: {threads:?}");
        // Setting the value it already holds changes nothing: at least one set must
        // find another value (a set after the initial 0, or two different sets).
        let writes = threads.iter().flatten().any(|op| matches!(op, RegisterOp::Set(_)));
        assert!(writes, "a split of reads only: {threads:?}");
    }
}
