//! Which generated splits can race: a fixed scenario list (a loom test's, a target's)
//! is worth its exploration only when two threads act and one of them can change the
//! object. Two threads that only read, or one thread alone, give loom nothing to find.

use super::ops_spec::OpsSpec;

/// Whether `threads` can race: at least two threads have operations, and at least one
/// operation may change the model's state.
///
/// An operation "may change the state" when, in a state a sequential run of the split
/// reaches, the model's [`expected`](super::SequentialModel::expected) output leads to a
/// different state, or when the model does not know the output there (it cannot tell,
/// so the operation counts as a writer). Operations are tried in two sequential runs,
/// the threads in order and in reverse order, each up to its first change.
pub(super) fn can_race<S: OpsSpec>(spec: &S, threads: &[Vec<S::Input>]) -> bool {
    let acting = threads.iter().filter(|ops| !ops.is_empty()).count();
    acting >= 2 && (writes_in_order(spec, threads.iter()) || writes_in_order(spec, threads.iter().rev()))
}

/// Whether an operation changes the state (or its effect is unknown) in the sequential
/// run of `threads`, one thread after the other; operations not
/// [`enabled`](OpsSpec::enabled) where they come are skipped, as a sequence skips them.
fn writes_in_order<'a, S: OpsSpec>(spec: &S, threads: impl Iterator<Item = &'a Vec<S::Input>>) -> bool
where
    S::Input: 'a,
{
    // Until an operation changes it, the state is the initial one.
    let state = spec.init();
    for input in threads.flatten() {
        if !spec.enabled(&state, input) {
            continue;
        }
        let Some(output) = spec.expected(&state, input) else { return true };
        match spec.step(&state, input, &output) {
            Some(next) if next == state => {}
            // A new state, or a model that refuses its own expected output: not a read.
            _ => return true,
        }
    }
    false
}
