//! The ring's and the stack's campaign: clean runs and the kill matrix under loom and
//! shuttle, merged into one report (`cargo run -p spsc-ring --bin lockfree-campaign`).

pipecheck_runner::campaign_main!(|| vec![spsc_ring::ring_check::target(), spsc_ring::stack_check::target()]);
