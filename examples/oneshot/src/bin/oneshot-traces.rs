//! The traces command line over the oneshot target: explore, minimize, save and
//! replay its failing shuttle schedules.
//!
//! ```text
//! cargo run -p oneshot --features shuttle --bin oneshot-traces -- explore --scenario many-rounds --fault SkipRecheck
//! cargo run -p oneshot --features shuttle --bin oneshot-traces -- replay traces/<file>.trace
//! ```

fn main() -> std::process::ExitCode {
    pipecheck_traces::replay_main(vec![oneshot::target()])
}
