//! The traces command line over the ring and the stack: explore, minimize, save and
//! replay their failing shuttle schedules, with the sync facade's operations beside
//! the targets' events.
//!
//! ```text
//! cargo run -p spsc-ring --features shuttle --bin lockfree-traces -- explore --scenario push-close-races-pops --fault ClosedWithoutRecheck
//! cargo run -p spsc-ring --features shuttle --bin lockfree-traces -- replay traces/<file>.trace --no-target-events
//! ```

fn main() -> std::process::ExitCode {
    pipecheck_traces::replay_main(vec![spsc_ring::ring_check::target(), spsc_ring::stack_check::target()])
}
