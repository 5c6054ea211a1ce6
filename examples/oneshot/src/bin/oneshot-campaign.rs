//! The oneshot target's campaign: every scenario clean, then the kill matrix of its
//! planted faults, under the build's checker.
//!
//! ```text
//! cargo run -p oneshot --features loom --bin oneshot-campaign      # small scenarios, every interleaving
//! cargo run -p oneshot --features shuttle --bin oneshot-campaign   # random and PCT schedules
//! ```

fn main() -> std::process::ExitCode {
    pipecheck_models::target::campaign::main(vec![oneshot::target()])
}
