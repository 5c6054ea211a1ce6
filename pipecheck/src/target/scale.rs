//! [`Scale`]: how big a scenario is, and so which engines can afford it.

/// How big a scenario is, i.e. which engines can afford it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// A few operations: small enough for loom's exhaustive search (and run by every engine).
    Small,
    /// Hundreds of operations: for shuttle's randomized and PCT schedules and for threads.
    Large,
}
