//! Porcupine's API shapes: operations with call and return stamps, a nondeterministic
//! model through the power set of its states, and what the picture carries besides the
//! operations (annotations, metadata, state descriptions).

use pipecheck::linearizability::{
    Annotation, Budget, History, NondeterministicModel, OpId, Operation, PowerSet, SequentialModel, check,
    check_report, html,
};

/// A register whose write may be lost.
#[derive(Debug)]
struct Lossy;

impl NondeterministicModel for Lossy {
    type State = u32;
    type Input = Option<u32>;
    type Output = u32;
    fn init(&self) -> Vec<u32> {
        vec![0]
    }
    fn step(&self, state: &u32, input: &Option<u32>, output: &u32) -> Vec<u32> {
        match input {
            Some(value) => vec![*state, *value],
            None if output == state => vec![*state],
            None => Vec::new(),
        }
    }
}

fn op(
    thread: usize,
    input: Option<u32>,
    output: u32,
    invoked: u64,
    responded: u64,
) -> Operation<Option<u32>, u32> {
    Operation { thread, input, output: Some(output), invoked, responded: Some(responded) }
}

#[test]
fn a_nondeterministic_model_accepts_any_of_its_outcomes() {
    let lost = History::from_operations([op(0, Some(5), 0, 0, 1), op(0, None, 0, 2, 3)]);
    let landed = History::from_operations([op(0, Some(5), 0, 0, 1), op(0, None, 5, 2, 3)]);
    let neither = History::from_operations([op(0, Some(5), 0, 0, 1), op(0, None, 7, 2, 3)]);
    let verdict = |history: &History<_, _>| check(&PowerSet(Lossy), history, Budget::default()).unwrap();
    assert!(verdict(&lost).is_linearizable());
    assert!(verdict(&landed).is_linearizable());
    assert!(!verdict(&neither).is_linearizable());
    // Once read, the value is known: the set narrows to it.
    let after = PowerSet(Lossy).step(&PowerSet(Lossy).init(), &Some(5), &0).unwrap();
    assert_eq!(PowerSet(Lossy).describe_state(&after), "{0, 5}");
}

#[test]
fn touching_intervals_overlap_as_in_porcupine() {
    // The read returns the write's value though called at the write's return stamp.
    let history = History::from_operations([op(0, Some(5), 0, 0, 20), op(1, None, 0, 20, 30)]);
    assert!(!history.get(OpId(0)).precedes(history.get(OpId(1))));
}

#[test]
fn the_picture_carries_annotations_metadata_and_states() {
    let mut history = History::from_operations([op(0, Some(5), 0, 0, 10), op(1, None, 7, 20, 30)]);
    history.set_metadata(OpId(1), "request r-17");
    history.annotate(Annotation::tagged("nemesis", 5, 25, "partition").with_details("n1 | n2 n3"));
    history.annotate(Annotation::on_thread(0, 3, 3, "leader elected"));
    let report = check_report(&PowerSet(Lossy), &history, Budget::default()).unwrap();
    let page = html::render(&PowerSet(Lossy), &history, &report);
    assert!(page.contains(r#""meta":"request r-17""#));
    assert!(page.contains(r#""row":"nemesis""#) && page.contains(r#""details":"n1 | n2 n3""#));
    assert!(page.contains(r#""row":"thread 0 notes""#));
    // The prefix's write shows the states around it, in the model's own words.
    assert!(page.contains(r#""before":"{0}","after":"{0, 5}""#), "{page}");
}
