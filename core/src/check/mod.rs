//! The checking vocabulary every target shares: invariant ids, the violation a checker
//! raises, and planted bugs (the pipe's own in [`fault`]).

pub mod fault;
pub(crate) mod invariant_id;
pub(crate) mod planted;
pub(crate) mod violation;
