//! The linearizability checker on histories whose answer is known: porcupine's classic
//! register examples (from the MIT 6.824 2017 quiz 2, section VII, as porcupine's
//! tests describe them), a FIFO queue, a partitioned key-value store, pending and
//! blocking operations, malformed histories and the budget.

use std::collections::VecDeque;

use pipecheck::linearizability::{
    Budget, Exhausted, History, HistoryError, Linearization, OpId, PendingPolicy, SequentialModel, check,
    check_report, explain,
};

/// A read/write register holding 0 at first.
#[derive(Debug)]
struct Register;

#[derive(Clone, Debug)]
enum Reg {
    Write(u32),
    Read,
}

impl SequentialModel for Register {
    type State = u32;
    type Input = Reg;
    /// What a read returned (writes return 0, unchecked).
    type Output = u32;

    fn init(&self) -> u32 {
        0
    }

    fn step(&self, state: &u32, input: &Reg, output: &u32) -> Option<u32> {
        match input {
            Reg::Write(value) => Some(*value),
            Reg::Read => (output == state).then_some(*state),
        }
    }

    fn step_pending(&self, _: &u32, input: &Reg) -> Vec<u32> {
        // A write may have landed before its caller stopped; a read changes nothing.
        match input {
            Reg::Write(value) => vec![*value],
            Reg::Read => Vec::new(),
        }
    }
}

fn verdict<M: SequentialModel>(model: &M, history: &History<M::Input, M::Output>) -> Linearization {
    check(model, history, Budget::default()).expect("well-formed history")
}

#[test]
fn porcupine_register_example_one_is_linearizable() {
    // write(100) over [0, 100]; a read over [25, 75] sees 100; a read over [30, 60]
    // sees 0: the second read linearizes before the write, the first after it.
    let mut history = History::new();
    history.complete(0, Reg::Write(100), 0, 0, 100);
    history.complete(1, Reg::Read, 100, 25, 75);
    history.complete(2, Reg::Read, 0, 30, 60);
    let Linearization::Linearizable(order) = verdict(&Register, &history) else {
        panic!("expected linearizable")
    };
    assert_eq!(order, vec![OpId(2), OpId(0), OpId(1)]);
}

#[test]
fn porcupine_register_example_two_is_not_linearizable() {
    // write(200) over [0, 100]; a read over [10, 30] sees 200, so the write took effect
    // by 30; a later read over [40, 90] sees the old 0: no order explains both.
    let mut history = History::new();
    history.complete(0, Reg::Write(200), 0, 0, 100);
    history.complete(1, Reg::Read, 200, 10, 30);
    history.complete(2, Reg::Read, 0, 40, 90);
    let Linearization::NonLinearizable(failure) = verdict(&Register, &history) else {
        panic!("expected not linearizable")
    };
    assert_eq!(failure.longest_prefix, vec![OpId(0), OpId(1)]);
    assert_eq!(failure.unplaced, OpId(2));
    let text = explain(&Register, &history, &failure);
    assert!(text.contains("#2 Read -> 0 [40, 90] ✗"), "{text}");
    assert!(
        text.contains("longest linearizable prefix (partition 0): #0 Write(200) -> 0, #1 Read -> 200"),
        "{text}"
    );
}

#[test]
fn sequential_history_with_a_stale_read_is_not_linearizable() {
    let mut history = History::new();
    history.complete(0, Reg::Write(1), 0, 0, 1);
    history.complete(0, Reg::Read, 0, 2, 3);
    assert!(!verdict(&Register, &history).is_linearizable());
}

#[test]
fn empty_history_is_linearizable() {
    assert_eq!(verdict(&Register, &History::new()), Linearization::Linearizable(Vec::new()));
}

#[test]
fn pending_write_may_have_taken_effect() {
    // The writer never returned, but a later read saw its value: the write took effect.
    let mut history = History::new();
    history.pending(0, Reg::Write(5), 0);
    history.complete(1, Reg::Read, 5, 10, 20);
    assert!(verdict(&Register, &history).is_linearizable());
    // Or it did not take effect.
    let mut history = History::new();
    history.pending(0, Reg::Write(5), 0);
    history.complete(1, Reg::Read, 0, 10, 20);
    assert!(verdict(&Register, &history).is_linearizable());
    // A value nobody wrote is still wrong.
    let mut history = History::new();
    history.pending(0, Reg::Write(5), 0);
    history.complete(1, Reg::Read, 6, 10, 20);
    assert!(!verdict(&Register, &history).is_linearizable());
}

