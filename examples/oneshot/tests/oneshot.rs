//! The channel on std: it works, its target declaration is valid, and each scenario
//! runs clean on real threads. (Std primitives only: the checker builds run the
//! same scenarios in `loom_oneshot.rs` and `shuttle_oneshot.rs`.)
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use pipecheck_core::primitive::future::block_on;

#[test]
fn a_sent_value_arrives() {
    let (tx, rx) = oneshot::channel();
    let sender = std::thread::spawn(move || tx.send(5u32));
    assert_eq!(block_on(rx), Ok(5));
    assert_eq!(sender.join().unwrap(), Ok(()));
}

#[test]
fn a_dropped_sender_cancels() {
    let (tx, rx) = oneshot::channel::<u32>();
    drop(tx);
    assert_eq!(block_on(rx), Err(oneshot::Canceled));
}

#[test]
fn sending_to_a_dropped_receiver_hands_the_value_back() {
    let (tx, rx) = oneshot::channel();
    drop(rx);
    assert_eq!(tx.send(9u32), Err(9));
}

#[test]
fn the_target_is_declared_consistently() {
    oneshot::target().validate().unwrap();
}

#[test]
fn every_scenario_runs_clean_on_threads() {
    for scenario in oneshot::target().all_scenarios() {
        for _ in 0..20 {
            scenario.run_once(None, &|_| {});
        }
    }
}
