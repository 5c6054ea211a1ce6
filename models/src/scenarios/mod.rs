//! Every scenario, one family per file.

mod adapters;
mod backpressure;
mod close_receive;
mod data;
mod drive;
mod fast_flush;
pub(crate) use drive::join;
mod failure;
mod flush_cancel;
mod frames;
mod large_cancel;
mod large_stream;
mod length;
mod linearizable;
mod misuse;
mod only_wake;
mod outcomes;
mod pool;
mod read_at_least;
mod reader_gone;
mod reset;
mod segment_reuse;
mod size_classes;
pub mod spin_wait;
mod stale_waker;
mod tentative_cancel;

use crate::Scenario;

/// Every scenario, small ones first.
pub fn all() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend_from_slice(close_receive::SCENARIOS);
    all.extend_from_slice(tentative_cancel::SCENARIOS);
    all.extend_from_slice(reader_gone::SCENARIOS);
    all.extend_from_slice(failure::SCENARIOS);
    all.extend_from_slice(pool::SCENARIOS);
    all.extend_from_slice(segment_reuse::SCENARIOS);
    all.extend_from_slice(data::SCENARIOS);
    all.extend_from_slice(backpressure::SCENARIOS);
    all.extend_from_slice(&frames::SCENARIOS[..1]);
    all.extend_from_slice(&read_at_least::SCENARIOS[..2]);
    all.extend_from_slice(length::SCENARIOS);
    all.extend_from_slice(reset::SCENARIOS);
    all.extend_from_slice(misuse::SCENARIOS);
    all.extend_from_slice(size_classes::SCENARIOS);
    all.extend_from_slice(only_wake::SCENARIOS);
    all.extend_from_slice(stale_waker::SCENARIOS);
    all.extend_from_slice(outcomes::SCENARIOS);
    all.extend_from_slice(spin_wait::SCENARIOS);
    all.extend_from_slice(flush_cancel::SCENARIOS);
    all.extend_from_slice(fast_flush::SCENARIOS);
    all.extend_from_slice(adapters::SCENARIOS);
    all.extend_from_slice(crate::primitives::SCENARIOS);
    all.extend_from_slice(large_stream::SCENARIOS);
    all.extend_from_slice(large_cancel::SCENARIOS);
    all.extend_from_slice(&frames::SCENARIOS[1..]);
    all.extend_from_slice(&read_at_least::SCENARIOS[2..]);
    all.extend_from_slice(linearizable::SCENARIOS);
    all
}

/// The object whose sequential model the scenario `name` checks its recorded history
/// against (`linearizable`: `"pipe"`, `"async mutex"`, `"completion source"`,
/// `"message channel"`), or `None` for a scenario that records no history.
///
/// # Examples
///
/// ```
/// assert_eq!(pipecheck_models::sequential_model("channel-linearizable"), Some("message channel"));
/// assert_eq!(pipecheck_models::sequential_model("bytes-across-segments"), None);
/// ```
pub fn sequential_model(name: &str) -> Option<&'static str> {
    linearizable::MODELS.iter().find(|(scenario, _)| *scenario == name).map(|(_, model)| *model)
}

/// The scenario called `name`.
pub fn find(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}
