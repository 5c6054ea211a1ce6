/// On threads, with 3 nodes: operation sequences that fill the stack (`Full`), which the
/// target's model (12 nodes, so that no generated loom scenario fills it while a pop is in
/// flight) never reaches.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[test]
fn sequences_of_a_stack_that_fills() {
    use pipecheck::linearizability::{SequenceConfig, check_sequences};
    let stack = spsc_ring::stack_check::StackModel(3);
    check_sequences(&stack, &SequenceConfig::default()).unwrap_or_else(|mismatch| panic!("{mismatch}"));
}
