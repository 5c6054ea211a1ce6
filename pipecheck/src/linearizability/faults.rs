//! The planted bugs of the linearizability checker itself: each makes the search more
//! lenient or stricter than Wing & Gong's, and the [corpus](super::corpus) of histories
//! with known verdicts must notice (`cargo campaign --fault CheckerAcceptsReorder`
//! fails, naming the entries that flipped).
//!
//! They are declared with [`planted_faults!`](crate::planted_faults), as the
//! pipe's are, and switched on the same way ([`PlantedFault::activate`]); a check reads
//! the switch once, on the thread that calls it, so partitions searched on other
//! threads see it too. They belong to no target: the campaign runs them against the
//! corpus, not in the kill matrix.
//!
//! [`PlantedFault::activate`]: crate::PlantedFault::activate

use pipecheck_sync::InvariantId;

/// What a planted checker bug breaks: the checker's verdict on a history whose verdict
/// is known (an entry of the [corpus](super::corpus)).
pub const CHECKER_CORPUS: InvariantId = InvariantId::new("checker-corpus");

pipecheck_sync::planted_faults! {
    /// The search takes every thread's next operation as a candidate, whether or not
    /// another operation returned before it was invoked: a pair of operations that do
    /// not overlap may be placed in either order (and under causal precedence, an
    /// operation before one that happens before it). Breaks **checker-corpus**.
    CheckerAcceptsReorder breaks CHECKER_CORPUS;
    /// The search never places an operation that did not return, so a pending write
    /// whose value a later read saw cannot explain that read. Breaks **checker-corpus**.
    CheckerNeverPlacesPending breaks CHECKER_CORPUS;
}
