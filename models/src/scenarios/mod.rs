//! Every scenario, one family per file.

mod close_receive;

use crate::Scenario;

/// Every scenario, small ones first.
pub fn all() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend_from_slice(close_receive::SCENARIOS);
    all
}

/// The scenario called `name`.
pub fn find(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}
