//! What the campaign binary's `verify_every_target` does not check: the queue checked
//! against its *strict* sequential model, which every engine that can reach the relaxed
//! answer must refuse, naming the answer (`cargo test -p mpmc-queue`, `--features loom`,
//! `--features shuttle`).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod histories;
#[cfg(feature = "loom")]
mod loom;
#[cfg(all(feature = "shuttle", not(feature = "loom")))]
mod shuttle;

use mpmc_queue::queue_check::Op;

/// Two threads that push, then pop: a pop may meet the other thread's claimed cell.
pub fn push_then_pop() -> Vec<Vec<Op>> {
    vec![vec![Op::Push(1), Op::Pop], vec![Op::Push(2), Op::Pop]]
}
