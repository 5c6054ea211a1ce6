//! Clean runs and the kill matrix of the ring and the stack under the build's checker:
//! `cargo run -p spsc-ring --features loom --bin lockfree-campaign` (or `--features shuttle`).

fn main() -> std::process::ExitCode {
    pipecheck_models::target::campaign::main(vec![
        spsc_ring::ring_check::target(),
        spsc_ring::stack_check::target(),
    ])
}