#[test]
fn pending_write_cannot_take_effect_before_its_invocation() {
    let mut history = History::new();
    history.complete(1, Reg::Read, 5, 0, 10);
    history.pending(0, Reg::Write(5), 20);
    assert!(!verdict(&Register, &history).is_linearizable());
}

/// A FIFO queue whose `dequeue` blocks while empty (a dual data structure).
#[derive(Debug)]
struct Queue;

#[derive(Clone, Debug)]
enum Q {
    Enqueue(u32),
    Dequeue,
}

impl SequentialModel for Queue {
    type State = VecDeque<u32>;
    type Input = Q;
    /// What a dequeue returned (enqueues return 0).
    type Output = u32;

    fn init(&self) -> VecDeque<u32> {
        VecDeque::new()
    }

    fn step(&self, state: &VecDeque<u32>, input: &Q, output: &u32) -> Option<VecDeque<u32>> {
        let mut next = state.clone();
        match input {
            Q::Enqueue(value) => next.push_back(*value),
            // Blocking: not enabled while empty, so `None` here.
            Q::Dequeue => (next.pop_front()? == *output).then_some(())?,
        }
        Some(next)
    }

    fn step_pending(&self, state: &VecDeque<u32>, input: &Q) -> Vec<VecDeque<u32>> {
        match input {
            Q::Enqueue(value) => {
                let mut next = state.clone();
                next.push_back(*value);
                vec![next]
            }
            // A dequeue that took an element nobody saw.
            Q::Dequeue => {
                state.len().gt(&0).then(|| state.iter().skip(1).copied().collect()).into_iter().collect()
            }
        }
    }
}

#[test]
fn queue_fifo_order_across_threads() {
    let mut history = History::new();
    history.complete(0, Q::Enqueue(1), 0, 0, 10);
    history.complete(0, Q::Enqueue(2), 0, 11, 20);
    history.complete(1, Q::Dequeue, 1, 5, 30);
    history.complete(1, Q::Dequeue, 2, 31, 40);
    assert!(verdict(&Queue, &history).is_linearizable());

    let mut reordered = History::new();
    reordered.complete(0, Q::Enqueue(1), 0, 0, 10);
    reordered.complete(0, Q::Enqueue(2), 0, 11, 20);
    reordered.complete(1, Q::Dequeue, 2, 21, 30);
    reordered.complete(1, Q::Dequeue, 1, 31, 40);
    let Linearization::NonLinearizable(failure) = verdict(&Queue, &reordered) else { panic!("FIFO broken") };
    assert_eq!(failure.unplaced, OpId(2));
}

#[test]
fn blocking_dequeue_completes_only_once_enabled() {
    // The dequeue was invoked on an empty queue and waited: it linearizes after the
    // enqueue that enabled it, even though it was invoked first.
    let mut history = History::new();
    history.complete(1, Q::Dequeue, 7, 0, 30);
    history.complete(0, Q::Enqueue(7), 0, 10, 20);
    assert!(verdict(&Queue, &history).is_linearizable());
    // Returning before anything was enqueued is impossible.
    let mut history = History::new();
    history.complete(1, Q::Dequeue, 7, 0, 5);
    history.complete(0, Q::Enqueue(7), 0, 10, 20);
    assert!(!verdict(&Queue, &history).is_linearizable());
    // Still waiting at the end: allowed (it never took effect).
    let mut history = History::new();
    history.complete(0, Q::Enqueue(7), 0, 0, 5);
    history.complete(0, Q::Dequeue, 7, 6, 8);
    history.pending(1, Q::Dequeue, 1);
    assert!(verdict(&Queue, &history).is_linearizable());
}

/// A key-value store of registers, partitioned per key.
#[derive(Debug)]
struct KeyValue;

#[derive(Clone, Debug)]
enum Kv {
    Put(u64, u32),
    Get(u64),
}

impl SequentialModel for KeyValue {
    type State = std::collections::BTreeMap<u64, u32>;
    type Input = Kv;
    type Output = u32;

    fn init(&self) -> Self::State {
        Self::State::new()
    }

    fn step(&self, state: &Self::State, input: &Kv, output: &u32) -> Option<Self::State> {
        match input {
            Kv::Put(key, value) => {
                let mut next = state.clone();
                next.insert(*key, *value);
                Some(next)
            }
            Kv::Get(key) => (state.get(key).copied().unwrap_or(0) == *output).then(|| state.clone()),
        }
    }

