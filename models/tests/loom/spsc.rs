//! Loom: the segment pool's SPSC queue on its own (`pipecheck_pipe::spsc`), driven the
//! way the pipe drives it — the reader returns batches of segments, each only while
//! the queue's count says there is room; the writer takes them — with the first chunk
//! one slot long, so chunk transitions (and the consumer freeing drained chunks) are
//! part of every run.
//!
//! What the design claims, checked here: the count (`len_upper_bound`) is never below
//! the number of items the queue holds, and so the cap is never exceeded. The pool
//! events each step reports go to a [`Monitor`], whose registry checks fifo-pool,
//! no-double-return and bounded-pool, exactly as for the pipe. Loom's race detector
//! checks every slot access (the slots are the facade's tracked `UnsafeCell`s).
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pipecheck::ensure;
use pipecheck::loom_harness::{expect_model_caught, explore};
use pipecheck::thread;
use pipecheck_pipe::spsc;
use pipecheck_pipe::spsc::{Consumer, Producer};
use pipecheck_pipe::{PipeEvent, SegmentId, fault};
use pipecheck_properties::{CheckConfig, Monitor, Observation};

/// Bound 5. A batch of returns is a handful of queue operations (count, push, count,
/// push across a chunk boundary); three preemptions place the consumer's pops at any
/// point inside it, five lets them land between every pair of steps of the FIFO model's
/// three batches (60,249 interleavings, under ten seconds here).
const BOUND: usize = 5;

/// The reader's end of the pool.
struct Returner {
    producer: Producer<SegmentId>,
    monitor: Arc<Monitor>,
    /// Items the consumer has taken out of their slots (std atomic: outside loom's view).
    removed: Arc<AtomicUsize>,
    pushed: usize,
    max: usize,
    /// The planted bug `PoolOverflow`, at queue level: one count for the whole batch.
    hoist_count: bool,
    /// Whether to check the count claim at each cap check.
    check_counts: bool,
}

impl Returner {
    /// Returns `batch` in order while the count is below the maximum; drops the rest.
    fn return_batch(&mut self, batch: &[SegmentId]) {
        let hoisted = self.producer.len_upper_bound();
        for &segment in batch {
            let count = if self.hoist_count { hoisted } else { self.producer.len_upper_bound() };
            if self.check_counts {
                self.check_count(count);
            }
            if count >= self.max {
                self.monitor.record(Observation::Pipe(PipeEvent::SegmentDiscarded { segment }));
                continue;
            }
            // Reported before the push publishes it, as the pipe's pool does.
            self.monitor.record(Observation::Pipe(PipeEvent::SegmentReturned { segment }));
            self.producer.push(segment);
            self.pushed += 1;
        }
    }

    /// The design's claim about the count: never below what the queue holds. Items
    /// count as gone once the consumer has read them out of their slot, which it
    /// reports (in `take`) before publishing the pop, so the claim is checked against
    /// the smallest honest true size.
    fn check_count(&self, count: usize) {
        let held = self.pushed - self.removed.load(Ordering::SeqCst);
        ensure(count >= held, pipecheck_pipe::invariant::BOUNDED_POOL, || {
            format!(
                "the pool's count says {count} but it holds {held} segments, so a cap check against it \
                 can let the pool grow past its maximum"
            )
        });
    }
}

/// The writer's end: one pop attempt, reported before the slot is published as free.
fn take(consumer: &mut Consumer<SegmentId>, monitor: &Monitor, removed: &AtomicUsize) -> Option<SegmentId> {
    consumer.pop_inspect(|&segment| {
        removed.fetch_add(1, Ordering::SeqCst);
        monitor.record(Observation::Pipe(PipeEvent::SegmentTaken { segment }));
    })
}

