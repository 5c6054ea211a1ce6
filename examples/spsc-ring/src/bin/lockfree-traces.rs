//! The traces command line over the ring and the stack (`explore`, `minimize`, `replay`;
//! `cargo run -p spsc-ring --features shuttle --bin lockfree-traces -- --help`).

fn main() -> std::process::ExitCode {
    pipecheck_traces::replay_main(vec![spsc_ring::ring_check::target(), spsc_ring::stack_check::target()])
}
