//! The queue verified: its specification (a sequential model whose "empty" and "full"
//! answers may also come while a justifying operation is in flight), `queue-conserved`
//! and `producer-order` over event scenarios, and four planted bugs (three that lose or
//! race on values, one livelock).
use pipecheck::prelude::*;
use pipecheck::thread;

use crate::Queue;

/// `queue-conserved`: once the queue is drained, each pushed value was popped exactly once.
pub const CONSERVED: InvariantId = InvariantId::new("queue-conserved");
/// `producer-order`: each consumer takes each producer's values in the order pushed.
pub const PRODUCER_ORDER: InvariantId = InvariantId::new("producer-order");

pipecheck::planted_faults! {
    /// Weak memory: a push publishes its cell's sequence Relaxed, so a pop may read the
    /// value without a happens-before edge.
    RelaxedPublish breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["pushes-race-pop"]);
    /// A pop trusts the positions instead of the cell's sequence: it takes a claimed cell
    /// before its push published the value (a data race to loom; a lost value to shuttle).
    TrustPositions breaks CONSERVED, also_breaks(InvariantId::NO_DATA_RACE), caught_in(&["pushes-race-pop", "producers-race-consumers"]);
    /// A push advances the enqueue position with a store, not a compare-and-swap: two
    /// pushes claim one cell (a data race to loom; a lost value to shuttle).
    PositionWithoutCas breaks CONSERVED, also_breaks(InvariantId::NO_DATA_RACE), caught_in(&["pushes-race-pop"]);
    /// A pop that finds its position taken by another pop retries at the same position
    /// instead of loading the current one: it spins forever (a livelock).
    StalePosition breaks InvariantId::PROGRESS, caught_in(&["pops-race"]);
}

pipecheck::operations! {
    /// A queue operation, on any thread.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Op -> Out {
        Push(u64) -> Result<(), u64>,
        Pop -> Option<u64>,
    }
}

/// A pop answered empty while the push of the value at the head was in flight (claimed
/// its cell, not yet published).
pub const EMPTY_WHILE_PUSH_IN_FLIGHT: &str = "empty-while-push-in-flight";
/// A push answered full while a pop that took a value was in flight (not yet freed its cell).
pub const FULL_WHILE_POP_IN_FLIGHT: &str = "full-while-pop-in-flight";

/// The queue as a sequential object with room for `capacity` values, with the two
/// answers it may give while an overlapping operation is in flight. Checked strictly
/// (the default) it refuses them, naming them; [`PendingAware`] accepts them.
#[derive(Clone, Copy, Debug)]
pub struct QueueModel(pub usize);

impl DeterministicModel for QueueModel {
    type State = Vec<u64>;
    type Input = Op;
    type Output = Out;

    fn initial(&self) -> Vec<u64> {
        Vec::new()
    }

    fn run(&self, queue: &mut Vec<u64>, op: &Op) -> Out {
        match *op {
            Op::Push(v) if queue.len() == self.0 => Out::Push(Err(v)),
            Op::Push(v) => {
                queue.push(v);
                Out::Push(Ok(()))
            }
            Op::Pop if queue.is_empty() => Out::Pop(None),
            Op::Pop => Out::Pop(Some(queue.remove(0))),
        }
    }

    /// Empty while the head's push is in flight; full while a pop that took a value is.
    /// Neither changes the state.
    fn step_while_overlapped(
        &self,
        queue: &Vec<u64>,
        op: &Op,
        out: &Out,
        overlapping: &[&Op],
    ) -> Option<Relaxed<Vec<u64>>> {
        let answer = match (op, out) {
            (Op::Pop, Out::Pop(None)) => {
                let head = *queue.first()?;
                overlapping.contains(&&Op::Push(head)).then_some(EMPTY_WHILE_PUSH_IN_FLIGHT)?
            }
            (Op::Push(v), Out::Push(Err(back))) if v == back => {
                overlapping.contains(&&Op::Pop).then_some(FULL_WHILE_POP_IN_FLIGHT)?
            }
            _ => return None,
        };
        Some(Relaxed { answer, state: queue.clone() })
    }
}

impl OpsSpec for QueueModel {
    type Handle = std::sync::Arc<Queue<u64>>;

