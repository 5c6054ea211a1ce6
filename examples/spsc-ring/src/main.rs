//! The ring's and the stack's campaign, loom and shuttle in one report (`cargo run -p spsc-ring`), and
//! their traces commands (`cargo run -p spsc-ring --features shuttle -- explore|replay|minimize|corpus`).
pipecheck_runner::campaign_main!(|| vec![spsc_ring::ring_check::target(), spsc_ring::stack_check::target()]);
