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

mod sequential_model {
    use oneshot::faults::SEND_IGNORES_CLOSED;
    use oneshot::model::{OneshotModel, OneshotOp, OneshotOutput};
    use pipecheck_properties::linearizability::{SequenceConfig, check_sequences};

    #[test]
    fn operation_sequences_match_the_model() {
        let passed = check_sequences(&OneshotModel, &SequenceConfig::default()).unwrap();
        eprintln!("{passed:?}");
        assert!(passed.skipped > 0, "no recv was skipped while the sender was unused");
    }

    #[test]
    fn send_ignores_closed_receiver_fails_the_sequences_with_a_minimal_one() {
        let mismatch = SEND_IGNORES_CLOSED
            .activate(|| check_sequences(&OneshotModel, &SequenceConfig::default()))
            .unwrap_err();
        eprintln!("{mismatch}");
        assert_eq!(mismatch.sequence, vec![OneshotOp::DropReceiver, OneshotOp::Send(1)]);
        assert_eq!(mismatch.observed, OneshotOutput::Sent);
        assert_eq!(mismatch.expected, Some(OneshotOutput::Refused(1)));
    }
}
