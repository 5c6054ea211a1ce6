//! The ring verified: `ring-fifo` over its operations, three planted bugs, a sequential
//! model whose generated scenarios pin pushes and closes to one thread and pops to another.
use std::sync::{Arc, Mutex};

use pipecheck_core::{InvariantId, primitive::thread};
use pipecheck_models::{EventScenario, GeneratedScenarios, SMALL_SCENARIO, Target};
use pipecheck_properties::{EventMonitor, FnInvariant, linearizability::*};
use proptest::prelude::*;

use crate::{Consumer, PopError, Producer, PushError, ring};

/// `ring-fifo`: each pop returns the oldest value pushed and not popped; Closed only after all were.
pub const FIFO: InvariantId = InvariantId::new("ring-fifo");
pipecheck_core::planted_faults! {
    /// Weak memory: `close` stores `closed` Relaxed, so a consumer seeing it may miss the last push
    /// (a lost value: `linearizable` breaks too).
    CloseRelaxed breaks FIFO, also_breaks(InvariantId::LINEARIZABLE), weak_memory, caught_in(LOST);
    /// `pop` advances `head` before reading the slot, which the producer may then overwrite:
    /// a data race to loom, a value overwritten before it is read to shuttle.
    HeadBeforeRead breaks InvariantId::NO_DATA_RACE, also_breaks(FIFO), caught_in(&["wrap-around"]);
    /// `pop` returns Closed on seeing `closed`, without loading `tail` again: a value is lost.
    ClosedWithoutRecheck breaks FIFO, also_breaks(InvariantId::LINEARIZABLE), caught_in(LOST);
}
/// Where a lost value shows: as `ring-fifo`, and as a history no order explains.
const LOST: &[&str] = &["push-close-races-pops", SMALL_SCENARIO];

/// A ring operation (the model's input; with its [`Out`], the scenarios' event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `push(value)` (producer).
    Push(u64),
    /// `pop()` (consumer).
    Pop,
    /// `close()` (producer).
    Close,
}
/// What an operation returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    /// What `push` returned.
    Push(Result<(), PushError<u64>>),
    /// What `pop` returned.
    Pop(Result<u64, PopError>),
    /// `close` returned.
    Closed,
}
fn produce(tx: &mut Producer<u64>, op: Op) -> Out {
    if let Op::Push(v) = op { Out::Push(tx.push(v)) } else { (tx.close(), Out::Closed).1 }
}

/// The ring as a sequential object of `capacity` slots; state: its values, and closed.
#[derive(Clone, Copy, Debug)]
pub struct RingModel(pub usize);
impl DeterministicModel for RingModel {
    type State = (Vec<u64>, bool);
    type Input = Op;
    type Output = Out;
    fn initial(&self) -> Self::State {
        (Vec::new(), false)
    }
    fn run(&self, (q, closed): &Self::State, op: &Op) -> (Out, Self::State) {
        let (mut q, closed) = (q.clone(), *closed);
        let out = match *op {
            Op::Push(v) if closed => Out::Push(Err(PushError::Closed(v))),
            Op::Push(v) if q.len() == self.0 => Out::Push(Err(PushError::Full(v))),
            Op::Push(v) => (q.push(v), Out::Push(Ok(()))).1,
            Op::Pop if !q.is_empty() => Out::Pop(Ok(q.remove(0))),
            Op::Pop => Out::Pop(Err([PopError::Empty, PopError::Closed][usize::from(closed)])),
            Op::Close => return (Out::Closed, (q, true)),
        };
        (out, (q, closed))
    }
}
impl OpsSpec for RingModel {
    /// Each end behind a std lock only its role's thread takes: no edge between the two.
    type Real = (Mutex<Producer<u64>>, Mutex<Consumer<u64>>);
    fn build(&self) -> Self::Real {
        let (tx, rx) = ring(self.0);
        (Mutex::new(tx), Mutex::new(rx))
    }
    fn apply(&self, (tx, rx): &Self::Real, op: &Op) -> Out {
        if *op == Op::Pop {
            Out::Pop(rx.lock().unwrap().pop())
        } else {
            produce(&mut tx.lock().unwrap(), *op)
        }
    }
    fn inputs(&self) -> BoxedStrategy<Op> {
        prop_oneof![(1..9u64).prop_map(Op::Push), Just(Op::Pop), Just(Op::Close)].boxed()
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
    let consumer = thread::spawn(move || {
        (0..pops).for_each(|_| mc.record_by("consumer", (Op::Pop, Out::Pop(rx.pop()))))
    });
    producer.join().unwrap();
    consumer.join().unwrap();
}

/// The ring as a pipecheck target.
pub fn target() -> Target {
    let fifo = || {
        let statement = "pops return pushed values in order; Closed only once all were popped";
        let state = (Vec::new(), Vec::new());
        let invariant = FnInvariant::new(FIFO, statement, state, |(pushed, popped), event: &(Op, Out)| {
            match *event {
                (Op::Push(v), Out::Push(Ok(()))) => pushed.push(v),
                (_, Out::Pop(Ok(v))) => popped.push(v),
                (_, Out::Pop(Err(PopError::Closed))) if popped.len() < pushed.len() => {
                    Err(format!("Closed, {:?} lost", &pushed[popped.len()..]))?
                }
                _ => {}
            }
            let bad = pushed.iter().zip(&*popped).position(|(a, b)| a != b);
            bad.map_or(Ok(()), |i| {
                Err(format!("pop #{i} returned {}, pushed #{i} was {}", popped[i], pushed[i]))
            })
        });
        vec![invariant.boxed()]
    };
    let scenarios = &[
        EventScenario::small("push-close-races-pops", "2 slots: push 1, 2, close || pop x3", |m| {
            race(m, 2, &[Op::Push(1), Op::Push(2), Op::Close], 3)
        }),
        EventScenario::small("wrap-around", "1 slot: push 1, 2 || pop x2", |m| {
            race(m, 1, &[Op::Push(1), Op::Push(2)], 2)
        }),
    ];
    let generated =
        GeneratedScenarios::new().small(vec![vec![Op::Push(1), Op::Close], vec![Op::Pop, Op::Pop]]);
    Target::new("spsc-ring", "a lock-free bounded SPSC ring")
        .faults(ALL)
        .checked(fifo, scenarios)
        .linearizable(RingModel(2), generated)
}