/// One run: the reader returns `batches` while the writer makes `takes` pop attempts;
/// then the writer takes what is left. Returns the segments taken, in order.
fn run(
    max: usize,
    batches: &'static [&'static [SegmentId]],
    takes: usize,
    hoist_count: bool,
    check_counts: bool,
) -> usize {
    let config = CheckConfig { max_pooled_segments: max, pool_first_chunk: 1, ..CheckConfig::default() };
    let monitor = Monitor::new(config);
    let (producer, mut consumer) = spsc::channel::<SegmentId>(1);
    let removed = Arc::new(AtomicUsize::new(0));
    let mut returner = Returner {
        producer,
        monitor: monitor.clone(),
        removed: removed.clone(),
        pushed: 0,
        max,
        hoist_count,
        check_counts,
    };
    let reader = thread::spawn(move || {
        for batch in batches {
            returner.return_batch(batch);
        }
        returner
    });
    let mut taken = Vec::new();
    for _ in 0..takes {
        taken.extend(take(&mut consumer, &monitor, &removed));
    }
    let returner = reader.join().unwrap();
    while let Some(segment) = take(&mut consumer, &monitor, &removed) {
        taken.push(segment);
    }
    assert_eq!(taken.len(), returner.pushed, "every pushed segment is taken exactly once");
    let pushed = returner.pushed;
    drop(returner);
    drop(consumer);
    monitor.assert_finished();
    pushed
}

/// Five segments in batches of two, one and two, room for all of them, three takes
/// racing: FIFO order across the 1-, 2- and 4-slot chunks (each drained chunk freed by
/// the consumer while the producer may be linking the next), and the count claim at
/// every cap check.
fn fifo_and_count(hoist_count: bool) {
    let _ = run(5, &[&[0, 1], &[2], &[3, 4]], 3, hoist_count, true);
}

/// A batch of three against a pool of at most two, then one more, with two takes
/// racing: the count is read while the consumer pops, and must stop the third push
/// unless a pop has really freed a place.
fn cap_at_two(hoist_count: bool) {
    let _ = run(2, &[&[0, 1, 2], &[3]], 2, hoist_count, false);
}

/// Bound 4 for the growth model: its returns come in three batches against four takes,
/// so it has more steps than the others (56,840 interleavings in about 7 s at bound 4,
/// 7,275 at bound 3); four preemptions put a take between any two steps of a chunk
/// growth (link, write, publish) and the cap check before it, twice in one run.
const GROWTH_BOUND: usize = 4;

/// Six returns in batches of two against a pool of at most two, with four takes racing:
/// the queue's tail grows from the 1-slot first chunk into a 2-slot and then a 4-slot
/// chunk while the consumer drains and frees the chunks behind it, and the cap refuses
/// the returns that would overfill the pool. Checks the chunk-linking rule (an item is
/// never published past a full chunk before its link: the consumer's check, in every
/// profile, raised as `no-data-race`), loom's race detector on every slot and chunk, the count claim at
/// every cap check, and fifo-pool, no-double-return and bounded-pool in the monitor.
fn growth_under_cap(hoist_count: bool) -> usize {
    run(2, &[&[0, 1], &[2, 3], &[4, 5]], 4, hoist_count, true)
}

#[test]
fn consumer_races_chunk_growths_with_the_cap_in_play() {
    // The most pushes one interleaving made (std atomic: outside loom's view). Pushes 2
    // and 4 each grow the chain (1-, 2-, 4-slot chunks), so at least 4 means the model
    // really reached the third chunk, with the cap refusing returns on the way.
    static MOST_PUSHED: AtomicUsize = AtomicUsize::new(0);
    explore("spsc-growth-under-cap", GROWTH_BOUND, || {
        MOST_PUSHED.fetch_max(growth_under_cap(false), Ordering::SeqCst);
    });
    let most = MOST_PUSHED.load(Ordering::SeqCst);
    assert!(most >= 4, "no interleaving grew the queue past its second chunk (at most {most} pushes)");
}

#[test]
fn chunk_growth_under_cap_catches_pool_overflow() {
    expect_model_caught(fault::PoolOverflow.breaks(), GROWTH_BOUND, || {
        growth_under_cap(true);
    });
}

#[test]
fn count_never_below_true_size_and_order_is_fifo_across_chunks() {
    explore("spsc-fifo-and-count", BOUND, || fifo_and_count(false));
}

#[test]
fn count_never_below_true_size_catches_pool_overflow() {
    expect_model_caught(fault::PoolOverflow.breaks(), BOUND, || fifo_and_count(true));
}

#[test]
fn cap_never_exceeded_while_returns_race_takes() {
    explore("spsc-cap-at-two", BOUND, || cap_at_two(false));
}

#[test]
fn cap_never_exceeded_catches_pool_overflow() {
    expect_model_caught(fault::PoolOverflow.breaks(), BOUND, || cap_at_two(true));
}
