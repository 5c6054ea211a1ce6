//! The ring verified: `ring-fifo`, three planted bugs, a sequential model with producer and consumer roles.
use pipecheck::prelude::*;

use crate::{Consumer, PopError, Producer, PushError, ring};

/// `ring-fifo`: pops return pushed values in order; Closed only once all were popped.
pub const FIFO: InvariantId = InvariantId::new("ring-fifo");
pipecheck::planted_faults! {
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

pipecheck::operations! {
    /// A ring operation: `push(value)` and `close()` on the producer, `pop()` on the consumer.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Op -> Out {
        Push(u64) -> Result<(), PushError<u64>>,
        Pop -> Result<u64, PopError>,
        Close -> (),
    }
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
    fn run(&self, (q, closed): &mut Self::State, op: &Op) -> Out {
        match *op {
            Op::Push(v) if *closed => Out::Push(Err(PushError::Closed(v))),
            Op::Push(v) if q.len() == self.0 => Out::Push(Err(PushError::Full(v))),
            Op::Push(v) => {
                q.push(v);
                Out::Push(Ok(()))
            }
            Op::Pop if !q.is_empty() => Out::Pop(Ok(q.remove(0))),
            Op::Pop if *closed => Out::Pop(Err(PopError::Closed)),
            Op::Pop => Out::Pop(Err(PopError::Empty)),
            Op::Close => {
                *closed = true;
                Out::Close(())
            }
        }
    }
}
impl OpsSpec for RingModel {
    type Handle = Ends<Producer<u64>, Consumer<u64>>;
    fn handles(&self, _threads: usize) -> Vec<Self::Handle> {
        Ends::pair(ring(self.0))
    }
    fn apply(&self, end: &mut Self::Handle, op: &Op) -> Out {
        match (end, *op) {
            (Ends::First(tx), Op::Push(v)) => Out::Push(tx.push(v)),
            (Ends::First(tx), _) => {
                tx.close();
                Out::Close(())
            }
            (Ends::Second(rx), _) => Out::Pop(rx.pop()),
        }
    }
    fn inputs(&self) -> BoxedStrategy<Op> {
        prop_oneof![(1..9u64).prop_map(Op::Push), Just(Op::Pop), Just(Op::Close)].boxed()
    }
    fn role(&self, op: &Op) -> Option<usize> {
        Some(usize::from(*op == Op::Pop))
    }
}

/// The ring as a pipecheck target.
pub fn target() -> Target {
    let fifo = FifoInvariant::new(FIFO, |event: &(Op, Out)| match *event {
        (Op::Push(v), Out::Push(Ok(()))) => Some(Queued::In(v)),
        (_, Out::Pop(Ok(v))) => Some(Queued::Out(v)),
        (_, Out::Pop(Err(PopError::Closed))) => Some(Queued::End),
        _ => None,
    });
    let scenarios = &[
        EventScenario::small("push-close-races-pops", "2 slots: push 1, 2, close || pop x3", |m| {
            run_monitored(&RingModel(2), &[vec![Op::Push(1), Op::Push(2), Op::Close], vec![Op::Pop; 3]], m)
        }),
        EventScenario::small("wrap-around", "1 slot: push 1, 2 || pop x2", |m| {
            run_monitored(&RingModel(1), &[vec![Op::Push(1), Op::Push(2)], vec![Op::Pop; 2]], m)
        }),
    ];
    let generated = GeneratedScenarios::new().small(vec![vec![Op::Push(1), Op::Close], vec![Op::Pop; 2]]);
    // Store buffering (C11 allows it): `Push(3)` may see a stale head (Full), a pop a stale tail (Empty).
    let sb = vec![vec![Op::Push(1), Op::Push(2), Op::Push(3)], vec![Op::Pop; 2]];
    // Bound 3: a slot reused before it is read (HeadBeforeRead) takes three preemptions.
    Target::new("spsc-ring", "a lock-free bounded SPSC ring")
        .with_loom_bound(3)
        .faults(ALL)
        .checked(fifo, scenarios)
        .linearizable(RingModel(2), generated.non_linearizable_under_c11(sb))
}
