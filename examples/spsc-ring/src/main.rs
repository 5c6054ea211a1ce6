//! The ring's and the stack's campaign (`cargo run -p spsc-ring`) and traces commands (`-- explore|replay`).
pipecheck::campaign_main!(|| vec![spsc_ring::ring_check::target(), spsc_ring::stack_check::target()]);