    fn handles(&self, threads: usize) -> Vec<std::sync::Arc<Queue<u64>>> {
        shared(Queue::new(self.0), threads)
    }

    fn apply(&self, queue: &mut std::sync::Arc<Queue<u64>>, op: &Op) -> Out {
        apply(queue, *op)
    }

    fn inputs(&self) -> BoxedStrategy<Op> {
        prop_oneof![(1..9u64).prop_map(Op::Push), Just(Op::Pop)].boxed()
    }
}

fn apply(queue: &Queue<u64>, op: Op) -> Out {
    match op {
        Op::Push(v) => Out::Push(queue.push(v)),
        Op::Pop => Out::Pop(queue.pop()),
    }
}

/// An event: the thread (producer or consumer number), the operation and its output.
pub type Event = (usize, Op, Out);

/// Runs `threads` (one list of operations each, thread `i` recording as `i`) on a queue
/// of `capacity`, then drains it on the main thread (as thread `threads.len()`).
fn run(m: &EventMonitor<Event>, capacity: usize, threads: &'static [&'static [Op]]) {
    let queue = Arc::new(Queue::new(capacity));
    let handles: Vec<_> = threads
        .iter()
        .enumerate()
        .map(|(index, ops)| {
            let (queue, m) = (queue.clone(), m.clone());
            thread::spawn(move || ops.iter().for_each(|&op| m.record((index, op, apply(&queue, op)))))
        })
        .collect();
    handles.into_iter().for_each(|t| t.join().unwrap());
    while let out @ Out::Pop(Some(_)) = apply(&queue, Op::Pop) {
        m.record((threads.len(), Op::Pop, out));
    }
}

/// Two producers of three values, two consumers of three pops.
const MANY: &[&[Op]] = &[
    &[Op::Push(1), Op::Push(2), Op::Push(3)],
    &[Op::Push(11), Op::Push(12), Op::Push(13)],
    &[Op::Pop; 3],
    &[Op::Pop; 3],
];

/// The queue as a pipecheck target.
pub fn target() -> Target {
    let statement = "once the queue is drained, each pushed value was popped exactly once";
    let conserved =
        FnInvariant::new(CONSERVED, statement, (Vec::new(), Vec::new()), |(pushed, popped), e: &Event| {
            match *e {
                (_, Op::Push(v), Out::Push(Ok(()))) => pushed.push(v),
                (_, _, Out::Pop(Some(v))) => popped.push(v),
                _ => {}
            }
            Ok(())
        });
    let conserved = conserved.with_finish(|(pushed, popped)| {
        let (mut pushed, mut popped) = (pushed.clone(), popped.clone());
        pushed.sort_unstable();
        popped.sort_unstable();
        (pushed == popped).then_some(()).ok_or(format!("pushed {pushed:?}, popped {popped:?}"))
    });
    let order = ProducerOrder::new(PRODUCER_ORDER, |e: &Event| match *e {
        (producer, Op::Push(value), Out::Push(Ok(()))) => Some(Routed::In { producer, value }),
        (consumer, _, Out::Pop(Some(value))) => Some(Routed::Out { consumer, value }),
        _ => None,
    });
    let scenarios = [
        EventScenario::small("pushes-race-pop", "2 cells: push 1 || push 2, pop; then drained", |m| {
            run(m, 2, &[&[Op::Push(1)], &[Op::Push(2), Op::Pop]]);
        }),
        EventScenario::small("pops-race", "2 cells: push 1, 2; then pop || pop; then drained", |m| {
            run(m, 2, &[&[Op::Push(1), Op::Push(2), Op::Pop], &[Op::Pop]]);
        }),
        EventScenario::large(
            "producers-race-consumers",
            "2 cells: push 1, 2, 3 || push 11, 12, 13 || pop x3 || pop x3; then drained",
            |m| run(m, 2, MANY),
        ),
    ];
    // Two pushes, then a pop each: a pop may meet the other thread's claimed cell.
    let generated =
        GeneratedScenarios::new().small(vec![vec![Op::Push(1), Op::Pop], vec![Op::Push(2), Op::Pop]]);
    Target::new("mpmc-queue", "Vyukov's bounded lock-free MPMC queue")
        .with_loom_bound(3)
        .faults(ALL)
        .checked((conserved, order), &scenarios)
        .linearizable(PendingAware(QueueModel(2)), generated)
}