    fn partition(&self, input: &Kv) -> impl std::hash::Hash + Eq + std::fmt::Debug {
        match input {
            Kv::Put(key, _) | Kv::Get(key) => *key,
        }
    }
}

#[test]
fn key_value_partitions_are_checked_separately() {
    let mut history = History::new();
    history.complete(0, Kv::Put(1, 10), 0, 0, 10);
    history.complete(1, Kv::Put(2, 20), 0, 0, 10);
    history.complete(0, Kv::Get(2), 20, 11, 15);
    history.complete(1, Kv::Get(1), 10, 11, 15);
    assert!(verdict(&KeyValue, &history).is_linearizable());

    let mut history = History::new();
    history.complete(0, Kv::Put(1, 10), 0, 0, 10);
    history.complete(1, Kv::Put(2, 20), 0, 0, 10);
    history.complete(0, Kv::Get(2), 20, 11, 15);
    history.complete(1, Kv::Get(1), 0, 11, 15); // key 1 lost its write
    let Linearization::NonLinearizable(failure) = verdict(&KeyValue, &history) else {
        panic!("key 1 is stale")
    };
    assert_eq!((failure.partition, failure.key.as_str()), (0, "1"));
    assert_eq!(failure.longest_prefix, vec![OpId(0)]);
    assert_eq!(failure.unplaced, OpId(3));
}

/// Registers whose operations name no register: each client works on the register
/// of its thread's pair (threads 0 and 1 on one, 2 and 3 on another), which only the
/// whole history shows, so the model partitions the history, not an input.
#[derive(Debug)]
struct RegistersByClient {
    /// The groups to give back instead of the clients' pairs, when set.
    groups: Option<Vec<Vec<OpId>>>,
}

impl SequentialModel for RegistersByClient {
    type State = u32;
    type Input = Reg;
    type Output = u32;

    fn init(&self) -> u32 {
        0
    }

    fn step(&self, state: &u32, input: &Reg, output: &u32) -> Option<u32> {
        Register.step(state, input, output)
    }

    fn partition_history(&self, history: &History<Reg, u32>) -> Option<Vec<Vec<OpId>>> {
        if let Some(groups) = &self.groups {
            return Some(groups.clone());
        }
        let mut pairs: Vec<Vec<OpId>> = vec![Vec::new(); 2];
        for id in (0..history.len()).map(OpId) {
            pairs[history.get(id).thread / 2].push(id);
        }
        Some(pairs)
    }
}

/// Two registers' histories: each linearizable alone, not as one register (thread 2
/// reads 7 after thread 1 read 5, with no write of 7 after 5's).
fn two_registers() -> History<Reg, u32> {
    let mut history = History::new();
    history.complete(0, Reg::Write(5), 0, 0, 10);
    history.complete(2, Reg::Write(7), 0, 0, 10);
    history.complete(1, Reg::Read, 5, 20, 30);
    history.complete(3, Reg::Read, 7, 20, 30);
    history.complete(1, Reg::Read, 5, 40, 50);
    history.complete(3, Reg::Read, 7, 40, 50);
    history
}

#[test]
fn a_history_level_partition_checks_each_group_on_its_own() {
    let history = two_registers();
    assert!(!verdict(&Register, &history).is_linearizable(), "one register cannot read 5 and 7 in turn");
    let by_client = RegistersByClient { groups: None };
    let report = check_report(&by_client, &history, Budget::default()).expect("well-formed");
    assert!(report.verdict.is_linearizable(), "{:?}", report.verdict);
    assert_eq!(report.partitions.len(), 2);

    // A stale read in the second register's group fails there, named by its group.
    let mut history = two_registers();
    history.complete(3, Reg::Read, 0, 60, 70);
    let Linearization::NonLinearizable(failure) = verdict(&by_client, &history) else {
        panic!("thread 3 read 0 after 7")
    };
    assert_eq!(failure.key, "group 1");
    assert_eq!(failure.unplaced, OpId(6));
}

