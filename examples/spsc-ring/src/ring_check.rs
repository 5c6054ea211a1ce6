//! The ring verified: `ring-fifo` over its operations, three planted bugs, a sequential
//! model whose generated scenarios pin pushes and closes to one thread and pops to another.
use std::sync::{Arc, Mutex};

use pipecheck_core::{InvariantId, PlantedFault, primitive::thread};
use pipecheck_models::{EventScenario, GeneratedScenarios, Scale, Target};
use pipecheck_properties::{EventMonitor, Invariant, linearizability::*};
use proptest::prelude::*;

use crate::{Consumer, PopError, Producer, PushError, ring};

/// `ring-fifo`: each pop returns the oldest value pushed and not popped; Closed only after all were.
pub const FIFO: InvariantId = InvariantId::new("ring-fifo");
/// Weak memory: `close` stores `closed` Relaxed, so a consumer seeing it may miss the last push.
pub static CLOSE_RELAXED: PlantedFault = PlantedFault::new("CloseRelaxed", FIFO, "close publishes Relaxed")
    .weak_memory()
    .caught_in(&["push-close-races-pops"]);
/// `pop` advances `head` before reading the slot, which the producer may then overwrite.
/// A data race to loom, a value overwritten before it is read to shuttle.
pub static HEAD_BEFORE_READ: PlantedFault =
    PlantedFault::new("HeadBeforeRead", InvariantId::NO_DATA_RACE, "pop frees the slot before reading it")
        .also_breaks(FIFO)
        .caught_in(&["wrap-around"]);
/// `pop` returns Closed on seeing `closed`, without loading `tail` again: a value is lost.
pub static CLOSED_WITHOUT_RECHECK: PlantedFault =
    PlantedFault::new("ClosedWithoutRecheck", FIFO, "pop returns Closed without re-checking tail")
        .caught_in(&["push-close-races-pops"]);

/// A ring operation (the model's input; with its [`Out`], the scenarios' event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `push(value)` (producer).
    Push(u64),
    /// `pop()` (consumer).
    Pop,
    /// `close()` (producer).
    Close,
}
/// What an operation returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Out {
    /// `push` returned `Ok`.
    Pushed,
    /// `push` returned `Full`.
    Full,
    /// `push` returned `Closed`.
    Refused,
    /// `pop` returned this value.
    Popped(u64),
    /// `pop` returned `Empty`.
    Empty,
    /// `pop` returned `Closed`.
    Closed,
    /// `close` returned.
    Done,
}

fn produce(tx: &mut Producer<u64>, op: Op) -> Out {
    match (op, if let Op::Push(v) = op { Some(tx.push(v)) } else { None }) {
        (_, Some(Ok(()))) => Out::Pushed,
        (_, Some(Err(PushError::Full(_)))) => Out::Full,
        (_, Some(Err(PushError::Closed(_)))) => Out::Refused,
        _ => (tx.close(), Out::Done).1,
    }
}
fn consume(rx: &mut Consumer<u64>) -> Out {
    rx.pop().map_or_else(|e| if e == PopError::Empty { Out::Empty } else { Out::Closed }, Out::Popped)
}

#[derive(Default)]
struct Fifo(Vec<u64>, Vec<u64>);
impl Invariant<(Op, Out)> for Fifo {
    fn id(&self) -> InvariantId {
        FIFO
    }
    fn statement(&self) -> &'static str {
        "pops return pushed values in order; Closed only once all were popped"
    }
    fn observe(&mut self, event: &(Op, Out)) -> Result<(), String> {
        match *event {
            (Op::Push(v), Out::Pushed) => self.0.push(v),
            (_, Out::Popped(v)) => self.1.push(v),
            (_, Out::Closed) if self.1.len() < self.0.len() => {
                Err(format!("Closed, {:?} lost", &self.0[self.1.len()..]))?
            }
            _ => {}
        }
        let bad = self.0.iter().zip(&self.1).position(|(a, b)| a != b);
        bad.map_or(Ok(()), |i| Err(format!("pop #{i} returned {}, pushed #{i} was {}", self.1[i], self.0[i])))
    }
}

