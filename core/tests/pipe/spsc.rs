//! The SPSC queue under a watched producer thread: a consumer that spins on `pop`
//! fails within the watchdog's deadline, naming the item it waited for, instead of
//! spinning forever when a push is lost (the queue's own unit test spins unbounded).

use std::time::Instant;

use crate::common::watchdog::{DEADLINE, Watch, phase, phase_at};
use pipecheck_pipe::spsc;

const ITEMS: u64 = 100_000;

/// Pops `ITEMS` items in order from a producer thread, through a queue whose first chunk
/// has `first_chunk` slots (so it grows through several chunk sizes).
fn transfer_in_order(first_chunk: usize) {
    let (mut tx, mut rx) = spsc::channel(first_chunk);
    let watch = Watch::new();
    let producer = watch.spawn("producer", move || {
        for i in 0..ITEMS {
            phase_at("push()", i);
            tx.push(i);
        }
    });
    let mut expected = 0;
    let mut waiting = Instant::now();
    phase("pop()");
    while expected < ITEMS {
        match rx.pop() {
            Some(v) => {
                assert_eq!(v, expected, "items out of order");
                expected += 1;
                waiting = Instant::now();
            }
            None => {
                watch.check();
                // The deadline only decides failure, as the watchdog's.
                assert!(
                    waiting.elapsed() < DEADLINE,
                    "watchdog: consumer blocked in pop(): item {expected} never arrived in {DEADLINE:?}"
                );
                std::hint::spin_loop();
            }
        }
    }
    assert_eq!(rx.pop(), None, "more items than were pushed");
    watch.join(producer);
}

#[test]
fn a_spinning_consumer_gets_every_item_in_order_from_a_producer_thread() {
    transfer_in_order(4);
}

#[test]
fn a_one_slot_first_chunk_grows_and_keeps_order_across_threads() {
    transfer_in_order(1);
}

/// Counts its drops in a static; holds no pointer, so a drop of a slot that was never
/// written only miscounts instead of crashing.
struct Tally;

static TALLY_DROPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Drop for Tally {
    fn drop(&mut self) {
        TALLY_DROPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn dropping_the_queue_drops_exactly_the_items_left_in_it() {
    // Ten items over chunks of 1, 2, 4 and 8 slots: the last chunk is partly empty.
    let (mut tx, mut rx) = spsc::channel(1);
    for _ in 0..10 {
        tx.push(Tally);
    }
    drop(rx.pop());
    assert_eq!(TALLY_DROPS.load(std::sync::atomic::Ordering::SeqCst), 1, "the popped item");
    drop((tx, rx));
    assert_eq!(
        TALLY_DROPS.load(std::sync::atomic::Ordering::SeqCst),
        10,
        "the nine items left were dropped once each, and no empty slot was dropped"
    );
}