#[test]
fn a_history_level_partition_must_cover_every_operation_once() {
    let history = two_registers();
    let groups = |groups: Vec<Vec<usize>>| RegistersByClient {
        groups: Some(groups.into_iter().map(|ids| ids.into_iter().map(OpId).collect()).collect()),
    };
    let check_with = |model: &RegistersByClient, history: &History<Reg, u32>| {
        check(model, history, Budget::default()).map(|verdict| verdict.is_linearizable())
    };
    assert_eq!(check_with(&groups(vec![vec![0, 2, 4], vec![1, 3, 5]]), &history), Ok(true));
    assert_eq!(
        check_with(&groups(vec![vec![0, 2, 4], vec![1, 3, 5, 2]]), &history),
        Err(HistoryError::PartitionRepeats(OpId(2)))
    );
    assert_eq!(
        check_with(&groups(vec![vec![0, 2, 4], vec![1, 5]]), &history),
        Err(HistoryError::PartitionOmits(OpId(3)))
    );
    assert_eq!(
        check_with(&groups(vec![vec![0, 2, 4], vec![1, 3, 5, 9]]), &history),
        Err(HistoryError::UnknownOperation(OpId(9)))
    );
    // A call that never took effect may be left out; one that may have must not be.
    let mut history = two_registers();
    let lost = history.pending(0, Reg::Write(9), 60);
    history.set_pending_policy(lost, PendingPolicy::NeverTookEffect);
    assert_eq!(check_with(&groups(vec![vec![0, 2, 4], vec![1, 3, 5]]), &history), Ok(true));
    history.set_pending_policy(lost, PendingPolicy::MayHaveTakenEffect);
    assert_eq!(
        check_with(&groups(vec![vec![0, 2, 4], vec![1, 3, 5]]), &history),
        Err(HistoryError::PartitionOmits(lost))
    );
}

#[test]
fn malformed_histories_are_refused() {
    let mut history = History::new();
    history.complete(0, Reg::Read, 0, 10, 5);
    assert_eq!(
        check(&Register, &history, Budget::default()),
        Err(HistoryError::ResponseBeforeInvocation(OpId(0)))
    );
    let mut history = History::new();
    history.complete(0, Reg::Read, 0, 0, 10);
    history.complete(0, Reg::Read, 0, 5, 15);
    assert_eq!(
        check(&Register, &history, Budget::default()),
        Err(HistoryError::ThreadOverlap { thread: 0, first: OpId(0), second: OpId(1) })
    );
    let mut history = History::new();
    history.pending(0, Reg::Read, 0);
    history.complete(0, Reg::Read, 0, 5, 15);
    assert_eq!(check(&Register, &history, Budget::default()), Err(HistoryError::PendingNotLast(OpId(0))));
}

#[test]
fn exhausted_budget_answers_unknown() {
    // Many overlapping writes then a read of a value nobody wrote: the search must
    // try many orders before it can say no.
    let mut history = History::new();
    for thread in 0..6 {
        history.complete(thread, Reg::Write(thread as u32 + 1), 0, 0, 100);
    }
    history.complete(6, Reg::Read, 99, 0, 100);
    let verdict = check(&Register, &history, Budget::default().with_max_states(5)).unwrap();
    assert_eq!(verdict, Linearization::Unknown { why: Exhausted::States, states: 6 });
    assert!(!check(&Register, &history, Budget::default()).unwrap().is_linearizable());
}

#[test]
fn thousand_operation_pipe_history_is_decided_both_ways() {
    use pipecheck_properties::linearizability::{PipeModel, PipeOp, PipeOutput, synthetic_pipe_history};
    let history = synthetic_pipe_history(1_000, 7);
    assert!(verdict(&PipeModel, &history).is_linearizable());
    // Swap two bytes in the first read that saw at least two: no order allows it.
    let mut ops = history.ops().to_vec();
    let tampered = ops
        .iter_mut()
        .find_map(|op| match (&op.input, &mut op.output) {
            (PipeOp::Read, Some(PipeOutput::Read { bytes, .. })) if bytes.len() >= 2 => Some(bytes),
            _ => None,
        })
        .expect("some read saw two bytes");
    tampered.swap(0, 1);
    let mut swapped = History::new();
    for op in ops {
        swapped.push(op);
    }
    assert!(matches!(verdict(&PipeModel, &swapped), Linearization::NonLinearizable(_)));
}

/// The recorder under plain threads (under loom and shuttle its clock only works inside
/// a model; the models crate runs it there).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[test]
fn recorder_orders_real_time_across_threads() {
    use pipecheck::linearizability::Recorder;
    let recorder = Recorder::new();
    let mut first = recorder.thread(0);
    // Joined before the second thread starts: its read must come after the write.
    let first = std::thread::spawn(move || {
        first.record(Reg::Write(1), || 0);
        first
    })
    .join()
    .unwrap();
    let mut second = recorder.thread(1);
    second.record(Reg::Read, || 0);
    let history = Recorder::history([first, second]);
    assert!(history.get(OpId(0)).precedes(history.get(OpId(1))));
    assert!(!verdict(&Register, &history).is_linearizable());
}
