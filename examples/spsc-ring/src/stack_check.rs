//! The stack verified: `stack-conserved` over its operations, three planted bugs, and a
//! sequential model whose generated scenarios run pushes and pops on any thread.
use std::sync::Arc;

use pipecheck_core::{InvariantId, PlantedFault, primitive::thread};
use pipecheck_models::{EventScenario, GeneratedScenarios, LARGE_SCENARIO, SMALL_SCENARIO, Scale, Target};
use pipecheck_properties::{EventMonitor, Invariant, linearizability::*};
use proptest::prelude::*;

use crate::ring_check::{Op, Out};
use crate::stack::Stack;

/// `stack-conserved`: once the stack is drained, each pushed value was popped exactly once.
pub const CONSERVED: InvariantId = InvariantId::new("stack-conserved");
/// Weak memory: a push swaps its node in with Relaxed, so a pop may read the value unwritten.
pub static PUSH_RELAXED: PlantedFault =
    PlantedFault::new("PushRelaxed", InvariantId::NO_DATA_RACE, "push publishes its node Relaxed")
        .weak_memory()
        .caught_in(&["pushes-race-pop"]);
/// A push whose swap failed retries without linking its node to the new top: that top is lost.
pub static RETRY_WITHOUT_RELINK: PlantedFault =
    PlantedFault::new("RetryWithoutRelink", CONSERVED, "a push's retry keeps its node's stale link")
        .caught_in(&["pushes-race-pop"]);
/// A pop whose swap failed returns the value of the top it saw, which another pop took.
pub static STALE_POP: PlantedFault = PlantedFault::new(
    "StalePop",
    InvariantId::LINEARIZABLE,
    "a pop that lost the race returns the stale top",
)
.caught_in(&[SMALL_SCENARIO, LARGE_SCENARIO]);

#[derive(Default)]
struct Conserved(Vec<u64>, Vec<u64>);
impl Invariant<(Op, Out)> for Conserved {
    fn id(&self) -> InvariantId {
        CONSERVED
    }
    fn statement(&self) -> &'static str {
        "once the stack is drained, each pushed value was popped exactly once"
    }
    fn observe(&mut self, event: &(Op, Out)) -> Result<(), String> {
        match *event {
            (Op::Push(v), Out::Pushed) => self.0.push(v),
            (_, Out::Popped(v)) => self.1.push(v),
            _ => {}
        }
        Ok(())
    }
    fn finish(&mut self) -> Result<(), String> {
        let (mut pushed, mut popped) = (self.0.clone(), self.1.clone());
        pushed.sort();
        popped.sort();
        (pushed == popped).then_some(()).ok_or(format!("pushed {:?}, popped {:?}", self.0, self.1))
    }
}

/// The stack as a sequential object with room for `capacity` values. A popped node is
/// free again only after its value is read, so a push may find no node (`Full`) while a
/// pop is in flight: the target's generated scenarios use 12 nodes, which none fills.
#[derive(Clone, Copy, Debug)]
pub struct StackModel(pub usize);
impl StackModel {
    fn run(&self, stack: &[u64], op: &Op) -> (Out, Vec<u64>) {
        let mut stack = stack.to_vec();
        let out = match *op {
            Op::Push(_) if stack.len() == self.0 => Out::Full,
            Op::Push(v) => (stack.push(v), Out::Pushed).1,
            _ => stack.pop().map_or(Out::Empty, Out::Popped),
        };
        (out, stack)
    }
}
impl SequentialModel for StackModel {
    type State = Vec<u64>;
    type Input = Op;
    type Output = Out;
    fn init(&self) -> Vec<u64> {
        Vec::new()
    }
    fn step(&self, stack: &Vec<u64>, op: &Op, out: &Out) -> Option<Vec<u64>> {
        let (expected, next) = self.run(stack, op);
        (expected == *out).then_some(next)
    }
}
impl OpsSpec for StackModel {
    type Real = Stack<u64>;
    fn build(&self) -> Stack<u64> {
        Stack::new(self.0)
    }
    fn apply(&self, stack: &Stack<u64>, op: &Op) -> Out {
        apply(stack, *op)
    }
    fn inputs(&self) -> BoxedStrategy<Op> {
        prop_oneof![(1..9u64).prop_map(Op::Push), Just(Op::Pop)].boxed()
    }
    fn expected(&self, stack: &Vec<u64>, op: &Op) -> Option<Out> {
        Some(self.run(stack, op).0)
    }
}
fn apply(stack: &Stack<u64>, op: Op) -> Out {
    match op {
        Op::Push(v) => stack.push(v).map_or(Out::Full, |()| Out::Pushed),
        _ => stack.pop().map_or(Out::Empty, Out::Popped),
    }
}

/// `push 1 || push 2, pop`, then the stack drained.
fn pushes_race_pop(m: &Arc<EventMonitor<(Op, Out)>>) {
    let stack = Arc::new(Stack::new(2));
    let run = |name: &'static str, ops: &'static [Op]| {
        let (stack, m) = (stack.clone(), m.clone());
        thread::spawn(move || ops.iter().for_each(|&op| m.record_by(name, (op, apply(&stack, op)))))
    };
    let threads = [run("a", &[Op::Push(1)]), run("b", &[Op::Push(2), Op::Pop])];
    threads.into_iter().for_each(|t| t.join().unwrap());
    while let out @ Out::Popped(_) = apply(&stack, Op::Pop) {
        m.record_by("drain", (Op::Pop, out));
    }
}
const SCENARIOS: &[EventScenario<(Op, Out)>] = &[EventScenario {
    name: "pushes-race-pop",
    summary: "push 1 || push 2, pop; then drained",
    scale: Scale::Small,
    body: pushes_race_pop,
}];

/// The stack as a pipecheck target.
pub fn target() -> Target {
    Target::new("treiber-stack", "a lock-free Treiber stack over a fixed arena, its head tagged")
        .faults(&[&PUSH_RELAXED, &RETRY_WITHOUT_RELINK, &STALE_POP])
        .checked(|| vec![Box::new(Conserved::default())], SCENARIOS)
        .linearizable(
            StackModel(12),
            GeneratedScenarios::new().small(vec![vec![Op::Push(1), Op::Pop], vec![Op::Pop]]),
        )
}
