//! Both targets under every engine: `cargo test -p spsc-ring` (std threads and the
//! sequential models), `--features loom`, `--features shuttle`.
#[cfg(feature = "shuttle")]
mod replay;
mod ring;
mod stack;

/// On std threads: the declaration is valid, each scenario runs clean 20 times, and
/// operation sequences on one thread match the model.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn on_threads<S: pipecheck_properties::linearizability::OpsSpec>(target: &pipecheck_models::Target, spec: S) {
    use pipecheck_properties::linearizability::{SequenceConfig, check_sequences};
    target.validate().unwrap();
    for scenario in target.all_scenarios() {
        (0..20).for_each(|_| scenario.run_once(None, &|_| {}));
    }
    check_sequences(&spec, &SequenceConfig::default()).unwrap();
}
