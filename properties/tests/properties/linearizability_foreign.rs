//! The checker on foreign and generated histories: simulated Jepsen logs with known
//! verdicts, budgets (states, bytes, time) ending in "unknown", a failure in one
//! partition winning over an exhausted other, causal precedence, and the HTML picture
//! in a headless browser.

use std::time::{Duration, Instant};

use pipecheck::linearizability::foreign::etcd::{EtcdOp, EtcdOutput, EtcdRegister};
use pipecheck::linearizability::foreign::kv::{KvOp, KvStore};
use pipecheck::linearizability::foreign::{etcd, kv, simulate};
use pipecheck::linearizability::{
    Budget, Event, Exhausted, History, HistoryError, Linearization, OpId, PendingPolicy, check, check_report,
};

mod api_shapes;
// The pages do not depend on the engine features (the checker and the picture are the
// same code in every build), and drawing porcupine's 108 histories in Chromium takes
// about a minute: they are drawn once, in the std build, not again in the loom and
// shuttle suites.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod html_in_browser;
mod pending_calls;

fn verdict<M: pipecheck::linearizability::SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
) -> Linearization {
    check(model, history, Budget::default()).expect("well-formed history")
}

#[test]
fn simulated_register_logs_have_their_known_verdicts() {
    for seed in 0..6 {
        for fault in [false, true] {
            let history = etcd::parse(&simulate::register_log(seed, 5, 160, fault)).unwrap();
            let report = check_report(&EtcdRegister, &history, Budget::default()).unwrap();
            match (&report.verdict, fault) {
                (Linearization::Linearizable(_), false) | (Linearization::NonLinearizable(_), true) => {}
                (other, _) => panic!("seed {seed}, fault {fault}: {other:?}"),
            }
        }
    }
}

#[test]
fn simulated_key_value_logs_have_their_known_verdicts() {
    for seed in 0..6 {
        for fault in [false, true] {
            let history = kv::parse(&simulate::kv_log(seed, 10, 5, 600, fault)).unwrap();
            let report = check_report(&KvStore, &history, Budget::default()).unwrap();
            assert_eq!(report.partitions.len(), 5, "one partition per key");
            match (&report.verdict, fault) {
                (Linearization::Linearizable(order), false) => assert_eq!(order.len(), history.len()),
                (Linearization::NonLinearizable(failure), true) => assert_eq!(failure.key, "\"0\""),
                (other, _) => panic!("seed {seed}, fault {fault}: {other:?}"),
            }
        }
    }
}

#[test]
fn a_timed_out_write_may_or_may_not_have_taken_effect() {
    // The etcd case: process 0's write times out; a later read sees its value.
    let mut history = History::new();
    let write = history.indeterminate(0, EtcdOp::Write(3), EtcdOutput::Written, 0);
    history.complete(1, EtcdOp::Read, EtcdOutput::Read(Some(3)), 1, 2);
    history.complete(1, EtcdOp::Read, EtcdOutput::Read(Some(3)), 3, 4);
    assert!(verdict(&EtcdRegister, &history).is_linearizable());
    history.set_pending_policy(write, PendingPolicy::NeverTookEffect);
    assert!(!verdict(&EtcdRegister, &history).is_linearizable());
    // Not taking effect is allowed too.
    let mut history = History::new();
    history.indeterminate(0, EtcdOp::Write(3), EtcdOutput::Written, 0);
    history.complete(1, EtcdOp::Read, EtcdOutput::Read(None), 1, 2);
    assert!(verdict(&EtcdRegister, &history).is_linearizable());
}

#[test]
fn event_streams_become_histories() {
    let events = vec![
        Event::Call { id: 10, client: 0, input: EtcdOp::Write(1) },
        Event::Call { id: 11, client: 1, input: EtcdOp::Read },
        Event::Return { id: 11, output: EtcdOutput::Read(Some(1)) },
        Event::Return { id: 10, output: EtcdOutput::Written },
        Event::Call { id: 12, client: 1, input: EtcdOp::Read },
        Event::Return { id: 12, output: EtcdOutput::Read(None) },
    ];
    let history = History::from_events(events).unwrap();
    let Linearization::NonLinearizable(failure) = verdict(&EtcdRegister, &history) else {
        panic!("the second read cannot see nil after the write returned")
    };
    assert_eq!(failure.unplaced, OpId(2));
}

/// Key `hard`: many overlapping appends and a get no subset of them explains, so the
/// search must try every subset; key `bad`: a put then a get that misses it.
fn hard_and_failing(hard: &str, bad: &str, with_bad: bool) -> History<KvOp, Option<String>> {
    let mut history = History::new();
    for client in 0..14 {
        history.complete(client, KvOp::Append(hard.into(), format!("{client},")), None, 0, 100);
    }
    history.complete(14, KvOp::Get(hard.into()), Some("never".into()), 0, 100);
    if with_bad {
        history.complete(20, KvOp::Put(bad.into(), "x".into()), None, 101, 102);
        history.complete(21, KvOp::Get(bad.into()), Some(String::new()), 103, 104);
    }
    history
}

