//! The stack verified: `stack-conserved` over its operations, three planted bugs, and a
//! sequential model whose generated scenarios run pushes and pops on any thread.
use std::sync::Arc;

use pipecheck::prelude::*;
use pipecheck::thread;

use crate::ring_check::{Op, Out};
use crate::stack::Stack;
use crate::{PopError, PushError};

/// `stack-conserved`: once the stack is drained, each pushed value was popped exactly once.
pub const CONSERVED: InvariantId = InvariantId::new("stack-conserved");
pipecheck::planted_faults! {
    /// Weak memory: a push swaps its node in with Relaxed, so a pop may read the value unwritten.
    PushRelaxed breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["pushes-race-pop"]);
    /// A push whose swap failed retries without linking its node to the new top: that top is lost.
    RetryWithoutRelink breaks CONSERVED, caught_in(&["pushes-race-pop"]);
    /// A pop whose swap failed returns the value of the top it saw, which another pop took.
    StalePop breaks InvariantId::LINEARIZABLE, caught_in(&[SMALL_SCENARIO, LARGE_SCENARIO]);
}

/// The stack as a sequential object with room for `capacity` values. A popped node is
/// free again only after its value is read, so a push may find no node (`Full`) while a
/// pop is in flight: the target's generated scenarios use 12 nodes, which none fills.
#[derive(Clone, Copy, Debug)]
pub struct StackModel(pub usize);
impl DeterministicModel for StackModel {
    type State = Vec<u64>;
    type Input = Op;
    type Output = Out;
    fn initial(&self) -> Vec<u64> {
        Vec::new()
    }
    fn run(&self, stack: &mut Vec<u64>, op: &Op) -> Out {
        match *op {
            Op::Push(v) if stack.len() == self.0 => Out::Push(Err(PushError::Full(v))),
            Op::Push(v) => {
                stack.push(v);
                Out::Push(Ok(()))
            }
            _ => Out::Pop(stack.pop().ok_or(PopError::Empty)),
        }
    }
}
impl OpsSpec for StackModel {
    type Handle = Arc<Stack<u64>>;
    fn handles(&self, threads: usize) -> Vec<Arc<Stack<u64>>> {
        shared(Stack::new(self.0), threads)
    }
    fn apply(&self, stack: &mut Arc<Stack<u64>>, op: &Op) -> Out {
        apply(stack, *op)
    }
    fn inputs(&self) -> BoxedStrategy<Op> {
        prop_oneof![(1..9u64).prop_map(Op::Push), Just(Op::Pop)].boxed()
    }
}
fn apply(stack: &Stack<u64>, op: Op) -> Out {
    match op {
        Op::Push(v) => Out::Push(stack.push(v).map_err(PushError::Full)),
        _ => Out::Pop(stack.pop().ok_or(PopError::Empty)),
    }
}

/// `push 1 || push 2, pop`, then the stack drained.
fn pushes_race_pop(m: &EventMonitor<(Op, Out)>) {
    let stack = Arc::new(Stack::new(2));
    let run = |name: &'static str, ops: &'static [Op]| {
        let (stack, m) = (stack.clone(), m.clone());
        thread::spawn(move || ops.iter().for_each(|&op| m.record_by(name, (op, apply(&stack, op)))))
    };
    let threads = [run("a", &[Op::Push(1)]), run("b", &[Op::Push(2), Op::Pop])];
    threads.into_iter().for_each(|t| t.join().unwrap());
    while let out @ Out::Pop(Ok(_)) = apply(&stack, Op::Pop) {
        m.record_by("drain", (Op::Pop, out));
    }
}

/// The stack as a pipecheck target.
pub fn target() -> Target {
    let statement = "once the stack is drained, each pushed value was popped exactly once";
    let state = (Vec::new(), Vec::new());
    let conserved = FnInvariant::new(CONSERVED, statement, state, |(pushed, popped), event: &(Op, Out)| {
        match *event {
            (Op::Push(v), Out::Push(Ok(()))) => pushed.push(v),
            (_, Out::Pop(Ok(v))) => popped.push(v),
            _ => {}
        }
        Ok(())
    });
    let conserved = conserved.with_finish(|(pushed, popped)| {
        let sorted = |values: &Vec<u64>| {
            let mut values = values.clone();
            values.sort();
            values
        };
        let conserved = sorted(pushed) == sorted(popped);
        conserved.then_some(()).ok_or(format!("pushed {pushed:?}, popped {popped:?}"))
    });
    let scenarios =
        &[EventScenario::small("pushes-race-pop", "push 1 || push 2, pop; then drained", pushes_race_pop)];
    let generated = GeneratedScenarios::new().small(vec![vec![Op::Push(1), Op::Pop], vec![Op::Pop]]);
    Target::new("treiber-stack", "a lock-free Treiber stack over a fixed arena, its head tagged")
        .with_loom_bound(3)
        .faults(ALL)
        .checked(conserved, scenarios)
        .linearizable(StackModel(12), generated)
}
