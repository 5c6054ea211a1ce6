//! Foreign histories: the two log formats of porcupine's test data, their models, and
//! a simulator that writes such logs with known verdicts (so the comparison runs
//! without the data set, and in CI).
//!
//! * [`etcd`]: Jepsen's etcd register test (`INFO  jepsen.util - 3⇥:invoke⇥:cas⇥[1 4]`, ⇥ a tab):
//!   read, write and compare-and-set on one register; an `:info` outcome (a timeout)
//!   may or may not have taken effect ([`PendingPolicy::MayHaveTakenEffect`](super::PendingPolicy)).
//! * [`kv`]: the key-value format (`{:process 0, :type :invoke, :f :append, :key "0",
//!   :value "x 0 0 y"}`): get, put and append on string keys, partitioned per key.
//! * [`simulate`]: a register and a key-value store under random concurrency, with
//!   timeouts and, on request, one injected fault that no linearization can explain.

pub mod etcd;
pub mod kv;
pub mod simulate;

/// A foreign log that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line.
    pub line: usize,
    /// What was wrong.
    pub reason: &'static str,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for ParseError {}
