//! A call without a return, the natural encoding of a timed-out operation in an event
//! stream (porcupine's `CheckEvents` shape): it may have taken effect at any time after
//! its call, as porcupine's harness makes it with a return appended at the end.

use pipecheck::linearizability::foreign::etcd::{self, EtcdOp, EtcdOutput, EtcdRegister};
use pipecheck::linearizability::foreign::simulate;
use pipecheck::linearizability::{
    Budget, Event, Exhausted, History, Linearization, PendingPolicy, SequentialModel, check,
};

/// The history's events in stamp order; an operation that did not return is a call
/// only (its recorded output dropped: the stream has no return to carry it).
fn events<I: Clone, O: Clone>(history: &History<I, O>) -> Vec<Event<usize, I, O>> {
    let mut stamped = Vec::new();
    for (id, op) in history.ops().iter().enumerate() {
        stamped.push((op.invoked, 0, Event::Call { id, client: op.thread, input: op.input.clone() }));
        if let (Some(responded), Some(output)) = (op.responded, &op.output) {
            stamped.push((responded, 1, Event::Return { id, output: output.clone() }));
        }
    }
    stamped.sort_by_key(|(stamp, kind, _)| (*stamp, *kind));
    stamped.into_iter().map(|(_, _, event)| event).collect()
}

#[test]
fn timed_out_calls_in_an_event_stream_may_have_taken_effect() {
    let mut observed = 0;
    for seed in 0..12 {
        let parsed = etcd::parse(&simulate::register_log(seed, 6, 400, false)).unwrap();
        assert!(check(&EtcdRegister, &parsed, Budget::default()).unwrap().is_linearizable());
        let mut streamed = History::from_events(events(&parsed)).unwrap();
        let verdict = check(&EtcdRegister, &streamed, Budget::default()).unwrap();
        assert!(verdict.is_linearizable(), "seed {seed}: {verdict:?}");
        // The same stream with its timed-out calls assumed never to have happened: the
        // trap the default avoids (a later read sees a timed-out write).
        let pending: Vec<_> = (0..streamed.len())
            .map(pipecheck::linearizability::OpId)
            .filter(|id| !streamed.get(*id).is_complete())
            .collect();
        for id in pending {
            streamed.set_pending_policy(id, PendingPolicy::NeverTookEffect);
        }
        observed +=
            usize::from(!check(&EtcdRegister, &streamed, Budget::default()).unwrap().is_linearizable());
    }
    assert!(observed > 0, "some seed's reads observe a timed-out write");
}

/// A register that says nothing about unobserved outputs (no `expected`, no
/// `step_pending`).
#[derive(Debug)]
struct Silent;

impl SequentialModel for Silent {
    type State = Option<i64>;
    type Input = EtcdOp;
    type Output = EtcdOutput;
    fn init(&self) -> Option<i64> {
        None
    }
    fn step(&self, state: &Option<i64>, input: &EtcdOp, output: &EtcdOutput) -> Option<Option<i64>> {
        EtcdRegister.step(state, input, output)
    }
}

#[test]
fn a_model_that_cannot_say_what_a_pending_call_did_gets_no_false_failure() {
    let stream = vec![
        Event::Call { id: 0, client: 0, input: EtcdOp::Write(3) },
        Event::Call { id: 1, client: 1, input: EtcdOp::Read },
        Event::Return { id: 1, output: EtcdOutput::Read(Some(3)) },
    ];
    let history = History::from_events(stream).unwrap();
    assert!(check(&EtcdRegister, &history, Budget::default()).unwrap().is_linearizable());
    let verdict = check(&Silent, &history, Budget::default()).unwrap();
    assert!(
        matches!(verdict, Linearization::Unknown { why: Exhausted::PendingEffectUnknown, .. }),
        "{verdict:?}"
    );
}