#[test]
fn a_failure_anywhere_wins_over_an_exhausted_partition_whatever_the_keys() {
    let budget = Budget::default().with_max_states(50_000);
    for (hard, bad) in [("a", "b"), ("b", "a"), ("zz", "0")] {
        let history = hard_and_failing(hard, bad, true);
        let Linearization::NonLinearizable(failure) = check(&KvStore, &history, budget).unwrap() else {
            panic!("keys {hard}, {bad}: the failing partition must decide")
        };
        assert_eq!(failure.key, format!("{bad:?}"));
        assert_eq!(failure.unplaced, OpId(16));
    }
}

#[test]
fn budgets_end_in_unknown_with_what_was_explored() {
    let history = hard_and_failing("a", "b", false);
    let report = check_report(&KvStore, &history, Budget::default().with_max_states(10_000)).unwrap();
    assert_eq!(report.verdict, Linearization::Unknown { why: Exhausted::States, states: report.states() });
    assert!((10_000..=10_001).contains(&report.states()), "{} states", report.states());

    let max_bytes = 256 << 10;
    let report = check_report(&KvStore, &history, Budget::unlimited().with_max_bytes(max_bytes)).unwrap();
    assert!(
        matches!(report.verdict, Linearization::Unknown { why: Exhausted::Memory, .. }),
        "{:?}",
        report.verdict
    );
    assert!(report.peak_bytes <= max_bytes, "{} bytes", report.peak_bytes);

    let time = Duration::from_millis(300);
    let started = Instant::now();
    let report = check_report(&KvStore, &history, Budget::unlimited().with_time(time)).unwrap();
    let took = started.elapsed();
    assert!(
        matches!(report.verdict, Linearization::Unknown { why: Exhausted::Time, .. }),
        "{:?}",
        report.verdict
    );
    // How close to the budget it stopped is measured by `porcupine_bench --time`, not
    // asserted here: a test must not depend on the machine's speed or load.
    eprintln!("time budget {time:?}: the check reports {:?}, the caller saw {took:?}", report.elapsed);
}

#[test]
fn causal_precedence_accepts_what_stamps_would_refuse() {
    // Two threads of two operations each. Under a relaxed clock thread 0's stamps all
    // come first, yet nothing orders the threads: the only linearizations interleave
    // them (w1, w2, r0 → 2, r1 → 2), which stamps-as-real-time forbids.
    let ops = |history: &mut History<EtcdOp, EtcdOutput>| {
        let w1 = history.complete(0, EtcdOp::Write(1), EtcdOutput::Written, 0, 1);
        let r0 = history.complete(0, EtcdOp::Read, EtcdOutput::Read(Some(2)), 2, 3);
        let w2 = history.complete(1, EtcdOp::Write(2), EtcdOutput::Written, 4, 5);
        let r1 = history.complete(1, EtcdOp::Read, EtcdOutput::Read(Some(2)), 6, 7);
        [w1, r0, w2, r1]
    };
    let mut real_time = History::new();
    ops(&mut real_time);
    assert!(!verdict(&EtcdRegister, &real_time).is_linearizable());

    let mut causal = History::causal();
    let [w1, r0, w2, _] = ops(&mut causal);
    let Linearization::Linearizable(order) = verdict(&EtcdRegister, &causal) else {
        panic!("fully concurrent threads may interleave")
    };
    assert!(order.iter().position(|op| *op == w2) < order.iter().position(|op| *op == r0));
    assert_eq!(order[0], w1);

    // A hand-over from thread 0's read to thread 1's write rules the interleaving out.
    causal.order(r0, w2);
    assert!(!verdict(&EtcdRegister, &causal).is_linearizable());
}

#[test]
fn causal_order_is_transitive_through_other_partitions() {
    // a (key x) → c (key y) by an edge, c → d by program order, d → b (key x) by an
    // edge: a precedes b although no edge joins them directly.
    let mut history = History::causal();
    let a = history.complete(0, KvOp::Put("x".into(), "1".into()), None, 0, 0);
    let b = history.complete(2, KvOp::Get("x".into()), Some(String::new()), 0, 0);
    let c = history.complete(1, KvOp::Put("y".into(), "1".into()), None, 0, 0);
    let d = history.complete(1, KvOp::Get("y".into()), Some("1".into()), 0, 0);
    assert!(verdict(&KvStore, &history).is_linearizable());
    history.order(a, c);
    history.order(d, b);
    assert!(!verdict(&KvStore, &history).is_linearizable());
    history.order(b, a);
    assert_eq!(check(&KvStore, &history, Budget::default()), Err(HistoryError::Cycle(OpId(0))));
}
