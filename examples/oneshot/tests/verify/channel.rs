//! The channel on std threads: it works, and what `verify_every_target` does not check of the
//! sequential model: that sequences skip a blocked `recv`, and the minimal sequence
//! that catches the lost value.

use oneshot::faults::SendIgnoresClosedReceiver;
use oneshot::model::{OneshotModel, OneshotOp, OneshotOutput};
use pipecheck::future::block_on;
use pipecheck::linearizability::{SequenceConfig, check_sequences};

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
fn operation_sequences_match_the_model() {
    let passed = check_sequences(&OneshotModel, &SequenceConfig::default()).unwrap();
    eprintln!("{passed:?}");
    assert!(passed.skipped > 0, "no recv was skipped while the sender was unused");
}

#[test]
fn send_ignores_closed_receiver_fails_the_sequences_with_a_minimal_one() {
    let mismatch = SendIgnoresClosedReceiver
        .activate(|| check_sequences(&OneshotModel, &SequenceConfig::default()))
        .unwrap_err();
    eprintln!("{mismatch}");
    assert_eq!(mismatch.sequence, vec![OneshotOp::DropReceiver, OneshotOp::Send(1)]);
    assert_eq!(mismatch.observed, OneshotOutput::Sent);
    assert_eq!(mismatch.expected, Some(OneshotOutput::Refused(1)));
}