/// The ring as a sequential object of `capacity` slots; state: its values, and closed.
#[derive(Clone, Copy, Debug)]
pub struct RingModel(pub usize);
impl RingModel {
    fn run(&self, (q, closed): &(Vec<u64>, bool), op: &Op) -> (Out, (Vec<u64>, bool)) {
        let (mut q, closed) = (q.clone(), *closed);
        let out = match *op {
            Op::Push(_) if closed => Out::Refused,
            Op::Push(_) if q.len() == self.0 => Out::Full,
            Op::Push(v) => (q.push(v), Out::Pushed).1,
            Op::Pop if !q.is_empty() => Out::Popped(q.remove(0)),
            Op::Pop => [Out::Empty, Out::Closed][usize::from(closed)],
            Op::Close => return (Out::Done, (q, true)),
        };
        (out, (q, closed))
    }
}
impl SequentialModel for RingModel {
    type State = (Vec<u64>, bool);
    type Input = Op;
    type Output = Out;
    fn init(&self) -> Self::State {
        (Vec::new(), false)
    }
    fn step(&self, s: &Self::State, op: &Op, out: &Out) -> Option<Self::State> {
        let (expected, next) = self.run(s, op);
        (expected == *out).then_some(next)
    }
}
/// Each end behind a std lock only its role's thread takes: no edge between the two.
type Ends = (Mutex<Producer<u64>>, Mutex<Consumer<u64>>);
impl OpsSpec for RingModel {
    type Real = Ends;
    fn build(&self) -> Ends {
        let (tx, rx) = ring(self.0);
        (Mutex::new(tx), Mutex::new(rx))
    }
    fn apply(&self, (tx, rx): &Ends, op: &Op) -> Out {
        if *op == Op::Pop { consume(&mut rx.lock().unwrap()) } else { produce(&mut tx.lock().unwrap(), *op) }
    }
    fn inputs(&self) -> BoxedStrategy<Op> {
        prop_oneof![(1..9u64).prop_map(Op::Push), Just(Op::Pop), Just(Op::Close)].boxed()
    }
    fn expected(&self, s: &Self::State, op: &Op) -> Option<Out> {
        Some(self.run(s, op).0)
    }
    fn role(&self, op: &Op) -> Option<usize> {
        Some(usize::from(*op == Op::Pop))
    }
}

fn race(m: &Arc<EventMonitor<(Op, Out)>>, capacity: usize, ops: &'static [Op], pops: usize) {
    let ((mut tx, mut rx), mp, mc) = (ring(capacity), m.clone(), m.clone());
    let producer = thread::spawn(move || {
        ops.iter().for_each(|&op| mp.record_by("producer", (op, produce(&mut tx, op))))
    });
    // Both ends on spawned threads: loom's DPOR does not preempt the spawning thread for
    // a thread that has not run yet.
    let consumer =
        thread::spawn(move || (0..pops).for_each(|_| mc.record_by("consumer", (Op::Pop, consume(&mut rx)))));
    producer.join().unwrap();
    consumer.join().unwrap();
}
const SCENARIOS: &[EventScenario<(Op, Out)>] = &[
    EventScenario {
        name: "push-close-races-pops",
        summary: "2 slots: push 1, 2, close || pop x3",
        scale: Scale::Small,
        body: |m| race(m, 2, &[Op::Push(1), Op::Push(2), Op::Close], 3),
    },
    EventScenario {
        name: "wrap-around",
        summary: "1 slot: push 1, 2 || pop x2",
        scale: Scale::Small,
        body: |m| race(m, 1, &[Op::Push(1), Op::Push(2)], 2),
    },
];

/// The ring as a pipecheck target.
pub fn target() -> Target {
    Target::new("spsc-ring", "a lock-free bounded SPSC ring")
        .faults(&[&CLOSE_RELAXED, &HEAD_BEFORE_READ, &CLOSED_WITHOUT_RECHECK])
        .checked(|| vec![Box::new(Fifo::default())], SCENARIOS)
        .linearizable(
            RingModel(2),
            GeneratedScenarios::new().small(vec![vec![Op::Push(1), Op::Close], vec![Op::Pop, Op::Pop]]),
        )
}
