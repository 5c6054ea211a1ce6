//! The oneshot target's campaign under shuttle: every scenario clean under the random
//! and PCT schedulers, then the kill matrix of its planted faults.
//!
//! ```text
//! cargo run -p oneshot --features shuttle --bin oneshot-campaign
//! ```

#[cfg(feature = "shuttle")]
fn main() -> std::process::ExitCode {
    pipecheck_traces::campaign::campaign_main(vec![oneshot::target()])
}

#[cfg(not(feature = "shuttle"))]
fn main() -> std::process::ExitCode {
    eprintln!("the campaign runs shuttle: cargo run -p oneshot --features shuttle --bin oneshot-campaign");
    std::process::ExitCode::FAILURE
}
